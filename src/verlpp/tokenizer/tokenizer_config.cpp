#include "verlpp/tokenizer/tokenizer_config.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/json_file.h"

namespace verlpp::tokenizer {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The JSON of `path` (WHAT names it in errors), or nullopt when nothing is there.
std::optional<Json> read_json(const fs::path& path, const std::string& what) {
  if (nothing_at(path.string())) return std::nullopt;
  return read_json_file(path.string(), what);
}

// A special token written as "text" or {"content": "text", ...}; null/absent gives nullopt.
std::optional<std::string> token_text(const Json& value, const std::string& where) {
  if (value.is_null()) return std::nullopt;
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.contains("content") && value["content"].is_string()) {
    return value["content"].get<std::string>();
  }
  throw Error(where + ": expected a string or {\"content\": string}, got " + value.dump());
}

// The chat template's text and the file it came from.
std::optional<std::pair<std::string, std::string>> chat_template_source(const Json& config,
                                                                        const fs::path& dir,
                                                                        const std::string& where) {
  const auto it = config.find("chat_template");
  if (it != config.end() && it->is_string()) return std::pair(it->get<std::string>(), where);
  if (it != config.end() && it->is_array()) {
    for (const auto& entry : *it) {
      if (entry.is_object() && entry.value("name", "") == "default" && entry.contains("template") &&
          entry["template"].is_string()) {
        return std::pair(entry["template"].get<std::string>(), where);
      }
    }
    throw Error(where + ": chat_template: a list without an entry named \"default\"");
  }
  if (it != config.end() && !it->is_null()) {
    throw Error(where + ": chat_template: expected a string or a list of {name, template}");
  }
  const fs::path jinja = dir / "chat_template.jinja";
  if (nothing_at(jinja.string())) return std::nullopt;
  return std::pair(read_text_file(jinja.string(), "chat template"), jinja.string());
}

bool token_id_value(const Json& v) {
  return v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
         v.get<std::int64_t>() <= std::numeric_limits<std::int32_t>::max();
}

void read_eos_ids(const fs::path& dir, SpecialTokens& tokens) {
  if (auto ids = read_generation_eos_ids(dir)) {
    tokens.eos_token_ids = std::move(*ids);
    return;
  }
  if (tokens.eos_id) tokens.eos_token_ids = {*tokens.eos_id};
}

}  // namespace

std::optional<std::vector<std::int32_t>> read_generation_eos_ids(const fs::path& dir) {
  const fs::path path = dir / "generation_config.json";
  const auto config = read_json(path, "generation config");
  if (!config) return std::nullopt;
  if (!config->is_object()) throw Error(path.string() + ": expected a JSON object");
  const Json eos = config->value("eos_token_id", Json());
  if (eos.is_null()) return std::nullopt;
  if (token_id_value(eos)) return std::vector<std::int32_t>{eos.get<std::int32_t>()};
  if (eos.is_array() && std::all_of(eos.begin(), eos.end(), token_id_value)) {
    return eos.get<std::vector<std::int32_t>>();
  }
  throw Error(path.string() +
              ": eos_token_id: expected a token id or a list of token ids (integers from 0 to "
              "2147483647), got " +
              eos.dump());
}

TokenizerConfig read_tokenizer_config(
    const fs::path& dir,
    const std::function<std::optional<std::int32_t>(std::string_view)>& token_id) {
  TokenizerConfig result;
  const fs::path path = dir / "tokenizer_config.json";
  const std::string where = path.string();
  const Json config = read_json(path, "tokenizer config").value_or(Json::object());
  if (!config.is_object()) throw Error(where + ": expected a JSON object");
  SpecialTokens& tokens = result.special_tokens;
  const auto read = [&](const char* key, std::optional<std::string>& text,
                        std::optional<std::int32_t>& id) {
    if (!config.contains(key)) return;
    text = token_text(config[key], where + ": " + key);
    if (text) {
      id = token_id(*text);
      if (!id)
        throw Error(where + ": " + key + " \"" + *text + "\" is not a token of tokenizer.json");
    }
  };
  read("bos_token", tokens.bos_token, tokens.bos_id);
  read("eos_token", tokens.eos_token, tokens.eos_id);
  read("pad_token", tokens.pad_token, tokens.pad_id);
  read("unk_token", tokens.unk_token, tokens.unk_id);
  if (const auto it = config.find("additional_special_tokens");
      it != config.end() && it->is_array()) {
    for (const auto& entry : *it) {
      if (auto text = token_text(entry, where + ": additional_special_tokens")) {
        tokens.additional_special_tokens.push_back(std::move(*text));
      }
    }
  }
  read_eos_ids(dir, tokens);
  if (auto source = chat_template_source(config, dir, where)) {
    result.chat_template.emplace(source->first, source->second);
  }
  return result;
}

OrderedJson special_tokens_context(const SpecialTokens& tokens) {
  OrderedJson context = OrderedJson::object();
  const auto put = [&](const char* key, const std::optional<std::string>& value) {
    if (value) context[key] = *value;
  };
  put("bos_token", tokens.bos_token);
  put("eos_token", tokens.eos_token);
  put("unk_token", tokens.unk_token);
  put("pad_token", tokens.pad_token);
  if (!tokens.additional_special_tokens.empty()) {
    context["additional_special_tokens"] = tokens.additional_special_tokens;
  }
  return context;
}

}  // namespace verlpp::tokenizer
