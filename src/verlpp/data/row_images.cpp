#include "verlpp/data/row_images.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>

#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/data/image_decode.h"
#include "verlpp/data/row_error.h"

namespace verlpp::data {
namespace {

constexpr std::string_view kPlaceholder = "<image>";

ImageRef parse_ref(const Row& entry, const std::string& image_key, const RowOrigin& origin,
                   std::size_t k) {
  if (entry.is_string()) return {"", entry.get<std::string>()};
  const bool has_bytes = entry.is_object() && entry.contains("bytes") && entry["bytes"].is_string();
  const bool has_path = entry.is_object() && entry.contains("path") && entry["path"].is_string();
  if (has_bytes && !entry["bytes"].get_ref<const std::string&>().empty()) {
    return {entry["bytes"].get_ref<const std::string&>(),
            has_path ? entry["path"].get<std::string>() : ""};
  }
  if (has_path && !entry["path"].get_ref<const std::string&>().empty()) {
    return {"", entry["path"].get<std::string>()};
  }
  std::string got = entry.is_object() ? "an object without either" : entry.type_name();
  for (const char* field : {"bytes", "path"}) {
    if (entry.is_object() && entry.contains(field) && !entry[field].is_string() &&
        !entry[field].is_null()) {
      got = fmt::format("an object whose '{}' is a {}", field, entry[field].type_name());
    }
  }
  throw Error(fmt::format(
      "{}: '{}' entry {} must be {{\"bytes\": <image bytes>}} or {{\"path\": str}} or a path "
      "string, got {}",
      origin.describe(), image_key, k, got));
}

// Image files above this size are refused before reading (the pixel limit of image_decode.h
// bounds what they may hold; no PNG or JPEG of that many pixels needs more).
constexpr std::uintmax_t kMaxImageFileBytes = 1ULL << 30;

// The bytes of a regular file (not a folder, device or pipe, which would fail, never end or
// block), an error naming the row, the image and the OS's reason.
std::string read_file(const std::filesystem::path& path, const RowOrigin& origin, std::size_t k) {
  naming_row(fmt::format("{}: image {}", origin.describe(), k),
             [&] { require_regular_file(path.string(), "image file"); });
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxImageFileBytes) {
    throw Error(
        fmt::format("{}: image {}: {} is {} bytes, more than the 1 GiB an image file may be",
                    origin.describe(), k, path.string(), size));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(fmt::format("{}: image {}: cannot open {}: {}", origin.describe(), k, path.string(),
                            std::strerror(errno)));
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    throw Error(fmt::format("{}: image {}: cannot read {}", origin.describe(), k, path.string()));
  }
  return bytes;
}

// A text piece of the content list.
Row text_item(std::string text) {
  Row item = Row::object();
  item["type"] = "text";
  item["text"] = std::move(text);
  return item;
}

// `content` split on "<image>": image items at the placeholders, non-empty text between them.
Row content_list(const std::string& content, std::size_t& placeholders) {
  Row items = Row::array();
  std::size_t start = 0;
  while (true) {
    const std::size_t at = content.find(kPlaceholder, start);
    const std::string piece = content.substr(start, at == std::string::npos ? at : at - start);
    if (!piece.empty()) items.push_back(text_item(piece));
    if (at == std::string::npos) break;
    Row image = Row::object();
    image["type"] = "image";
    items.push_back(std::move(image));
    ++placeholders;
    start = at + kPlaceholder.size();
  }
  return items;
}

}  // namespace

std::vector<ImageRef> image_refs(const Row& row, const std::string& image_key,
                                 const RowOrigin& origin) {
  if (image_key.empty() || !row.contains(image_key) || row[image_key].is_null()) return {};
  const Row& column = row[image_key];
  if (!column.is_array()) {
    throw Error(fmt::format("{}: '{}' (data.image_key) must be a list of images, got {}",
                            origin.describe(), image_key, column.type_name()));
  }
  std::vector<ImageRef> refs;
  for (std::size_t k = 0; k < column.size(); ++k) {
    refs.push_back(parse_ref(column[k], image_key, origin, k));
  }
  return refs;
}

Row image_messages(const Row& messages, std::size_t images, const RowOrigin& origin) {
  Row out = messages;
  std::size_t placeholders = 0;
  for (Row& message : out) {
    if (!message.is_object() || !message.contains("content") || !message["content"].is_string()) {
      continue;
    }
    const std::string content = message["content"].get<std::string>();
    message["content"] = content_list(content, placeholders);
  }
  if (placeholders != images) {
    throw Error(fmt::format(
        "{}: the row has {} image{} but its messages hold {} \"<image>\" placeholder{}; each "
        "image needs exactly one",
        origin.describe(), images, images == 1 ? "" : "s", placeholders,
        placeholders == 1 ? "" : "s"));
  }
  return out;
}

std::string read_image_bytes(const ImageRef& ref, const RowOrigin& origin, std::size_t k) {
  if (!ref.bytes.empty()) return std::string(ref.bytes);
  std::string_view where = ref.path;
  // qwen_vl_utils' fetch_image also takes URLs: file:// names a local file; nothing is fetched
  // over a network (or decoded from data: URIs) here.
  if (where.starts_with("file://")) where.remove_prefix(7);
  for (const char* scheme : {"http://", "https://", "data:"}) {
    if (where.starts_with(scheme)) {
      throw Error(fmt::format(
          "{}: image {}: '{}' is a URL; verlpp reads images from bytes or local files only "
          "(download it and give its path)",
          origin.describe(), k, where.substr(0, 64)));
    }
  }
  std::filesystem::path path(where);
  if (path.is_relative()) path = std::filesystem::path(origin.file).parent_path() / path;
  return read_file(path, origin, k);
}

RgbImage load_image(const ImageRef& ref, const RowOrigin& origin, std::size_t k) {
  const std::string from_file = ref.bytes.empty() ? read_image_bytes(ref, origin, k) : "";
  const std::string_view bytes = ref.bytes.empty() ? std::string_view(from_file) : ref.bytes;
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  return decode_image(std::span<const std::uint8_t>(data, bytes.size()),
                      fmt::format("{} image {}", origin.describe(), k));
}

ProcessedImage prepare_image(const RgbImage& image, const ImageSettings& settings) {
  return process_image(fetch_image(image, settings.fetch), settings.processor);
}

std::int64_t image_token_count(int width, int height, const ImageSettings& settings) {
  const auto [h1, w1] = smart_resize(height, width, settings.fetch);
  const ImageProcessorConfig& p = settings.processor;
  const auto [h2, w2] = smart_resize(h1, w1, processor_bounds(p));
  const std::int64_t merged = static_cast<std::int64_t>(p.patch_size) * p.merge_size;
  return (h2 / merged) * (w2 / merged);
}

std::vector<std::int32_t> expand_image_pads(const std::vector<std::int32_t>& ids,
                                            std::int32_t pad_id,
                                            const std::vector<std::int64_t>& counts,
                                            const std::string& where) {
  std::vector<std::int32_t> out;
  std::size_t image = 0;
  for (const std::int32_t id : ids) {
    if (id != pad_id) {
      out.push_back(id);
      continue;
    }
    if (image < counts.size()) out.insert(out.end(), static_cast<std::size_t>(counts[image]), id);
    ++image;
  }
  if (image != counts.size()) {
    throw Error(fmt::format(
        "{}: the templated prompt holds {} image pad token{} (id {}) for {} image{}; the chat "
        "template must render each image item as one pad token",
        where, image, image == 1 ? "" : "s", pad_id, counts.size(), counts.size() == 1 ? "" : "s"));
  }
  return out;
}

RowImageTensors row_image_tensors(const std::vector<ProcessedImage>& images,
                                  const ImageProcessorConfig& config) {
  const std::int64_t patch_dim =
      3LL * config.temporal_patch_size * config.patch_size * config.patch_size;
  RowImageTensors out;
  if (images.empty()) {
    out.pixel_values = at::zeros({0, patch_dim}, at::kFloat);
    out.image_grid_thw = at::zeros({0, 3}, at::kLong);
    return out;
  }
  std::vector<at::Tensor> pixels;
  std::vector<std::int64_t> grids;
  for (const ProcessedImage& image : images) {
    pixels.push_back(image.pixel_values);
    grids.insert(grids.end(), image.grid_thw.begin(), image.grid_thw.end());
  }
  out.pixel_values = pixels.size() == 1 ? pixels[0] : at::cat(pixels);
  out.image_grid_thw =
      at::tensor(grids, at::kLong).view({static_cast<std::int64_t>(images.size()), 3});
  return out;
}

}  // namespace verlpp::data
