#include <fmt/format.h>

#include "verlpp/core/error.h"
#include "verlpp/data/image_decode.h"

namespace verlpp::data {

bool image_decoding_supported() { return false; }

RgbImage decode_image(std::span<const std::uint8_t> /*bytes*/, std::string_view where) {
  throw Error(fmt::format(
      "{}: this verlpp was built without image support (install libpng-dev and libjpeg-dev, then "
      "rebuild)",
      where));
}

}  // namespace verlpp::data
