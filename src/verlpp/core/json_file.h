// The JSON of a user-named file (a model's config.json and generation_config.json, tokenizer.json,
// tokenizer_config.json, a checkpoint's index, a run's saved state), read and parsed with
// parse_json's depth limit, every failure one line naming the file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace verlpp {

// Throws verlpp::Error: "PATH: WHAT ..." from require_regular_file (no such file, a folder, a
// device or pipe), "PATH: cannot open WHAT", or "PATH: not valid JSON (the parser's message)".
// WHAT names the file's role ("model config", "tokenizer file").
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// The same, keeping the objects' key order (for files written back with changes).
nlohmann::ordered_json read_ordered_json_file(const std::string& path, const std::string& what);

}  // namespace verlpp
