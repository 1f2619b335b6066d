// Actor-update throughput: forward + backward + AdamW of a preset's shape on packed
// micro-batches, as `verlpp ppo`'s actor update runs it (packed forward, chunked log-prob,
// AdamW on fp32 masters), against bench/baselines/train_step_hf.py (transformers + PyTorch on
// the same batch shape) when its JSON result is given.
//
//   verlpp_train_step_bench --preset qwen3-1.7b [--micro-tokens 8192] [--seq-len 1024]
//       [--micro-batches 1] [--steps 8] [--warmup 3] [--dtype bfloat16] [--grad-ckpt 0]
//       [--baseline hf.json] [--logprob-only 0] [--layers N]
//
// Presets: qwen3-0.6b, qwen3-1.7b, qwen3-30b-a3b (Qwen3-MoE), qwen3.5-2b and qwen3.5-35b-a3b
// (Qwen3.5 / Qwen3.5-MoE: Gated DeltaNet layers with every fourth layer full attention); --layers
// cuts a preset to N layers (Qwen3.5: the first N of its layer_types, the same every-fourth
// pattern extended past the preset's depth), as bench/baselines/train_step_hf.py --layers does.
// Weights are drawn on the GPU in --dtype (default bfloat16: bf16 parameters and compute; the
// update keeps fp32 AdamW masters), so a --logprob-only 1 pass is the counterpart of
// train_step_hf.py --param-dtype bfloat16 and the update that of its default fp32 parameters
// under bf16 autocast.
//
// A step is `micro-batches` forward/backward passes of micro-tokens tokens each (sequences of
// seq-len tokens packed back to back; the loss is the mean negative log-prob of the next token)
// and one optimizer step. With --logprob-only 1 a step is one forward log-prob pass without a
// graph (old_log_prob / ref). Prints tokens/s, MFU (verl's flops_counter as trainer/flops.cpp:
// 6N + 6·Σs²·d·heads·layers, Qwen3.5 _estimate_qwen3_5_flops; H200 989 TFLOP/s; forward-only
// passes count a third) and the peak CUDA memory allocated.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <torch/cuda.h>

#ifdef VERLPP_PROFILE
#include "kernel_profile.h"
#endif

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verlpp/core/device_memory.h"
#include "verlpp/core/dtype.h"
#include "verlpp/core/error.h"
#include "verlpp/core/gpu_name.h"
#include "verlpp/engine/optimizer.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/logprob.h"
#include "verlpp/model/presets.h"
#include "verlpp/trainer/flops.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) return argv[i + 1];
  }
  return fallback;
}

struct Options {
  std::string preset = "qwen3-0.6b";
  std::int64_t micro_tokens = 8192, seq_len = 1024, micro_batches = 1, steps = 8, warmup = 3;
  std::string dtype = "bfloat16";
  bool grad_ckpt = false, logprob_only = false;
  std::string baseline;
  std::int64_t layers = 0;  // 0: the preset's
};

Options parse(int argc, char** argv) {
  Options o;
  o.preset = arg(argc, argv, "--preset", o.preset);
  o.micro_tokens = std::stoll(arg(argc, argv, "--micro-tokens", "8192"));
  o.seq_len = std::stoll(arg(argc, argv, "--seq-len", "1024"));
  o.micro_batches = std::stoll(arg(argc, argv, "--micro-batches", "1"));
  o.steps = std::stoll(arg(argc, argv, "--steps", "8"));
  o.warmup = std::stoll(arg(argc, argv, "--warmup", "3"));
  o.dtype = arg(argc, argv, "--dtype", o.dtype);
  o.grad_ckpt = arg(argc, argv, "--grad-ckpt", "0") == "1";
  o.logprob_only = arg(argc, argv, "--logprob-only", "0") == "1";
  o.baseline = arg(argc, argv, "--baseline", "");
  o.layers = std::stoll(arg(argc, argv, "--layers", "0"));
  if (o.micro_tokens % o.seq_len != 0)
    throw verlpp::Error("--micro-tokens must be a multiple of --seq-len");
  return o;
}

struct MicroBatch {
  at::Tensor input_ids, position_ids, cu_seqlens, targets;
  std::vector<std::int64_t> seqlens;
};

MicroBatch random_micro_batch(const Options& o, std::int64_t vocab, const at::Device& device) {
  MicroBatch b;
  const std::int64_t seqs = o.micro_tokens / o.seq_len;
  b.input_ids =
      at::randint(vocab, {o.micro_tokens}, at::TensorOptions().dtype(at::kLong)).to(device);
  b.position_ids = at::arange(o.seq_len, at::kLong).repeat({seqs}).to(device);
  b.cu_seqlens = (at::arange(seqs + 1, at::kInt) * o.seq_len).to(device);
  b.targets = at::roll(b.input_ids, -1);
  b.seqlens.assign(static_cast<std::size_t>(seqs), o.seq_len);
  return b;
}

std::string device_name(const at::Device& device) {
  return device.is_cuda() ? verlpp::cuda_device_name(device.index() < 0 ? 0 : device.index())
                          : "cpu";
}

// Peak CUDA memory allocated, in GB (10^9 bytes); 0 elsewhere.
double peak_memory_gb(const at::Device& device) {
  const auto peak = verlpp::device_memory_peak(device);
  return peak ? peak->max_allocated_gib * (1024.0 * 1024.0 * 1024.0) / 1e9 : 0.0;
}

void synchronize(const at::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

// One training step (or one log-prob pass) over `batches`; without `update`, forward and
// backward only (the gradients are dropped).
void run_step(verlpp::model::CausalLM& model, verlpp::engine::Optimizer* optimizer,
              const std::vector<MicroBatch>& batches, bool update = true) {
  for (const MicroBatch& b : batches) {
    const at::Tensor hidden = model.forward_packed(b.input_ids, b.position_ids, b.cu_seqlens);
    const auto lp = verlpp::model::chunked_logprob_entropy(hidden, model.lm_head_weight(),
                                                           b.targets, 1.0, false);
    if (optimizer != nullptr) {
      (-lp.logprobs.mean() / static_cast<double>(batches.size())).backward();
    }
  }
  if (optimizer != nullptr) {
    if (update) optimizer->step();
    optimizer->zero_grad();
  }
}

double seconds_per_step(verlpp::model::CausalLM& model, verlpp::engine::Optimizer* optimizer,
                        const std::vector<MicroBatch>& batches, const Options& o, bool update,
                        const at::Device& device) {
  synchronize(device);
  const auto start = Clock::now();
  for (std::int64_t i = 0; i < o.steps; ++i) run_step(model, optimizer, batches, update);
  synchronize(device);
  return std::chrono::duration<double>(Clock::now() - start).count() / o.steps;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  const at::Device device = torch::cuda::is_available() ? at::Device(at::kCUDA, 0) : at::kCPU;
  auto config = verlpp::model::preset_config(o.preset);
  if (o.layers > 0) {
    config.num_hidden_layers = o.layers;
    if (!config.layer_types.empty()) {  // Qwen3.5: one entry per layer
      config.layer_types.clear();
      for (std::int64_t i = 0; i < o.layers; ++i) {
        config.layer_types.push_back((i + 1) % 4 == 0 ? verlpp::model::LayerType::full_attention
                                                      : verlpp::model::LayerType::linear_attention);
      }
    }
  }
  const at::ScalarType dtype = verlpp::parse_dtype(o.dtype, "--dtype");
  auto model = verlpp::model::CausalLM::random_init(config, 1, 0.02, dtype, device);
  model.set_gradient_checkpointing(o.grad_ckpt);
  std::unique_ptr<verlpp::engine::Optimizer> optimizer;
  if (!o.logprob_only) {
    model.set_requires_grad(true);
    std::vector<at::Tensor> params;
    for (const auto& [name, t] : model.named_parameters()) params.push_back(t);
    verlpp::engine::AdamWConfig adam;
    adam.schedule.lr = 1e-6;
    optimizer = std::make_unique<verlpp::engine::Optimizer>(params, adam, o.steps + o.warmup);
  }
  c10::AutoGradMode grad_mode(!o.logprob_only);
  std::vector<MicroBatch> batches;
  for (std::int64_t i = 0; i < o.micro_batches; ++i) {
    batches.push_back(random_micro_batch(o, config.vocab_size, device));
  }
  for (std::int64_t i = 0; i < o.warmup; ++i) run_step(model, optimizer.get(), batches);
#ifdef VERLPP_PROFILE
  verlpp::bench::print_kernel_profile("one step", [&] {
    run_step(model, optimizer.get(), batches);
    synchronize(device);
  });
  return 0;
#endif
  const double seconds = seconds_per_step(model, optimizer.get(), batches, o, true, device);
  const double forward_backward_seconds =
      o.logprob_only ? seconds
                     : seconds_per_step(model, optimizer.get(), batches, o, false, device);

  std::vector<std::int64_t> seqlens;
  for (const MicroBatch& b : batches)
    seqlens.insert(seqlens.end(), b.seqlens.begin(), b.seqlens.end());
  double flops = verlpp::trainer::training_flops(verlpp::trainer::decoder_shape(config), seqlens);
  if (o.logprob_only) flops /= 3.0;
  const double tokens = static_cast<double>(o.micro_tokens * o.micro_batches);
  const std::string gpu = device_name(device);
  const double mfu = verlpp::trainer::mfu(flops, seconds, gpu, 1);
  nlohmann::json result = {{"preset", o.preset},
                           {"layers", config.num_hidden_layers},
                           {"mode", o.logprob_only ? "logprob" : "train"},
                           {"tokens_per_step", tokens},
                           {"forward_backward_seconds", forward_backward_seconds},
                           {"seconds_per_step", seconds},
                           {"tokens_per_s", tokens / seconds},
                           {"mfu", mfu},
                           {"peak_memory_gb", peak_memory_gb(device)},
                           {"grad_ckpt", o.grad_ckpt},
                           {"device", gpu}};
  if (!o.baseline.empty()) {
    std::ifstream in(o.baseline);
    if (!in) throw verlpp::Error(o.baseline + ": cannot open the baseline result");
    const auto hf = nlohmann::json::parse(in);
    result["baseline_tokens_per_s"] = hf.at("tokens_per_s");
    result["baseline_mfu"] = hf.at("mfu");
    result["baseline_peak_memory_gb"] = hf.at("peak_memory_gb");
    result["ratio_vs_baseline"] = tokens / seconds / hf.at("tokens_per_s").get<double>();
  }
  std::cout << result.dump() << std::endl;
  return 0;
} catch (const std::exception& e) {
  std::cerr << "verlpp_train_step_bench: " << e.what() << "\n";
  return 1;
}
