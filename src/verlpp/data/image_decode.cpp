#include "verlpp/data/image_decode.h"

#include <fmt/format.h>
#include <jpeglib.h>
#include <png.h>

// After jpeglib.h, which it needs.
#include <jerror.h>

#include <csetjmp>
#include <cstring>
#include <string>
#include <vector>

#include "verlpp/core/error.h"

namespace verlpp::data {
namespace {

// Pillow's DecompressionBombError threshold: twice Image.MAX_IMAGE_PIXELS (89,478,485). Checked
// from the header, before the pixels are allocated.
constexpr std::uint64_t kMaxPixels = 2ULL * 89'478'485ULL;

// Writes the error for an image of more than kMaxPixels pixels into `message`; false if so.
bool within_pixel_limit(std::uint64_t width, std::uint64_t height, char* message,
                        std::size_t size) {
  if (width * height <= kMaxPixels) return true;
  std::snprintf(message, size,
                "%llu x %llu = %llu pixels, more than the %llu Pillow decodes (a decompression "
                "bomb?)",
                static_cast<unsigned long long>(width), static_cast<unsigned long long>(height),
                static_cast<unsigned long long>(width * height),
                static_cast<unsigned long long>(kMaxPixels));
  return false;
}

// libpng and libjpeg report errors by longjmp: every function that calls them below sets its own
// jump point and keeps only trivially destructible locals, and the message travels in this struct.
struct CodecError {
  std::jmp_buf jump;
  char message[256] = {};
};

bool is_png(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= 8 && png_sig_cmp(bytes.data(), 0, 8) == 0;
}

bool is_jpeg(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF;
}

// Pillow's paste(mask=alpha) of c onto white: DIV255(255 (255 - a) + c a).
std::uint8_t over_white(unsigned c, unsigned a) {
  const unsigned t = 255u * (255u - a) + c * a + 128u;
  return static_cast<std::uint8_t>((t + (t >> 8)) >> 8);
}

// ---- PNG ----

struct PngSource {
  std::span<const std::uint8_t> bytes;
  std::size_t offset = 0;
  CodecError* error = nullptr;
};

void png_error_handler(png_structp png, png_const_charp message) {
  auto* error = static_cast<CodecError*>(png_get_error_ptr(png));
  std::snprintf(error->message, sizeof(error->message), "%s", message);
  std::longjmp(error->jump, 1);
}

void png_warning_handler(png_structp, png_const_charp) {}

void png_read_bytes(png_structp png, png_bytep out, png_size_t length) {
  auto* source = static_cast<PngSource*>(png_get_io_ptr(png));
  if (source->offset + length > source->bytes.size()) png_error(png, "file ends early");
  std::memcpy(out, source->bytes.data() + source->offset, length);
  source->offset += length;
}

struct PngLayout {
  png_uint_32 width = 0, height = 0;
  int color_type = 0, bit_depth = 0;
  std::size_t row_bytes = 0;
  int channels = 0;
  // 16-bit grey (Pillow's "I;16"): samples left at 16 bits, big-endian, one channel; to_rgb's
  // convert("RGB") clips them to 255 (Pillow's I16_RGB).
  bool grey16 = false;
  // RGBA after the transforms: RGB + alpha PNGs and 16-bit grey + alpha (Pillow opens that as
  // "RGBA" from the high bytes), composited onto white by to_rgb. 8-bit grey + alpha opens as
  // "LA", whose convert("RGB") drops the alpha instead.
  bool composite = false;
};

// Reads the header and sets the transforms: 8-bit samples (but 16-bit grey), palette and
// low-depth grey expanded, grey replicated to RGB, tRNS ignored. Returns false (message in
// `error`) on a libpng error.
bool png_read_layout(png_structp png, png_infop info, PngLayout* layout, CodecError* error) {
  if (setjmp(error->jump)) return false;
  png_read_info(png, info);
  layout->width = png_get_image_width(png, info);
  layout->height = png_get_image_height(png, info);
  if (!within_pixel_limit(layout->width, layout->height, error->message, sizeof(error->message))) {
    return false;
  }
  layout->color_type = png_get_color_type(png, info);
  layout->bit_depth = png_get_bit_depth(png, info);
  layout->grey16 = layout->bit_depth == 16 && layout->color_type == PNG_COLOR_TYPE_GRAY;
  layout->composite = layout->color_type == PNG_COLOR_TYPE_RGB_ALPHA ||
                      (layout->color_type == PNG_COLOR_TYPE_GRAY_ALPHA && layout->bit_depth == 16);
  if (layout->bit_depth == 16 && !layout->grey16) png_set_strip_16(png);
  if (layout->color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (layout->color_type == PNG_COLOR_TYPE_GRAY && layout->bit_depth < 8) {
    png_set_expand_gray_1_2_4_to_8(png);
  }
  if ((layout->color_type & PNG_COLOR_MASK_COLOR) == 0 && !layout->grey16) {
    png_set_gray_to_rgb(png);
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  layout->row_bytes = png_get_rowbytes(png, info);
  layout->channels = png_get_channels(png, info);
  return true;
}

bool png_read_pixels(png_structp png, png_infop info, png_bytepp rows, CodecError* error) {
  if (setjmp(error->jump)) return false;
  png_read_image(png, rows);
  png_read_end(png, info);
  return true;
}

RgbImage decode_png(std::span<const std::uint8_t> bytes, std::string_view where) {
  CodecError error;
  png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, png_error_handler, png_warning_handler);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr) throw Error(fmt::format("{}: out of memory", where));
  PngSource source{bytes, 0, &error};
  png_set_read_fn(png, &source, png_read_bytes);
  PngLayout layout;
  std::vector<std::uint8_t> raw;
  std::vector<png_bytep> rows;
  bool ok = png_read_layout(png, info, &layout, &error);
  if (ok) {
    raw.resize(layout.row_bytes * layout.height);
    for (png_uint_32 y = 0; y < layout.height; ++y)
      rows.push_back(raw.data() + y * layout.row_bytes);
    ok = png_read_pixels(png, info, rows.data(), &error);
  }
  png_destroy_read_struct(&png, &info, nullptr);
  if (!ok) throw Error(fmt::format("{}: cannot decode the PNG image: {}", where, error.message));
  // After the transforms: RGB (3 channels), RGB + alpha (4: composited onto white, or the alpha
  // dropped), or 16-bit grey (2 bytes a pixel).
  RgbImage image{static_cast<int>(layout.width), static_cast<int>(layout.height), {}};
  image.pixels.resize(static_cast<std::size_t>(layout.width) * layout.height * 3);
  std::uint8_t* out = image.pixels.data();
  for (png_uint_32 y = 0; y < layout.height; ++y) {
    const std::uint8_t* row = rows[y];
    for (png_uint_32 x = 0; x < layout.width; ++x, out += 3) {
      if (layout.grey16) {
        const std::uint8_t* sample = row + 2 * x;
        out[0] = out[1] = out[2] = sample[0] == 0 ? sample[1] : 255;
        continue;
      }
      const std::uint8_t* pixel = row + static_cast<std::size_t>(x) * layout.channels;
      for (int c = 0; c < 3; ++c) {
        out[c] = layout.composite ? over_white(pixel[c], pixel[3]) : pixel[c];
      }
    }
  }
  return image;
}

// ---- JPEG ----

struct JpegError {
  jpeg_error_mgr manager;
  CodecError codec;
};

void jpeg_error_handler(j_common_ptr cinfo) {
  auto* error = reinterpret_cast<JpegError*>(cinfo->err);
  char text[JMSG_LENGTH_MAX];
  (*cinfo->err->format_message)(cinfo, text);
  std::snprintf(error->codec.message, sizeof(error->codec.message), "%s", text);
  std::longjmp(error->codec.jump, 1);
}

// libjpeg's warnings: a file that ends early (JWRN_JPEG_EOF) is an error, as Pillow refuses a
// truncated image ("image file is truncated"); others are ignored, as Pillow ignores them.
void jpeg_warning_handler(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) jpeg_error_handler(cinfo);
}

bool jpeg_read_layout(jpeg_decompress_struct* cinfo, std::span<const std::uint8_t> bytes,
                      JpegError* error) {
  if (setjmp(error->codec.jump)) return false;
  jpeg_mem_src(cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(cinfo, TRUE);
  if (!within_pixel_limit(cinfo->image_width, cinfo->image_height, error->codec.message,
                          sizeof(error->codec.message))) {
    return false;
  }
  const bool cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
  cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  jpeg_start_decompress(cinfo);
  return true;
}

// Reads the decoded samples (output_components a pixel) into `pixels`.
bool jpeg_read_pixels(jpeg_decompress_struct* cinfo, std::uint8_t* pixels, JpegError* error) {
  if (setjmp(error->codec.jump)) return false;
  const std::size_t stride = static_cast<std::size_t>(cinfo->output_width) *
                             static_cast<std::size_t>(cinfo->output_components);
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = pixels + cinfo->output_scanline * stride;
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return true;
}

// Pillow's CMYK to RGB for a JPEG's samples. Pillow reads every four-component JPEG as inverted
// CMYK ("CMYK;I", Photoshop's convention, whatever the markers say), then converts as Convert.c's
// cmyk2rgb: with nk = 255 - k, each channel is nk - MULDIV255(c, nk), where MULDIV255(a, b) =
// (t + (t >> 8)) >> 8 for t = a b + 128.
std::vector<std::uint8_t> inverted_cmyk_to_rgb(const std::vector<std::uint8_t>& samples) {
  std::vector<std::uint8_t> rgb(samples.size() / 4 * 3);
  const auto muldiv255 = [](unsigned a, unsigned b) {
    const unsigned t = a * b + 128u;
    return (t + (t >> 8)) >> 8;
  };
  for (std::size_t i = 0, o = 0; i < samples.size(); i += 4, o += 3) {
    const unsigned nk = samples[i + 3];  // 255 - k, k = 255 - sample
    for (std::size_t c = 0; c < 3; ++c) {
      rgb[o + c] = static_cast<std::uint8_t>(nk - muldiv255(255u - samples[i + c], nk));
    }
  }
  return rgb;
}

RgbImage decode_jpeg(std::span<const std::uint8_t> bytes, std::string_view where) {
  jpeg_decompress_struct cinfo;
  JpegError error;
  cinfo.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = jpeg_error_handler;
  error.manager.emit_message = jpeg_warning_handler;
  jpeg_create_decompress(&cinfo);
  RgbImage image;
  bool cmyk = false;
  bool ok = jpeg_read_layout(&cinfo, bytes, &error);
  if (ok) {
    image.width = static_cast<int>(cinfo.output_width);
    image.height = static_cast<int>(cinfo.output_height);
    cmyk = cinfo.out_color_space == JCS_CMYK;
    image.pixels.resize(static_cast<std::size_t>(image.width) * image.height *
                        static_cast<std::size_t>(cinfo.output_components));
    ok = jpeg_read_pixels(&cinfo, image.pixels.data(), &error);
  }
  jpeg_destroy_decompress(&cinfo);
  if (!ok) {
    throw Error(fmt::format("{}: cannot decode the JPEG image: {}", where, error.codec.message));
  }
  if (cmyk) image.pixels = inverted_cmyk_to_rgb(image.pixels);
  return image;
}

}  // namespace

bool image_decoding_supported() { return true; }

RgbImage decode_image(std::span<const std::uint8_t> bytes, std::string_view where) {
  if (is_png(bytes)) return decode_png(bytes, where);
  if (is_jpeg(bytes)) return decode_jpeg(bytes, where);
  throw Error(fmt::format("{}: not a PNG or JPEG image ({} bytes; verlpp decodes PNG and JPEG)",
                          where, bytes.size()));
}

}  // namespace verlpp::data
