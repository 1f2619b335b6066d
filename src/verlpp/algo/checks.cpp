#include "verlpp/algo/checks.h"

#include <ATen/ATen.h>

#include <sstream>

#include "verlpp/core/error.h"

namespace verlpp::algo {

std::string shape_string(const at::Tensor& t) {
  std::ostringstream out;
  out << '[';
  for (int64_t d = 0; d < t.dim(); ++d) out << (d ? ", " : "") << t.size(d);
  out << ']';
  return out.str();
}

void require_defined(const at::Tensor& t, const std::string& fn, const std::string& name) {
  if (!t.defined()) throw Error(fn + ": " + name + " is required but was not given");
}

void require_dim(const at::Tensor& t, int64_t dim, const std::string& fn, const std::string& name) {
  require_defined(t, fn, name);
  if (t.dim() != dim) {
    throw Error(fn + ": " + name + " must have " + std::to_string(dim) + " dimensions, got shape " +
                shape_string(t));
  }
}

void require_same_shape(const at::Tensor& a, const std::string& a_name, const at::Tensor& b,
                        const std::string& b_name, const std::string& fn) {
  require_defined(a, fn, a_name);
  require_defined(b, fn, b_name);
  if (!a.sizes().equals(b.sizes())) {
    throw Error(fn + ": " + a_name + " " + shape_string(a) + " and " + b_name + " " +
                shape_string(b) + " must have the same shape");
  }
}

at::Tensor mask_like(const at::Tensor& mask, const at::Tensor& like) {
  const auto dtype = at::isFloatingType(like.scalar_type()) ? like.scalar_type() : at::kFloat;
  return mask.to(like.device(), dtype);
}

}  // namespace verlpp::algo
