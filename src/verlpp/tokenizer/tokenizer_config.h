// tokenizer_config.json (transformers' tokenizer settings: special tokens, chat template) and
// generation_config.json (eos ids) of a tokenizer directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

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

// eos_token_id of DIR/generation_config.json: nullopt when the file, or the key, is absent (or
// null); else a token id or a list of them, each an integer from 0 to 2^31 - 1. Throws
// verlpp::Error naming the file for anything else (a file that is not a JSON object, a string or
// out-of-range id).
std::optional<std::vector<std::int32_t>> read_generation_eos_ids(const std::filesystem::path& dir);

// The variables transformers adds to a chat template's context (its special_tokens_map): the
// special tokens that are set, and additional_special_tokens.
OrderedJson special_tokens_context(const SpecialTokens& tokens);

}  // namespace verlpp::tokenizer
