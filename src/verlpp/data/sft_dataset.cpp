#include "verlpp/data/sft_dataset.h"

#include <fmt/format.h>

#include <algorithm>

#include "verlpp/core/error.h"
#include "verlpp/data/row_error.h"
#include "verlpp/data/row_reader.h"

namespace verlpp::data {
namespace {

using tokenizer::ChatTemplateOptions;
using tokenizer::OrderedJson;
using Ids = std::vector<std::int32_t>;

const Row& column(const Row& row, const std::string& key, const std::string& config_key,
                  const std::string& where) {
  if (!row.contains(key)) {
    throw Error(fmt::format("{}: no '{}' column ({}={})", where, key, config_key, key));
  }
  return row[key];
}

void append(SftExample& out, const Ids& ids, std::size_t from, std::size_t to, bool learn) {
  out.input_ids.insert(out.input_ids.end(), ids.begin() + from, ids.begin() + to);
  out.loss_mask.insert(out.loss_mask.end(), to - from, learn ? 1 : 0);
}

std::size_t common_prefix(const Ids& a, const Ids& b) {
  const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return static_cast<std::size_t>(ia - a.begin());
}

// Where `longer` continues `shorter`; throws unless it extends it (or the mismatch is ignored).
std::size_t continuation(const Ids& shorter, const Ids& longer, const SftDatasetConfig& config,
                         const std::string& where, std::size_t message) {
  const std::size_t prefix = common_prefix(shorter, longer);
  if (prefix == shorter.size() || config.ignore_input_ids_mismatch) return prefix;
  throw Error(fmt::format(
      "{}: the chat template's rendering of messages[:{}] does not start with its rendering of "
      "the messages before (tokens differ at position {}); set "
      "data.ignore_input_ids_mismatch=true to train on the concatenation anyway",
      where, message + 1, prefix));
}

SftExample encode_messages(const Row& messages, const SftDatasetConfig& config,
                           const tokenizer::Tokenizer& tokenizer, const std::string& where) {
  if (!messages.is_array() || messages.empty()) {
    throw Error(fmt::format("{}: '{}' must be a non-empty list of chat messages, got {}", where,
                            config.messages_key, messages.dump()));
  }
  ChatTemplateOptions plain, generation;
  plain.extra_context = generation.extra_context = config.apply_chat_template_kwargs;
  generation.add_generation_prompt = true;
  SftExample out;
  Ids previous;
  OrderedJson prefix = OrderedJson::array();
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Row& message = messages[i];
    if (!message.is_object() || !message.contains("role") || !message["role"].is_string()) {
      throw Error(
          fmt::format("{}: message {} has no \"role\" string: {}", where, i, message.dump()));
    }
    const bool assistant = message["role"] == "assistant";
    Ids header = previous;
    if (assistant) {
      header = naming_row(where, [&] { return tokenizer.encode_chat(prefix, generation); });
      append(out, header, continuation(previous, header, config, where, i), header.size(), false);
    }
    prefix.push_back(message);
    const Ids current = naming_row(where, [&] { return tokenizer.encode_chat(prefix, plain); });
    append(out, current, continuation(header, current, config, where, i), current.size(),
           assistant);
    previous = current;
  }
  return out;
}

SftExample encode_single_turn(const Row& row, const SftDatasetConfig& config,
                              const tokenizer::Tokenizer& tokenizer, const std::string& where) {
  const Row& prompt = column(row, *config.prompt_key, "data.prompt_key", where);
  const Row& response = column(row, *config.response_key, "data.response_key", where);
  if (!prompt.is_string() || !response.is_string()) {
    throw Error(fmt::format("{}: '{}' and '{}' must be strings", where, *config.prompt_key,
                            *config.response_key));
  }
  const auto& eos = tokenizer.special_tokens().eos_token;
  if (!eos) throw Error("the tokenizer has no eos_token (tokenizer_config.json)");
  ChatTemplateOptions options;
  options.add_generation_prompt = true;
  options.extra_context = config.apply_chat_template_kwargs;
  const OrderedJson chat =
      OrderedJson::array({OrderedJson{{"role", "user"}, {"content", prompt.get<std::string>()}}});
  const Ids prompt_ids = naming_row(where, [&] { return tokenizer.encode_chat(chat, options); });
  const Ids response_ids =
      naming_row(where, [&] { return tokenizer.encode(response.get<std::string>() + *eos); });
  SftExample out;
  append(out, prompt_ids, 0, prompt_ids.size(), false);
  append(out, response_ids, 0, response_ids.size(), true);
  return out;
}

void truncate(SftExample& example, const SftDatasetConfig& config, const std::string& where) {
  const auto length = static_cast<std::int64_t>(example.input_ids.size());
  if (length <= config.max_length) return;
  if (config.truncation == "error") {
    throw Error(fmt::format(
        "{}: the sequence is {} tokens, longer than data.max_length={} (data.truncation=error; "
        "use left or right to cut it)",
        where, length, config.max_length));
  }
  const auto keep = static_cast<std::size_t>(config.max_length);
  if (config.truncation == "left") {
    example.input_ids.erase(example.input_ids.begin(), example.input_ids.end() - keep);
    example.loss_mask.erase(example.loss_mask.begin(), example.loss_mask.end() - keep);
  } else {
    example.input_ids.resize(keep);
    example.loss_mask.resize(keep);
  }
}

}  // namespace

SftExample encode_sft_row(const Row& row, const SftDatasetConfig& config,
                          const tokenizer::Tokenizer& tokenizer, const std::string& where) {
  SftExample example =
      config.prompt_key && config.response_key
          ? encode_single_turn(row, config, tokenizer, where)
          : encode_messages(column(row, config.messages_key, "data.messages_key", where), config,
                            tokenizer, where);
  truncate(example, config, where);
  // The first token is never predicted, so it cannot be learned.
  if (std::count(example.loss_mask.begin() + 1, example.loss_mask.end(), 1) == 0) {
    throw Error(where + ": nothing to learn (no assistant/response token within data.max_length)");
  }
  return example;
}

SftDataset::SftDataset(const SftDatasetConfig& config, const tokenizer::Tokenizer& tokenizer) {
  if (!tokenizer.chat_template()) {
    throw Error("the tokenizer has no chat template (tokenizer_config.json chat_template)");
  }
  const RowFile file = read_rows(config.files);
  std::size_t count = file.rows.size();
  if (config.max_samples > 0) count = std::min(count, static_cast<std::size_t>(config.max_samples));
  examples_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    examples_.push_back(
        encode_sft_row(file.rows[i], config, tokenizer, file.origins[i].describe()));
  }
}

}  // namespace verlpp::data
