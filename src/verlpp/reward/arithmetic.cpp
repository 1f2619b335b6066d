#include "verlpp/reward/arithmetic.h"

namespace verlpp::reward {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<std::string> last_integer(std::string_view response) {
  std::size_t end = response.size();
  while (end > 0 && !is_digit(response[end - 1])) --end;
  if (end == 0) return std::nullopt;
  std::size_t begin = end;
  while (begin > 0 && is_digit(response[begin - 1])) --begin;
  const bool negative = begin > 0 && response[begin - 1] == '-';
  std::string_view digits = response.substr(begin, end - begin);
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  if (digits == "0") return std::string(digits);
  return (negative ? "-" : "") + std::string(digits);
}

ScoreResult arithmetic_score(std::string_view response, std::string_view ground_truth) {
  ScoreResult result;
  result.extracted = last_integer(response);
  const auto expected = last_integer(ground_truth);
  result.score = result.extracted && expected && *result.extracted == *expected ? 1.0 : 0.0;
  return result;
}

}  // namespace verlpp::reward
