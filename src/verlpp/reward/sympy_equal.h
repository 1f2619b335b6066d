// The sympy step of PRM800K's grader (mathruler/grader.py are_equal_under_sympy), decided
// numerically: verlpp has no computer algebra system, so "sympy.simplify(gt - given) == 0" becomes
// "gt and given evaluate to the same number" (relative tolerance 1e-9) at every one of three fixed
// assignments of the expression's symbols (one assignment when it has none).
//
// Parsing follows sympy_parser.parse_expr with standard_transformations +
// implicit_multiplication_application, on the grader's normalised strings: "^" is a power,
// juxtaposition multiplies ("2x", "2sqrt(3)", "(1)(2)"), a name that is not a sympy function or
// constant splits into one symbol per letter ("xy" is x*y) unless it names a Greek letter,
// "n!" is a factorial. Known names: sqrt, sin, cos, tan, cot, sec, csc, asin, acos, atan, sinh,
// cosh, tanh, log and ln (natural), exp, abs, gamma, factorial, pi, oo (infinity).
//
// Where this differs from sympy: a difference that is zero only to rounding (0.1 + 0.2 against
// 0.3 is unequal for sympy, whose Floats keep the rounding) counts as equal here; identities that
// hold at the three points but not everywhere would too; complex values (sqrt(-1)) never compare
// equal. Commas, "=", "<", ">" and anything Python would not parse are a parse failure.
#pragma once

#include <string_view>

namespace verlpp::reward {

// are_equal_under_sympy's comparison of two normalised answers (no should_allow_eval check: the
// caller applies it): false when either side fails to parse or a side is not a finite real number
// at some assignment.
bool sympy_equal(std::string_view ground_truth, std::string_view given);

}  // namespace verlpp::reward
