#include "verlpp/model/logprob.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/autograd/custom_function.h>

#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/kernels/invariant_ops.h"
#include "verlpp/kernels/logits_logprob.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/layers/linear.h"

namespace verlpp::model {

namespace {

void check_inputs(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& targets,
                  double temperature, int64_t chunk_tokens) {
  if (hidden.dim() != 2 || weight.dim() != 2 || hidden.size(1) != weight.size(1)) {
    throw Error(fmt::format("log-prob: hidden [T, H] and weight [V, H] expected, got [{}] and [{}]",
                            fmt::join(hidden.sizes(), ", "), fmt::join(weight.sizes(), ", ")));
  }
  if (targets.dim() != 1 || targets.size(0) != hidden.size(0)) {
    throw Error(fmt::format("log-prob: targets must be [{}], got [{}]", hidden.size(0),
                            fmt::join(targets.sizes(), ", ")));
  }
  if (!(temperature > 0.0))
    throw Error(fmt::format("log-prob: temperature {} must be > 0", temperature));
  if (chunk_tokens <= 0) throw Error("log-prob: chunk_tokens must be > 0");
}

// One chunk's logits, fp32 [n, V]: the GEMM writes them in fp32 (model/layers/linear.h).
at::Tensor chunk_logits(const at::Tensor& h, const at::Tensor& weight) {
  return logits_fp32(h, weight);
}

// log_softmax of one chunk's scaled logits, fp32 [n, V].
at::Tensor chunk_log_softmax(const at::Tensor& h, const at::Tensor& weight, double temperature) {
  at::Tensor logits = chunk_logits(h, weight);
  if (temperature != 1.0) logits.div_(temperature);
  return at::log_softmax(logits, -1);
}

// On CUDA without ids to gather, a chunk's log-probs (and entropy) come from verlpp's kernel
// (kernels/logits_logprob.h): one pass over the logits instead of log_softmax's [n, V] output
// and the passes over it; its per-row maximum and log-sum are kept for the backward.
struct KernelRows {
  at::Tensor row_max, log_sum, entropy;  // [T] fp32 (entropy undefined without it)

  kernels::LogitsLogProb chunk(int64_t a, int64_t n) const {
    kernels::LogitsLogProb f;
    f.row_max = row_max.narrow(0, a, n);
    f.log_sum = log_sum.narrow(0, a, n);
    if (entropy.defined()) f.entropy = entropy.narrow(0, a, n);
    return f;
  }
};

at::Tensor chunk_of(const at::Tensor& t, int64_t a, int64_t n) {
  return t.defined() && t.numel() > 0 ? t.narrow(0, a, n).to(at::kFloat).contiguous()
                                      : at::Tensor();
}

// ids: [T, K] int64 (K may be 0): the positions whose log-probs are also gathered.
struct ChunkedLogProb : torch::autograd::Function<ChunkedLogProb> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const at::Tensor& hidden, const at::Tensor& weight,
                                                const at::Tensor& targets, const at::Tensor& ids,
                                                double temperature, bool with_entropy,
                                                int64_t chunk) {
    const int64_t T = hidden.size(0), K = ids.size(1);
    const auto f32 = hidden.options().dtype(at::kFloat);
    at::Tensor lp = at::empty({T}, f32);
    at::Tensor ent = at::empty({with_entropy ? T : 0}, f32);
    at::Tensor gathered = at::empty({T, K}, f32);
    at::Tensor top_ids = at::empty({T, K}, ids.options());
    KernelRows rows;
    for (int64_t a = 0; a < T; a += chunk) {
      const int64_t n = std::min(chunk, T - a);
      const at::Tensor chunk_targets = targets.narrow(0, a, n).contiguous();
      at::Tensor logits = chunk_logits(hidden.narrow(0, a, n), weight);
      if (K == 0 && kernels::can_logits_logprob(logits)) {
        if (!rows.row_max.defined()) {
          rows.row_max = at::empty({T}, f32);
          rows.log_sum = at::empty({T}, f32);
        }
        const kernels::LogitsLogProb r =
            kernels::logits_logprob(logits, chunk_targets, temperature, with_entropy);
        // Batch-invariant mode: the function the rollout's sampler reports its log-probs with.
        lp.narrow(0, a, n).copy_(batch_invariant() ? kernels::invariant_token_logprobs(
                                                         logits, chunk_targets, temperature)
                                                   : r.logprob);
        rows.row_max.narrow(0, a, n).copy_(r.row_max);
        rows.log_sum.narrow(0, a, n).copy_(r.log_sum);
        if (with_entropy) ent.narrow(0, a, n).copy_(r.entropy);
        continue;
      }
      // Batch-invariant mode: the function the rollout's sampler reports its log-probs with (it
      // divides by the temperature itself).
      const at::Tensor invariant_lp =
          batch_invariant() ? kernels::invariant_token_logprobs(logits, chunk_targets, temperature)
                            : at::Tensor();
      if (temperature != 1.0) logits.div_(temperature);
      const at::Tensor logp = at::log_softmax(logits, -1);
      lp.narrow(0, a, n).copy_(invariant_lp.defined()
                                   ? invariant_lp
                                   : logp.gather(1, chunk_targets.unsqueeze(1)).squeeze(1));
      if (with_entropy) ent.narrow(0, a, n).copy_(-(logp.exp() * logp).sum(-1));
      if (K > 0) {
        gathered.narrow(0, a, n).copy_(logp.gather(1, ids.narrow(0, a, n)));
        top_ids.narrow(0, a, n).copy_(std::get<1>(at::topk(logp, K, -1)));
      }
    }
    if (rows.row_max.defined() && with_entropy) rows.entropy = ent.clone();
    ctx->save_for_backward(
        {hidden, weight, targets, ids, rows.row_max, rows.log_sum, rows.entropy});
    ctx->saved_data["temperature"] = temperature;
    ctx->saved_data["with_entropy"] = with_entropy;
    ctx->saved_data["chunk"] = chunk;
    ctx->mark_non_differentiable({top_ids});
    return {lp, ent, gathered, top_ids};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& hidden = saved[0];
    const at::Tensor& weight = saved[1];
    const at::Tensor& targets = saved[2];
    const at::Tensor& ids = saved[3];
    const KernelRows rows{saved[4], saved[5], saved[6]};
    const double temperature = ctx->saved_data["temperature"].toDouble();
    const bool with_entropy = ctx->saved_data["with_entropy"].toBool();
    const int64_t chunk = ctx->saved_data["chunk"].toInt();
    const at::Tensor& g_lp = grad_out[0];
    const at::Tensor& g_ent = grad_out[1];
    const at::Tensor& g_gathered = grad_out[2];
    const int64_t T = hidden.size(0);
    at::Tensor grad_hidden = at::empty_like(hidden);
    at::Tensor grad_weight = at::zeros(weight.sizes(), weight.options().dtype(at::kFloat));
    const bool kernel = rows.row_max.defined() && !(g_gathered.defined() && g_gathered.numel() > 0);
    for (int64_t a = 0; a < T; a += chunk) {
      const int64_t n = std::min(chunk, T - a);
      const at::Tensor h = hidden.narrow(0, a, n);
      at::Tensor grad_h = grad_hidden.narrow(0, a, n);
      if (kernel) {
        const at::Tensor gz_model = kernels::logits_logprob_backward(
            chunk_logits(h, weight), targets.narrow(0, a, n).contiguous(), rows.chunk(a, n),
            chunk_of(g_lp, a, n), with_entropy ? chunk_of(g_ent, a, n) : at::Tensor(), temperature,
            weight.scalar_type());
        at::mm_out(grad_h, gz_model, weight);
        compat::addmm_fp32_(grad_weight, gz_model.t(), h);
        continue;
      }
      const at::Tensor logp = chunk_log_softmax(h, weight, temperature);
      const at::Tensor p = logp.exp();
      at::Tensor gz = at::zeros_like(logp);  // d loss / d (logits / temperature), fp32 [n, V]
      if (g_lp.defined()) {
        const at::Tensor g = g_lp.narrow(0, a, n).to(at::kFloat).unsqueeze(1);
        gz.sub_(p * g);
        gz.scatter_add_(1, targets.narrow(0, a, n).unsqueeze(1), g);
      }
      if (g_gathered.defined() && g_gathered.numel() > 0) {
        const at::Tensor g = g_gathered.narrow(0, a, n).to(at::kFloat);
        gz.sub_(p * g.sum(-1, /*keepdim=*/true));
        gz.scatter_add_(1, ids.narrow(0, a, n), g);
      }
      if (with_entropy && g_ent.defined() && g_ent.numel() > 0) {
        const at::Tensor H = -(p * logp).sum(-1, /*keepdim=*/true);
        gz.sub_(p * (logp + H) * g_ent.narrow(0, a, n).to(at::kFloat).unsqueeze(1));
      }
      if (temperature != 1.0) gz.div_(temperature);
      // Both products in the model dtype (tensor cores for bf16, as autograd through bf16
      // logits would run them); the weight gradient is summed over chunks in fp32.
      const at::Tensor gz_model = gz.to(weight.scalar_type());
      at::mm_out(grad_h, gz_model, weight);
      compat::addmm_fp32_(grad_weight, gz_model.t(), h);
    }
    return {grad_hidden,  grad_weight.to(weight.scalar_type()),
            at::Tensor(), at::Tensor(),
            at::Tensor(), at::Tensor(),
            at::Tensor()};
  }
};

}  // namespace

LogProbEntropy chunked_logprob_entropy(const at::Tensor& hidden, const at::Tensor& weight,
                                       const at::Tensor& targets, double temperature,
                                       bool with_entropy, int64_t chunk_tokens) {
  const at::Tensor no_ids = at::empty({hidden.size(0), 0}, hidden.options().dtype(at::kLong));
  GatheredLogProbs out = chunked_logprobs_at_ids(hidden, weight, targets, no_ids, temperature,
                                                 with_entropy, chunk_tokens);
  return {out.logprobs, out.entropy};
}

GatheredLogProbs chunked_logprobs_at_ids(const at::Tensor& hidden, const at::Tensor& weight,
                                         const at::Tensor& targets, const at::Tensor& ids,
                                         double temperature, bool with_entropy,
                                         int64_t chunk_tokens) {
  check_inputs(hidden, weight, targets, temperature, chunk_tokens);
  if (ids.dim() != 2 || ids.size(0) != hidden.size(0) || ids.size(1) > weight.size(0)) {
    throw Error(fmt::format("log-prob: ids must be [{}, K] with K <= {}, got [{}]", hidden.size(0),
                            weight.size(0), fmt::join(ids.sizes(), ", ")));
  }
  auto out = ChunkedLogProb::apply(hidden, weight, targets.to(hidden.device(), at::kLong),
                                   ids.to(hidden.device(), at::kLong), temperature, with_entropy,
                                   chunk_tokens);
  return {out[0], with_entropy ? out[1] : at::Tensor(), out[2], out[3]};
}

TopkLogProbs chunked_topk_logprobs(const at::Tensor& hidden, const at::Tensor& weight, int64_t k,
                                   double temperature, int64_t chunk_tokens) {
  const at::Tensor no_targets = at::zeros({hidden.size(0)}, hidden.options().dtype(at::kLong));
  check_inputs(hidden, weight, no_targets, temperature, chunk_tokens);
  if (k < 1 || k > weight.size(0)) {
    throw Error(fmt::format("top-k log-probs: k = {} must be between 1 and the vocabulary size {}",
                            k, weight.size(0)));
  }
  c10::AutoGradMode no_grad(false);
  const int64_t T = hidden.size(0);
  TopkLogProbs out{at::empty({T, k}, hidden.options().dtype(at::kLong)),
                   at::empty({T, k}, hidden.options().dtype(at::kFloat))};
  for (int64_t a = 0; a < T; a += chunk_tokens) {
    const int64_t n = std::min(chunk_tokens, T - a);
    const auto [values, indices] =
        at::topk(chunk_log_softmax(hidden.narrow(0, a, n), weight, temperature), k, -1);
    out.ids.narrow(0, a, n).copy_(indices);
    out.logprobs.narrow(0, a, n).copy_(values);
  }
  return out;
}

at::Tensor chunked_kl_divergence(const at::Tensor& hidden_p, const at::Tensor& weight_p,
                                 double temperature_p, const at::Tensor& hidden_q,
                                 const at::Tensor& weight_q, double temperature_q,
                                 int64_t chunk_tokens) {
  const at::Tensor no_targets = at::zeros({hidden_p.size(0)}, hidden_p.options().dtype(at::kLong));
  check_inputs(hidden_p, weight_p, no_targets, temperature_p, chunk_tokens);
  check_inputs(hidden_q, weight_q, no_targets.to(hidden_q.device()), temperature_q, chunk_tokens);
  if (weight_p.size(0) != weight_q.size(0)) {
    throw Error(fmt::format("KL divergence: vocabularies of {} and {} tokens differ",
                            weight_p.size(0), weight_q.size(0)));
  }
  c10::AutoGradMode no_grad(false);
  const int64_t T = hidden_p.size(0);
  at::Tensor out = at::empty({T}, hidden_p.options().dtype(at::kFloat));
  for (int64_t a = 0; a < T; a += chunk_tokens) {
    const int64_t n = std::min(chunk_tokens, T - a);
    const at::Tensor log_p = chunk_log_softmax(hidden_p.narrow(0, a, n), weight_p, temperature_p);
    const at::Tensor log_q =
        chunk_log_softmax(hidden_q.narrow(0, a, n), weight_q, temperature_q).to(log_p.device());
    out.narrow(0, a, n).copy_((log_p.exp() * (log_p - log_q)).sum(-1));
  }
  return out;
}

at::Tensor chunked_sum_pi_squared(const at::Tensor& hidden, const at::Tensor& weight,
                                  double temperature, int64_t chunk_tokens) {
  const at::Tensor no_targets = at::zeros({hidden.size(0)}, hidden.options().dtype(at::kLong));
  check_inputs(hidden, weight, no_targets, temperature, chunk_tokens);
  c10::AutoGradMode no_grad(false);
  const int64_t T = hidden.size(0);
  at::Tensor out = at::empty({T}, hidden.options().dtype(at::kFloat));
  for (int64_t a = 0; a < T; a += chunk_tokens) {
    const int64_t n = std::min(chunk_tokens, T - a);
    at::Tensor logits = chunk_logits(hidden.narrow(0, a, n), weight);
    if (temperature != 1.0) logits.div_(temperature);
    out.narrow(0, a, n).copy_(
        (at::logsumexp(2.0 * logits, {-1}) - 2.0 * at::logsumexp(logits, {-1})).exp());
  }
  return out;
}

LogProbEntropy logprob_entropy_from_logits(const at::Tensor& logits, const at::Tensor& targets,
                                           double temperature, bool with_entropy) {
  if (!(temperature > 0.0))
    throw Error(fmt::format("log-prob: temperature {} must be > 0", temperature));
  const at::Tensor logp = at::log_softmax(logits.to(at::kFloat) / temperature, -1);
  LogProbEntropy out;
  out.logprobs = logp.gather(-1, targets.to(logits.device(), at::kLong).unsqueeze(-1)).squeeze(-1);
  if (with_entropy) out.entropy = -(logp.exp() * logp).sum(-1);
  return out;
}

}  // namespace verlpp::model
