#include "model_fixture.h"

#include <ATen/ATen.h>

#include <filesystem>
#include <fstream>

#include "verlpp/core/error.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/checkpoint.h"
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

std::vector<std::string> qwen3_5_fixture_models() {
  return {"qwen3_5", "qwen3_5_vl", "qwen3_5_moe", "qwen3_5_moe_vl"};
}

const nlohmann::json& qwen3_5_reference_json() {
  static const nlohmann::json j = [] {
    std::ifstream in(fixture_dir() + "/reference_qwen3_5.json");
    return nlohmann::json::parse(in);
  }();
  return j;
}

std::string qwen3_5_reference_name(const std::string& name) {
  return name.ends_with("_vl") ? name.substr(0, name.size() - 3) : name;
}

std::map<std::string, at::Tensor> reference_tensors(const std::string& name) {
  const SafetensorsFile file(fixture_dir() + "/" + name + ".reference.safetensors");
  std::map<std::string, at::Tensor> out;
  for (const auto& n : file.names()) out[n] = file.tensor(n).clone();
  return out;
}

std::string broken_copy(const std::string& name, const std::string& tag,
                        const std::function<void(nlohmann::json&)>& edit,
                        const std::function<bool(const std::string&)>& drop) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("verlpp_model_broken_" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string src = checkpoint_dir(name);
  nlohmann::json config;
  {
    std::ifstream in(src + "/config.json");
    config = nlohmann::json::parse(in);
  }
  edit(config);
  std::ofstream(dir / "config.json") << config.dump();
  const CheckpointReader reader(src);
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  for (const auto& tensor : reader.names()) {
    if (!drop(tensor)) tensors.emplace_back(tensor, reader.tensor(tensor));
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

double max_abs_diff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kCPU, at::kDouble) - b.to(at::kCPU, at::kDouble)).abs().max().item<double>();
}

double relative_diff(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor bd = b.to(at::kCPU, at::kDouble);
  return (a.to(at::kCPU, at::kDouble) - bd).norm().item<double>() / bd.norm().item<double>();
}

}  // namespace verlpp::model::testing
