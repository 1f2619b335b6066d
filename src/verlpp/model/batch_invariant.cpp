#include "verlpp/model/batch_invariant.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <atomic>

#include "verlpp/core/batch_invariant_env.h"
#include "verlpp/core/error.h"
#include "verlpp/core/log.h"
#include "verlpp/kernels/decode_attention.h"
#include "verlpp/kernels/invariant_ops.h"
#include "verlpp/kernels/rms_norm.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::model {

namespace {

std::atomic<bool> mode{false};

// What the CUDA mode (kernels/invariant_ops.h) lacks for this model, or nullptr.
const char* cuda_gap(const CausalLM& model) {
  const ModelConfig& c = model.config();
  const auto options = at::TensorOptions().dtype(model.dtype()).device(model.device());
  const at::Tensor q = at::empty({1, c.num_attention_heads, c.head_dim}, options);
  const at::Tensor k = at::empty({1, c.num_key_value_heads, c.head_dim}, options);
  if (!kernels::can_run_invariant_cuda(q)) {
    return "CUDA without bf16/fp16 weights or without verlpp's CUDA kernels";
  }
  if (!kernels::can_decode_attention(q, k)) {
    return "CUDA attention shapes outside the decode kernel's (head_dim 64, 128 or 256, at most 8 "
           "query heads per kv head)";
  }
  const at::Tensor hidden = at::empty({1, c.hidden_size}, options);
  if (!kernels::can_rms_norm(hidden, at::empty({c.hidden_size}, options), at::Tensor())) {
    return "CUDA without verlpp's RMSNorm kernel for this hidden size";
  }
  return nullptr;
}

}  // namespace

bool batch_invariant() { return mode.load(std::memory_order_relaxed); }

void set_batch_invariant(bool on) { mode.store(on, std::memory_order_relaxed); }

void require_batch_invariant_support(const CausalLM& model) {
  if (!batch_invariant()) return;
  const ModelConfig& c = model.config();
  const char* missing = nullptr;
  if (c.is_qwen3_5()) {
    missing = "Qwen3.5's Gated DeltaNet, gated attention and zero-centred norms";
  } else if (model.has_vision()) {
    missing = "a vision tower";
  } else if (model.device().is_cuda()) {
    missing = cuda_gap(model);
  }
  if (missing != nullptr) {
    throw Error(fmt::format(
        "VLLM_BATCH_INVARIANT=1: verlpp's batch-invariant mode covers attention, MLP and sparse "
        "MoE layers on the CPU and on CUDA in bf16/fp16, not {} ({}); unset VLLM_BATCH_INVARIANT "
        "to run with the usual kernels",
        missing, architecture_class(c.architecture)));
  }
}

void apply_batch_invariant_setting(const CausalLM& model) {
  set_batch_invariant(batch_invariant_requested());
  require_batch_invariant_support(model);
  if (batch_invariant()) {
    log_note(
        "VLLM_BATCH_INVARIANT=1: batch-invariant mode (every token computed with the same bits "
        "whatever the batch; slower)");
  }
}

}  // namespace verlpp::model
