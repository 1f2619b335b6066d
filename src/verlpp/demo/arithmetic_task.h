// The demo's generated task: multi-digit addition with a verifiable answer ("37+485=" -> "522"),
// as verl RL rows (data_source "verlpp/arithmetic", scored by reward/arithmetic.h) and as SFT rows.
// Operands are drawn uniformly from [0, 10^max_digits) by a seeded SplitMix64 stream, so the same
// seed gives the same rows on every platform.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verlpp/data/row.h"

namespace verlpp::demo {

struct AdditionProblem {
  std::int64_t a = 0, b = 0;
  std::string question() const;  // "a+b="
  std::string answer() const;    // decimal a + b
};

// `count` problems from `seed`; throws verlpp::Error when max_digits is outside [1, 9].
std::vector<AdditionProblem> addition_problems(std::int64_t count, int max_digits,
                                               std::uint64_t seed);

// verl's RL row (verl.md §6.1): data_source, prompt [{"role": "user", "content": question}],
// ability, reward_model {"style": "rule", "ground_truth": answer}, extra_info {split, index,
// question, answer}.
data::Row rl_row(const AdditionProblem& problem, const std::string& split, std::int64_t index);

// An SFT row for data.prompt_key=prompt, data.response_key=response.
data::Row sft_row(const AdditionProblem& problem);

}  // namespace verlpp::demo
