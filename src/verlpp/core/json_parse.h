// JSON from user files (data rows, model and tokenizer configs, safetensors headers, command
// input), parsed as nlohmann's parse does but refused past kMaxJsonDepth nested arrays and
// objects: nlohmann parses any depth, but copying, printing or converting such a value recurses
// once a level and overflows the stack (a break-test's 200,000-deep row was a SIGSEGV). The limit
// is CPython's default recursion limit, where json.loads fails too.
#pragma once

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

}  // namespace verlpp
