// PNG and JPEG decoding to RGB, as verl's rollout sees an image: Pillow's Image.open followed by
// qwen-vl-utils' to_rgb (multimodal.md §3.1). Through libpng and libjpeg(-turbo), the libraries
// Pillow itself decodes with (Debian libpng-dev, libjpeg-dev); verlpp built without them throws.
//
// Modes, as Pillow opens them and to_rgb converts them:
//   RGBA PNGs are composited onto white with Image.paste(mask=alpha), in Pillow's integer
//     rounding: t = 255 (255 - a) + c a + 128, c' = (t + (t >> 8)) >> 8;
//   RGB, grey (bit depths 1 to 8, replicated), grey + alpha (alpha dropped, as convert("RGB")
//     drops it) and palette PNGs (colours looked up, transparency ignored) are converted without
//     blending; 16-bit RGB/RGBA samples keep their high byte (Pillow's "RGB;16B" raw modes);
//   16-bit grey ("I;16") is clipped: a sample above 255 becomes 255 (Pillow's I16_RGB);
//   16-bit grey + alpha opens as RGBA from the high bytes ("LA;16B") and is composited onto white.
// JPEG: libjpeg's defaults (integer slow DCT, fancy upsampling), grey JPEGs replicated; CMYK and
// YCCK JPEGs decoded to CMYK samples, read as inverted CMYK (Pillow's "CMYK;I", for every
// four-component JPEG) and converted as Pillow's cmyk2rgb: nk = 255 - k, c' = nk - MULDIV255(c,
// nk).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "verlpp/data/rgb_image.h"

namespace verlpp::data {

// Decodes `bytes` (PNG or JPEG, told apart by their signatures). Throws verlpp::Error naming
// `where` (e.g. the file and row) for another format, a corrupt file, an image of more
// than 2 x 89,478,485 pixels (Pillow's DecompressionBombError; refused from the header, before
// any allocation), or a build without image support.
RgbImage decode_image(std::span<const std::uint8_t> bytes, std::string_view where);

// Whether this build decodes images.
bool image_decoding_supported();

}  // namespace verlpp::data
