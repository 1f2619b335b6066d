#include "actor_fixture.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>

namespace verlpp::engine::testing {

namespace {

model::ModelConfig tiny_config() {
  model::ModelConfig c;
  c.architecture = model::Architecture::qwen3;
  c.vocab_size = kVocab;
  c.hidden_size = 16;
  c.intermediate_size = 32;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 4;
  c.max_position_embeddings = 64;
  c.qk_norm = true;
  return c;
}

}  // namespace

model::CausalLM tiny_model(std::uint64_t seed) {
  return model::CausalLM::random_init(tiny_config(), seed, 0.3, at::kFloat);
}

model::CausalLM tiny_moe_model(std::uint64_t seed) {
  model::ModelConfig c = tiny_config();
  c.architecture = model::Architecture::qwen3_moe;
  c.moe.num_experts = 4;
  c.moe.num_experts_per_tok = 2;
  c.moe.moe_intermediate_size = 8;
  c.moe.norm_topk_prob = true;
  return model::CausalLM::random_init(c, seed, 0.3, at::kFloat);
}

data::Batch tiny_batch() {
  const std::vector<std::int64_t> prompt_len{3, 2, 1, 3, 2, 3}, response_len{4, 2, 3, 1, 4, 2};
  const std::int64_t rows = 6, width = kPrompt + kResponse;
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(11);
  at::Tensor ids = at::randint(1, kVocab, {rows, width}, gen, at::TensorOptions(at::kLong));
  at::Tensor mask = at::zeros({rows, width}, at::kLong);
  for (std::int64_t i = 0; i < rows; ++i) {
    mask[i].slice(0, kPrompt - prompt_len[i], kPrompt).fill_(1);
    mask[i].slice(0, kPrompt, kPrompt + response_len[i]).fill_(1);
  }
  ids = ids * mask;  // pad id 0
  data::Batch batch;
  batch.set_tensor("input_ids", ids);
  batch.set_tensor("attention_mask", mask);
  batch.set_tensor("position_ids", (mask.cumsum(1) - 1).clamp_min(0));
  batch.set_tensor("responses", ids.slice(1, kPrompt));
  batch.set_tensor("response_mask", mask.slice(1, kPrompt));
  batch.set_tensor("advantages", at::randn({rows, kResponse}, gen, at::TensorOptions(at::kFloat)) *
                                     mask.slice(1, kPrompt));
  return batch;
}

double max_param_diff(const model::CausalLM& a, const model::CausalLM& b) {
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  double worst = 0;
  for (std::size_t i = 0; i < pa.size(); ++i) {
    worst = std::max(worst, (pa[i].second - pb[i].second).abs().max().item<double>());
  }
  return worst;
}

}  // namespace verlpp::engine::testing
