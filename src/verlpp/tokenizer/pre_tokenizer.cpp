#include "verlpp/tokenizer/pre_tokenizer.h"

#include <nlohmann/json.hpp>

#include "verlpp/core/error.h"

namespace verlpp::tokenizer {
namespace {

// GPT-2's pre-tokenizer regex (HF pre_tokenizers/byte_level.rs, used when use_regex is true).
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

bool flag(const nlohmann::json& spec, const char* key, bool fallback) {
  const auto it = spec.find(key);
  return it != spec.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

}  // namespace

PreTokenizer::PreTokenizer(const nlohmann::json& spec, const std::string& where) {
  if (!spec.is_null()) add(spec, where);
}

void PreTokenizer::add(const nlohmann::json& spec, const std::string& where) {
  const std::string type = spec.is_object() ? spec.value("type", "") : "";
  const std::string at = where + ": pre_tokenizer " + type;
  if (type == "Sequence") {
    for (const auto& step : spec.value("pretokenizers", nlohmann::json::array())) add(step, where);
  } else if (type == "Split") {
    const std::string behavior = spec.value("behavior", "");
    if (behavior != "Isolated") {
      throw Error(at + ": behavior '" + behavior + "' is not supported (supported: Isolated)");
    }
    if (flag(spec, "invert", false)) throw Error(at + ": invert=true is not supported");
    const auto& pattern = spec.at("pattern");
    if (pattern.contains("Regex")) {
      splits_.push_back(std::make_unique<Regex>(pattern["Regex"].get<std::string>(), false, at));
    } else if (pattern.contains("String")) {
      splits_.push_back(std::make_unique<Regex>(pattern["String"].get<std::string>(), true, at));
    } else {
      throw Error(at + ": pattern must be {\"Regex\": ...} or {\"String\": ...}");
    }
  } else if (type == "ByteLevel") {
    if (flag(spec, "add_prefix_space", false)) {
      throw Error(at + ": add_prefix_space=true is not supported");
    }
    if (flag(spec, "use_regex", true)) {
      splits_.push_back(std::make_unique<Regex>(kGpt2Pattern, false, at));
    }
    byte_level_ = true;
  } else {
    throw Error(where + ": pre_tokenizer type '" + type +
                "' is not supported (supported: Split, ByteLevel, Sequence)");
  }
}

void PreTokenizer::split(std::string_view text,
                         std::vector<std::pair<std::size_t, std::size_t>>& words) const {
  words.clear();
  if (text.empty()) return;
  words.emplace_back(0, text.size());
  std::vector<std::pair<std::size_t, std::size_t>> pieces, matches;
  for (const auto& regex : splits_) {
    pieces.clear();
    for (const auto& [begin, end] : words) {
      matches.clear();
      regex->find_all(text.substr(begin, end - begin), matches);
      std::size_t at = begin;
      for (const auto& [m_begin, m_end] : matches) {
        if (begin + m_begin > at) pieces.emplace_back(at, begin + m_begin);
        pieces.emplace_back(begin + m_begin, begin + m_end);
        at = begin + m_end;
      }
      if (at < end) pieces.emplace_back(at, end);
    }
    words.swap(pieces);
  }
}

}  // namespace verlpp::tokenizer
