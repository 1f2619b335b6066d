#include "verlpp/model/generation_state.h"

#include <ATen/ATen.h>

namespace verlpp::model {

DecodeView slot_decode_view(const at::Tensor& slots, const at::Tensor& lengths, int64_t capacity,
                            int64_t total_slots, int64_t max_length, bool flash) {
  DecodeView view;
  view.state_slots = slots;
  view.slot_starts = slots * capacity;
  view.new_rows = view.slot_starts + lengths - 1;
  view.lengths = lengths;
  view.max_length = max_length;
  if (flash) {
    const at::Tensor end = at::full({1}, total_slots * capacity, slots.options());
    view.cu_starts_i32 = at::cat({view.slot_starts, end}).to(at::kInt);
    view.lengths_i32 = lengths.to(at::kInt);
  }
  return view;
}

}  // namespace verlpp::model
