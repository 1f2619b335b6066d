// fp32 master weights for a bf16 model, as verl's FSDP mixed precision keeps them
// (param_dtype bf16 for compute; fp32 parameters, gradients and optimizer state): the optimizer
// updates the fp32 copies, which are then rounded into the model. Small updates that bf16 would
// lose accumulate in fp32.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "verlpp/model/causal_lm.h"

namespace verlpp::model {

class MasterWeights {
 public:
  // fp32 copies (leaf tensors with requires_grad, on the model's device) of every parameter.
  explicit MasterWeights(const CausalLM& model);

  // (name, fp32 parameter) in the model's order; hand these to the optimizer.
  const std::vector<std::pair<std::string, at::Tensor>>& parameters() const { return params_; }
  // master.grad = model grad cast to fp32 (a parameter without a gradient gets none).
  void gradients_from(const CausalLM& model);
  // model parameter <- master rounded to the model dtype (in place, keeping the model's tensors).
  void copy_to(CausalLM& model) const;

 private:
  std::vector<std::pair<std::string, at::Tensor>> params_;
};

}  // namespace verlpp::model
