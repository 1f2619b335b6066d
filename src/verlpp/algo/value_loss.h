// Clipped value loss of the critic (verl: core_algos.py compute_value_loss and
// verl/workers/utils/losses.py::value_loss; verl.md §3.6).
//
// vpreds, returns, values (the old predictions), response_mask: [batch, response_length].
//   v_clip = clip_by_value(vpreds, values - cliprange_value, values + cliprange_value)
//   vf_loss = 0.5 * agg(max((vpreds - returns)^2, (v_clip - returns)^2))
//   vf_clipfrac = masked_mean((v_clip - returns)^2 > (vpreds - returns)^2)
//   vpred_mean = masked_mean(vpreds)
// The loss is 0-dim and differentiable with respect to vpreds.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "verlpp/algo/agg_loss.h"
#include "verlpp/algo/metrics.h"

namespace verlpp::algo {

struct ValueLossResult {
  at::Tensor loss;  // 0-dim
  Metrics metrics;  // vf_loss, vf_clipfrac, vpred_mean
};

// cliprange_value: critic.cliprange_value (verl default 0.5); loss_agg_mode: critic.loss_agg_mode.
ValueLossResult compute_value_loss(const at::Tensor& vpreds, const at::Tensor& returns,
                                   const at::Tensor& values, const at::Tensor& response_mask,
                                   double cliprange_value = 0.5,
                                   const std::string& loss_agg_mode = "token-mean",
                                   const GlobalBatchInfo& info = {});

}  // namespace verlpp::algo
