// LaTeX to plain text the way pylatexenc 2.10's LatexNodes2Text().latex_to_text does it for the
// math answers PRM800K's grader feeds it (mathruler/grader.py _parse_latex), on the subset of its
// macro table such answers use:
//   \frac \nicefrac \textfrac {a}{b} -> "a/b" (no parentheses: "\frac{x+1}{2}" -> "x+1/2");
//   \sqrt[n]{x} -> "√(x)" (the degree is dropped);
//   \text \textrm \textit \textbf \textsc \textsl \emph \mathrm \mathbf \mathit \mathsf \mathbb
//   \mathtt \mathcal \overline \underline \widehat \widetilde {x} -> "x";
//   Greek letters (\alpha ... \omega, capitals, \var* forms) -> their Unicode letters;
//   \pi-style symbols: \cdot ·, \times ×, \div ÷, \pm ±, \mp ∓, \infty ∞, \cup ∪, \cap ∩,
//   \circ ∘, \angle ∠, \le \leq ≤, \ge \geq ≥, \neq ≠, \approx ≈, \sim ∼, \cong ≅, \perp ⊥,
//   \parallel ∥, \to \rightarrow →, \ldots \dots …, \cdots ⋯, \prime ', \mid \vert |;
//   \sin \cos \tan \arcsin \arccos \arctan \sinh \cosh \tanh \ln \log \exp \min \max -> the name;
//   spacing \, \; \: \  -> " ", \quad "  ", \qquad "    ", \! -> "";
//   \\ -> newline; \$ \{ \} \% \& \# \_ -> the character; ~ -> no-break space; -- –; --- —;
//   & -> three spaces; {groups} -> their content.
// Any other macro is dropped with the space after it (pylatexenc's default for unknown macros);
// a group left open runs to the end, a stray "}" is dropped (its tolerant parsing). pylatexenc's
// bold and script letter forms of \mathbf and \mathcal are not reproduced (plain letters).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace verlpp::reward {

// nullopt past 500 nested groups (where pylatexenc would hit Python's recursion limit and the
// grader keeps the expression as it was).
std::optional<std::string> latex_to_text(std::string_view latex);

}  // namespace verlpp::reward
