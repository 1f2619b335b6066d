#include "verlpp/trainer/sft_loss.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "verlpp/model/logprob.h"

namespace verlpp::trainer {

PackedSft pack_sft(const std::vector<const data::SftExample*>& examples, const at::Device& device) {
  std::vector<std::int64_t> ids, positions, predict_at, targets;
  std::vector<std::int32_t> cu = {0};
  for (const data::SftExample* example : examples) {
    const auto offset = static_cast<std::int64_t>(ids.size());
    const auto length = static_cast<std::int64_t>(example->input_ids.size());
    for (std::int64_t t = 0; t < length; ++t) {
      ids.push_back(example->input_ids[t]);
      positions.push_back(t);
      if (t + 1 < length && example->loss_mask[t + 1] != 0) {
        predict_at.push_back(offset + t);
        targets.push_back(example->input_ids[t + 1]);
      }
    }
    cu.push_back(static_cast<std::int32_t>(ids.size()));
  }
  const auto to_device = [&](auto& values, at::ScalarType dtype) {
    return at::tensor(values, at::TensorOptions().dtype(dtype)).to(device);
  };
  return {to_device(ids, at::kLong), to_device(positions, at::kLong), to_device(cu, at::kInt),
          to_device(predict_at, at::kLong), to_device(targets, at::kLong)};
}

at::Tensor sft_micro_loss(const model::CausalLM& model, const PackedSft& packed,
                          double batch_num_tokens) {
  const at::Tensor hidden =
      model.forward_packed(packed.input_ids, packed.position_ids, packed.cu_seqlens);
  const at::Tensor logprobs =
      model::chunked_logprob_entropy(hidden.index_select(0, packed.predict_at),
                                     model.lm_head_weight(), packed.targets, 1.0,
                                     /*with_entropy=*/false)
          .logprobs;
  return -logprobs.sum() / batch_num_tokens;
}

}  // namespace verlpp::trainer
