// UTF-8 helpers (the tokenizer's, and the config files' check): validation with the offset of the
// first bad byte, code point iteration, and the lossy conversion Rust's String::from_utf8_lossy
// performs (each maximal invalid subsequence becomes U+FFFD, as the Unicode standard's
// "substitution of maximal subparts" recommends), which HF's decoders apply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace verlpp::utf8 {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if s[i] starts no valid sequence
// (bad lead byte, bad continuation, overlong form, surrogate, > U+10FFFF, or cut short).
std::size_t sequence_length(std::string_view s, std::size_t i);

// Offset of the first byte that is not part of valid UTF-8, or nullopt if `s` is valid.
std::optional<std::size_t> first_invalid(std::string_view s);

// Throws verlpp::Error("<what>: invalid UTF-8 at byte N") if `s` is not valid UTF-8.
void require_valid(std::string_view s, std::string_view what);

// Decodes the code point at s[i] (which must start a valid sequence) and advances i.
char32_t next(std::string_view s, std::size_t& i);

// Appends the UTF-8 encoding of `cp` to `out`.
void append(std::string& out, char32_t cp);

// `bytes` with every maximal invalid subsequence replaced by U+FFFD.
std::string lossy(std::string_view bytes);

// The length of the prefix of `bytes` that can be emitted now without splitting a character
// that more bytes could still complete: everything except a trailing, so-far-valid but
// incomplete sequence.
std::size_t complete_prefix(std::string_view bytes);

// Number of code points in valid UTF-8 `s`.
std::size_t length(std::string_view s);

// `s` for an error message: whole when it has at most max_chars code points, else its first
// max_chars (never a split sequence; invalid bytes as U+FFFD) and "… (N bytes)".
std::string excerpt(std::string_view s, std::size_t max_chars = 80);

}  // namespace verlpp::utf8
