// JSON from user files (data rows, model and tokenizer configs, safetensors headers, command
// input), parsed as nlohmann's parse does but refused past kMaxJsonDepth nested arrays and
// objects: nlohmann parses any depth, but copying, printing or converting such a value recurses
// once a level and overflows the stack (a break-test's 200,000-deep row was a SIGSEGV). The limit
// is CPython's default recursion limit, where json.loads fails too.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace verlpp {

constexpr int kMaxJsonDepth = 1000;

// Json::parse(input) (Json: nlohmann::json or nlohmann::ordered_json; input: a string, a
// character range's first and last, or a stream). Throws nlohmann::json::exception as parse
// does: parse_error for malformed text and (id 101) for a value nested deeper than
// kMaxJsonDepth, out_of_range (406) for a number beyond a double (1e400).
template <typename Json, typename... Input>
Json parse_json(Input&&... input) {
  const typename Json::parser_callback_t limit = [](int depth, typename Json::parse_event_t,
                                                    Json&) {
    if (depth > kMaxJsonDepth) {
      throw Json::parse_error::create(
          101, 0,
          "nested more than " + std::to_string(kMaxJsonDepth) + " levels deep (arrays and objects)",
          static_cast<const Json*>(nullptr));
    }
    return true;
  };
  return Json::parse(std::forward<Input>(input)..., limit);
}

// nlohmann's message for an error, cut for one line of a user's error: its "last read: '...'"
// echo (the whole text up to the error, a long file's chat template included) keeps its last 40
// bytes, and bytes outside printable ASCII (the ill-formed UTF-8 that caused it) are written \xNN.
inline std::string json_error_text(const std::string& what) {
  constexpr std::size_t kKeep = 40;
  const std::string mark = "; last read: '";
  const std::size_t begin = what.find(mark);
  if (begin == std::string::npos) return what;
  const std::size_t first = begin + mark.size();
  // The echo ends at "'; expected ..." where the message goes on, else at its closing quote.
  std::size_t last = what.find("'; expected", first);
  if (last == std::string::npos) last = what.back() == '\'' ? what.size() - 1 : what.size();
  std::string echo = what.substr(first, last - first);
  std::string out = what.substr(0, first);
  if (echo.size() > kKeep) {
    out += "...";
    echo = echo.substr(echo.size() - kKeep);
  }
  for (const char c : echo) {
    const auto byte = static_cast<unsigned char>(c);
    char escaped[5];
    std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
    out += byte >= 0x20 && byte < 0x7f ? std::string(1, c) : std::string(escaped);
  }
  return out + what.substr(last);
}

}  // namespace verlpp
