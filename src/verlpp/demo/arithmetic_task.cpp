#include "verlpp/demo/arithmetic_task.h"

#include "verlpp/core/error.h"
#include "verlpp/reward/arithmetic.h"

namespace verlpp::demo {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit output per call.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

std::string AdditionProblem::question() const {
  return std::to_string(a) + "+" + std::to_string(b) + "=";
}

std::string AdditionProblem::answer() const { return std::to_string(a + b); }

std::vector<AdditionProblem> addition_problems(std::int64_t count, int max_digits,
                                               std::uint64_t seed) {
  if (max_digits < 1 || max_digits > 9) {
    throw Error("addition problems: max_digits must be in [1, 9], got " +
                std::to_string(max_digits));
  }
  std::uint64_t limit = 1;
  for (int i = 0; i < max_digits; ++i) limit *= 10;
  std::uint64_t state = seed;
  std::vector<AdditionProblem> out;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto a = static_cast<std::int64_t>(splitmix64(state) % limit);
    const auto b = static_cast<std::int64_t>(splitmix64(state) % limit);
    out.push_back({a, b});
  }
  return out;
}

data::Row rl_row(const AdditionProblem& problem, const std::string& split, std::int64_t index) {
  data::Row row;
  row["data_source"] = std::string(reward::kArithmeticDataSource);
  row["prompt"] = data::Row::array({{{"role", "user"}, {"content", problem.question()}}});
  row["ability"] = "arithmetic";
  row["reward_model"] = {{"style", "rule"}, {"ground_truth", problem.answer()}};
  row["extra_info"] = {{"split", split},
                       {"index", index},
                       {"question", problem.question()},
                       {"answer", problem.answer()}};
  return row;
}

data::Row sft_row(const AdditionProblem& problem, bool sloppy) {
  data::Row row;
  row["prompt"] = problem.question();
  row["response"] = problem.answer() + (sloppy ? "+1" : "");
  return row;
}

std::vector<bool> sloppy_demonstrations(std::int64_t count, double fraction, std::uint64_t seed) {
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    throw Error("sloppy demonstrations: fraction must be in [0, 1], got " +
                std::to_string(fraction));
  }
  std::uint64_t state = seed;
  std::vector<bool> out;
  for (std::int64_t i = 0; i < count; ++i) {
    const double u = static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
    out.push_back(u < fraction);
  }
  return out;
}

}  // namespace verlpp::demo
