// Argument checks shared by the algorithm functions: each failure is a verlpp::Error naming the
// function, the argument and what was expected.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

namespace verlpp::algo {

// `t` must be defined (a tensor, not an empty at::Tensor()).
void require_defined(const at::Tensor& t, const std::string& fn, const std::string& name);

// `t` must be defined and have exactly `dim` dimensions.
void require_dim(const at::Tensor& t, int64_t dim, const std::string& fn, const std::string& name);

// `a` and `b` must be defined and have the same shape.
void require_same_shape(const at::Tensor& a, const std::string& a_name, const at::Tensor& b,
                        const std::string& b_name, const std::string& fn);

// The mask as a tensor of `like`'s floating dtype (verl's masks are bool or 0/1 floats).
at::Tensor mask_like(const at::Tensor& mask, const at::Tensor& like);

// "[a, b, c]" for error messages.
std::string shape_string(const at::Tensor& t);

}  // namespace verlpp::algo
