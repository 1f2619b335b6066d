// Qwen3.5 incremental decoding on the CPU (fp32): prefill into state slots, then one-token decode
// steps (the conv window and the recurrent delta-rule step for Gated DeltaNet layers, the KV cache
// for attention layers) give the logits of a full forward over the extended sequences (the
// chunked path, itself checked against transformers in qwen3_5_parity_test), for the dense and the
// MoE decoders, with sequences longer than one 64-token chunk, in slots out of order. Tolerances
// are fp32's: the chunked and the recurrent form round differently, and these random models'
// fp32 logits sit about 1e-5 from their float64 values (transformers' own: reference_qwen3_5.json).
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <numeric>

#include "model_fixture.h"
#include "verlpp/core/generator.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::model {
namespace {

ModelConfig tiny(bool moe) {
  ModelConfig c;
  c.architecture = moe ? Architecture::qwen3_5_moe : Architecture::qwen3_5;
  c.vocab_size = 97;
  c.hidden_size = 32;
  c.intermediate_size = moe ? 0 : 48;
  c.num_hidden_layers = 4;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 12;
  c.max_position_embeddings = 512;
  c.rope_theta = 10000.0;
  c.partial_rotary_factor = 0.5;
  c.qk_norm = true;
  c.layer_types = {LayerType::linear_attention, LayerType::full_attention,
                   LayerType::linear_attention, LayerType::linear_attention};
  c.linear_attention = {2, 4, 8, 6, 4};
  if (moe) {
    c.moe.num_experts = 5;
    c.moe.num_experts_per_tok = 2;
    c.moe.moe_intermediate_size = 16;
    c.moe.norm_topk_prob = true;
    c.moe.shared_expert_intermediate_size = 20;
  }
  return c;
}

class Qwen3_5Decode : public ::testing::TestWithParam<bool> {};

TEST_P(Qwen3_5Decode, PrefillThenDecodeEqualsFullForward) {
  const CausalLM m = CausalLM::random_init(tiny(GetParam()), 5, 0.2, at::kFloat);
  c10::AutoGradMode no_grad(false);
  const std::vector<int64_t> prompt = {70, 3, 1};
  const std::vector<int64_t> slots = {2, 0, 1};
  const int64_t steps = 6;
  at::Generator gen = make_generator(at::kCPU, 9);
  std::vector<at::Tensor> seqs;
  for (int64_t len : prompt) seqs.push_back(at::randint(97, {len + steps}, gen, at::kLong));

  std::vector<at::Tensor> ids, pos;
  std::vector<int64_t> cu = {0};
  for (size_t s = 0; s < prompt.size(); ++s) {
    ids.push_back(seqs[s].narrow(0, 0, prompt[s]));
    pos.push_back(at::arange(prompt[s], at::kLong));
    cu.push_back(cu.back() + prompt[s]);
  }
  testing::GenerationStorage state = testing::allocate_generation_state(m, 3, 80);
  m.prefill(at::cat(ids), at::cat(pos), at::tensor(cu, at::kLong), slots, state.view);

  std::vector<int64_t> lengths(prompt);
  for (int64_t step = 0; step < steps; ++step) {
    std::vector<int64_t> token, position, cache_lengths;
    for (size_t s = 0; s < prompt.size(); ++s) {
      token.push_back(seqs[s][lengths[s]].item<int64_t>());
      position.push_back(lengths[s]);
      cache_lengths.push_back(lengths[s] + 1);
    }
    const DecodeView view = slot_decode_view(
        at::tensor(slots, at::kLong), at::tensor(cache_lengths, at::kLong), 80, 3,
        *std::max_element(cache_lengths.begin(), cache_lengths.end()), /*flash=*/false);
    const at::Tensor got = m.logits(
        m.decode(at::tensor(token, at::kLong), at::tensor(position, at::kLong), view, state.view));
    for (size_t s = 0; s < prompt.size(); ++s) {
      const int64_t n = lengths[s] + 1;
      const at::Tensor full =
          m.logits(m.forward_packed(seqs[s].narrow(0, 0, n), at::arange(n, at::kLong),
                                    at::tensor(std::vector<int64_t>{0, n})));
      EXPECT_LT((got[static_cast<int64_t>(s)] - full[n - 1]).abs().max().item<double>(), 1e-4)
          << "sequence " << s << " step " << step;
      ++lengths[s];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(DenseAndMoe, Qwen3_5Decode, ::testing::Values(false, true));

TEST(Qwen3_5Packing, PackedSequencesDoNotSeeEachOther) {
  const CausalLM m = CausalLM::random_init(tiny(false), 7, 0.2, at::kFloat);
  c10::AutoGradMode no_grad(false);
  at::Generator gen = make_generator(at::kCPU, 3);
  const at::Tensor a = at::randint(97, {67}, gen, at::kLong);
  const at::Tensor b = at::randint(97, {9}, gen, at::kLong);
  const at::Tensor packed = m.logits(m.forward_packed(
      at::cat({a, b}), at::cat({at::arange(67, at::kLong), at::arange(9, at::kLong)}),
      at::tensor(std::vector<int64_t>{0, 67, 76})));
  const at::Tensor alone = m.logits(
      m.forward_packed(b, at::arange(9, at::kLong), at::tensor(std::vector<int64_t>{0, 9})));
  EXPECT_LT((packed.narrow(0, 67, 9) - alone).abs().max().item<double>(), 3e-5);
  // Left padding: the padded rows give each sequence's own logits too.
  const at::Tensor ids = at::zeros({2, 67}, at::kLong);
  ids[0].copy_(a);
  ids[1].narrow(0, 58, 9).copy_(b);
  at::Tensor mask = at::ones({2, 67}, at::kLong);
  mask[1].narrow(0, 0, 58).zero_();
  const at::Tensor padded = m.logits(m.forward_padded(ids, mask));
  EXPECT_LT((padded[1].narrow(0, 58, 9) - alone).abs().max().item<double>(), 3e-5);
  EXPECT_LT((padded[0] - packed.narrow(0, 0, 67)).abs().max().item<double>(), 3e-5);
}

}  // namespace
}  // namespace verlpp::model
