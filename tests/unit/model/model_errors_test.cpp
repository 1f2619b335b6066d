// Bad checkpoints: a missing tensor, a shape mismatch, an unsupported architecture each give a
// verlpp::Error naming the tensor or architecture.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model_fixture.h"
#include "verlpp/model/checkpoint.h"

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

// A tensor the model has no place for is not an error (transformers loads such checkpoints too),
// but a note names it; a checkpoint the model reads whole gets no note.
TEST(ModelErrors, TensorsTheModelDoesNotReadAreNoted) {
  const std::string dir = broken_copy("extra", [](nlohmann::json&) {});
  {
    CheckpointReader reader(dir);
    std::vector<std::pair<std::string, at::Tensor>> tensors;
    for (const std::string& name : reader.names()) tensors.emplace_back(name, reader.tensor(name));
    tensors.emplace_back("model.layers.0.mlp.extra_proj.weight", at::ones({2, 2}));
    write_checkpoint(dir, tensors);
  }
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(load_error(dir), "no error");
  const std::string noted = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(noted.find("1 tensor(s) of the checkpoint are not part of this Qwen2ForCausalLM model "
                       "and were not read: model.layers.0.mlp.extra_proj.weight"),
            std::string::npos)
      << noted;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(load_error(testing::checkpoint_dir("qwen2")), "no error");
  const std::string quiet = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(quiet.find("not read"), std::string::npos) << quiet;
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
