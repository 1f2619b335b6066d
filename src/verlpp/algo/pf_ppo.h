// PF-PPO (policy filtration for PPO; verl: core_algos.compute_pf_ppo_reweight_data, applied after
// GAE when algorithm.use_pf_ppo): the batch is resampled with replacement, rows drawn in
// proportion to weights from their scores s (the summed token_level_scores), so that the update
// trains more on reliably scored rows (verl.md §3.1):
//   pow:        w = |s|^weight_pow
//   max_min:    w = 1 where s is the batch's largest or smallest score, else 0
//   max_random: w = 0.4 where s is the largest score, else 0.1
// then w = max(w + 1e-8, 1e-8), and B indices drawn from Categorical(w / sum w) (torch.multinomial
// with replacement).
#pragma once

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <string>

namespace verlpp::algo {

// scores: [B] floating -> weights [B] float64 by `method`. Throws verlpp::Error naming
// algorithm.pf_ppo.reweight_method for another method.
at::Tensor pf_ppo_weights(const at::Tensor& scores, const std::string& method, double weight_pow);

// [B] int64 row indices drawn with replacement in proportion to pf_ppo_weights, from `generator`
// (a CPU generator: every data-parallel rank seeds it alike and draws the same rows).
at::Tensor pf_ppo_sample(const at::Tensor& scores, const std::string& method, double weight_pow,
                         at::Generator generator);

}  // namespace verlpp::algo
