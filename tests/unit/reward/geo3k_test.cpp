// geo3k scorer and the mathruler grader under it. Expected values are worked by hand from verl's
// geo3k.py and mathruler 0.1's grader.py / math_normalize.py (PRM800K's grader), and, for
// latex_to_text, pylatexenc 2.10's macro table.
#include "verlpp/reward/geo3k.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "verlpp/reward/dispatch.h"
#include "verlpp/reward/latex_to_text.h"
#include "verlpp/reward/mathruler.h"
#include "verlpp/reward/python_str.h"
#include "verlpp/reward/sympy_equal.h"

namespace verlpp::reward {
namespace {

TEST(PythonStr, FloatAcceptsWhatPythonFloatAccepts) {
  EXPECT_EQ(python_float("1_000.5"), 1000.5);
  EXPECT_EQ(python_float(" .5 "), 0.5);
  EXPECT_EQ(python_float("5."), 5.0);
  EXPECT_EQ(python_float("-2e3"), -2000.0);
  EXPECT_EQ(python_float("+Infinity"), HUGE_VAL);
  EXPECT_TRUE(std::isnan(*python_float("nan")));
  EXPECT_EQ(python_float("1__0"), std::nullopt);
  EXPECT_EQ(python_float("1e"), std::nullopt);
  EXPECT_EQ(python_float("."), std::nullopt);
  EXPECT_EQ(python_float(""), std::nullopt);
  EXPECT_EQ(python_float("1,000"), std::nullopt);
  EXPECT_EQ(python_float("0x10"), std::nullopt);
}

TEST(LatexToText, PylatexencForms) {
  EXPECT_EQ(latex_to_text("\\frac{x+1}{2}"), "x+1/2");  // no parentheses around the arguments
  EXPECT_EQ(latex_to_text("\\frac12"), "1/2");
  EXPECT_EQ(latex_to_text("\\frac\\pi2"), "π/2");
  EXPECT_EQ(latex_to_text("\\sqrt[3]{8}"), "√(8)");
  EXPECT_EQ(latex_to_text("2\\sqrt3"), "2√(3)");
  EXPECT_EQ(latex_to_text("\\text{cm}"), "cm");
  EXPECT_EQ(latex_to_text("\\left(1,2\\right)"), "(1,2)");  // unknown macros are dropped
  EXPECT_EQ(latex_to_text("\\alpha+\\Beta"), "α+Β");
  EXPECT_EQ(latex_to_text("a\\,b\\!c"), "a bc");
  EXPECT_EQ(latex_to_text("\\unknown {x}"), "x");
  EXPECT_EQ(latex_to_text("3 \\times 4 \\cdot 5"),
            "3 ×4 ·5");                     // a bare macro eats the space after it
  EXPECT_EQ(latex_to_text("{a}{b"), "ab");  // an open group runs to the end
  EXPECT_EQ(latex_to_text("a}b"), "ab");    // a stray brace is dropped
  EXPECT_EQ(latex_to_text("1--2"), "1–2");
}

TEST(SympyEqual, EqualValues) {
  EXPECT_TRUE(sympy_equal("2sqrt(3)", "sqrt(12)"));
  EXPECT_TRUE(sympy_equal("1/2", "0.5"));
  EXPECT_TRUE(sympy_equal("x^2-1", "(x-1)(x+1)"));
  EXPECT_TRUE(sympy_equal("xy", "yx"));  // split into one symbol per letter
  EXPECT_TRUE(sympy_equal("2x", "x2"));
  EXPECT_TRUE(sympy_equal("sin(pi/6)", "1/2"));
  EXPECT_TRUE(sympy_equal("3!", "6"));
  EXPECT_TRUE(sympy_equal("-2^2", "-4"));  // ** binds tighter than unary minus
  EXPECT_TRUE(sympy_equal("2^-1", "1/2"));
  EXPECT_TRUE(sympy_equal("2^3^2", "512"));  // right-associative
}

TEST(SympyEqual, UnequalOrUnparsable) {
  EXPECT_FALSE(sympy_equal("x", "y"));
  EXPECT_FALSE(sympy_equal("13.3", "40/3"));
  EXPECT_FALSE(sympy_equal("1/0", "1"));              // zoo
  EXPECT_FALSE(sympy_equal("sqrt(-1)", "sqrt(-1)"));  // complex
  EXPECT_FALSE(sympy_equal("1,2", "1,2"));            // a tuple minus a tuple raises
  EXPECT_FALSE(sympy_equal("x=1", "1"));              // not an expression
  EXPECT_FALSE(sympy_equal("sqrt", "1"));             // a function, not a value
  EXPECT_FALSE(sympy_equal("(1", "1"));               // unbalanced
}

TEST(Mathruler, ExtractBoxedContent) {
  EXPECT_EQ(extract_boxed_content("so \\boxed{\\frac{1}{2}} done"), "\\frac{1}{2}");
  EXPECT_EQ(extract_boxed_content("\\boxed{1} then \\boxed{ 2 }"), "2");  // last, stripped
  EXPECT_EQ(extract_boxed_content("\\boxed{3"), "None");
  EXPECT_EQ(extract_boxed_content("\\boxed {3}"), "None");
  EXPECT_EQ(extract_boxed_content("no box"), "None");
}

TEST(Mathruler, NormalizeAnswerMathd) {
  EXPECT_EQ(normalize_answer(" \\text{5} "), "5");
  EXPECT_EQ(normalize_answer("50\\%"), "50");
  EXPECT_EQ(normalize_answer("50%"), "50");  // PRM800K's copy drops a bare "%", verl's does not
  EXPECT_EQ(normalize_answer("\\frac12"), "\\frac{1}{2}");
  EXPECT_EQ(normalize_answer("0.5"), "\\frac{1}{2}");
  EXPECT_EQ(normalize_answer("x = 5"), "5");
  // Two "\text{ " units: _strip_string raises and the stripped answer is kept.
  EXPECT_EQ(normalize_answer("1\\text{ a}\\text{ b}"), "1\\text{ a}\\text{ b}");
}

TEST(Mathruler, NormalizePrm800k) {
  EXPECT_EQ(normalize("\\frac{1}{2}"), "1/2");
  EXPECT_EQ(normalize("3\\frac{1}{2}"), "3+1/2");  // mixed number
  EXPECT_EQ(normalize("2\\sqrt{3}"), "2sqrt(3)");
  EXPECT_EQ(normalize("10 cm"), "10");
  EXPECT_EQ(normalize("3 inches^2"), "3");
  EXPECT_EQ(normalize("45^\\circ"), "45");
  EXPECT_EQ(normalize("1,000"), "1000");
  EXPECT_EQ(normalize("5.0"), "5");
  EXPECT_EQ(normalize("\\$1.50"), "1.50");
  EXPECT_EQ(normalize("3 million"), "3*10^6");
  EXPECT_EQ(normalize("\\pi"), "pi");
  EXPECT_EQ(normalize("\\text{ABC}"), "abc");
  EXPECT_EQ(normalize("{7}"), "7");
  EXPECT_EQ(normalize("- 4"), "-4");
  EXPECT_EQ(normalize("1 or 2"), "1,2");
}

TEST(Mathruler, GradeAnswerEquivalent) {
  EXPECT_TRUE(grade_answer("2\\sqrt{3}", "\\sqrt{12}"));  // sympy step
  EXPECT_TRUE(grade_answer("8.5", "\\frac{17}{2}"));
  EXPECT_TRUE(grade_answer("17/2", "\\frac{17}{2}"));  // mathd: a/b -> \frac{a}{b}
  EXPECT_TRUE(grade_answer("4", "4.0"));
  EXPECT_TRUE(grade_answer("4.00000001", "4"));  // an integer within 1e-7
  EXPECT_TRUE(grade_answer("(1,2)", "(1, 2)"));
  EXPECT_TRUE(grade_answer("x+1", "1+x"));
  EXPECT_TRUE(grade_answer("10 cm", "10"));
  EXPECT_TRUE(grade_answer("\\text{B}", "B"));
  EXPECT_TRUE(grade_answer("\\frac{\\sqrt{3}}{2}", "\\frac{\\sqrt3}{2}"));
  EXPECT_TRUE(grade_answer("\\dfrac{40}{3}", "\\frac{40}{3}"));
  EXPECT_TRUE(grade_answer("4 \\pi", "4\\pi"));
  EXPECT_TRUE(grade_answer("x^{2}", "x*x"));  // braces are gone before the ^{ check
}

TEST(Mathruler, GradeAnswerNotEquivalent) {
  EXPECT_FALSE(grade_answer("34/4", "17/2"));  // unreduced fractions: no sympy
  EXPECT_FALSE(grade_answer("3.9999", "4"));   // integer against non-integer
  EXPECT_FALSE(grade_answer("[1,2]", "(1,2)"));
  EXPECT_FALSE(grade_answer("(2,1)", "(1,2)"));
  EXPECT_FALSE(grade_answer("2^10", "1024"));
  EXPECT_FALSE(grade_answer("abc", "a+b+c"));  // three letters: sympy is not tried
  EXPECT_FALSE(grade_answer("13.3", "\\frac{40}{3}"));
  EXPECT_FALSE(grade_answer("None", "5"));
  EXPECT_FALSE(grade_answer("", "5"));
}

TEST(Mathruler, HostileAnswersNeitherCrashNorHang) {
  // Nesting beyond CPython's parser (200 parentheses) and pylatexenc's recursion: not equal, no
  // stack overflow; a 200,000-digit answer goes through every step.
  const std::string parens = std::string(100000, '(') + "1" + std::string(100000, ')');
  EXPECT_FALSE(sympy_equal(parens, "1"));
  EXPECT_FALSE(sympy_equal(std::string(100000, '-') + "1", "1"));
  EXPECT_EQ(latex_to_text(std::string(100000, '{') + "x"), std::nullopt);
  EXPECT_FALSE(grade_answer("\\frac" + std::string(100000, '{') + "1", "1"));
  EXPECT_FALSE(grade_answer(std::string(200000, '1'), "1"));
  EXPECT_TRUE(grade_answer(std::string(190, '(') + "2" + std::string(190, ')') + "x", "2x"));
  // Runs that std::regex recursed over once per character (break-test, 30 kB and up).
  EXPECT_FALSE(grade_answer("2^" + std::string(50000, '9'), "x"));
  EXPECT_TRUE(grade_answer("5cm^" + std::string(50000, '7'), "5"));
  EXPECT_TRUE(grade_answer("5^" + std::string(50000, ' ') + "\\circ", "5"));
  EXPECT_FALSE(grade_answer("5cm" + std::string(50000, ' ') + "x", "5"));
  EXPECT_FALSE(grade_answer(std::string(1000000, '%'), "5"));  // linear, not quadratic, replaces
}

TEST(Mathruler, PythonWhitespaceIsUnicode) {
  // str.strip() removes U+00A0 and U+3000 too.
  EXPECT_TRUE(grade_answer("\\frac{1}{2}\u00a0", "\\frac{1}{2}"));
  EXPECT_TRUE(grade_answer("\u3000\\frac{1}{2}", "\\frac{1}{2}"));
  EXPECT_EQ(strip_python_space("\u2003 x\x1f\u205f"), "x");
  EXPECT_EQ(python_float("\u00a012\u3000"), 12.0);
}

TEST(Mathruler, FractionRuleTriesEverySlash) {
  // "1//2": the pattern's "." takes the first slash, so both sides count as fractions and are
  // compared as strings (not equal to "1/2"); "2/4" and "1/2" likewise stay apart.
  EXPECT_FALSE(grade_answer("1//2", "1/2"));
  EXPECT_FALSE(grade_answer("2/4", "1/2"));
  EXPECT_TRUE(grade_answer("\\frac{2}{4}", "\\frac{2}{4}"));
}

TEST(Geo3k, FormatReward) {
  EXPECT_EQ(geo3k_format_reward("<think>reasoning</think> The answer is \\boxed{5}"), 1.0);
  EXPECT_EQ(geo3k_format_reward("<think>\nmulti\nline</think>\n\\boxed{\n3\n}\n"), 1.0);
  EXPECT_EQ(geo3k_format_reward("<think></think>\\boxed{}"), 1.0);
  EXPECT_EQ(geo3k_format_reward("<think>a</think>b</think>\\boxed{1}"), 1.0);
  EXPECT_EQ(geo3k_format_reward("reasoning</think> \\boxed{5}"), 0.0);  // must start with <think>
  EXPECT_EQ(geo3k_format_reward(" <think>r</think> \\boxed{5}"), 0.0);
  EXPECT_EQ(geo3k_format_reward("<think>r</think> 5"), 0.0);
  EXPECT_EQ(geo3k_format_reward("<think>r \\boxed{5}</think>"), 0.0);  // box before </think>
  EXPECT_EQ(geo3k_format_reward("<think>r</think> \\boxed{5"), 0.0);
}

TEST(Geo3k, ScoreCombinesAccuracyAndFormat) {
  const std::string good = "<think>the triangle is right</think> so \\boxed{2\\sqrt{3}}";
  EXPECT_DOUBLE_EQ(geo3k_score(good, "\\sqrt{12}").score, 1.0);
  EXPECT_EQ(geo3k_score(good, "\\sqrt{12}").extracted, "2\\sqrt{3}");
  EXPECT_DOUBLE_EQ(geo3k_score("so \\boxed{2\\sqrt{3}}", "\\sqrt{12}").score, 0.9);
  EXPECT_DOUBLE_EQ(geo3k_score(good, "7").score, 0.1);
  const ScoreResult none = geo3k_score("42", "42");  // no box: "None" is graded
  EXPECT_DOUBLE_EQ(none.score, 0.0);
  EXPECT_EQ(none.extracted, std::nullopt);
  EXPECT_DOUBLE_EQ(geo3k_score("42", "42", /*use_boxed=*/false).score, 0.9);
  EXPECT_DOUBLE_EQ(geo3k_score(good, "\\sqrt{12}", true, 0.5).score, 1.0);
  EXPECT_DOUBLE_EQ(geo3k_score("\\boxed{1}", "2", true, 0.5).score, 0.0);
}

TEST(Geo3k, DispatchedByDataSource) {
  const ScoreResult r = default_compute_score("hiyouga/geometry3k", "<think>x</think>\\boxed{45}",
                                              "45", nlohmann::json::object(), {});
  EXPECT_DOUBLE_EQ(r.score, 1.0);
}

}  // namespace
}  // namespace verlpp::reward
