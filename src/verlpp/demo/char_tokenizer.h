// The demo's character-level tokenizer, written as Hugging Face files that verlpp's Tokenizer and
// the `tokenizers`/transformers libraries both load: a BPE model with one token per character and
// no merges, no pre-tokenizer, the Fuse decoder (tokens joined as they are), and special tokens
// <|pad|>, <|user|>, <|assistant|>, <|end|> (eos) with a one-line chat template:
//
//   <|user|>{user content}<|assistant|>{assistant content}<|end|>...
#pragma once

#include <filesystem>
#include <string>

namespace verlpp::demo {

// The characters the vocabulary covers (ids 0..size-1 in this order); special tokens follow.
inline constexpr const char* kDemoCharacters = "0123456789+=";

// Writes tokenizer.json, tokenizer_config.json and generation_config.json into `dir` (created).
// Throws verlpp::Error when a file cannot be written.
void write_char_tokenizer(const std::filesystem::path& dir);

// Number of ids of that tokenizer (characters + special tokens).
int char_tokenizer_vocab_size();

}  // namespace verlpp::demo
