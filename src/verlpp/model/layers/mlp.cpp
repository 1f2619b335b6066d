#include "verlpp/model/layers/mlp.h"

#include <ATen/ATen.h>

#include "verlpp/model/weight_table.h"

namespace verlpp::model {

void declare_mlp(WeightTable& table, const std::string& prefix, int64_t layer, MlpWeights& w,
                 int64_t hidden, int64_t intermediate, bool bias) {
  const std::string from = "intermediate_size, hidden_size";
  declare_linear(table, prefix + "gate_proj", layer, w.gate_proj, intermediate, hidden, bias, from);
  declare_linear(table, prefix + "up_proj", layer, w.up_proj, intermediate, hidden, bias, from);
  declare_linear(table, prefix + "down_proj", layer, w.down_proj, hidden, intermediate, bias, from);
}

at::Tensor swiglu(const MlpWeights& w, const at::Tensor& x) {
  return w.down_proj(at::silu(w.gate_proj(x)) * w.up_proj(x));
}

}  // namespace verlpp::model
