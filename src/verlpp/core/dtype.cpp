#include "verlpp/core/dtype.h"

#include "verlpp/core/error.h"
#include "verlpp/core/log.h"

namespace verlpp {

at::ScalarType parse_dtype(const std::string& name, const std::string& where) {
  if (name == "bfloat16" || name == "bf16") return at::kBFloat16;
  if (name == "float16" || name == "fp16" || name == "half") return at::kHalf;
  if (name == "float32" || name == "fp32" || name == "float") return at::kFloat;
  throw Error(where + ": unknown dtype '" + name + "' (expected bfloat16, float16 or float32)");
}

at::ScalarType trainer_compute_dtype(const std::string& name, const std::string& key, bool cuda) {
  const at::ScalarType asked = parse_dtype(name, key);
  if (cuda) return asked;
  if (asked != at::kFloat) {
    log_note(key + "=" + name + " applies on CUDA; the trainer on the CPU computes in float32");
  }
  return at::kFloat;
}

std::string dtype_name(at::ScalarType dtype) {
  switch (dtype) {
    case at::kBFloat16:
      return "bfloat16";
    case at::kHalf:
      return "float16";
    case at::kFloat:
      return "float32";
    default:
      throw Error(std::string("unsupported model dtype ") + c10::toString(dtype));
  }
}

}  // namespace verlpp
