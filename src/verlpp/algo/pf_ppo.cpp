#include "verlpp/algo/pf_ppo.h"

#include <ATen/ATen.h>

#include "verlpp/core/error.h"

namespace verlpp::algo {

at::Tensor pf_ppo_weights(const at::Tensor& scores, const std::string& method, double weight_pow) {
  const at::Tensor s = scores.to(at::kCPU, at::kDouble);
  at::Tensor w;
  if (method == "pow") {
    w = s.abs().pow(weight_pow);
  } else if (method == "max_min") {
    w = (s.eq(s.max()) | s.eq(s.min())).to(at::kDouble);
  } else if (method == "max_random") {
    const auto options = s.options();
    w = at::where(s.eq(s.max()), at::scalar_tensor(0.4, options), at::scalar_tensor(0.1, options));
  } else {
    throw Error("algorithm.pf_ppo.reweight_method: unknown method '" + method +
                "'; valid: pow, max_min, max_random");
  }
  return (w + 1e-8).clamp_min(1e-8);
}

at::Tensor pf_ppo_sample(const at::Tensor& scores, const std::string& method, double weight_pow,
                         at::Generator generator) {
  const at::Tensor w = pf_ppo_weights(scores, method, weight_pow);
  return at::multinomial(w, w.size(0), /*replacement=*/true, generator);
}

}  // namespace verlpp::algo
