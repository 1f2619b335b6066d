// Helpers for the algorithm tests: small float64 tensors from literals and element-wise checks.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace verlpp::algo::testing {

inline at::Tensor vec(const std::vector<double>& v) { return at::tensor(v, at::kDouble); }

inline at::Tensor mat(const std::vector<std::vector<double>>& rows) {
  std::vector<at::Tensor> out;
  for (const auto& r : rows) out.push_back(vec(r));
  return at::stack(out);
}

inline at::Tensor ids(const std::vector<int64_t>& v) { return at::tensor(v, at::kLong); }

// |actual - expected| <= tol * max(1, |expected|) for every element, with the first mismatch named.
inline void expect_near(const at::Tensor& actual, const at::Tensor& expected, double tol,
                        const std::string& what) {
  ASSERT_TRUE(actual.sizes().equals(expected.sizes()))
      << what << ": shape " << actual.sizes() << " vs " << expected.sizes();
  const at::Tensor a = actual.detach().cpu().to(at::kDouble).reshape({-1}).contiguous();
  const at::Tensor e = expected.detach().cpu().to(at::kDouble).reshape({-1}).contiguous();
  const double* ap = a.data_ptr<double>();
  const double* ep = e.data_ptr<double>();
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double bound = tol * std::max(1.0, std::abs(ep[i]));
    if (!(std::abs(ap[i] - ep[i]) <= bound)) {
      ADD_FAILURE() << what << ": element " << i << " is " << ap[i] << ", expected " << ep[i];
      return;
    }
  }
}

inline void expect_near(const at::Tensor& actual, const std::vector<std::vector<double>>& expected,
                        double tol, const std::string& what) {
  expect_near(actual, mat(expected), tol, what);
}

inline double item(const at::Tensor& t) { return t.detach().item<double>(); }

}  // namespace verlpp::algo::testing
