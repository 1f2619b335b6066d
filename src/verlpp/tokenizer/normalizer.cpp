#include "verlpp/tokenizer/normalizer.h"

#include <utf8proc.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "verlpp/core/error.h"

namespace verlpp::tokenizer {

Normalizer::Normalizer(const nlohmann::json& spec, const std::string& where) {
  if (!spec.is_null()) add(spec, where);
}

void Normalizer::add(const nlohmann::json& spec, const std::string& where) {
  const std::string type = spec.is_object() ? spec.value("type", "") : "";
  if (type == "Sequence") {
    for (const auto& step : spec.value("normalizers", nlohmann::json::array())) add(step, where);
    return;
  }
  int options = 0;
  if (type == "NFC") {
    options = UTF8PROC_STABLE | UTF8PROC_COMPOSE;
  } else if (type == "NFD") {
    options = UTF8PROC_STABLE | UTF8PROC_DECOMPOSE;
  } else if (type == "NFKC") {
    options = UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
  } else if (type == "NFKD") {
    options = UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
  } else {
    throw Error(where + ": normalizer type '" + type +
                "' is not supported (supported: NFC, NFD, NFKC, NFKD, Sequence of them)");
  }
  if (options_ != 0 && options_ != options) {
    throw Error(where + ": a Sequence of different Unicode normal forms is not supported");
  }
  options_ = options;
}

std::string Normalizer::apply(std::string_view text) const {
  bool ascii = true;
  for (const char c : text) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (options_ == 0 || ascii) return std::string(text);
  utf8proc_uint8_t* result = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                              static_cast<utf8proc_ssize_t>(text.size()), &result,
                              static_cast<utf8proc_option_t>(options_));
  if (n < 0) {
    throw Error(std::string("Unicode normalisation failed: ") + utf8proc_errmsg(n));
  }
  std::string out(reinterpret_cast<const char*>(result), static_cast<std::size_t>(n));
  std::free(result);
  return out;
}

}  // namespace verlpp::tokenizer
