#include "verlpp/model/layers/gated_deltanet.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include "verlpp/core/error.h"
#include "verlpp/kernels/causal_conv1d.h"
#include "verlpp/kernels/delta_rule_decode.h"
#include "verlpp/model/layers/rms_norm.h"
#include "verlpp/model/weight_table.h"

namespace verlpp::model {

void declare_gated_deltanet(WeightTable& table, const std::string& prefix, int64_t layer,
                            GatedDeltaNetWeights& w, const ModelConfig& c) {
  const LinearAttentionConfig& l = c.linear_attention;
  const int64_t h = c.hidden_size;
  declare_linear(table, prefix + "in_proj_qkv", layer, w.in_proj_qkv, l.conv_dim(), h, false,
                 "2 * linear_num_key_heads * linear_key_head_dim + linear_num_value_heads * "
                 "linear_value_head_dim, hidden_size");
  declare_linear(table, prefix + "in_proj_z", layer, w.in_proj_z, l.value_dim(), h, false,
                 "linear_num_value_heads * linear_value_head_dim, hidden_size");
  declare_linear(table, prefix + "in_proj_b", layer, w.in_proj_b, l.num_value_heads, h, false,
                 "linear_num_value_heads, hidden_size");
  declare_linear(table, prefix + "in_proj_a", layer, w.in_proj_a, l.num_value_heads, h, false,
                 "linear_num_value_heads, hidden_size");
  table.add({prefix + "conv1d.weight",
             {l.conv_dim(), 1, l.conv_kernel_dim},
             WeightInit::normal,
             layer,
             0,
             "2 * linear_num_key_heads * linear_key_head_dim + linear_num_value_heads * "
             "linear_value_head_dim, 1, linear_conv_kernel_dim",
             {},
             &w.conv1d});
  table.add({prefix + "dt_bias",
             {l.num_value_heads},
             WeightInit::ones,
             layer,
             0,
             "linear_num_value_heads",
             {},
             &w.dt_bias});
  table.add({prefix + "A_log",
             {l.num_value_heads},
             WeightInit::log_uniform,
             layer,
             0,
             "linear_num_value_heads",
             {},
             &w.A_log});
  table.add({prefix + "norm.weight",
             {l.value_head_dim},
             WeightInit::ones,
             layer,
             0,
             "linear_value_head_dim",
             {},
             &w.norm});
  declare_linear(table, prefix + "out_proj", layer, w.out_proj, h, l.value_dim(), false,
                 "hidden_size, linear_num_value_heads * linear_value_head_dim");
}

LayerStateSpec gated_deltanet_state(const ModelConfig& c) {
  const LinearAttentionConfig& l = c.linear_attention;
  LayerStateSpec spec;
  spec.kind = LayerStateKind::linear_attention;
  spec.conv_dim = l.conv_dim();
  spec.conv_window = l.conv_kernel_dim - 1;
  spec.value_heads = l.num_value_heads;
  spec.key_head_dim = l.key_head_dim;
  spec.value_head_dim = l.value_head_dim;
  return spec;
}

namespace {

// silu(sum_j w_j c_{t - (K-1) + j}) per channel over [T, C], taps before a sequence's first token
// reading 0: a depthwise convolution without padding over the tokens with conv_window zero rows
// before each sequence (layout.conv_rows), as transformers' nn.Conv1d computes it in the weight's
// dtype (fp32 accumulation on CUDA, one rounding), then silu; on CUDA (one cuDNN kernel).
at::Tensor cudnn_conv(const at::Tensor& c, const at::Tensor& weight, const DeltaRuleLayout& l) {
  const int64_t C = c.size(1);
  if (l.conv_window != weight.size(-1) - 1) {
    throw Error("gated_deltanet: the layout's conv window does not match linear_conv_kernel_dim");
  }
  const at::Tensor rows = at::cat({c, at::zeros({1, C}, c.options())}).index_select(0, l.conv_rows);
  const at::Tensor out =
      at::conv1d(rows.t().unsqueeze(0).to(weight.scalar_type()), weight, at::Tensor(),
                 at::IntArrayRef{1}, at::IntArrayRef{0}, at::IntArrayRef{1}, C);
  return at::silu(out.squeeze(0).t().index_select(0, l.conv_outputs).to(c.scalar_type()));
}

// The same on the CPU as K shifted products (offsets: each token's index within its sequence),
// summed in fp32 and rounded once: in fp32 as close to the float64 value as transformers' conv.
at::Tensor shifted_conv(const at::Tensor& c, const at::Tensor& weight, const at::Tensor& offsets) {
  const int64_t T = c.size(0), C = c.size(1), K = weight.size(-1);
  const at::Tensor taps = weight.view({C, K}).to(at::kFloat);
  const at::Tensor cf = c.to(at::kFloat);
  at::Tensor sum = cf * taps.select(1, K - 1);
  for (int64_t shift = 1; shift < K && shift < T; ++shift) {
    const at::Tensor earlier =
        at::cat({at::zeros({shift, C}, cf.options()), cf.narrow(0, 0, T - shift)});
    const at::Tensor inside = offsets.ge(shift).unsqueeze(1);
    sum = sum + at::where(inside, earlier, 0.0) * taps.select(1, K - 1 - shift);
  }
  return at::silu(sum.to(c.scalar_type()));
}

// The same in verlpp's CUDA kernels (kernels/causal_conv1d.h), forward and backward.
struct KernelConv : torch::autograd::Function<KernelConv> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const at::Tensor& c, const at::Tensor& weight,
                                                const at::Tensor& offsets) {
    ctx->save_for_backward({c, weight, offsets});
    return {kernels::causal_conv1d_silu(c, weight, offsets)};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const kernels::CausalConv1dGrad grad = kernels::causal_conv1d_silu_backward(
        saved[0], saved[1], saved[2], grad_out[0].contiguous());
    return {grad.x, grad.weight, at::Tensor()};
  }
};

at::Tensor causal_conv(const at::Tensor& c, const at::Tensor& weight, const DeltaRuleLayout& l) {
  if (kernels::can_causal_conv1d(c, weight)) {
    return KernelConv::apply(c, weight, l.token_offsets)[0];
  }
  return c.is_cuda() ? cudnn_conv(c, weight, l) : shifted_conv(c, weight, l.token_offsets);
}

// The decode step's conv: the slot windows [N, C, K-1] and the new column give the output, and
// the window moves on by one column (written back to the slots).
at::Tensor conv_step(const at::Tensor& c, const at::Tensor& weight, at::Tensor& windows,
                     const at::Tensor& slots) {
  const int64_t C = c.size(1), K = weight.size(-1);
  const at::Tensor window = at::cat({windows.index_select(0, slots), c.unsqueeze(-1)}, -1);
  const at::Tensor out = (window.to(at::kFloat) * weight.view({1, C, K}).to(at::kFloat)).sum(-1);
  windows.index_copy_(0, slots, window.narrow(-1, 1, K - 1));
  return at::silu(out.to(c.scalar_type()));
}

// Prefill: the last K-1 pre-conv columns of each sequence (zeros before its start) into its slot.
void store_windows(const at::Tensor& c, const DeltaRuleLayout& layout, const at::Tensor& slots,
                   at::Tensor& windows) {
  const int64_t C = c.size(1), W = windows.size(-1);
  const at::Tensor gathered =
      at::cat({c, at::zeros({1, C}, c.options())}).index_select(0, layout.window_rows);
  windows.index_copy_(
      0, slots, gathered.view({slots.size(0), W, C}).transpose(1, 2).to(windows.scalar_type()));
}

// The delta rule's inputs after the conv: q, k [T, Hv, dk] (key heads repeated for the value heads
// that share them), v [T, Hv, dv], g [T, Hv] fp32, beta [T, Hv].
struct RuleInputs {
  at::Tensor q, k, v, g, beta;
};

RuleInputs rule_inputs(const GatedDeltaNetWeights& w, const LinearAttentionConfig& l,
                       const at::Tensor& conv, const at::Tensor& a, const at::Tensor& b) {
  const int64_t T = conv.size(0), Hk = l.num_key_heads, Hv = l.num_value_heads;
  const int64_t Kd = l.key_dim();
  RuleInputs in;
  in.q = conv.narrow(1, 0, Kd).view({T, Hk, l.key_head_dim});
  in.k = conv.narrow(1, Kd, Kd).view({T, Hk, l.key_head_dim});
  in.v = conv.narrow(1, 2 * Kd, l.value_dim()).view({T, Hv, l.value_head_dim});
  if (Hv > Hk) {
    in.q = in.q.repeat_interleave(Hv / Hk, 1);
    in.k = in.k.repeat_interleave(Hv / Hk, 1);
  }
  in.g = -w.A_log.to(at::kFloat).exp() * at::softplus(a.to(at::kFloat) + w.dt_bias.to(at::kFloat));
  in.beta = at::sigmoid(b);
  return in;
}

// One decode step for the rows of `slots`: on CUDA three of verlpp's kernels (the conv window
// update, the step's inputs, the fused recurrent step), otherwise the same in ATen.
at::Tensor decode_step(const GatedDeltaNetWeights& w, const LinearAttentionConfig& l,
                       const at::Tensor& mixed, const at::Tensor& a, const at::Tensor& b,
                       RecurrentStateView& state, const at::Tensor& slots) {
  if (kernels::can_causal_conv1d_update(mixed, w.conv1d, state.conv) &&
      kernels::can_delta_rule_decode_inputs(mixed, a, b, w.A_log, w.dt_bias) &&
      kernels::can_delta_rule_decode(state.recurrent)) {
    const at::Tensor conv = kernels::causal_conv1d_update(mixed, w.conv1d, state.conv, slots);
    const kernels::DeltaRuleDecodeInputs in = kernels::delta_rule_decode_inputs(
        conv, a, b, w.A_log, w.dt_bias, l.num_key_heads, l.key_head_dim, l.value_head_dim);
    return kernels::delta_rule_decode(in.q, in.k, in.v, in.g, in.beta, state.recurrent, slots);
  }
  const RuleInputs in = rule_inputs(w, l, conv_step(mixed, w.conv1d, state.conv, slots), a, b);
  return recurrent_gated_delta_rule_update(in.q, in.k, in.v, in.g, in.beta, state.recurrent, slots);
}

// A prefill whose sequences may continue after earlier tokens (ContextKeys): the conv over each
// sequence preceded by its slot's window (zeros for a fresh sequence), the delta rule from its
// slot's state (zeros for a fresh one); the new windows and states go back to the slots.
at::Tensor continued_prefill(const GatedDeltaNetWeights& w, const LinearAttentionConfig& l,
                             const at::Tensor& mixed, const at::Tensor& a, const at::Tensor& b,
                             const LayerContext& ctx, RecurrentStateView& state) {
  const ContextKeys& context = *ctx.context;
  if (!context.conv_layout || !ctx.delta_rule) {
    throw Error("gated_deltanet: a continued prefill has no conv or delta-rule layout");
  }
  const at::Tensor& slots = ctx.sequence_slots;
  const int64_t S = slots.size(0), C = mixed.size(1), W = state.conv.size(-1);
  // A fresh sequence's slot may hold anything of an earlier request: selected away, not scaled.
  const at::Tensor& continues = context.continues;
  const at::Tensor windows =
      at::where(continues.view({S, 1, 1}), state.conv.index_select(0, slots), 0.0)
          .to(mixed.scalar_type())
          .transpose(1, 2)
          .reshape({S * W, C});
  const at::Tensor extended = at::cat({mixed, windows}).index_select(0, context.conv_source_rows);
  store_windows(extended, *context.conv_layout, slots, state.conv);
  const at::Tensor conv = causal_conv(extended, w.conv1d, *context.conv_layout)
                              .index_select(0, context.conv_token_rows);
  const RuleInputs in = rule_inputs(w, l, conv, a, b);
  const at::Tensor initial =
      at::where(continues.view({S, 1, 1, 1}), state.recurrent.index_select(0, slots), 0.0);
  const DeltaRuleOutput rule =
      chunk_gated_delta_rule(in.q, in.k, in.v, in.g, in.beta, *ctx.delta_rule, initial);
  state.recurrent.index_copy_(0, slots, rule.final_state);
  return rule.o;
}

}  // namespace

at::Tensor gated_deltanet(const GatedDeltaNetWeights& w, const ModelConfig& c, const at::Tensor& h,
                          const LayerContext& ctx, int64_t layer) {
  const LinearAttentionConfig& l = c.linear_attention;
  const int64_t T = h.size(0);
  const at::Tensor x =
      ctx.layout.padded() ? h * ctx.layout.key_mask.reshape({T, 1}).to(h.dtype()) : h;
  const at::Tensor mixed = w.in_proj_qkv(x);
  const at::Tensor z = w.in_proj_z(x).view({T, l.num_value_heads, l.value_head_dim});
  const at::Tensor a = w.in_proj_a(x), b = w.in_proj_b(x);
  RecurrentStateView* state = nullptr;
  if (ctx.state != nullptr) state = &ctx.state->recurrent.at(static_cast<size_t>(layer));
  at::Tensor rule_o;
  if (ctx.decode != nullptr) {
    rule_o = decode_step(w, l, mixed, a, b, *state, ctx.decode->state_slots);
  } else if (ctx.context != nullptr && state != nullptr) {
    rule_o = continued_prefill(w, l, mixed, a, b, ctx, *state);
  } else {
    if (!ctx.delta_rule) throw Error("gated_deltanet: the forward has no delta-rule layout");
    if (state != nullptr) store_windows(mixed, *ctx.delta_rule, ctx.sequence_slots, state->conv);
    const RuleInputs in = rule_inputs(w, l, causal_conv(mixed, w.conv1d, *ctx.delta_rule), a, b);
    const DeltaRuleOutput rule =
        chunk_gated_delta_rule(in.q, in.k, in.v, in.g, in.beta, *ctx.delta_rule);
    if (state != nullptr) {
      state->recurrent.index_copy_(0, ctx.sequence_slots, rule.final_state);
    }
    rule_o = rule.o;
  }
  const at::Tensor o = gated_rms_norm(rule_o.to(h.scalar_type()), z, w.norm, c.rms_norm_eps);
  return w.out_proj(o.reshape({T, l.value_dim()}));
}

}  // namespace verlpp::model
