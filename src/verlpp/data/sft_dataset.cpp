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

// The value `dict_keys` lead to inside row[key] (verl's prompt_dict_keys / response_dict_keys).
const Row& nested_column(const Row& row, const std::string& key, const std::string& config_key,
                         const std::vector<std::string>& dict_keys,
                         const std::string& dict_config_key, const std::string& where) {
  const Row* value = &column(row, key, config_key, where);
  std::string path = key;
  for (const std::string& entry : dict_keys) {
    if (!value->is_object() || !value->contains(entry)) {
      throw Error(fmt::format("{}: '{}' has no entry '{}' ({}), got {}", where, path, entry,
                              dict_config_key, value->dump()));
    }
    value = &(*value)[entry];
    path += "." + entry;
  }
  return *value;
}

// The options every rendering of a multi-turn row gets: apply_chat_template_kwargs, the row's
// tools and its enable_thinking (else data.enable_thinking_default), as verl passes them.
ChatTemplateOptions row_options(const Row& row, const SftDatasetConfig& config,
                                const std::string& where) {
  ChatTemplateOptions options;
  options.extra_context = config.apply_chat_template_kwargs;
  const auto& tools_key = config.tools_key;
  if (tools_key && row.contains(*tools_key) && !row[*tools_key].is_null()) {
    const Row& tools = row[*tools_key];
    if (!tools.is_array()) {
      throw Error(fmt::format("{}: '{}' (data.tools_key) must be a list of tool schemas, got {}",
                              where, *tools_key, tools.dump()));
    }
    options.tools = tools;
  }
  // A row with the column takes its cell, null included (no kwarg), as verl does.
  std::optional<bool> thinking = config.enable_thinking_default;
  const auto& thinking_key = config.enable_thinking_key;
  if (thinking_key && row.contains(*thinking_key)) {
    const Row& value = row[*thinking_key];
    if (!value.is_boolean() && !value.is_null()) {
      throw Error(
          fmt::format("{}: '{}' (data.enable_thinking_key) must be true, false or null, got {}",
                      where, *thinking_key, value.dump()));
    }
    thinking = value.is_null() ? std::nullopt : std::optional<bool>(value.get<bool>());
  }
  if (thinking) options.extra_context["enable_thinking"] = *thinking;
  return options;
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
      "the messages before (tokens differ at position {}; Qwen3's template, for one, drops "
      "earlier turns' <think> blocks, and verl stops on these rows too); set "
      "data.ignore_input_ids_mismatch=true to train on the concatenation anyway",
      where, message + 1, prefix));
}

// The tokens a generation prompt adds: a user turn rendered with add_generation_prompt=True beyond
// its rendering without.
Ids generation_prompt(const tokenizer::Tokenizer& tokenizer, const ChatTemplateOptions& plain,
                      const ChatTemplateOptions& generation, const std::string& where) {
  const OrderedJson user = OrderedJson::array({OrderedJson{{"role", "user"}, {"content", ""}}});
  const Ids without = naming_row(where, [&] { return tokenizer.encode_chat(user, plain); });
  const Ids with = naming_row(where, [&] { return tokenizer.encode_chat(user, generation); });
  if (common_prefix(without, with) != without.size()) {
    throw Error(where +
                ": the chat template's add_generation_prompt does not append to a user "
                "turn, so an assistant message first cannot be told from its header");
  }
  return Ids(with.begin() + static_cast<std::ptrdiff_t>(without.size()), with.end());
}

// The context of an assistant message that opens the conversation: its rendering up to the end
// of the first generation prompt in it.
Ids first_assistant_header(const OrderedJson& message, const tokenizer::Tokenizer& tokenizer,
                           const ChatTemplateOptions& plain, const ChatTemplateOptions& generation,
                           const std::string& where) {
  const Ids prompt = generation_prompt(tokenizer, plain, generation, where);
  if (prompt.empty()) return {};  // no header: all of the message is learned
  const Ids alone = naming_row(
      where, [&] { return tokenizer.encode_chat(OrderedJson::array({message}), plain); });
  const auto at = std::search(alone.begin(), alone.end(), prompt.begin(), prompt.end());
  if (at == alone.end()) {
    throw Error(where +
                ": messages[0] is an assistant turn whose rendering does not hold the "
                "chat template's generation prompt, so its learned tokens are unknown");
  }
  return Ids(alone.begin(), at + static_cast<std::ptrdiff_t>(prompt.size()));
}

SftExample encode_messages(const Row& row, const SftDatasetConfig& config,
                           const tokenizer::Tokenizer& tokenizer, const std::string& where) {
  const Row& messages = column(row, config.messages_key, "data.messages_key", where);
  if (!messages.is_array() || messages.empty()) {
    throw Error(fmt::format("{}: '{}' must be a non-empty list of chat messages, got {}", where,
                            config.messages_key, messages.dump()));
  }
  const ChatTemplateOptions plain = row_options(row, config, where);
  ChatTemplateOptions generation = plain;
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
      header = i == 0
                   ? first_assistant_header(message, tokenizer, plain, generation, where)
                   : naming_row(where, [&] { return tokenizer.encode_chat(prefix, generation); });
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
  const Row& prompt = nested_column(row, *config.prompt_key, "data.prompt_key",
                                    config.prompt_dict_keys, "data.prompt_dict_keys", where);
  const Row& response = nested_column(row, *config.response_key, "data.response_key",
                                      config.response_dict_keys, "data.response_dict_keys", where);
  if (!prompt.is_string() || !response.is_string()) {
    throw Error(fmt::format("{}: the prompt ({}) and the response ({}) must be strings", where,
                            prompt.dump(), response.dump()));
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
  SftExample example = config.prompt_key && config.response_key
                           ? encode_single_turn(row, config, tokenizer, where)
                           : encode_messages(row, config, tokenizer, where);
  truncate(example, config, where);
  return example;
}

std::int64_t learned_tokens(const SftExample& example) {
  // The first token is never predicted, so it cannot be learned.
  if (example.loss_mask.size() < 2) return 0;
  return std::count(example.loss_mask.begin() + 1, example.loss_mask.end(), 1);
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
    const std::string where = file.origins[i].describe();
    examples_.push_back(encode_sft_row(file.rows[i], config, tokenizer, where));
    if (learned_tokens(examples_.back()) > 0) continue;
    if (unlearnable_rows_++ == 0) first_unlearnable_ = where;
  }
  if (unlearnable_rows_ == size() && size() > 0) {
    throw Error(fmt::format(
        "no row has a token to learn (no assistant message or response, or none left within "
        "data.max_length={} after truncation; the first: {})",
        config.max_length, first_unlearnable_));
  }
}

}  // namespace verlpp::data
