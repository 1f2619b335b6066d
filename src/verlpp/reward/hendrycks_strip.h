// The answer normalisation of Hendrycks' MATH release (math_equivalence._strip_string), in the two
// copies verlpp scores with: verl's math_reward.strip_string and PRM800K's math_normalize (which
// mathruler, verl's geo3k grader, carries). Strings are UTF-8; "characters" are code points.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace verlpp::reward {

// The copies differ only in the percent signs they remove: verl's "\\%" and then "\%";
// PRM800K's "\%" and then a bare "%".
enum class StripVariant { kVerlMath, kPrm800k };

// Drops "\n", "\!", "\left", "\right", degrees, "\$", units after "\text{ ", percent signs;
// "\\" -> "\", tfrac/dfrac -> frac; ".5" -> "0.5"; drops a "k=" prefix whose left side has at
// most 2 characters; "\sqrt3" -> "\sqrt{3}"; removes spaces; "\frac12" -> "\frac{1}{2}";
// "0.5" -> "\frac{1}{2}"; "a/b" of canonical integers -> "\frac{a}{b}". nullopt where Python's
// version raises (two "\text{ " units, "\sqrt" or "\frac" at the very end).
std::optional<std::string> hendrycks_strip(std::string_view text, StripVariant variant);

}  // namespace verlpp::reward
