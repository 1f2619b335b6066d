// Python str operations that the rule scorers reproduce exactly (verl's and mathruler's graders
// are Python): str.replace, str.split, len() in code points, int() of a string. Strings are UTF-8.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace verlpp::reward {

bool contains(std::string_view text, std::string_view part);

// str.replace(from, to) for a non-empty `from`: every non-overlapping occurrence, left to right.
std::string replace_all(std::string text, std::string_view from, std::string_view to);

// str.strip(): leading and trailing whitespace as Python's str.isspace() defines it (ASCII
// \t \n \v \f \r, space, \x1c-\x1f and the Unicode spaces U+0085, U+00A0, U+1680,
// U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
std::string_view strip_python_space(std::string_view text);

// `text` with A-Z lowered (str.lower() on ASCII; other code points are left as they are).
std::string lower_ascii(std::string_view text);

// str.split(sep) for a non-empty `sep` (so "a,,b" gives three parts and "" gives one).
std::vector<std::string> split(std::string_view text, std::string_view sep);

// Byte length of the UTF-8 code point starting at text[pos].
std::size_t char_len(std::string_view text, std::size_t pos);

// len(text) in Python: the number of code points.
std::size_t code_point_count(std::string_view text);

// str(int(text)) when Python's int() accepts `text` (surrounding whitespace, a sign, ASCII decimal
// digits with single underscores between them); nullopt otherwise.
std::optional<std::string> python_int(std::string_view text);

// float(text) when Python's float() accepts it (surrounding whitespace, a sign, digits with single
// underscores between them, one ".", an exponent, "inf"/"infinity"/"nan" in any case); nullopt
// otherwise.
std::optional<double> python_float(std::string_view text);

}  // namespace verlpp::reward
