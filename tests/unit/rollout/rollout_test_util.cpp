#include "rollout_test_util.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

namespace verlpp::rollout::testing {

std::string model_dir(const std::string& name) {
  return std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/model/" + name;
}

model::CausalLM load_fp32(const std::string& name) {
  return model::CausalLM::from_pretrained(model_dir(name), at::kFloat, at::Device(at::kCPU));
}

data::Batch left_padded(const std::vector<std::vector<int64_t>>& prompts, int64_t P, int64_t pad) {
  const auto B = static_cast<int64_t>(prompts.size());
  at::Tensor ids = at::full({B, P}, pad, at::kLong);
  at::Tensor mask = at::zeros({B, P}, at::kLong);
  for (int64_t b = 0; b < B; ++b) {
    const auto& p = prompts[static_cast<size_t>(b)];
    const auto n = static_cast<int64_t>(p.size());
    ids[b].narrow(0, P - n, n).copy_(at::tensor(p, at::kLong));
    mask[b].narrow(0, P - n, n).fill_(1);
  }
  data::Batch batch;
  batch.set_tensor("input_ids", ids);
  batch.set_tensor("attention_mask", mask);
  batch.set_tensor("position_ids", (mask.cumsum(1) - 1).clamp_min(0));
  return batch;
}

std::vector<int64_t> greedy_by_recomputation(const model::CausalLM& m,
                                             const std::vector<int64_t>& prompt, int64_t steps) {
  c10::AutoGradMode no_grad(false);
  std::vector<int64_t> seq = prompt;
  for (int64_t s = 0; s < steps; ++s) {
    const auto n = static_cast<int64_t>(seq.size());
    const at::Tensor h = m.forward_packed(at::tensor(seq, at::kLong), at::arange(n, at::kLong),
                                          at::tensor(std::vector<int64_t>{0, n}, at::kLong));
    seq.push_back(m.logits(h[n - 1]).argmax().item<int64_t>());
  }
  return {seq.begin() + static_cast<std::ptrdiff_t>(prompt.size()), seq.end()};
}

std::vector<int64_t> row(const at::Tensor& t, int64_t r) {
  const at::Tensor x = t[r].to(at::kCPU, at::kLong).contiguous();
  return {x.data_ptr<int64_t>(), x.data_ptr<int64_t>() + x.numel()};
}

SamplingParams greedy_params(int64_t response_length, int64_t pad) {
  SamplingParams p;
  p.do_sample = false;
  p.temperature = 1.0;  // log-probs at temperature 1
  p.max_response_length = response_length;
  p.pad_token_id = static_cast<std::int32_t>(pad);
  return p;
}

}  // namespace verlpp::rollout::testing
