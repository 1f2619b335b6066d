#include "model_fixture.h"

#include <ATen/ATen.h>

#include <fstream>

#include "verlpp/model/safetensors.h"

namespace verlpp::model::testing {

std::vector<std::string> fixture_models() {
  return {"qwen2", "qwen3_tied", "qwen3_sharded", "llama3"};
}

std::string fixture_dir() { return std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/model"; }

std::string checkpoint_dir(const std::string& name) { return fixture_dir() + "/" + name; }

const nlohmann::json& reference_json() {
  static const nlohmann::json j = [] {
    std::ifstream in(fixture_dir() + "/reference.json");
    return nlohmann::json::parse(in);
  }();
  return j;
}

std::vector<std::string> moe_fixture_models() {
  return {"qwen3_moe", "qwen3_moe_fused", "qwen3_moe_sparse"};
}

const nlohmann::json& moe_reference_json() {
  static const nlohmann::json j = [] {
    std::ifstream in(fixture_dir() + "/reference_moe.json");
    return nlohmann::json::parse(in);
  }();
  return j;
}

std::string moe_reference_name(const std::string& name) {
  const auto& entry = moe_reference_json()["models"][name];
  return entry.contains("same_weights_as") ? entry["same_weights_as"].get<std::string>() : name;
}

std::map<std::string, at::Tensor> reference_tensors(const std::string& name) {
  const SafetensorsFile file(fixture_dir() + "/" + name + ".reference.safetensors");
  std::map<std::string, at::Tensor> out;
  for (const auto& n : file.names()) out[n] = file.tensor(n).clone();
  return out;
}

double max_abs_diff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kCPU, at::kDouble) - b.to(at::kCPU, at::kDouble)).abs().max().item<double>();
}

double relative_diff(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor bd = b.to(at::kCPU, at::kDouble);
  return (a.to(at::kCPU, at::kDouble) - bd).norm().item<double>() / bd.norm().item<double>();
}

}  // namespace verlpp::model::testing
