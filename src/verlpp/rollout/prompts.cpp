#include "verlpp/rollout/prompts.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>

#include "verlpp/core/error.h"
#include "verlpp/model/mrope_positions.h"

namespace verlpp::rollout {

namespace {

const at::Tensor& prompt_tensor(const data::Batch& prompts, const std::string& key) {
  if (!prompts.has_tensor(key)) {
    throw Error("generate_sequences: the prompt batch has no tensor '" + key +
                "' (expected input_ids, attention_mask, position_ids [batch, prompt_length])");
  }
  const at::Tensor& t = prompts.tensor(key);
  const at::Tensor& ids = prompts.tensor("input_ids");
  if (t.dim() != 2 || t.sizes() != ids.sizes()) {
    throw Error(
        fmt::format("generate_sequences: '{}' has shape [{}]; expected [batch, prompt_length] "
                    "like input_ids [{}]",
                    key, fmt::join(t.sizes(), ", "), fmt::join(ids.sizes(), ", ")));
  }
  return t;
}

// Row b's images and M-RoPE streams, or null when it has none.
std::shared_ptr<const PromptImages> row_images(const data::Batch& prompts, const PackedPrompts& p,
                                               const model::ModelConfig& config, size_t b) {
  const at::Tensor& thw = prompts.row_tensors("image_grid_thw")[b];
  if (thw.numel() == 0) return nullptr;
  if (!config.vision) {
    throw Error(fmt::format(
        "generate_sequences: prompt row {} holds images but the model has no vision_config", b));
  }
  auto images = std::make_shared<PromptImages>();
  const int64_t* cu = p.cu_seqlens.data_ptr<int64_t>();
  const std::vector<int64_t> ids(p.ids.data_ptr<int64_t>() + cu[b],
                                 p.ids.data_ptr<int64_t>() + cu[b + 1]);
  try {
    images->inputs.grids = model::image_grids(thw);
    images->mrope_positions =
        model::mrope_positions(ids, images->inputs.grids, config.vision->image_token_id,
                               config.vision->spatial_merge_size)
            .positions;
  } catch (const Error& e) {
    throw Error(fmt::format("generate_sequences: prompt row {}: {}", b, e.what()));
  }
  images->inputs.pixel_values = prompts.row_tensors("pixel_values")[b];
  return images;
}

}  // namespace

PackedPrompts pack_prompts(const data::Batch& prompts, const model::ModelConfig& config) {
  const int64_t vocab_size = config.vocab_size;
  const at::Tensor ids = prompt_tensor(prompts, "input_ids").to(at::kCPU, at::kLong);
  const at::Tensor mask = prompt_tensor(prompts, "attention_mask").to(at::kCPU).ne(0);
  const at::Tensor pos = prompt_tensor(prompts, "position_ids").to(at::kCPU, at::kLong);
  PackedPrompts p;
  p.ids = ids.masked_select(mask);
  p.positions = pos.masked_select(mask);
  const at::Tensor lengths = mask.sum(1).to(at::kLong).contiguous();
  p.lengths.assign(lengths.data_ptr<int64_t>(), lengths.data_ptr<int64_t>() + lengths.numel());
  for (size_t b = 0; b < p.lengths.size(); ++b) {
    if (p.lengths[b] == 0)
      throw Error(fmt::format("generate_sequences: prompt row {} is empty", b));
  }
  p.max_length = *std::max_element(p.lengths.begin(), p.lengths.end());
  const int64_t lowest = p.ids.min().item<int64_t>();
  const int64_t highest = p.ids.max().item<int64_t>();
  if (lowest < 0 || highest >= vocab_size) {
    throw Error(
        fmt::format("generate_sequences: prompt token id {} is outside the model's "
                    "vocabulary [0, {}) (tokenizer and model do not match?)",
                    lowest < 0 ? lowest : highest, vocab_size));
  }
  std::vector<int64_t> cu(p.lengths.size() + 1, 0);
  std::partial_sum(p.lengths.begin(), p.lengths.end(), cu.begin() + 1);
  p.cu_seqlens = at::tensor(cu, at::kLong);
  p.last_positions = p.positions.index_select(0, p.cu_seqlens.narrow(0, 1, lengths.numel()) - 1);
  if (prompts.has_row_tensors("image_grid_thw")) {
    for (size_t b = 0; b < p.lengths.size(); ++b)
      p.images.push_back(row_images(prompts, p, config, b));
  }
  return p;
}

PromptGroups group_prompts(const PackedPrompts& p, bool share) {
  PromptGroups g;
  if (!share) {
    g.firsts.resize(p.lengths.size());
    std::iota(g.firsts.begin(), g.firsts.end(), 0);
    g.group = g.firsts;
    return g;
  }
  const int64_t* ids = p.ids.data_ptr<int64_t>();
  const int64_t* positions = p.positions.data_ptr<int64_t>();
  const int64_t* cu = p.cu_seqlens.data_ptr<int64_t>();
  std::map<std::tuple<std::vector<int64_t>, std::vector<int64_t>, const void*>, int64_t> seen;
  for (size_t b = 0; b < p.lengths.size(); ++b) {
    const void* pixels =
        p.images.empty() || !p.images[b] ? nullptr : p.images[b]->inputs.pixel_values.data_ptr();
    auto key =
        std::make_tuple(std::vector<int64_t>(ids + cu[b], ids + cu[b + 1]),
                        std::vector<int64_t>(positions + cu[b], positions + cu[b + 1]), pixels);
    const auto [it, inserted] = seen.emplace(std::move(key), static_cast<int64_t>(g.firsts.size()));
    if (inserted) g.firsts.push_back(static_cast<int64_t>(b));
    g.group.push_back(it->second);
  }
  return g;
}

PackedPrompts packed_rows(const PackedPrompts& p, const std::vector<int64_t>& rows) {
  const int64_t* cu = p.cu_seqlens.data_ptr<int64_t>();
  std::vector<int64_t> tokens, new_cu = {0};
  PackedPrompts q;
  for (const int64_t r : rows) {
    for (int64_t t = cu[r]; t < cu[r + 1]; ++t) tokens.push_back(t);
    q.lengths.push_back(p.lengths[static_cast<size_t>(r)]);
    new_cu.push_back(static_cast<int64_t>(tokens.size()));
    if (!p.images.empty()) q.images.push_back(p.images[static_cast<size_t>(r)]);
  }
  const at::Tensor take = at::tensor(tokens, at::kLong);
  q.ids = p.ids.index_select(0, take);
  q.positions = p.positions.index_select(0, take);
  q.cu_seqlens = at::tensor(new_cu, at::kLong);
  q.last_positions = p.last_positions.index_select(0, at::tensor(rows, at::kLong));
  q.max_length = *std::max_element(q.lengths.begin(), q.lengths.end());
  return q;
}

int64_t response_length(const SamplingParams& params, const PackedPrompts& packed,
                        int64_t max_position_embeddings, int64_t first_row) {
  const int64_t R = params.max_response_length;
  if (R < 1) {
    throw Error(fmt::format("generate_sequences: max_response_length must be >= 1, got {}", R));
  }
  if (max_position_embeddings > 0 && R > max_position_embeddings - packed.max_length) {
    throw Error(fmt::format(
        "generate_sequences: the longest prompt ({} tokens) plus response_length {} exceeds the "
        "model's max_position_embeddings {}; lower response_length or the prompt length",
        packed.max_length, R, max_position_embeddings));
  }
  if (params.max_model_len > 0 && packed.max_length > params.max_model_len) {
    const auto longest = std::max_element(packed.lengths.begin(), packed.lengths.end());
    throw Error(fmt::format(
        "generate_sequences: the prompt of row {} of the batch has {} tokens, more than "
        "max_model_len {} (rollout.max_model_len, by default rollout.prompt_length + "
        "response_length), which vLLM refuses; raise rollout.prompt_length to "
        "data.max_prompt_length",
        first_row + (longest - packed.lengths.begin()), *longest, params.max_model_len));
  }
  return R;
}

std::vector<int64_t> capped_response_lengths(const SamplingParams& params,
                                             const PackedPrompts& packed, int64_t response_length) {
  if (params.max_model_len <= 0 || packed.max_length + response_length <= params.max_model_len) {
    return {};
  }
  std::vector<int64_t> limits;
  limits.reserve(packed.lengths.size());
  for (const int64_t length : packed.lengths) {
    limits.push_back(std::clamp<int64_t>(params.max_model_len - length, 1, response_length));
  }
  return limits;
}

SamplerSettings sampler_settings(const SamplingParams& params) {
  SamplerSettings s;
  s.greedy = !params.do_sample || params.temperature == 0.0;
  s.temperature = std::max(params.temperature, kMinLogProbTemperature);
  s.top_k = params.top_k;
  s.top_p = params.top_p;
  return s;
}

data::Batch response_batch(const data::Batch& prompts, const PackedPrompts& packed,
                           const at::Tensor& tokens, const at::Tensor& mask,
                           const at::Tensor& logprobs, const SamplingParams& params) {
  // A NaN or infinite weight makes every logit NaN: the sampler's draw is then meaningless, so the
  // rollout stops here (one check per call) instead of returning garbage tokens.
  if (logprobs.defined() && logprobs.numel() > 0 &&
      !at::isfinite(logprobs).logical_or(mask.eq(0)).all().item<bool>()) {
    throw Error(
        "rollout: the model's token log-probabilities are NaN or infinite (non-finite weights or "
        "logits: check the checkpoint, the learning rate and config.json's rms_norm_eps and "
        "rope_theta)");
  }
  const at::Device dev = tokens.device();
  const int64_t R = tokens.size(1);
  const auto long_options = at::TensorOptions().dtype(at::kLong).device(dev);
  const at::Tensor prompt_ids = prompts.tensor("input_ids").to(dev, at::kLong);
  const at::Tensor prompt_mask = prompts.tensor("attention_mask").to(dev, at::kLong);
  const at::Tensor prompt_pos = prompts.tensor("position_ids").to(dev, at::kLong);
  const at::Tensor response_pos =
      packed.last_positions.to(dev).unsqueeze(1) + at::arange(1, R + 1, long_options).unsqueeze(0);
  data::Batch result;
  result.meta_info = prompts.meta_info;
  for (const auto& [key, values] : prompts.non_tensors()) result.set_non_tensor(key, values);
  for (const auto& [key, values] : prompts.row_tensors()) result.set_row_tensors(key, values);
  result.set_tensor("prompts", prompt_ids);
  result.set_tensor("responses", tokens);
  result.set_tensor("response_mask", mask);
  result.set_tensor("input_ids", at::cat({prompt_ids, tokens}, 1));
  result.set_tensor("attention_mask", at::cat({prompt_mask, mask}, 1));
  result.set_tensor("position_ids", at::cat({prompt_pos, response_pos}, 1));
  if (params.calculate_log_probs) result.set_tensor("rollout_log_probs", logprobs);
  return result;
}

}  // namespace verlpp::rollout
