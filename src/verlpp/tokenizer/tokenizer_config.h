// tokenizer_config.json (transformers' tokenizer settings: special tokens, chat template) and
// generation_config.json (eos ids) of a tokenizer directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

#include "verlpp/tokenizer/chat_template.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::tokenizer {

struct TokenizerConfig {
  SpecialTokens special_tokens;
  std::optional<ChatTemplate> chat_template;
};

// Reads DIR/tokenizer_config.json and DIR/generation_config.json when present. Special tokens
// may be strings or {"content": ...} objects; chat_template a string or a list of
// {"name", "template"} (the one named "default" is used); without one in the config,
// DIR/chat_template.jinja is used if it exists. `token_id` maps a token string to its id.
// Throws verlpp::Error naming the file for invalid JSON, wrong types or an unparsable template.
TokenizerConfig read_tokenizer_config(
    const std::filesystem::path& dir,
    const std::function<std::optional<std::int32_t>(std::string_view)>& token_id);

// The variables transformers adds to a chat template's context (its special_tokens_map): the
// special tokens that are set, and additional_special_tokens.
OrderedJson special_tokens_context(const SpecialTokens& tokens);

}  // namespace verlpp::tokenizer
