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

// An SFT row for data.prompt_key=prompt, data.response_key=response. A sloppy demonstration
// writes a stray "+1" after the answer ("37+485=" -> "522+1"): the scorer reads the last integer,
// so it is marked wrong, and a model that imitates such rows must unlearn the habit from rewards.
data::Row sft_row(const AdditionProblem& problem, bool sloppy = false);

// Which of `count` demonstrations are sloppy: each independently with probability `fraction`
// (in [0, 1], else verlpp::Error), from a seeded SplitMix64 stream.
std::vector<bool> sloppy_demonstrations(std::int64_t count, double fraction, std::uint64_t seed);

}  // namespace verlpp::demo
