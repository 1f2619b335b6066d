// A Hugging Face `tokenizer.json` tokenizer (byte-level BPE, as used by Qwen2/Qwen3, Llama 3 and
// GPT-2 style models) with its `tokenizer_config.json` (special tokens, chat template) and the
// `generation_config.json` eos ids. Produces the same ids as the Rust `tokenizers` library
// (huggingface/tokenizers: tokenizer/mod.rs, added_vocabulary.rs, models/bpe, pre_tokenizers/
// {split,byte_level}.rs, normalizers/unicode.rs) and the same chat text as transformers'
// `apply_chat_template` (tokenization_utils_base.py, utils/chat_template_utils.py).
//
// Token ids are int32 (vocabularies are < 2^31). Text is UTF-8 in std::string.
// Thread safety: a loaded Tokenizer is immutable apart from an internal, locked BPE cache; encode,
// encode_batch, decode and apply_chat_template may be called from several threads at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "verlpp/tokenizer/chat_template.h"

namespace verlpp::tokenizer {

// An entry of tokenizer.json's "added_tokens": text that is matched in the input before the
// model runs and maps to one id (`<|im_end|>`, `<think>`, ...).
struct AddedToken {
  std::int32_t id = 0;
  std::string content;
  bool special = false;      // dropped by decode(skip_special_tokens=true)
  bool lstrip = false;       // the match also swallows whitespace on its left
  bool rstrip = false;       // ... and on its right
  bool normalized = false;   // matched against NFC-normalised text rather than the raw input
  bool single_word = false;  // matched only when not inside a word
};

// Special tokens from tokenizer_config.json (strings as written there; absent ones are empty
// optionals) and their ids, plus the eos ids from generation_config.json when that file exists
// (otherwise just the eos token's id).
struct SpecialTokens {
  std::optional<std::string> bos_token, eos_token, pad_token, unk_token;
  std::optional<std::int32_t> bos_id, eos_id, pad_id, unk_id;
  std::vector<std::string> additional_special_tokens;
  std::vector<std::int32_t> eos_token_ids;  // generation stops on any of these
};

class Tokenizer {
 public:
  // Loads DIR/tokenizer.json (required), DIR/tokenizer_config.json and
  // DIR/generation_config.json (both optional). Throws verlpp::Error naming the file and what is
  // wrong: missing file, invalid JSON, or a model/normalizer/pre-tokenizer/decoder type this
  // implementation does not support (it supports BPE with NFC/NFKC/none normalisers,
  // Split/ByteLevel/Sequence pre-tokenizers and the ByteLevel decoder).
  static Tokenizer from_directory(const std::filesystem::path& dir);
  // Loads one tokenizer.json (no config: no special tokens map, no chat template).
  static Tokenizer from_file(const std::filesystem::path& tokenizer_json);

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  // Token ids of `text`, added/special tokens inside the text recognised (as HF does with
  // split_special_tokens=False). The post-processor is not applied: no BOS/EOS are added (HF's
  // encode(text, add_special_tokens=False); chat templates write BOS themselves). Throws
  // verlpp::Error on invalid UTF-8, naming the byte offset.
  std::vector<std::int32_t> encode(std::string_view text) const;

  // encode() of each text, spread over `num_threads` threads (0: hardware concurrency).
  std::vector<std::vector<std::int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                      int num_threads = 0) const;

  // The text of `ids`: token strings joined and mapped back through the byte-level decoder;
  // bytes that are not valid UTF-8 become U+FFFD (HF's from_utf8_lossy). With
  // skip_special_tokens, added tokens marked special are left out. Ids the vocabulary lacks are
  // skipped, as HF tokenizers does; a negative id throws verlpp::Error.
  std::string decode(std::span<const std::int32_t> ids, bool skip_special_tokens = false) const;

  // The raw bytes `ids` stand for (no UTF-8 repair): what StreamDecoder accumulates.
  std::string decode_bytes(std::span<const std::int32_t> ids,
                           bool skip_special_tokens = false) const;

  // Look-ups between a token string (as in the vocabulary, e.g. "Ġthe") and its id.
  std::optional<std::int32_t> token_to_id(std::string_view token) const;
  std::optional<std::string> id_to_token(std::int32_t id) const;

  // Number of ids: 1 + the largest id of the vocabulary and added tokens (151669 for Qwen3).
  std::int32_t vocab_size() const;
  const std::vector<AddedToken>& added_tokens() const;
  bool is_special(std::int32_t id) const;
  const SpecialTokens& special_tokens() const;

  // The tokenizer_config.json chat template, if any.
  const std::optional<ChatTemplate>& chat_template() const;
  // Replaces it (verl's model.custom_chat_template); `name` names it in errors. Throws
  // verlpp::Error when `source` does not parse.
  void set_chat_template(const std::string& source, const std::string& name);

  // Renders `messages` (a JSON array of {"role","content",...} objects, as in verl's "prompt"
  // column and OpenAI's chat format) with the tokenizer's chat template, like transformers'
  // apply_chat_template(messages, tools=..., add_generation_prompt=..., tokenize=False, **extra).
  // The template sees messages, tools, add_generation_prompt, this tokenizer's special tokens
  // (bos_token, eos_token, pad_token, unk_token, additional_special_tokens) and
  // options.extra_context (e.g. {"enable_thinking": false}), later entries winning.
  // Throws verlpp::Error if there is no chat template or rendering fails (raise_exception in the
  // template, undefined attribute access, a type error).
  std::string apply_chat_template(const OrderedJson& messages,
                                  const ChatTemplateOptions& options = {}) const;
  // The same with an explicit template (e.g. one given in the data config).
  std::string apply_chat_template(const ChatTemplate& chat_template, const OrderedJson& messages,
                                  const ChatTemplateOptions& options = {}) const;
  // apply_chat_template then encode (transformers' tokenize=True; no special tokens added).
  std::vector<std::int32_t> encode_chat(const OrderedJson& messages,
                                        const ChatTemplateOptions& options = {}) const;

 private:
  struct Impl;
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Turns ids into text one id at a time for printing a rollout as it is generated: push() returns
// the newly completed text, holding back the bytes of a UTF-8 character that is not complete yet.
// Invalid sequences come out as U+FFFD, as in decode(). finish() flushes what is left.
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer, bool skip_special_tokens = false);
  std::string push(std::int32_t id);
  std::string finish();

 private:
  const Tokenizer* tokenizer_;
  bool skip_special_tokens_;
  std::string pending_;  // bytes of an incomplete UTF-8 character
};

}  // namespace verlpp::tokenizer
