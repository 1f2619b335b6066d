// Access to tests/fixtures/model (made by tools/make_model_fixtures.py with transformers).
#pragma once

#include <ATen/core/Tensor.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace verlpp::model::testing {

// The fixture models: qwen2, qwen3_tied, qwen3_sharded, llama3.
std::vector<std::string> fixture_models();
std::string fixture_dir();  // <source>/tests/fixtures/model
std::string checkpoint_dir(const std::string& name);
const nlohmann::json& reference_json();  // reference.json
// <name>.reference.safetensors, every tensor copied (input_ids, logits, grad.<param>, ...).
std::map<std::string, at::Tensor> reference_tensors(const std::string& name);

double max_abs_diff(const at::Tensor& a, const at::Tensor& b);
// ||a - b|| / ||b||
double relative_diff(const at::Tensor& a, const at::Tensor& b);

}  // namespace verlpp::model::testing
