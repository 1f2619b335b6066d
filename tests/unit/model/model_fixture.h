// Access to tests/fixtures/model (made by tools/make_model_fixtures.py with transformers).
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verlpp/model/causal_lm.h"

namespace verlpp::model::testing {

// The fixture models: qwen2, qwen3_tied, qwen3_sharded, llama3.
std::vector<std::string> fixture_models();
std::string fixture_dir();  // <source>/tests/fixtures/model
std::string checkpoint_dir(const std::string& name);
const nlohmann::json& reference_json();  // reference.json
// The Qwen3-MoE fixtures (tools/make_moe_fixtures.py): qwen3_moe (per-expert tensors),
// qwen3_moe_fused (the same weights fused), qwen3_moe_sparse; and their reference_moe.json.
std::vector<std::string> moe_fixture_models();
const nlohmann::json& moe_reference_json();
// The reference of a fixture ("qwen3_moe_fused" shares qwen3_moe's).
std::string moe_reference_name(const std::string& name);
// The Qwen3.5 fixtures (tools/make_qwen3_5_fixtures.py): qwen3_5 and qwen3_5_moe (text-only
// layout, saved by save_pretrained), qwen3_5_vl and qwen3_5_moe_vl (the same weights in the hub's
// vision-language layout); reference_qwen3_5.json; the reference of a fixture (the _vl ones share
// their text model's).
std::vector<std::string> qwen3_5_fixture_models();
const nlohmann::json& qwen3_5_reference_json();
std::string qwen3_5_reference_name(const std::string& name);
// <name>.reference.safetensors, every tensor copied (input_ids, logits, grad.<param>, ...).
std::map<std::string, at::Tensor> reference_tensors(const std::string& name);

// A copy of fixture checkpoint `name` in a temporary folder named after `tag`, with config.json
// changed by `edit` and the tensors for which `drop` is true left out. Returns the folder.
std::string broken_copy(const std::string& name, const std::string& tag,
                        const std::function<void(nlohmann::json&)>& edit,
                        const std::function<bool(const std::string&)>& drop);
// from_pretrained's error message for `dir` (fp32, CPU), or "no error".
std::string load_error(const std::string& dir);

// A reference's packed sequences (input_ids, cu_seqlens) as a left-padded batch.
struct PaddedBatch {
  at::Tensor ids, mask;                  // [S, L] int64, L = the longest sequence
  std::vector<int64_t> starts, lengths;  // each sequence's first packed token and length
};
PaddedBatch left_padded(const std::map<std::string, at::Tensor>& reference);

// Every parameter of `b` has a gradient within `tolerance` (max abs) of `a`'s.
void expect_same_gradients(const CausalLM& a, const CausalLM& b, double tolerance);

double max_abs_diff(const at::Tensor& a, const at::Tensor& b);
// ||a - b|| / ||b||
double relative_diff(const at::Tensor& a, const at::Tensor& b);

// Zeros of every layer's generation state (KV rows, conv windows, recurrent states) for `slots`
// sequences of up to `capacity` tokens, as the rollout's KVCache allocates them.
struct GenerationStorage {
  GenerationStateView view;
};
GenerationStorage allocate_generation_state(const CausalLM& m, int64_t slots, int64_t capacity);

}  // namespace verlpp::model::testing
