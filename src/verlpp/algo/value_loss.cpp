#include "verlpp/algo/value_loss.h"

#include <ATen/ATen.h>

#include "verlpp/algo/checks.h"
#include "verlpp/algo/masked.h"

namespace verlpp::algo {

ValueLossResult compute_value_loss(const at::Tensor& vpreds, const at::Tensor& returns,
                                   const at::Tensor& values, const at::Tensor& response_mask,
                                   double cliprange_value, const std::string& loss_agg_mode,
                                   const GlobalBatchInfo& info) {
  const std::string fn = "value loss";
  require_dim(vpreds, 2, fn, "vpreds");
  require_same_shape(vpreds, "vpreds", returns, "returns", fn);
  require_same_shape(vpreds, "vpreds", values, "values", fn);
  require_same_shape(vpreds, "vpreds", response_mask, "response_mask", fn);
  const at::Tensor old = values.detach().to(vpreds.scalar_type());
  const at::Tensor target = returns.detach().to(vpreds.scalar_type());
  const at::Tensor clipped = clip_by_value(vpreds, old - cliprange_value, old + cliprange_value);
  const at::Tensor loss1 = (vpreds - target).square();
  const at::Tensor loss2 = (clipped - target).square();
  const at::Tensor loss =
      0.5 * agg_loss(at::maximum(loss1, loss2), response_mask, loss_agg_mode, info);
  const at::Tensor clipfrac = masked_mean((loss2 > loss1).to(vpreds.scalar_type()), response_mask);
  return {loss,
          {{"vf_loss", loss.detach().item<double>()},
           {"vf_clipfrac", clipfrac.item<double>()},
           {"vpred_mean", masked_mean(vpreds.detach(), response_mask).item<double>()}}};
}

}  // namespace verlpp::algo
