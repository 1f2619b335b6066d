#include "verlpp/model/layers/rope.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <utility>
#include <vector>

#include "verlpp/core/error.h"
#include "verlpp/kernels/invariant_ops.h"
#include "verlpp/model/batch_invariant.h"

namespace verlpp::model {

at::Tensor rope_inv_freq(const ModelConfig& config) {
  const int64_t dim = config.rotary_dim();
  const int64_t half = dim / 2;
  // As transformers: 1 / theta^(arange(0, r, 2) / r) evaluated in fp32.
  const at::Tensor exponent =
      at::arange(0, dim, 2, at::kLong).to(at::kFloat) / static_cast<float>(dim);
  at::Tensor inv = 1.0 / at::pow(static_cast<float>(config.rope_theta), exponent);
  const RopeScaling& s = config.rope_scaling;
  if (s.type == "linear") return inv / s.factor;
  if (s.type != "llama3") return inv;
  const double old_len = static_cast<double>(s.original_max_position_embeddings);
  const double low_wavelen = old_len / s.low_freq_factor;
  const double high_wavelen = old_len / s.high_freq_factor;
  std::vector<float> out(half);
  const float* f = inv.data_ptr<float>();
  for (int64_t i = 0; i < half; ++i) {
    const float wavelen = 2.0f * static_cast<float>(M_PI) / f[i];
    const float scaled = wavelen > low_wavelen ? f[i] / static_cast<float>(s.factor) : f[i];
    if (wavelen < high_wavelen || wavelen > low_wavelen) {
      out[i] = scaled;
      continue;
    }
    const float smooth =
        (static_cast<float>(old_len) / wavelen - static_cast<float>(s.low_freq_factor)) /
        static_cast<float>(s.high_freq_factor - s.low_freq_factor);
    out[i] = (1.0f - smooth) * scaled / static_cast<float>(s.factor) + smooth * scaled;
  }
  return at::tensor(out, at::kFloat);
}

namespace {

// [3, T, r/2] angles of the three streams -> [T, r/2], each frequency from its stream.
at::Tensor interleave_mrope(const at::Tensor& freqs, const std::vector<int64_t>& section) {
  const int64_t half = freqs.size(-1);
  std::vector<int64_t> stream(half, 0);
  for (int64_t j = 0; j < half; ++j) {
    if (j % 3 == 1 && j < 3 * section.at(1)) stream[j] = 1;
    if (j % 3 == 2 && j < 3 * section.at(2)) stream[j] = 2;
  }
  const at::Tensor index = at::tensor(stream, at::kLong).to(freqs.device());
  return freqs.gather(0, index.view({1, 1, half}).expand({1, freqs.size(1), half})).squeeze(0);
}

}  // namespace

RopeTables rope_tables(const at::Tensor& inv_freq, const at::Tensor& positions,
                       at::ScalarType dtype, const std::vector<int64_t>& mrope_section) {
  if (positions.dim() == 2 && (positions.size(0) != 3 || mrope_section.size() != 3)) {
    throw Error(
        fmt::format("rope_tables: M-RoPE positions must be [3, tokens] with a 3-entry "
                    "mrope_section; got [{}] and {} entries",
                    fmt::join(positions.sizes(), ", "), mrope_section.size()));
  }
  const at::Tensor f = inv_freq.to(positions.device());
  const at::Tensor freqs =
      positions.dim() == 2
          ? interleave_mrope(positions.to(at::kFloat).unsqueeze(-1) * f.view({1, 1, -1}),
                             mrope_section)
          : positions.to(at::kFloat).unsqueeze(1) * f.unsqueeze(0);
  // Batch-invariant mode: each angle's cos and sin from the C library, not from vectorised code
  // whose scalar tail depends on where the angle sits in the tensor.
  const auto [cos, sin] =
      batch_invariant() ? kernels::invariant_cos_sin(freqs) : std::pair{freqs.cos(), freqs.sin()};
  return {at::cat({cos, cos}, /*dim=*/-1).to(dtype), at::cat({-sin, sin}, /*dim=*/-1).to(dtype)};
}

at::Tensor apply_rope(const at::Tensor& x, const RopeTables& tables) {
  const int64_t rotary = tables.cos.size(-1);
  if (rotary < x.size(-1)) {
    const at::Tensor pass = x.narrow(-1, rotary, x.size(-1) - rotary);
    return at::cat({apply_rope(x.narrow(-1, 0, rotary), tables), pass}, -1);
  }
  const int64_t half = x.size(-1) / 2;
  const at::Tensor swapped = at::cat({x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
  const at::Tensor cos = tables.cos.unsqueeze(1), sin_signed = tables.sin_signed.unsqueeze(1);
  if (x.is_cuda() && x.scalar_type() != at::kFloat)
    return at::addcmul(x * cos, swapped, sin_signed);
  return x * cos + swapped * sin_signed;
}

}  // namespace verlpp::model
