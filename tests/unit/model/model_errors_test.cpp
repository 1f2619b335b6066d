// Bad checkpoints: a missing tensor, a shape mismatch, an unsupported architecture each give a
// verlpp::Error naming the tensor or architecture.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "model_fixture.h"

namespace verlpp::model {
namespace {

using testing::load_error;

// A copy of the qwen2 fixture whose config.json is changed by `edit` and whose weights skip
// `drop`.
std::string broken_copy(const std::string& tag, const std::function<void(nlohmann::json&)>& edit,
                        const std::string& drop = "") {
  return testing::broken_copy("qwen2", tag, edit,
                              [&](const std::string& name) { return name == drop; });
}

TEST(ModelErrors, MissingTensorIsNamed) {
  const std::string dir = broken_copy(
      "missing", [](nlohmann::json&) {}, "model.layers.1.self_attn.k_proj.bias");
  EXPECT_NE(load_error(dir).find("has no tensor 'model.layers.1.self_attn.k_proj.bias'"),
            std::string::npos)
      << load_error(dir);
}

TEST(ModelErrors, ShapeMismatchIsNamed) {
  const std::string dir =
      broken_copy("shape", [](nlohmann::json& c) { c["intermediate_size"] = 96; });
  EXPECT_NE(load_error(dir).find("tensor 'model.layers.0.mlp.gate_proj.weight' has shape [128, 64] "
                                 "but config.json implies [96, 64]"),
            std::string::npos)
      << load_error(dir);
}

TEST(ModelErrors, UnsupportedArchitectureIsNamed) {
  const std::string dir =
      broken_copy("arch", [](nlohmann::json& c) { c["architectures"] = {"Qwen3NextForCausalLM"}; });
  EXPECT_NE(load_error(dir).find("architecture 'Qwen3NextForCausalLM' is not supported"),
            std::string::npos)
      << load_error(dir);
}

}  // namespace
}  // namespace verlpp::model
