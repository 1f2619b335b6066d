#include "verlpp/tokenizer/bpe.h"

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <queue>

#include "verlpp/core/error.h"
#include "verlpp/core/utf8.h"
#include "verlpp/tokenizer/byte_level.h"

namespace verlpp::tokenizer {
namespace {

std::uint64_t pack(std::int32_t left, std::int32_t right) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) |
         static_cast<std::uint32_t>(right);
}

std::uint64_t mix(std::uint64_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return key;
}

constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

std::pair<std::string, std::string> merge_parts(const nlohmann::json& merge,
                                                const std::string& where, std::size_t index) {
  if (merge.is_string()) {
    const auto& text = merge.get_ref<const std::string&>();
    const auto space = text.find(' ');
    if (space != std::string::npos && text.find(' ', space + 1) == std::string::npos) {
      return {text.substr(0, space), text.substr(space + 1)};
    }
  } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() &&
             merge[1].is_string()) {
    return {merge[0].get<std::string>(), merge[1].get<std::string>()};
  }
  throw Error(where + ": model.merges[" + std::to_string(index) +
              "]: expected \"left right\" or [\"left\", \"right\"], got " + merge.dump());
}

}  // namespace

void BpeModel::MergeTable::build(const std::vector<std::pair<std::uint64_t, Merge>>& entries) {
  std::size_t capacity = 16;
  while (capacity < entries.size() * 2) capacity *= 2;
  keys_.assign(capacity, kEmpty);
  values_.assign(capacity, Merge{0, 0});
  mask_ = capacity - 1;
  for (const auto& [key, merge] : entries) {
    std::uint64_t slot = mix(key) & mask_;
    while (keys_[slot] != kEmpty && keys_[slot] != key) slot = (slot + 1) & mask_;
    keys_[slot] = key;  // a repeated pair keeps its last rank, as HF's HashMap collect does
    values_[slot] = merge;
  }
}

const BpeModel::Merge* BpeModel::MergeTable::find(std::int32_t left, std::int32_t right) const {
  const std::uint64_t key = pack(left, right);
  std::uint64_t slot = mix(key) & mask_;
  while (true) {
    if (keys_[slot] == key) return &values_[slot];
    if (keys_[slot] == kEmpty) return nullptr;
    slot = (slot + 1) & mask_;
  }
}

BpeModel::BpeModel(const nlohmann::json& model, const std::string& where)
    : cache_(std::make_unique<CacheShard[]>(kCacheShards)) {
  const auto option = [&](const char* key) -> const nlohmann::json* {
    const auto it = model.find(key);
    return it == model.end() || it->is_null() ? nullptr : &*it;
  };
  if (const auto* v = option("byte_fallback"); v && v->is_boolean() && v->get<bool>()) {
    throw Error(where + ": model.byte_fallback=true (SentencePiece-style BPE) is not supported");
  }
  if (const auto* v = option("dropout"); v && v->is_number() && v->get<double>() > 0) {
    throw Error(where + ": model.dropout > 0 is not supported (encoding must be deterministic)");
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (const auto* v = option(key); v && !(v->is_string() && v->get<std::string>().empty())) {
      throw Error(where + ": model." + key + " is not supported (got " + v->dump() + ")");
    }
  }
  if (const auto* v = option("fuse_unk")) fuse_unk_ = v->is_boolean() && v->get<bool>();
  if (const auto* v = option("ignore_merges")) ignore_merges_ = v->is_boolean() && v->get<bool>();

  const auto vocab = model.find("vocab");
  if (vocab == model.end() || !vocab->is_object()) {
    throw Error(where + ": model.vocab: expected an object {\"token\": id}");
  }
  vocab_.reserve(vocab->size());
  for (const auto& [token, id] : vocab->items()) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
        id.get<std::int64_t>() > INT32_MAX) {
      throw Error(where + ": model.vocab[\"" + token + "\"]: expected a non-negative id, got " +
                  id.dump());
    }
    vocab_.emplace(token, id.get<std::int32_t>());
  }
  if (const auto* unk = option("unk_token")) {
    const auto it = vocab_.find(unk->get<std::string>());
    if (it == vocab_.end()) throw Error(where + ": model.unk_token is not in the vocabulary");
    unk_id_ = it->second;
  }

  const auto merges = model.find("merges");
  if (merges == model.end() || !merges->is_array()) {
    throw Error(where + ": model.merges: expected an array");
  }
  std::vector<std::pair<std::uint64_t, Merge>> entries;
  entries.reserve(merges->size());
  const auto lookup = [&](const std::string& token, std::size_t index) {
    const auto it = vocab_.find(token);
    if (it == vocab_.end()) {
      throw Error(where + ": model.merges[" + std::to_string(index) + "]: \"" + token +
                  "\" is not in the vocabulary");
    }
    return it->second;
  };
  for (std::size_t i = 0; i < merges->size(); ++i) {
    const auto [left, right] = merge_parts((*merges)[i], where, i);
    const std::int32_t left_id = lookup(left, i);
    const std::int32_t right_id = lookup(right, i);
    const std::int32_t id = lookup(left + right, i);
    entries.emplace_back(pack(left_id, right_id), Merge{static_cast<std::int32_t>(i), id});
  }
  merges_.build(entries);
}

void BpeModel::use_byte_level_alphabet(const std::string& where) {
  const auto& table = byte_level::byte_to_char();
  for (int b = 0; b < 256; ++b) {
    std::string piece;
    utf8::append(piece, table[b]);
    const auto it = vocab_.find(piece);
    if (it == vocab_.end()) {
      throw Error(where + ": ByteLevel: the vocabulary lacks the character for byte " +
                  std::to_string(b) + " ('" + piece + "')");
    }
    byte_ids_[b] = it->second;
  }
  byte_level_ = true;
}

void BpeModel::initial_symbols(std::string_view word, std::vector<std::int32_t>& symbols) const {
  if (byte_level_) {
    for (const char c : word) symbols.push_back(byte_ids_[static_cast<unsigned char>(c)]);
    return;
  }
  std::size_t i = 0;
  std::string piece;
  while (i < word.size()) {
    const std::size_t start = i;
    utf8::next(word, i);
    piece.assign(word.substr(start, i - start));
    const auto it = vocab_.find(piece);
    if (it != vocab_.end()) {
      symbols.push_back(it->second);
    } else if (unk_id_ >= 0 && !(fuse_unk_ && !symbols.empty() && symbols.back() == unk_id_)) {
      symbols.push_back(unk_id_);
    } else if (unk_id_ < 0) {
      throw Error("BPE: character '" + piece +
                  "' is not in the vocabulary and the model has no unk_token");
    }
  }
}

// Merges the lowest-ranked adjacent pair, leftmost first, until none is left: a min-heap of
// candidate merges keyed by (rank, position) over a linked list of symbols; stale candidates
// (a side already merged away) are skipped when popped.
void BpeModel::merge_word(std::vector<std::int32_t>& symbols) const {
  const auto n = static_cast<std::int32_t>(symbols.size());
  if (n < 2) return;
  std::vector<std::int32_t> prev(n), next(n);
  std::vector<bool> alive(n, true);
  for (std::int32_t i = 0; i < n; ++i) {
    prev[i] = i - 1;
    next[i] = i + 1 < n ? i + 1 : -1;
  }
  struct Candidate {
    std::int32_t rank, pos, id;
    bool operator>(const Candidate& o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  const auto consider = [&](std::int32_t pos) {
    if (pos < 0 || next[pos] < 0) return;
    if (const Merge* m = merges_.find(symbols[pos], symbols[next[pos]])) {
      heap.push({m->rank, pos, m->id});
    }
  };
  for (std::int32_t i = 0; i + 1 < n; ++i) consider(i);
  while (!heap.empty()) {
    const Candidate top = heap.top();
    heap.pop();
    const std::int32_t right = next[top.pos];
    if (!alive[top.pos] || right < 0) continue;
    const Merge* m = merges_.find(symbols[top.pos], symbols[right]);
    if (m == nullptr || m->id != top.id) continue;
    symbols[top.pos] = top.id;
    alive[right] = false;
    next[top.pos] = next[right];
    if (next[right] >= 0) prev[next[right]] = top.pos;
    consider(prev[top.pos]);
    consider(top.pos);
  }
  std::int32_t out = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    if (alive[i]) symbols[out++] = symbols[i];
  }
  symbols.resize(out);
}

void BpeModel::tokenize(std::string_view word, std::vector<std::int32_t>& out) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    const std::string text = byte_level_ ? byte_level::encode(word) : std::string(word);
    if (const auto it = vocab_.find(text); it != vocab_.end()) {
      out.push_back(it->second);
      return;
    }
  }
  const bool cacheable = word.size() <= kMaxCachedWordBytes;
  CacheShard& shard = cache_[std::hash<std::string_view>{}(word) % kCacheShards];
  if (cacheable) {
    std::lock_guard<std::mutex> lock(shard.mutex);
    const auto it = shard.words.find(word);
    if (it != shard.words.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<std::int32_t> symbols;
  symbols.reserve(word.size());
  initial_symbols(word, symbols);
  merge_word(symbols);
  out.insert(out.end(), symbols.begin(), symbols.end());
  if (cacheable) {
    std::lock_guard<std::mutex> lock(shard.mutex);
    if (shard.words.size() < kCacheWordsPerShard) shard.words.emplace(word, std::move(symbols));
  }
}

}  // namespace verlpp::tokenizer
