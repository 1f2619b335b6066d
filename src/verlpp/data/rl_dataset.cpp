#include "verlpp/data/rl_dataset.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "verlpp/core/error.h"
#include "verlpp/data/row_error.h"
#include "verlpp/data/row_reader.h"

namespace verlpp::data {
namespace {

std::string column_list(const Row& row) {
  std::string keys;
  for (const auto& [key, value] : row.items()) keys += (keys.empty() ? "" : ", ") + key;
  return keys.empty() ? "(none)" : keys;
}

void check_prompt(const Row& row, const std::string& prompt_key, const RowOrigin& origin) {
  if (!row.contains(prompt_key)) {
    throw Error(fmt::format("{}: no '{}' column (data.prompt_key={}); the row has: {}",
                            origin.describe(), prompt_key, prompt_key, column_list(row)));
  }
  const Row& messages = row[prompt_key];
  const auto bad = [&](const std::string& what) {
    return Error(
        fmt::format("{}: '{}' must be a list of chat messages "
                    "[{{\"role\": str, \"content\": str}}, ...]; {}",
                    origin.describe(), prompt_key, what));
  };
  if (!messages.is_array() || messages.empty()) throw bad("got " + messages.dump());
  for (const auto& message : messages) {
    if (!message.is_object() || !message.contains("role") || !message["role"].is_string() ||
        !message.contains("content") || !message["content"].is_string()) {
      throw bad("message " + message.dump() + " is not one");
    }
  }
}

std::vector<std::int64_t> subset(std::int64_t size, const RLHFDatasetConfig& config) {
  std::vector<std::int64_t> keep;
  if (config.max_samples <= 0 || config.max_samples >= size) {
    for (std::int64_t i = 0; i < size; ++i) keep.push_back(i);
    return keep;
  }
  if (!config.shuffle) {
    for (std::int64_t i = 0; i < config.max_samples; ++i) keep.push_back(i);
    return keep;
  }
  auto generator =
      at::make_generator<at::CPUGeneratorImpl>(static_cast<std::uint64_t>(config.seed));
  const auto permutation = at::randperm(size, generator, at::kLong);
  const auto* data = permutation.data_ptr<std::int64_t>();
  return {data, data + config.max_samples};
}

at::Tensor to_tensor(const std::vector<std::vector<std::int64_t>>& rows, std::int64_t width) {
  auto out = at::empty({static_cast<std::int64_t>(rows.size()), width}, at::kLong);
  auto* data = out.data_ptr<std::int64_t>();
  for (const auto& row : rows) data = std::copy(row.begin(), row.end(), data);
  return out;
}

std::int32_t image_pad_id(const tokenizer::Tokenizer& tokenizer, const ImageSettings& settings) {
  const auto id = tokenizer.token_to_id(settings.image_pad_token);
  if (!id) {
    throw Error(fmt::format(
        "the dataset has images (data.image_key={}) but the tokenizer has no '{}' token to place "
        "them at (a Qwen vision-language tokenizer is needed)",
        settings.image_key, settings.image_pad_token));
  }
  return *id;
}

}  // namespace

RLHFDataset::RLHFDataset(const RLHFDatasetConfig& config, const tokenizer::Tokenizer& tokenizer)
    : config_(config), tokenizer_(tokenizer) {
  if (!tokenizer.chat_template()) {
    throw Error(
        "the tokenizer has no chat template (tokenizer_config.json chat_template); verl "
        "renders data.prompt_key messages with it");
  }
  const auto& special = tokenizer.special_tokens();
  if (special.pad_id) {
    pad_id_ = *special.pad_id;
  } else if (special.eos_id) {
    pad_id_ = *special.eos_id;
  } else {
    throw Error("the tokenizer has neither a pad token nor an eos token to pad prompts with");
  }
  if (config.max_prompt_length < 1) {
    throw Error(
        fmt::format("data.max_prompt_length must be >= 1, got {}", config.max_prompt_length));
  }
  if (config.files.empty()) throw Error("data.train_files: no files given");
  RowFile file = read_rows(config.files);
  bool images = false;
  for (std::size_t i = 0; i < file.rows.size(); ++i) {
    check_prompt(file.rows[i], config.prompt_key, file.origins[i]);
    const Row& r = file.rows[i];
    const auto refs = image_refs(r, config.images.image_key, file.origins[i]);
    // A list, even empty, means the row's placeholders must match it (verl asserts it; only a
    // missing or null column leaves "<image>" as text).
    if (!config.images.image_key.empty() && r.contains(config.images.image_key) &&
        r[config.images.image_key].is_array()) {
      image_messages(r[config.prompt_key], refs.size(), file.origins[i]);
    }
    images = images || !refs.empty();
  }
  if (images) image_pad_id_ = image_pad_id(tokenizer, config.images);
  for (const auto index : subset(static_cast<std::int64_t>(file.rows.size()), config)) {
    rows_.push_back(std::move(file.rows[static_cast<std::size_t>(index)]));
    origins_.push_back(std::move(file.origins[static_cast<std::size_t>(index)]));
  }
  if (config.filter_overlong_prompts) {
    const std::vector<std::int64_t> lengths = prompt_lengths();
    std::vector<Row> kept_rows;
    std::vector<RowOrigin> kept_origins;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      if (lengths[i] > config.max_prompt_length) continue;
      kept_rows.push_back(std::move(rows_[i]));
      kept_origins.push_back(std::move(origins_[i]));
    }
    filtered_out_ = static_cast<std::int64_t>(rows_.size() - kept_rows.size());
    rows_ = std::move(kept_rows);
    origins_ = std::move(kept_origins);
  }
  if (rows_.empty()) {
    throw Error(
        fmt::format("data: no rows of {} left after filtering {} prompts longer than "
                    "data.max_prompt_length={}",
                    fmt::join(config.files, ", "), filtered_out_, config.max_prompt_length));
  }
}

Row RLHFDataset::messages(std::int64_t index, std::size_t image_count) const {
  const Row& messages = row(index)[config_.prompt_key];
  return image_count == 0 ? messages : image_messages(messages, image_count, origin(index));
}

std::string RLHFDataset::prompt_text(std::int64_t index) const {
  tokenizer::ChatTemplateOptions options;
  options.add_generation_prompt = true;
  options.extra_context = config_.apply_chat_template_kwargs;
  const std::size_t images = image_refs(row(index), config_.images.image_key, origin(index)).size();
  // A row with images has its <image> placeholders turned into content lists of image and text
  // items (as verl does); a text-only template fails on them with its own message.
  const std::string where =
      images > 0
          ? origin(index).describe() +
                " (a row with images: its messages' content is a list of image and text items, "
                "which the chat template must render, as Qwen3.5-VL's does)"
          : origin(index).describe();
  return naming_row(
      where, [&] { return tokenizer_.apply_chat_template(messages(index, images), options); });
}

std::vector<std::int64_t> RLHFDataset::prompt_lengths() const {
  std::vector<std::string> texts;
  for (std::int64_t i = 0; i < size(); ++i) texts.push_back(prompt_text(i));
  std::vector<std::vector<std::int32_t>> encoded;
  try {
    encoded = tokenizer_.encode_batch(texts);
  } catch (const Error&) {
    for (std::int64_t i = 0; i < size(); ++i) {
      const std::string& text = texts[static_cast<std::size_t>(i)];
      naming_row(origin(i).describe(), [&] { return tokenizer_.encode(text); });
    }
    throw;
  }
  std::vector<std::int64_t> lengths;
  for (std::int64_t i = 0; i < size(); ++i) {
    auto length = static_cast<std::int64_t>(encoded[static_cast<std::size_t>(i)].size());
    const auto refs = image_refs(row(i), config_.images.image_key, origin(i));
    for (std::size_t k = 0; k < refs.size(); ++k) {
      const RgbImage image = load_image(refs[k], origin(i), k);
      length += image_token_count(image.width, image.height, config_.images) - 1;
    }
    lengths.push_back(length);
  }
  return lengths;
}

RLHFDataset::EncodedRow RLHFDataset::encode(std::int64_t index) const {
  EncodedRow out;
  const std::string text = prompt_text(index);
  out.ids = naming_row(origin(index).describe(), [&] { return tokenizer_.encode(text); });
  const auto refs = image_refs(row(index), config_.images.image_key, origin(index));
  if (refs.empty()) {
    if (has_images() && std::count(out.ids.begin(), out.ids.end(), image_pad_id_) > 0) {
      throw Error(fmt::format(
          "{}: the prompt's text holds the image pad token {} but the row has no images (the "
          "model would look for image features there)",
          origin(index).describe(), config_.images.image_pad_token));
    }
    return out;
  }
  std::vector<std::int64_t> counts;
  for (std::size_t k = 0; k < refs.size(); ++k) {
    const RgbImage image = load_image(refs[k], origin(index), k);
    out.images.push_back(naming_row(fmt::format("{} image {}", origin(index).describe(), k),
                                    [&] { return prepare_image(image, config_.images); }));
    counts.push_back(out.images.back().tokens(config_.images.processor.merge_size));
  }
  out.ids = expand_image_pads(out.ids, image_pad_id_, counts, origin(index).describe());
  return out;
}

Batch RLHFDataset::collate(const std::vector<std::int64_t>& indices) const {
  std::vector<std::vector<std::int64_t>> input_ids, attention_mask, position_ids;
  std::vector<at::Tensor> pixel_values, image_grid_thw;
  std::map<std::string, std::vector<nlohmann::json>> columns;
  for (std::size_t position = 0; position < indices.size(); ++position) {
    const std::int64_t index = indices[position];
    const Row& r = row(index);
    const std::string where = origin(index).describe();
    const EncodedRow encoded = encode(index);
    const auto& ids = encoded.ids;
    if (!encoded.images.empty() &&
        static_cast<std::int64_t>(ids.size()) > config_.max_prompt_length) {
      throw Error(fmt::format(
          "{}: the prompt with its images is {} tokens, longer than data.max_prompt_length={}; a "
          "prompt with images is never truncated (drop such rows with "
          "data.filter_overlong_prompts=true or raise max_prompt_length)",
          where, ids.size(), config_.max_prompt_length));
    }
    if (has_images()) {
      const RowImageTensors tensors = row_image_tensors(encoded.images, config_.images.processor);
      pixel_values.push_back(tensors.pixel_values);
      image_grid_thw.push_back(tensors.image_grid_thw);
    }
    auto padded = left_pad(ids, config_.max_prompt_length, pad_id_, config_.truncation, where,
                           config_.overlong_wording);
    input_ids.push_back(std::move(padded.input_ids));
    attention_mask.push_back(std::move(padded.attention_mask));
    position_ids.push_back(std::move(padded.position_ids));
    for (const auto& [key, value] : r.items()) {
      if (key == config_.prompt_key || key == config_.images.image_key) continue;
      auto& column = columns[key];
      column.resize(static_cast<std::size_t>(position));  // earlier rows without it: null
      column.push_back(value);
    }
    columns["raw_prompt_ids"].push_back(truncate_ids(
        ids, config_.max_prompt_length, config_.truncation, where, config_.overlong_wording));
    if (config_.return_raw_chat) columns["raw_prompt"].push_back(r[config_.prompt_key]);
    const bool has_index = r.contains("extra_info") && r["extra_info"].is_object() &&
                           r["extra_info"].contains("index");
    columns["index"].push_back(has_index ? nlohmann::json(r["extra_info"]["index"])
                                         : nlohmann::json(0));
    columns[kDataOrigin].push_back(where);
  }
  Batch batch;
  const auto width = config_.max_prompt_length;
  batch.set_tensor("input_ids", to_tensor(input_ids, width));
  batch.set_tensor("attention_mask", to_tensor(attention_mask, width));
  batch.set_tensor("position_ids", to_tensor(position_ids, width));
  for (auto& [key, values] : columns) {
    values.resize(indices.size());  // later rows without the column: null, as in a table
    batch.set_non_tensor(key, std::move(values));
  }
  if (has_images()) {
    batch.set_row_tensors("pixel_values", std::move(pixel_values));
    batch.set_row_tensors("image_grid_thw", std::move(image_grid_thw));
  }
  return batch;
}

}  // namespace verlpp::data
