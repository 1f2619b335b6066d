#include "model_fixture.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
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

PaddedBatch left_padded(const std::map<std::string, at::Tensor>& reference) {
  const at::Tensor cu = reference.at("cu_seqlens").to(at::kLong);
  const int64_t S = cu.size(0) - 1;
  PaddedBatch b;
  for (int64_t s = 0; s < S; ++s) {
    b.starts.push_back(cu[s].item<int64_t>());
    b.lengths.push_back(cu[s + 1].item<int64_t>() - b.starts.back());
  }
  const int64_t L = *std::max_element(b.lengths.begin(), b.lengths.end());
  b.ids = at::zeros({S, L}, at::kLong);
  b.mask = at::zeros({S, L}, at::kLong);
  for (int64_t s = 0; s < S; ++s) {
    const int64_t n = b.lengths[static_cast<size_t>(s)];
    b.ids[s]
        .narrow(0, L - n, n)
        .copy_(reference.at("input_ids").narrow(0, b.starts[static_cast<size_t>(s)], n));
    b.mask[s].narrow(0, L - n, n).fill_(1);
  }
  return b;
}

void expect_same_gradients(const CausalLM& a, const CausalLM& b, double tolerance) {
  const auto pa = a.named_parameters();
  const auto pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    ASSERT_TRUE(pb[i].second.grad().defined()) << pb[i].first;
    EXPECT_LT(max_abs_diff(pa[i].second.grad(), pb[i].second.grad()), tolerance) << pa[i].first;
  }
}

double max_abs_diff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kCPU, at::kDouble) - b.to(at::kCPU, at::kDouble)).abs().max().item<double>();
}

double relative_diff(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor bd = b.to(at::kCPU, at::kDouble);
  return (a.to(at::kCPU, at::kDouble) - bd).norm().item<double>() / bd.norm().item<double>();
}

GenerationStorage allocate_generation_state(const CausalLM& m, int64_t slots, int64_t capacity) {
  GenerationStorage s;
  s.view.slots = slots;
  s.view.capacity = capacity;
  for (const LayerStateSpec& spec : m.generation_state()) {
    if (spec.kind == LayerStateKind::linear_attention) {
      s.view.layers.emplace_back();
      s.view.recurrent.push_back(
          {at::zeros({slots, spec.conv_dim, spec.conv_window}),
           at::zeros({slots, spec.value_heads, spec.key_head_dim, spec.value_head_dim})});
    } else {
      s.view.layers.push_back({at::zeros({slots * capacity, spec.kv_heads, spec.head_dim}),
                               at::zeros({slots * capacity, spec.kv_heads, spec.head_dim})});
      s.view.recurrent.emplace_back();
    }
  }
  return s;
}

}  // namespace verlpp::model::testing
