// The answer grader verl's geo3k reward relies on: mathruler 0.1's grader.py (hiyouga/MathRuler,
// itself PRM800K's grading/grader.py and math_normalize.py). Strings are UTF-8.
//
// grade_answer(given, ground_truth) is true when
//   (a) the mathd normalisations (normalize_answer) are equal, or
//   (b) the PRM800K normalisations (normalize) are equal, or
//   (c) element-wise over tuples/intervals ("(1,2)", "[a,b]"; brackets must agree), each pair of
//       elements: two fractions "a/b" must be identical strings; an integer against a non-integer
//       is false; otherwise equal under sympy (sympy_equal.h), tried only when the difference has
//       at most two distinct letters besides "sqrt"/"frac" and no "^{", "^(", "^n^" or "^nn".
// Differences from Python: sympy.simplify is a numeric test (see sympy_equal.h); pylatexenc is
// the subset in latex_to_text.h; str.lower() lowercases ASCII letters only; float() reads ASCII
// digits only.
#pragma once

#include <string>
#include <string_view>

namespace verlpp::reward {

// The content of the last "\boxed{...}" with its braces matched, stripped of surrounding
// whitespace; the string "None" when there is no "\boxed{" or its braces never close.
std::string extract_boxed_content(std::string_view text);

// PRM800K math_normalize.normalize_answer: strip, drop an enclosing "\text{...}", then Hendrycks'
// _strip_string (hendrycks_strip.h, PRM800K variant); the stripped answer when that raises.
std::string normalize_answer(std::string_view answer);

// PRM800K grader._normalize: "\text{...}" unwrapped; "\%" "\$" "$" "%" dropped; " or " and
// " and " -> " , "; million/billion/trillion -> "*10^6/9/12"; units (degree, cm, centimeter,
// meter, mile, second, minute, hour, day, week, month, year, foot, feet, inch, yard, with plurals
// and "^n") and "^\circ" dropped; one pair of enclosing braces dropped; ",\!" dropped; integral
// floats as integers; LaTeX to text (latex_to_text.h; "√" -> "sqrt", "π" -> "pi", "∞" -> "inf",
// "∪" -> "U", "·" and "×" -> "*"); "- " -> "-"; "7 3/4" -> "7+3/4"; spaces and braces removed;
// lowercased; integers (also "1,000" and within 1e-7) in canonical form.
std::string normalize(std::string_view expr);

bool grade_answer(std::string_view given, std::string_view ground_truth);

}  // namespace verlpp::reward
