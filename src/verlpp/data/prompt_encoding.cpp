#include "verlpp/data/prompt_encoding.h"

#include <fmt/format.h>

#include "verlpp/core/error.h"

namespace verlpp::data {

Truncation parse_truncation(const std::string& name) {
  if (name == "error") return Truncation::error;
  if (name == "left") return Truncation::left;
  if (name == "right") return Truncation::right;
  if (name == "middle") return Truncation::middle;
  throw Error(fmt::format("data.truncation: '{}' is not one of error, left, right, middle", name));
}

std::vector<std::int32_t> truncate_ids(const std::vector<std::int32_t>& ids,
                                       std::int64_t max_length, Truncation truncation,
                                       const std::string& where,
                                       const OverlongPromptWording& wording) {
  const auto size = static_cast<std::int64_t>(ids.size());
  if (size <= max_length) return ids;
  switch (truncation) {
    case Truncation::left:
      return {ids.end() - max_length, ids.end()};
    case Truncation::right:
      return {ids.begin(), ids.begin() + max_length};
    case Truncation::middle: {
      const std::int64_t left = max_length / 2;
      std::vector<std::int32_t> out(ids.begin(), ids.begin() + left);
      out.insert(out.end(), ids.end() - (max_length - left), ids.end());
      return out;
    }
    case Truncation::error:
      break;
  }
  throw Error(fmt::format("{}: prompt is {} tokens, longer than {}={} {}", where, size,
                          wording.limit, max_length, wording.remedy));
}

PaddedPrompt left_pad(const std::vector<std::int32_t>& ids, std::int64_t max_length,
                      std::int32_t pad_id, Truncation truncation, const std::string& where,
                      const OverlongPromptWording& wording) {
  const auto kept = truncate_ids(ids, max_length, truncation, where, wording);
  const auto pad = max_length - static_cast<std::int64_t>(kept.size());
  PaddedPrompt out;
  out.input_ids.assign(static_cast<std::size_t>(pad), pad_id);
  out.input_ids.insert(out.input_ids.end(), kept.begin(), kept.end());
  out.attention_mask.assign(static_cast<std::size_t>(pad), 0);
  out.attention_mask.resize(static_cast<std::size_t>(max_length), 1);
  std::int64_t seen = 0;
  for (const auto mask : out.attention_mask) {
    seen += mask;
    out.position_ids.push_back(std::max<std::int64_t>(seen - 1, 0));
  }
  return out;
}

}  // namespace verlpp::data
