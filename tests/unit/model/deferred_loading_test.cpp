// Deferred loading (CausalLM::from_pretrained with WeightLoading::deferred): the text model's
// tensors get shapes without bytes, and checkpoint_rows gives exactly the rows a whole load puts
// in each tensor, for every checkpoint layout of the fixtures (one file, an index of shards, tied
// embeddings, experts stored per expert and fused, Qwen3.5's vision-language prefix). The whole
// load is the reference: it is itself checked against transformers (the parity tests).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "../common/error_of.h"
#include "model_fixture.h"
#include "verlpp/core/error.h"
#include "verlpp/core/tensor_storage.h"

namespace verlpp::model {
namespace {

using verlpp::testing::error_of;

CausalLM load(const std::string& name, bool with_vision, WeightLoading loading) {
  const std::string dir = testing::checkpoint_dir(name);
  return CausalLM::from_pretrained(load_model_config(dir), dir, at::kFloat, at::Device(at::kCPU),
                                   with_vision, loading);
}

void expect_rows_of_whole_load(const std::string& name, bool with_vision = false) {
  SCOPED_TRACE(name);
  const CausalLM whole = load(name, with_vision, WeightLoading::whole);
  CausalLM deferred = load(name, with_vision, WeightLoading::deferred);
  ASSERT_TRUE(deferred.weights_pending());
  const auto expected = whole.named_parameters();
  const auto params = deferred.named_parameters();
  ASSERT_EQ(params.size(), expected.size());
  std::size_t text = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& [param_name, tensor] = params[i];
    const at::Tensor& want = expected[i].second;
    ASSERT_EQ(param_name, expected[i].first);
    EXPECT_EQ(tensor.sizes(), want.sizes()) << param_name;
    EXPECT_EQ(tensor.scalar_type(), at::kFloat) << param_name;
    if (param_name.starts_with("model.visual.")) {  // the tower is read whole
      EXPECT_TRUE(at::equal(tensor, want)) << param_name;
      continue;
    }
    ++text;
    EXPECT_FALSE(has_storage(tensor)) << param_name << " holds bytes before sharding";
    const int64_t rows = want.size(0), begin = rows / 3, count = (rows + 1) / 2;
    EXPECT_TRUE(at::equal(deferred.checkpoint_rows(i, 0, rows).to(at::kFloat), want)) << param_name;
    EXPECT_TRUE(at::equal(deferred.checkpoint_rows(i, begin, count).to(at::kFloat),
                          want.narrow(0, begin, count)))
        << param_name << " rows [" << begin << ", " << begin + count << ")";
    EXPECT_EQ(deferred.checkpoint_rows(i, rows, 0).size(0), 0) << param_name;
  }
  EXPECT_GT(text, 0u);
  const at::Tensor ids = at::zeros({2}, at::kLong), cu = at::tensor({0, 2}, at::kInt);
  const std::string refused = error_of([&] { deferred.forward_packed(ids, ids, cu); });
  EXPECT_NE(refused.find("were deferred for a sharded engine and have not been read"),
            std::string::npos)
      << refused;
  EXPECT_NE(error_of([&] { deferred.checkpoint_rows(0, 0, params[0].second.size(0) + 1); }),
            "(no error)");
  EXPECT_NE(error_of([&] { deferred.checkpoint_rows(params.size(), 0, 1); }), "(no error)");
  deferred.finish_loading();
  EXPECT_FALSE(deferred.weights_pending());
  EXPECT_NE(error_of([&] { deferred.checkpoint_rows(0, 0, 1); }), "(no error)");
}

TEST(DeferredLoading, RowsEqualTheWholeLoadInEveryLayout) {
  for (const std::string name : {"qwen2", "qwen3_tied", "qwen3_sharded", "llama3", "qwen3_moe",
                                 "qwen3_moe_fused", "qwen3_5_moe"}) {
    expect_rows_of_whole_load(name);
  }
}

TEST(DeferredLoading, VisionLanguageLayoutWithAndWithoutTheTower) {
  expect_rows_of_whole_load("qwen3_5_moe_vl");
  expect_rows_of_whole_load("qwen3_5_vl", true);
}

// The checks of a whole load run at once, with the same messages: a missing tensor, a missing
// expert part, a mis-shaped tensor.
TEST(DeferredLoading, BadCheckpointsFailAsAWholeLoadDoes) {
  int copies = 0;
  const auto both = [&](const std::string& name,
                        const std::function<bool(const std::string&)>& drop,
                        const std::function<void(nlohmann::json&)>& edit) {
    const std::string dir =
        testing::broken_copy(name, "deferred_" + std::to_string(++copies), edit, drop);
    const auto load_dir = [&](WeightLoading loading) {
      return error_of([&] {
        CausalLM::from_pretrained(load_model_config(dir), dir, at::kFloat, at::Device(at::kCPU),
                                  false, loading);
      });
    };
    const std::string whole = load_dir(WeightLoading::whole);
    EXPECT_NE(whole, "(no error)");
    EXPECT_EQ(load_dir(WeightLoading::deferred), whole);
  };
  const auto keep = [](nlohmann::json&) {};
  both(
      "qwen2", [](const std::string& n) { return n == "model.layers.1.self_attn.k_proj.bias"; },
      keep);
  both(
      "qwen3_moe",
      [](const std::string& n) { return n == "model.layers.0.mlp.experts.2.up_proj.weight"; },
      keep);
  both(
      "qwen2", [](const std::string&) { return false; },
      [](nlohmann::json& c) { c["intermediate_size"] = c["intermediate_size"].get<int>() + 2; });
}

}  // namespace
}  // namespace verlpp::model
