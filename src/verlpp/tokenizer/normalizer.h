// tokenizer.json's "normalizer": Unicode normalisation forms (NFC, NFD, NFKC, NFKD, as HF
// normalizers/unicode.rs) through utf8proc, alone or in a Sequence. null means none.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace verlpp::tokenizer {

class Normalizer {
 public:
  // Throws verlpp::Error naming the type for normalizers other than the four Unicode forms.
  Normalizer(const nlohmann::json& spec, const std::string& where);

  bool active() const { return options_ != 0; }
  // `text` (valid UTF-8) normalised. Pure ASCII text is returned unchanged without a copy
  // through utf8proc (it is in every normal form).
  std::string apply(std::string_view text) const;

 private:
  void add(const nlohmann::json& spec, const std::string& where);
  int options_ = 0;  // utf8proc_option_t flags; 0 = no normalisation
};

}  // namespace verlpp::tokenizer
