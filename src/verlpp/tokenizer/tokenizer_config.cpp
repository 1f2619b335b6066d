#include "verlpp/tokenizer/tokenizer_config.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "verlpp/core/error.h"
#include "verlpp/core/json_file.h"

namespace verlpp::tokenizer {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::optional<Json> read_json(const fs::path& path) {
  if (!fs::exists(path)) return std::nullopt;
  return read_json_file(path.string(), "tokenizer config");
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
  if (!fs::exists(jinja)) return std::nullopt;
  std::ifstream in(jinja, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return std::pair(text.str(), jinja.string());
}

void read_eos_ids(const fs::path& dir, SpecialTokens& tokens) {
  const fs::path path = dir / "generation_config.json";
  const auto config = read_json(path);
  if (config && config->contains("eos_token_id")) {
    const Json& eos = (*config)["eos_token_id"];
    if (eos.is_number_integer()) {
      tokens.eos_token_ids = {eos.get<std::int32_t>()};
      return;
    }
    if (eos.is_array() &&
        std::all_of(eos.begin(), eos.end(), [](const Json& v) { return v.is_number_integer(); })) {
      tokens.eos_token_ids = eos.get<std::vector<std::int32_t>>();
      return;
    }
    if (!eos.is_null()) {
      throw Error(path.string() + ": eos_token_id: expected an integer or a list of integers");
    }
  }
  if (tokens.eos_id) tokens.eos_token_ids = {*tokens.eos_id};
}

}  // namespace

TokenizerConfig read_tokenizer_config(
    const fs::path& dir,
    const std::function<std::optional<std::int32_t>(std::string_view)>& token_id) {
  TokenizerConfig result;
  const fs::path path = dir / "tokenizer_config.json";
  const std::string where = path.string();
  const Json config = read_json(path).value_or(Json::object());
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
