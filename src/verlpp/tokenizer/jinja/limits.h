// Bounds on what a chat template may make verlpp do, so that a hostile or broken template ends in
// an error naming it instead of a stack overflow, hours of work or gigabytes of text. jinja2's
// sandbox bounds range() at MAX_RANGE = 100000 and relies on Python's recursion limit (1000
// frames) for nesting; these are of the same order.
#pragma once

#include <cstddef>
#include <cstdint>

namespace verlpp::tokenizer::jinja {

// Nesting of expressions and blocks while parsing, and of evaluation while rendering (a macro
// that calls itself recurses through it).
inline constexpr int kMaxNesting = 256;
// Items range() may produce (jinja2.sandbox.MAX_RANGE).
inline constexpr std::int64_t kMaxRange = 100000;
// Bytes one render, or one string or list repetition, may produce.
inline constexpr std::size_t kMaxOutputBytes = std::size_t{64} << 20;

}  // namespace verlpp::tokenizer::jinja
