// Qwen3-MoE against transformers 5.17 (fixtures from tools/make_moe_fixtures.py: experts not a
// power of two, top-k 3 and 2, a dense layer through mlp_only_layers and through
// decoder_sparse_step, norm_topk_prob on and off, untied, per-expert and fused checkpoints): fp32
// CPU logits, router logits and the load-balancing loss within 1e-5, gradients of
// -mean(logprob) - 0.01 mean(entropy) + 0.1 aux within 1e-5 relative; checkpoint layouts; errors.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include "model_fixture.h"
#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/checkpoint.h"
#include "verlpp/model/layers/moe.h"
#include "verlpp/model/logprob.h"

namespace verlpp::model {
namespace {

namespace fs = std::filesystem;
using testing::max_abs_diff;
using testing::relative_diff;

class MoeParity : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    reference_ = testing::moe_reference_name(GetParam());
    ref_ = testing::reference_tensors(reference_);
    const auto& j = testing::moe_reference_json();
    temperature_ = j["temperature"].get<double>();
    entropy_coeff_ = j["entropy_coeff"].get<double>();
    aux_coef_ = j["aux_coef"].get<double>();
  }
  const nlohmann::json& entry() const {
    return testing::moe_reference_json()["models"][reference_];
  }
  CausalLM load() const {
    return CausalLM::from_pretrained(testing::checkpoint_dir(GetParam()), at::kFloat, at::kCPU);
  }
  at::Tensor packed_hidden(const CausalLM& m, std::vector<at::Tensor>* router = nullptr) const {
    return m.forward_packed(ref_.at("input_ids"), ref_.at("position_ids"), ref_.at("cu_seqlens"),
                            router);
  }
  // The fixture's loss: -mean(logprob) - entropy_coeff * mean(entropy) + aux_coef * aux.
  at::Tensor loss(const CausalLM& m) const {
    std::vector<at::Tensor> router;
    const at::Tensor h = packed_hidden(m, &router);
    const auto r =
        chunked_logprob_entropy(h, m.lm_head_weight(), ref_.at("targets"), temperature_, true, 7);
    const at::Tensor mask = ref_.at("loss_mask");
    const at::Tensor aux =
        load_balancing_loss(router, m.config().moe.num_experts, m.config().moe.num_experts_per_tok);
    return -(r.logprobs * mask).sum() / mask.sum() -
           entropy_coeff_ * (r.entropy * mask).sum() / mask.sum() + aux_coef_ * aux;
  }
  std::string reference_;
  std::map<std::string, at::Tensor> ref_;
  double temperature_ = 1.0, entropy_coeff_ = 0.0, aux_coef_ = 0.0;
};

TEST_P(MoeParity, LogitsMatchTransformersFp32) {
  const CausalLM m = load();
  c10::AutoGradMode no_grad(false);
  const at::Tensor logits = m.logits(packed_hidden(m));
  const double diff = max_abs_diff(logits, ref_.at("logits"));
  std::cout << GetParam() << ": max |logits - transformers| = " << diff << "\n";
  EXPECT_LT(diff, 1e-5);
  const auto r = logprob_entropy_from_logits(logits, ref_.at("targets"), temperature_);
  EXPECT_LT(max_abs_diff(r.logprobs, ref_.at("logprobs")), 1e-5);
  EXPECT_LT(max_abs_diff(r.entropy, ref_.at("entropy")), 1e-5);
}

TEST_P(MoeParity, RouterLogitsAndAuxLossMatchTransformers) {
  const CausalLM m = load();
  c10::AutoGradMode no_grad(false);
  std::vector<at::Tensor> router;
  packed_hidden(m, &router);
  const auto& sparse = entry()["sparse_layers"];
  ASSERT_EQ(router.size(), sparse.size());
  for (size_t i = 0; i < router.size(); ++i) {
    const std::string key = "router_logits." + std::to_string(sparse[i].get<int>());
    EXPECT_LT(max_abs_diff(router[i], ref_.at(key)), 1e-5) << key;
  }
  const double aux =
      load_balancing_loss(router, m.config().moe.num_experts, m.config().moe.num_experts_per_tok)
          .item<double>();
  std::cout << GetParam() << ": aux loss " << aux << " (transformers "
            << entry()["aux_loss"].get<double>() << ")\n";
  EXPECT_NEAR(aux, entry()["aux_loss"].get<double>(), 1e-5);
}

TEST_P(MoeParity, GradientsMatchTransformers) {
  CausalLM m = load();
  m.set_requires_grad(true);
  const at::Tensor l = loss(m);
  EXPECT_NEAR(l.item<double>(), entry()["loss"].get<double>(), 1e-5);
  l.backward();
  int checked = 0;
  double worst = 0.0;
  for (const auto& [name, p] : m.named_parameters()) {
    const auto it = ref_.find("grad." + name);
    ASSERT_NE(it, ref_.end()) << "no reference gradient for " << name;
    ASSERT_TRUE(p.grad().defined()) << name;
    const double rel = relative_diff(p.grad(), it->second);
    worst = std::max(worst, rel);
    EXPECT_LT(rel, 1e-5) << name;
    ++checked;
  }
  std::cout << GetParam() << ": worst relative gradient difference " << worst << " over " << checked
            << " parameters\n";
  EXPECT_EQ(checked, static_cast<int>(entry()["grad_params"].size()));
}

TEST_P(MoeParity, GradientCheckpointingKeepsRouterGradients) {
  CausalLM plain = load();
  CausalLM ckpt = load();
  plain.set_requires_grad(true);
  ckpt.set_requires_grad(true);
  ckpt.set_gradient_checkpointing(true);
  loss(plain).backward();
  loss(ckpt).backward();
  testing::expect_same_gradients(plain, ckpt, 1e-7);
}

TEST_P(MoeParity, PackedAndPaddedGiveTheSameLogits) {
  const CausalLM m = load();
  c10::AutoGradMode no_grad(false);
  const testing::PaddedBatch batch = testing::left_padded(ref_);
  const at::Tensor padded = m.logits(m.forward_padded(batch.ids, batch.mask));
  const int64_t L = batch.ids.size(1);
  for (int64_t s = 0; s < batch.ids.size(0); ++s) {
    const int64_t a = batch.starts[static_cast<size_t>(s)];
    const int64_t n = batch.lengths[static_cast<size_t>(s)];
    EXPECT_LT(max_abs_diff(padded[s].narrow(0, L - n, n), ref_.at("logits").narrow(0, a, n)), 1e-5)
        << "sequence " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MoeParity, ::testing::ValuesIn(testing::moe_fixture_models()));

TEST(MoeCheckpoint, FusedAndPerExpertLayoutsHoldTheSameWeights) {
  const CausalLM a =
      CausalLM::from_pretrained(testing::checkpoint_dir("qwen3_moe"), at::kFloat, at::kCPU);
  const CausalLM b =
      CausalLM::from_pretrained(testing::checkpoint_dir("qwen3_moe_fused"), at::kFloat, at::kCPU);
  const auto pa = a.named_parameters();
  const auto pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(pa[i].first, pb[i].first);
    EXPECT_TRUE(at::equal(pa[i].second, pb[i].second)) << pa[i].first;
  }
  // transformers 5's in-memory names: the fixture's fused file holds exactly these.
  std::vector<std::string> names;
  for (const auto& [name, t] : pa) names.push_back(name);
  std::sort(names.begin(), names.end());
  std::vector<std::string> fused;
  for (const auto& k : testing::moe_reference_json()["models"]["qwen3_moe_fused"]["keys"]) {
    fused.push_back(k.get<std::string>());
  }
  EXPECT_EQ(names, fused);
}

TEST(MoeCheckpoint, SaveWritesTheHubLayoutAndReloads) {
  const CausalLM m =
      CausalLM::from_pretrained(testing::checkpoint_dir("qwen3_moe_fused"), at::kFloat, at::kCPU);
  const fs::path dir = fs::temp_directory_path() / "verlpp_moe_save";
  fs::remove_all(dir);
  m.save_pretrained(dir.string(), at::kFloat, /*max_shard_bytes=*/200000);
  const CheckpointReader saved(dir.string());
  const CheckpointReader hub(testing::checkpoint_dir("qwen3_moe"));
  EXPECT_EQ(saved.names(), hub.names());  // per expert, as transformers' save_pretrained writes
  for (const auto& name : hub.names()) {
    EXPECT_TRUE(at::equal(saved.tensor(name), hub.tensor(name))) << name;
  }
  const ModelConfig back = load_model_config(dir.string());
  const ModelConfig orig = m.config();
  EXPECT_EQ(back.architecture, Architecture::qwen3_moe);
  EXPECT_EQ(back.moe.num_experts, orig.moe.num_experts);
  EXPECT_EQ(back.moe.num_experts_per_tok, orig.moe.num_experts_per_tok);
  EXPECT_EQ(back.moe.moe_intermediate_size, orig.moe.moe_intermediate_size);
  EXPECT_EQ(back.moe.norm_topk_prob, orig.moe.norm_topk_prob);
  EXPECT_EQ(back.moe.mlp_only_layers, orig.moe.mlp_only_layers);
  EXPECT_EQ(back.moe.decoder_sparse_step, orig.moe.decoder_sparse_step);
  EXPECT_EQ(back.num_parameters(), orig.num_parameters());
}

TEST(MoeCheckpoint, LoadWeightsCopiesEitherLayoutIntoAModel) {
  CausalLM m = CausalLM::random_init(load_model_config(testing::checkpoint_dir("qwen3_moe")), 3,
                                     0.02, at::kFloat);
  m.load_weights(testing::checkpoint_dir("qwen3_moe"));
  const CausalLM ref =
      CausalLM::from_pretrained(testing::checkpoint_dir("qwen3_moe_fused"), at::kFloat, at::kCPU);
  const auto a = m.named_parameters();
  const auto b = ref.named_parameters();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(at::equal(a[i].second, b[i].second));
}

using testing::load_error;

std::string broken_moe(const std::string& tag, const std::function<void(nlohmann::json&)>& edit,
                       const std::function<bool(const std::string&)>& drop) {
  return testing::broken_copy("qwen3_moe", "moe_" + tag, edit, drop);
}

const auto kKeepConfig = [](nlohmann::json&) {};
const auto kKeepTensors = [](const std::string&) { return false; };

// A MoE decode step may be captured into a CUDA graph only where the sparse block never waits
// for the device: the grouped-GEMM path; batch-invariant mode's per-expert loop reads the expert
// counts on the host.
TEST(MoeDecode, CapturableOnlyWithTheGroupedGemm) {
  const CausalLM m = CausalLM::random_init(load_model_config(testing::checkpoint_dir("qwen3_moe")),
                                           3, 0.02, at::kFloat);
  EXPECT_EQ(m.decode_capturable(), compat::has_grouped_mm());
  set_batch_invariant(true);
  const bool invariant = m.decode_capturable();
  set_batch_invariant(false);
  EXPECT_FALSE(invariant);
}

TEST(MoeErrors, MissingExpertTensorIsNamed) {
  const std::string dir = broken_moe("missing", kKeepConfig, [](const std::string& n) {
    return n == "model.layers.2.mlp.experts.4.up_proj.weight";
  });
  const std::string e = load_error(dir);
  EXPECT_NE(e.find("has no tensor 'model.layers.2.mlp.experts.4.up_proj.weight'"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("model.layers.2.mlp.experts.gate_up_proj"), std::string::npos) << e;
}

TEST(MoeErrors, FewerExpertsInTheConfigThanInTheCheckpointAreNamed) {
  const std::string dir = broken_moe(
      "fewer", [](nlohmann::json& c) { c["num_local_experts"] = 5; }, kKeepTensors);
  const std::string e = load_error(dir);
  EXPECT_NE(e.find("tensor 'model.layers.0.mlp.experts.5."), std::string::npos) << e;
  EXPECT_NE(e.find("num_experts"), std::string::npos) << e;
}

TEST(MoeErrors, MoreExpertsInTheConfigThanInTheCheckpointAreNamed) {
  const std::string dir = broken_moe(
      "more", [](nlohmann::json& c) { c["num_local_experts"] = 7; }, kKeepTensors);
  const std::string e = load_error(dir);
  // The router comes first in the weight table.
  EXPECT_NE(e.find("tensor 'model.layers.0.mlp.gate.weight' has shape [6, 64] but config.json "
                   "implies [7, 64] (num_experts, hidden_size)"),
            std::string::npos)
      << e;
}

TEST(MoeErrors, FusedTensorOfTheWrongShapeNamesTheFields) {
  CausalLM m =
      CausalLM::from_pretrained(testing::checkpoint_dir("qwen3_moe_fused"), at::kFloat, at::kCPU);
  const fs::path dir = fs::temp_directory_path() / "verlpp_moe_broken_fused";
  fs::remove_all(dir);
  fs::create_directories(dir);
  nlohmann::json config;
  {
    std::ifstream in(testing::checkpoint_dir("qwen3_moe_fused") + "/config.json");
    config = nlohmann::json::parse(in);
  }
  config["moe_intermediate_size"] = 40;
  std::ofstream(dir / "config.json") << config.dump();
  write_checkpoint(dir.string(), m.named_parameters());  // fused names
  const std::string e = load_error(dir.string());
  EXPECT_NE(e.find("tensor 'model.layers.0.mlp.experts.gate_up_proj' has shape [6, 96, 64] but "
                   "config.json implies [6, 80, 64]"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("moe_intermediate_size"), std::string::npos) << e;
}

TEST(MoeErrors, TopKLargerThanTheExpertsIsNamed) {
  const std::string dir = broken_moe(
      "topk", [](nlohmann::json& c) { c["num_experts_per_tok"] = 7; }, kKeepTensors);
  const std::string e = load_error(dir);
  EXPECT_NE(e.find("num_experts_per_tok 7 is larger than num_local_experts 6"), std::string::npos)
      << e;
}

// mlp_only_layers making a layer dense whose experts the checkpoint holds: named as such, not as
// "more experts than num_experts" (report bt10).
TEST(MoeErrors, ADenseLayerWithExpertsNamesMlpOnlyLayers) {
  const std::string dir = broken_moe(
      "mlp_only", [](nlohmann::json& c) { c["mlp_only_layers"] = {0}; }, kKeepTensors);
  const std::string e = load_error(dir);
  EXPECT_NE(e.find("config.json makes that layer dense: mlp_only_layers or decoder_sparse_step "
                   "disagree with the weights"),
            std::string::npos)
      << e;
}

// Two names of the expert count that disagree (report bt10 took num_experts 5 silently).
TEST(MoeErrors, TwoExpertCountsThatDisagreeAreNamed) {
  const std::string dir = broken_moe(
      "two_counts", [](nlohmann::json& c) { c["num_experts"] = 5; }, kKeepTensors);
  const std::string e = load_error(dir);
  EXPECT_NE(e.find("num_experts 5 and num_local_experts 6 disagree; keep one expert count"),
            std::string::npos)
      << e;
}

TEST(MoeErrors, UnknownArchitectureListsTheSupportedOnes) {
  const std::string dir = broken_moe(
      "arch", [](nlohmann::json& c) { c["architectures"] = {"MixtralForCausalLM"}; }, kKeepTensors);
  const std::string e = load_error(dir);
  EXPECT_NE(e.find("architecture 'MixtralForCausalLM' is not supported (supported: "
                   "Qwen2ForCausalLM, Qwen3ForCausalLM, LlamaForCausalLM, Qwen3MoeForCausalLM, "
                   "Qwen3_5ForCausalLM, Qwen3_5ForConditionalGeneration, Qwen3_5MoeForCausalLM, "
                   "Qwen3_5MoeForConditionalGeneration)"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace verlpp::model
