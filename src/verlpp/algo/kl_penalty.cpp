#include "verlpp/algo/kl_penalty.h"

#include <ATen/ATen.h>

#include "verlpp/algo/checks.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

bool ends_with_plus(const std::string& name) { return !name.empty() && name.back() == '+'; }

std::string base_name(const std::string& name) {
  return ends_with_plus(name) ? name.substr(0, name.size() - 1) : name;
}

std::string valid_list() {
  std::string out;
  for (const auto& n : kl_penalty_names()) out += n + ", ";
  return out + "each optionally with a '+' suffix (straight-through k2 gradient)";
}

}  // namespace

std::vector<std::string> kl_penalty_names() {
  return {"kl", "k1", "abs", "mse", "k2", "low_var_kl", "k3"};
}

void validate_kl_penalty_name(const std::string& name, const std::string& key) {
  const std::string base = base_name(name);
  if (base == "full") {
    throw Error(key + "='" + name +
                "': the full KL is not implemented (verl raises too); valid: " + valid_list());
  }
  for (const auto& n : kl_penalty_names()) {
    if (n == base) return;
  }
  throw Error("unknown " + key + " '" + name + "'; valid: " + valid_list());
}

at::Tensor kl_penalty_forward(const at::Tensor& logprob, const at::Tensor& ref_logprob,
                              const std::string& kl_penalty) {
  validate_kl_penalty_name(kl_penalty, "kl_penalty");
  require_same_shape(logprob, "logprob", ref_logprob, "ref_logprob", "kl_penalty");
  const std::string base = base_name(kl_penalty);
  if (base == "kl" || base == "k1") return logprob - ref_logprob;
  if (base == "abs") return (logprob - ref_logprob).abs();
  if (base == "mse" || base == "k2") return 0.5 * (logprob - ref_logprob).square();
  const at::Tensor x = at::clamp(ref_logprob - logprob, -20.0, 20.0);
  return at::clamp(x.exp() - x - 1, -10.0, 10.0);
}

at::Tensor kl_penalty(const at::Tensor& logprob, const at::Tensor& ref_logprob,
                      const std::string& kl_penalty) {
  const at::Tensor forward = kl_penalty_forward(logprob, ref_logprob, kl_penalty);
  const std::string base = base_name(kl_penalty);
  if (!ends_with_plus(kl_penalty) || base == "mse" || base == "k2") return forward;
  const at::Tensor backward = 0.5 * (logprob - ref_logprob).square();
  return backward - backward.detach() + forward.detach();
}

}  // namespace verlpp::algo
