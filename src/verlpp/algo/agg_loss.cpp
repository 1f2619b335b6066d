#include "verlpp/algo/agg_loss.h"

#include <ATen/ATen.h>

#include "verlpp/algo/checks.h"
#include "verlpp/algo/masked.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

// numerator / count, where the count is the global one when given and the local one otherwise
// (0/0 -> 0 for an empty local batch).
at::Tensor normalised(const at::Tensor& numerator, const std::optional<double>& global,
                      const at::Tensor& local_count, const GlobalBatchInfo& info,
                      const char* what) {
  if (global) {
    if (*global <= 0) {
      throw Error(std::string("agg_loss: ") + what + " must be > 0, got " +
                  std::to_string(*global));
    }
    return numerator / *global * static_cast<double>(info.dp_size);
  }
  if (info.dp_size > 1) {
    throw Error(std::string("agg_loss: ") + what +
                " (the global count) is required when dp_size > 1");
  }
  return at::where(local_count > 0, numerator / at::clamp_min(local_count, 1),
                   at::zeros_like(numerator));
}

}  // namespace

const std::vector<std::string>& loss_agg_mode_names() {
  static const std::vector<std::string> names = {"token-mean", "token-sum", "seq-mean-token-sum",
                                                 "seq-mean-token-mean", "seq-mean-token-sum-norm"};
  return names;
}

void validate_loss_agg_mode(const std::string& mode, const std::string& key) {
  std::string valid;
  for (const auto& n : loss_agg_mode_names()) {
    if (n == mode) return;
    valid += (valid.empty() ? "" : ", ") + n;
  }
  throw Error("unknown " + key + " '" + mode + "'; valid: " + valid);
}

at::Tensor agg_loss(const at::Tensor& loss_mat, const at::Tensor& loss_mask,
                    const std::string& loss_agg_mode, const GlobalBatchInfo& info) {
  validate_loss_agg_mode(loss_agg_mode, "loss_agg_mode");
  require_dim(loss_mat, 2, "agg_loss", "loss_mat");
  require_same_shape(loss_mat, "loss_mat", loss_mask, "loss_mask", "agg_loss");
  if (info.dp_size < 1) throw Error("agg_loss: dp_size must be >= 1");
  const at::Tensor m = mask_like(loss_mask, loss_mat);
  const double dp = static_cast<double>(info.dp_size);
  if (loss_agg_mode == "token-mean") {
    return normalised(masked_sum(loss_mat, m), info.batch_num_tokens, m.sum(), info,
                      "batch_num_tokens");
  }
  if (loss_agg_mode == "token-sum") return masked_sum(loss_mat, m) * dp;
  const at::Tensor tokens = m.sum(-1);
  at::Tensor seq = masked_sum(loss_mat, m, -1);
  if (loss_agg_mode == "seq-mean-token-mean") seq = seq / (tokens + 1e-8);
  const at::Tensor seq_mask = (tokens > 0).to(loss_mat.scalar_type());
  at::Tensor loss = normalised(masked_sum(seq, seq_mask), info.global_batch_size, seq_mask.sum(),
                               info, "global_batch_size");
  if (loss_agg_mode == "seq-mean-token-sum-norm") {
    if (info.loss_scale_factor && *info.loss_scale_factor <= 0) {
      throw Error("agg_loss: loss_scale_factor must be > 0");
    }
    const double factor = info.loss_scale_factor.value_or(static_cast<double>(loss_mat.size(-1)));
    if (factor > 0) loss = loss / factor;  // a response length of 0 leaves the (zero) loss as is
  }
  return loss;
}

}  // namespace verlpp::algo
