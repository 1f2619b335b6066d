#include "verlpp/tokenizer/tokenizer.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "verlpp/core/error.h"
#include "verlpp/core/json_file.h"
#include "verlpp/core/utf8.h"
#include "verlpp/tokenizer/added_vocabulary.h"
#include "verlpp/tokenizer/bpe.h"
#include "verlpp/tokenizer/byte_level.h"
#include "verlpp/tokenizer/normalizer.h"
#include "verlpp/tokenizer/pre_tokenizer.h"
#include "verlpp/tokenizer/tokenizer_config.h"

namespace verlpp::tokenizer {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;

std::vector<AddedToken> read_added_tokens(const Json& root, const std::string& where) {
  std::vector<AddedToken> tokens;
  const auto it = root.find("added_tokens");
  if (it == root.end() || it->is_null()) return tokens;
  if (!it->is_array()) throw Error(where + ": added_tokens: expected an array");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& entry = (*it)[i];
    const std::string at = where + ": added_tokens[" + std::to_string(i) + "]";
    if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_number_integer() ||
        !entry.contains("content") || !entry["content"].is_string()) {
      throw Error(at + ": expected {\"id\": int, \"content\": string, ...}");
    }
    AddedToken token;
    token.id = entry["id"].get<std::int32_t>();
    if (token.id < 0) throw Error(at + ": negative id");
    token.content = entry["content"].get<std::string>();
    utf8::require_valid(token.content, at + ".content");
    token.special = entry.value("special", false);
    token.lstrip = entry.value("lstrip", false);
    token.rstrip = entry.value("rstrip", false);
    token.normalized = entry.value("normalized", !token.special);
    token.single_word = entry.value("single_word", false);
    tokens.push_back(std::move(token));
  }
  return tokens;
}

// ByteLevel maps the byte alphabet back to bytes; Fuse (tokenizers' decoders/fuse.rs) joins the
// token strings as they are, which is what decode does for a vocabulary that is not byte-level.
void check_decoder(const Json& decoder, bool byte_level, const std::string& where) {
  if (decoder.is_null()) return;
  const std::string type = decoder.is_object() ? decoder.value("type", "") : "";
  if (type == "ByteLevel" || (type == "Fuse" && !byte_level)) return;
  throw Error(where + ": decoder type '" + type +
              "' is not supported (supported: ByteLevel, and Fuse without a ByteLevel "
              "pre-tokenizer)");
}

// tokenizer.json's "model", refused before it is read unless it is BPE (a WordPiece or Unigram
// model has no merges).
const Json& bpe_model(const Json& root, const std::string& where) {
  const Json& model = root.at("model");
  const std::string type = model.value("type", "BPE");
  if (type != "BPE") {
    throw Error(where + ": model type '" + type + "' is not supported (supported: BPE)");
  }
  return model;
}

}  // namespace

struct Tokenizer::Impl {
  Impl(const Json& root, const std::string& where)
      : normalizer(root.value("normalizer", Json()), where),
        pre_tokenizer(root.value("pre_tokenizer", Json()), where),
        model(bpe_model(root, where), where),
        added(read_added_tokens(root, where)) {
    byte_level = pre_tokenizer.byte_level();
    check_decoder(root.value("decoder", Json()), byte_level, where);
    if (byte_level) model.use_byte_level_alphabet(where);
    build_id_tables();
  }

  void build_id_tables() {
    std::int32_t size = 0;
    for (const auto& [token, id] : model.vocab()) size = std::max(size, id + 1);
    for (const auto& token : added.tokens()) size = std::max(size, token.id + 1);
    id_to_token.assign(size, {});
    id_present.assign(size, false);
    special.assign(size, false);
    for (const auto& [token, id] : model.vocab()) {
      id_to_token[id] = token;
      id_present[id] = true;
    }
    for (const auto& token : added.tokens()) {
      id_to_token[token.id] = token.content;
      id_present[token.id] = true;
      special[token.id] = token.special;
      token_to_added[token.content] = token.id;
    }
    id_bytes.resize(size);
    for (std::int32_t id = 0; id < size; ++id) {
      const std::string& token = id_to_token[id];
      auto bytes = byte_level ? byte_level::decode(token) : std::nullopt;
      id_bytes[id] = bytes ? std::move(*bytes) : token;
    }
  }

  // Appends the ids of text that contains no added token to match in raw form.
  void encode_model_text(std::string_view raw, std::vector<std::int32_t>& out,
                         Ranges& words) const {
    const std::string normalized = normalizer.apply(raw);
    if (!added.has_normalized()) {
      encode_words(normalized, out, words);
      return;
    }
    std::vector<AddedVocabulary::Piece> pieces;
    added.split(normalized, true, pieces);
    for (const auto& piece : pieces) {
      if (piece.id >= 0) {
        out.push_back(piece.id);
      } else {
        encode_words(std::string_view(normalized).substr(piece.begin, piece.end - piece.begin), out,
                     words);
      }
    }
  }

  void encode_words(std::string_view text, std::vector<std::int32_t>& out, Ranges& words) const {
    pre_tokenizer.split(text, words);
    for (const auto& [begin, end] : words) model.tokenize(text.substr(begin, end - begin), out);
  }

  std::vector<std::int32_t> encode(std::string_view text) const {
    utf8::require_valid(text, "encode");
    std::vector<std::int32_t> out;
    out.reserve(text.size() / 3 + 4);
    std::vector<AddedVocabulary::Piece> pieces;
    added.split(text, false, pieces);
    Ranges words;
    for (const auto& piece : pieces) {
      if (piece.id >= 0) {
        out.push_back(piece.id);
      } else {
        encode_model_text(text.substr(piece.begin, piece.end - piece.begin), out, words);
      }
    }
    return out;
  }

  // False for an id the vocabulary lacks (HF tokenizers' decode skips those: a model's
  // embedding is often padded past the tokenizer, e.g. Qwen3's 151936 rows for 151669 ids).
  // Throws verlpp::Error for a negative id, which no tokenizer has.
  bool known_id(std::int32_t id) const {
    if (id < 0) throw Error("decode: token id " + std::to_string(id) + " is negative");
    return id < static_cast<std::int32_t>(id_bytes.size()) && id_present[id];
  }

  Normalizer normalizer;
  PreTokenizer pre_tokenizer;
  BpeModel model;
  AddedVocabulary added;
  bool byte_level = false;
  std::vector<std::string> id_to_token;
  std::vector<std::string> id_bytes;  // what each id decodes to
  std::vector<bool> id_present;
  std::vector<bool> special;
  std::unordered_map<std::string, std::int32_t> token_to_added;
  TokenizerConfig config;
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::from_file(const fs::path& tokenizer_json) {
  const std::string where = tokenizer_json.string();
  const Json root = read_json_file(where, "tokenizer file");
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object()) {
    throw Error(where + ": expected a tokenizer.json object with a \"model\" object");
  }
  try {
    return Tokenizer(std::make_unique<Impl>(root, where));
  } catch (const Json::exception& e) {
    throw Error(where + ": unexpected content: " + e.what());
  }
}

Tokenizer Tokenizer::from_directory(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw Error(dir.string() + ": tokenizer directory does not exist");
  Tokenizer tokenizer = from_file(dir / "tokenizer.json");
  tokenizer.impl_->config = read_tokenizer_config(
      dir, [&](std::string_view token) { return tokenizer.token_to_id(token); });
  return tokenizer;
}

std::vector<std::int32_t> Tokenizer::encode(std::string_view text) const {
  return impl_->encode(text);
}

std::vector<std::vector<std::int32_t>> Tokenizer::encode_batch(
    const std::vector<std::string>& texts, int num_threads) const {
  std::vector<std::vector<std::int32_t>> out(texts.size());
  std::size_t threads = num_threads > 0 ? static_cast<std::size_t>(num_threads)
                                        : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, texts.size());
  if (threads <= 1) {
    for (std::size_t i = 0; i < texts.size(); ++i) out[i] = impl_->encode(texts[i]);
    return out;
  }
  // Contiguous chunks handed out one at a time keep threads busy when lengths vary.
  constexpr std::size_t kChunk = 64;
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::vector<std::thread> workers;
  for (std::size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      try {
        for (std::size_t begin; (begin = next.fetch_add(kChunk)) < texts.size();) {
          const std::size_t end = std::min(begin + kChunk, texts.size());
          for (std::size_t i = begin; i < end; ++i) out[i] = impl_->encode(texts[i]);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    });
  }
  for (auto& worker : workers) worker.join();
  if (failure) std::rethrow_exception(failure);
  return out;
}

std::string Tokenizer::decode_bytes(std::span<const std::int32_t> ids,
                                    bool skip_special_tokens) const {
  std::string bytes;
  for (const std::int32_t id : ids) {
    if (!impl_->known_id(id)) continue;
    if (skip_special_tokens && impl_->special[id]) continue;
    bytes += impl_->id_bytes[id];
  }
  return bytes;
}

std::string Tokenizer::decode(std::span<const std::int32_t> ids, bool skip_special_tokens) const {
  return utf8::lossy(decode_bytes(ids, skip_special_tokens));
}

std::optional<std::int32_t> Tokenizer::token_to_id(std::string_view token) const {
  const std::string key(token);
  if (const auto it = impl_->token_to_added.find(key); it != impl_->token_to_added.end()) {
    return it->second;
  }
  if (const auto it = impl_->model.vocab().find(key); it != impl_->model.vocab().end()) {
    return it->second;
  }
  return std::nullopt;
}

std::optional<std::string> Tokenizer::id_to_token(std::int32_t id) const {
  if (id < 0 || id >= vocab_size() || !impl_->id_present[id]) return std::nullopt;
  return impl_->id_to_token[id];
}

std::int32_t Tokenizer::vocab_size() const {
  return static_cast<std::int32_t>(impl_->id_to_token.size());
}

const std::vector<AddedToken>& Tokenizer::added_tokens() const { return impl_->added.tokens(); }

bool Tokenizer::is_special(std::int32_t id) const {
  return id >= 0 && id < vocab_size() && impl_->special[id];
}

const SpecialTokens& Tokenizer::special_tokens() const { return impl_->config.special_tokens; }

const std::optional<ChatTemplate>& Tokenizer::chat_template() const {
  return impl_->config.chat_template;
}

void Tokenizer::set_chat_template(const std::string& source, const std::string& name) {
  impl_->config.chat_template.emplace(source, name);
}

std::string Tokenizer::apply_chat_template(const OrderedJson& messages,
                                           const ChatTemplateOptions& options) const {
  if (!impl_->config.chat_template) {
    throw Error("apply_chat_template: this tokenizer has no chat_template (tokenizer_config.json)");
  }
  return apply_chat_template(*impl_->config.chat_template, messages, options);
}

std::string Tokenizer::apply_chat_template(const ChatTemplate& chat_template,
                                           const OrderedJson& messages,
                                           const ChatTemplateOptions& options) const {
  return chat_template.apply(messages, options, special_tokens_context(special_tokens()));
}

std::vector<std::int32_t> Tokenizer::encode_chat(const OrderedJson& messages,
                                                 const ChatTemplateOptions& options) const {
  return encode(apply_chat_template(messages, options));
}

StreamDecoder::StreamDecoder(const Tokenizer& tokenizer, bool skip_special_tokens)
    : tokenizer_(&tokenizer), skip_special_tokens_(skip_special_tokens) {}

std::string StreamDecoder::push(std::int32_t id) {
  pending_ += tokenizer_->decode_bytes(std::span<const std::int32_t>(&id, 1), skip_special_tokens_);
  const std::size_t ready = utf8::complete_prefix(pending_);
  std::string text = utf8::lossy(std::string_view(pending_).substr(0, ready));
  pending_.erase(0, ready);
  return text;
}

std::string StreamDecoder::finish() {
  std::string text = utf8::lossy(pending_);
  pending_.clear();
  return text;
}

}  // namespace verlpp::tokenizer
