// Bad checkpoints: a missing tensor, a shape mismatch, an unsupported architecture each give a
// verlpp::Error naming the tensor or architecture.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model_fixture.h"
#include "verlpp/core/error.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/checkpoint.h"

namespace verlpp::model {
namespace {

namespace fs = std::filesystem;

// A copy of the qwen2 fixture whose config.json is changed by `edit` and whose weights skip
// `drop`.
std::string broken_copy(const std::string& tag, const std::function<void(nlohmann::json&)>& edit,
                        const std::string& drop = "") {
  const fs::path dir = fs::temp_directory_path() / ("verlpp_model_broken_" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string src = testing::checkpoint_dir("qwen2");
  nlohmann::json config;
  {
    std::ifstream in(src + "/config.json");
    config = nlohmann::json::parse(in);
  }
  edit(config);
  std::ofstream(dir / "config.json") << config.dump();
  const CheckpointReader reader(src);
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  for (const auto& name : reader.names()) {
    if (name != drop) tensors.emplace_back(name, reader.tensor(name));
  }
  write_checkpoint(dir.string(), tensors);
  return dir.string();
}

std::string load_error(const std::string& dir) {
  try {
    CausalLM::from_pretrained(dir, at::kFloat, at::kCPU);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
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
