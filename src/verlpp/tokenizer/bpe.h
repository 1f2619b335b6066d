// The BPE model of tokenizer.json ("model": {"type": "BPE", ...}), as HF tokenizers'
// models/bpe/model.rs runs it: a word starts as one symbol per character (for byte-level
// vocabularies, per byte), then the adjacent pair with the lowest merge rank is merged, leftmost
// first among equal ranks, until no pair has a merge. Words are cached (up to 10,000 words, as in
// HF's Cache, inserted until full).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace verlpp::tokenizer {

class BpeModel {
 public:
  // Reads model.vocab ({"token": id}) and model.merges (["a b", ...] or [["a","b"], ...]).
  // `where` prefixes error messages. Throws verlpp::Error for unsupported options
  // (byte_fallback, dropout > 0, a subword prefix/suffix) and for merges whose parts or result
  // are not in the vocabulary.
  BpeModel(const nlohmann::json& model, const std::string& where);

  // Makes tokenize() take raw bytes and start from the vocabulary's byte-level characters
  // (ByteLevel pre-tokenizer). Throws verlpp::Error if one of the 256 is not in the vocabulary.
  void use_byte_level_alphabet(const std::string& where);

  // Appends the ids of one pre-token: its raw bytes with a byte-level alphabet, otherwise the
  // text itself (one initial symbol per character).
  void tokenize(std::string_view word, std::vector<std::int32_t>& out) const;

  const std::unordered_map<std::string, std::int32_t>& vocab() const { return vocab_; }

 private:
  struct Merge {
    std::int32_t rank;
    std::int32_t id;
  };
  // Open-addressing map from a pair of ids (packed in 64 bits) to its merge.
  class MergeTable {
   public:
    void build(const std::vector<std::pair<std::uint64_t, Merge>>& entries);
    const Merge* find(std::int32_t left, std::int32_t right) const;

   private:
    std::vector<std::uint64_t> keys_;
    std::vector<Merge> values_;
    std::uint64_t mask_ = 0;
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct CacheShard {
    std::mutex mutex;
    std::unordered_map<std::string, std::vector<std::int32_t>, StringHash, std::equal_to<>> words;
  };
  static constexpr std::size_t kCacheShards = 64;
  static constexpr std::size_t kCacheWordsPerShard = 10000 / kCacheShards + 1;
  static constexpr std::size_t kMaxCachedWordBytes = 256;

  void merge_word(std::vector<std::int32_t>& symbols) const;
  void initial_symbols(std::string_view word, std::vector<std::int32_t>& symbols) const;

  std::unordered_map<std::string, std::int32_t> vocab_;
  MergeTable merges_;
  std::int32_t unk_id_ = -1;
  bool fuse_unk_ = false;
  bool ignore_merges_ = false;
  bool byte_level_ = false;
  std::int32_t byte_ids_[256] = {};
  std::unique_ptr<CacheShard[]> cache_;
};

}  // namespace verlpp::tokenizer
