#include "verlpp/model/layers/linear.h"

#include "verlpp/model/weight_table.h"

namespace verlpp::model {

void declare_linear(WeightTable& table, const std::string& name, int64_t layer, Linear& linear,
                    int64_t out, int64_t in, bool bias, const std::string& shape_from) {
  table.add(
      {name + ".weight", {out, in}, WeightInit::normal, layer, 0, shape_from, {}, &linear.weight});
  if (bias) {
    table.add({name + ".bias", {out}, WeightInit::zeros, layer, 0, shape_from, {}, &linear.bias});
  }
}

}  // namespace verlpp::model
