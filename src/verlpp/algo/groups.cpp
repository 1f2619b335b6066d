#include "verlpp/algo/groups.h"

#include <ATen/ATen.h>

#include <unordered_map>

#include "verlpp/algo/checks.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {

at::Tensor group_index_from_uids(const std::vector<std::string>& uids) {
  std::unordered_map<std::string, int64_t> ids;
  std::vector<int64_t> out;
  out.reserve(uids.size());
  for (const auto& uid : uids) {
    const auto next = static_cast<int64_t>(ids.size());
    out.push_back(ids.emplace(uid, next).first->second);
  }
  return at::tensor(out, at::kLong);
}

Groups make_groups(const at::Tensor& index, int64_t batch, const std::string& fn) {
  require_dim(index, 1, fn, "index (the prompt group ids, int64 [batch])");
  if (index.scalar_type() != at::kLong) {
    throw Error(fn + ": index (the prompt group ids) must be int64, got " +
                std::string(c10::toString(index.scalar_type())));
  }
  if (index.size(0) != batch) {
    throw Error(fn + ": index has " + std::to_string(index.size(0)) +
                " entries but the batch has " + std::to_string(batch) + " responses");
  }
  const auto [unique, inverse, counts] = at::_unique2(index, true, true, true);
  return {inverse.reshape({batch}), counts.index_select(0, inverse.reshape({batch})),
          unique.size(0)};
}

at::Tensor group_sum(const at::Tensor& x, const Groups& groups) {
  const at::Tensor inverse = groups.inverse.to(x.device());
  return at::zeros({groups.count}, x.options()).index_add_(0, inverse, x).index_select(0, inverse);
}

at::Tensor group_mean(const at::Tensor& x, const Groups& groups) {
  const at::Tensor n = groups.sizes.to(x.device(), x.scalar_type());
  return at::where(n > 1, group_sum(x, groups) / n, at::zeros_like(x));
}

at::Tensor group_std(const at::Tensor& x, const Groups& groups) {
  const at::Tensor n = groups.sizes.to(x.device(), x.scalar_type());
  const at::Tensor centered = x - group_sum(x, groups) / n;
  const at::Tensor var = group_sum(centered.square(), groups) / at::clamp_min(n - 1, 1);
  return at::where(n > 1, var.sqrt(), at::ones_like(x));
}

}  // namespace verlpp::algo
