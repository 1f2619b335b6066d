#include "verlpp/model/batch_invariant.h"

#include <fmt/format.h>

#include <atomic>

#include "verlpp/core/batch_invariant_env.h"
#include "verlpp/core/error.h"
#include "verlpp/core/log.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::model {

namespace {

std::atomic<bool> mode{false};

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
  } else if (!model.device().is_cpu()) {
    missing = "CUDA (its batch-invariant GEMM and attention kernels are not built yet)";
  }
  if (missing != nullptr) {
    throw Error(fmt::format(
        "VLLM_BATCH_INVARIANT=1: verlpp's batch-invariant mode covers attention, MLP and sparse "
        "MoE layers on the CPU, not {} ({}); unset VLLM_BATCH_INVARIANT to run with the usual "
        "kernels",
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
