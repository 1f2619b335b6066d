// Batch-invariant mode (vLLM's VLLM_BATCH_INVARIANT, which verl users set for rollouts whose
// log-probs the trainer reproduces): while it is on, the model's layers compute every token with
// operations whose bits do not depend on the batch (kernels/invariant_ops.h), the logits are fp32
// and the log-probs of sampled tokens come from one function in the rollout and the trainer, so a
// token scored in a decode step, a chunked or prefix-cached prefill, or the trainer's
// whole-sequence pass of any micro-batch gets identical log-probs: training/rollout_probs_diff_max
// and the first update's ppo_kl are exactly 0. Gradients come from the usual formulas (their bits
// need not match anything). Process-wide, off by default; the commands set it from the environment
// (apply_batch_invariant_setting).
//
// Covers models made of attention, MLP and sparse MoE layers (Qwen2/Qwen3/Llama, Qwen3-MoE) on the
// CPU and, in bf16/fp16, on CUDA; require_batch_invariant_support says what is not covered.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::model {

class CausalLM;

bool batch_invariant();
void set_batch_invariant(bool on);

// Throws verlpp::Error naming VLLM_BATCH_INVARIANT when the mode is on and `model` has layers it
// does not cover (Gated DeltaNet, a vision tower), or sits on CUDA in fp32, with attention shapes
// verlpp's decode kernel does not take, or a hidden size its RMSNorm kernel does not take.
void require_batch_invariant_support(const CausalLM& model);

// For the commands that run a model (ppo with its policy, sft, generate, model score): sets the
// mode from VLLM_BATCH_INVARIANT (core/batch_invariant_env.h; throws verlpp::Error for a bad
// value), checks that `model` is covered (require_batch_invariant_support) and, when on, says so
// on stderr.
void apply_batch_invariant_setting(const CausalLM& model);

}  // namespace verlpp::model
