// Errors raised below the data layer (the tokenizer, the chat template, image decoding, a field
// conversion) know nothing of the row they were working on: the data layer runs such calls
// through naming_row so that every message names its file and row.
#pragma once

#include <fmt/format.h>

#include <string>

#include "verlpp/core/error.h"

namespace verlpp::data {

// call(), with a verlpp::Error it throws rethrown as "WHERE: message" (WHERE: "FILE line N",
// "FILE line N image K", ...).
template <typename Call>
auto naming_row(const std::string& where, const Call& call) -> decltype(call()) {
  try {
    return call();
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
}

}  // namespace verlpp::data
