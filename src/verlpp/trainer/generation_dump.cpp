#include "verlpp/trainer/generation_dump.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"

namespace verlpp::trainer {
namespace {

// The tokens of `row` where `mask` is set, decoded without special tokens.
std::string decode_masked(const tokenizer::Tokenizer& tokenizer, const at::Tensor& ids,
                          const at::Tensor& mask, std::int64_t row) {
  const at::Tensor kept =
      ids[row].masked_select(mask[row].ne(0)).to(at::kCPU, at::kInt).contiguous();
  return tokenizer.decode(std::span<const std::int32_t>(kept.data_ptr<std::int32_t>(),
                                                        static_cast<std::size_t>(kept.numel())),
                          true);
}

nlohmann::json ground_truth(const data::Batch& batch, std::int64_t row) {
  if (!batch.has_non_tensor("reward_model")) return nullptr;
  const nlohmann::json& rm = batch.non_tensor("reward_model")[static_cast<std::size_t>(row)];
  return rm.is_object() && rm.contains("ground_truth") ? rm["ground_truth"] : nlohmann::json();
}

}  // namespace

std::vector<nlohmann::ordered_json> generation_records(
    const data::Batch& batch, const tokenizer::Tokenizer& tokenizer,
    const std::vector<double>& scores, const std::map<std::string, std::vector<double>>& extra,
    std::int64_t step) {
  const at::Tensor prompts = batch.tensor("prompts");
  const at::Tensor responses = batch.tensor("responses");
  const at::Tensor prompt_mask = batch.tensor("attention_mask").narrow(1, 0, prompts.size(1));
  const at::Tensor response_mask = batch.tensor("response_mask");
  const auto rows = static_cast<std::size_t>(batch.size());
  std::vector<nlohmann::ordered_json> records;
  for (std::size_t i = 0; i < rows; ++i) {
    const auto row = static_cast<std::int64_t>(i);
    nlohmann::ordered_json r;
    r["input"] = decode_masked(tokenizer, prompts, prompt_mask, row);
    r["output"] = decode_masked(tokenizer, responses, response_mask, row);
    r["gts"] = ground_truth(batch, row);
    r["score"] = i < scores.size() ? nlohmann::ordered_json(scores[i]) : nullptr;
    r["step"] = step;
    for (const auto& [key, values] : extra) {
      if (values.size() == rows) r[key] = values[i];
    }
    records.push_back(std::move(r));
  }
  return records;
}

void write_generations(const std::string& dir, std::int64_t step,
                       const std::vector<nlohmann::ordered_json>& records) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot make the generations folder: {}", dir, ec.message()));
  std::string text;
  for (const auto& record : records) {
    text += record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  write_file_atomically(std::filesystem::path(dir) / fmt::format("{}.jsonl", step), text);
}

}  // namespace verlpp::trainer
