// Bicubic resizing of 8-bit RGB images exactly as Pillow's Image.resize((w, h), Image.BICUBIC)
// does it (libImaging/Resample.c), the filter both of verl's resizes use (qwen-vl-utils calls
// Pillow; transformers' fast processor calls torchvision's antialiased bicubic, which follows
// Pillow's algorithm for uint8 images to within one step of 255).
//
// Separable, horizontal pass then vertical pass, each to 8 bits: for output pixel i of a side of
// n_in -> n_out, scale = n_in / n_out, s = max(scale, 1) (antialiasing when shrinking),
// support = 2 s, centre = (i + 0.5) scale, taps x in [int(centre - support + 0.5),
// int(centre + support + 0.5)) within the image, weights w(x) = k((x - centre + 0.5) / s)
// normalised to sum 1 and rounded to p-bit fixed point (away from zero), with Keys' cubic
// k(t) = (a + 2)|t|^3 - (a + 3)|t|^2 + 1 for |t| < 1, a(|t|^3 - 5|t|^2 + 8|t| - 4) for |t| < 2,
// a = -0.5; each output is (sum w u + 2^(p - 1)) >> p clamped to [0, 255] (p = 22 for Pillow). A
// side whose size does not change is not resampled.
#pragma once

#include "verlpp/data/rgb_image.h"

namespace verlpp::data {

// The fixed point the weights are rounded to: Pillow's 22 bits, or what PyTorch's uint8
// antialiased bicubic (ATen's UpSampleKernelAVXAntialias, behind torchvision's resize of uint8
// tensors, the transformers processor's path) uses: int16 weights at the largest precision p < 22
// with round(max weight 2^(p + 1)) < 2^15, chosen per pass (14 bits for weights up to 1).
enum class BicubicFixedPoint { kPillow, kTorchUint8 };

// Throws verlpp::Error when a target side is below 1.
RgbImage resize_bicubic(const RgbImage& image, int width, int height,
                        BicubicFixedPoint fixed_point = BicubicFixedPoint::kPillow);

}  // namespace verlpp::data
