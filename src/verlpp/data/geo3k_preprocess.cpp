#include "verlpp/data/geo3k_preprocess.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/data/row_images.h"
#include "verlpp/data/row_reader.h"

namespace verlpp::data {
namespace {

namespace fs = std::filesystem;

// The split's files: SPLIT.parquet, SPLIT-*.parquet shards (sorted) or SPLIT.jsonl, in `dir` or
// dir/data.
std::vector<std::string> split_files(const fs::path& input, const std::string& split) {
  for (const fs::path& dir : {input, input / "data"}) {
    if (!fs::is_directory(dir)) continue;
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      const bool shard = name.starts_with(split + "-") && name.ends_with(".parquet");
      if (name == split + ".parquet" || name == split + ".jsonl" || shard) {
        files.push_back(entry.path().string());
      }
    }
    if (!files.empty()) {
      std::sort(files.begin(), files.end());
      return files;
    }
  }
  throw Error(fmt::format(
      "{}: no {} split (expected {}.parquet, {}-*.parquet or {}.jsonl here or in data/)",
      input.string(), split, split, split, split));
}

std::string text_field(const Row& row, const char* key, const RowOrigin& origin) {
  if (!row.contains(key) || !(row[key].is_string() || row[key].is_number())) {
    throw Error(fmt::format("{}: expected the '{}' column (geo3k's problem, answer and images)",
                            origin.describe(), key));
  }
  return row[key].is_string() ? row[key].get<std::string>() : row[key].dump();
}

// ".png" or ".jpg" by the file signature; other bytes (the dataset's images are PNG or JPEG) are
// an error naming the row and the image, so no unreadable file is written.
std::string extension_of(const std::string& bytes, const RowOrigin& origin, std::size_t k) {
  static const std::string png("\x89PNG\r\n\x1a\n", 8);
  if (bytes.compare(0, png.size(), png) == 0) return ".png";
  if (bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF &&
      static_cast<unsigned char>(bytes[1]) == 0xD8 &&
      static_cast<unsigned char>(bytes[2]) == 0xFF) {
    return ".jpg";
  }
  throw Error(fmt::format("{}: image {} is neither PNG nor JPEG ({} bytes)", origin.describe(), k,
                          bytes.size()));
}

// The row's images as files under OUTPUT/images, referenced by relative path.
Row write_images(const Row& row, const RowOrigin& origin, const fs::path& output,
                 const std::string& split, std::int64_t index) {
  if (!row.contains("images")) {
    throw Error(fmt::format("{}: expected an 'images' column", origin.describe()));
  }
  Row out = Row::array();
  const auto refs = image_refs(row, "images", origin);
  for (std::size_t k = 0; k < refs.size(); ++k) {
    const std::string bytes = read_image_bytes(refs[k], origin, k);
    const std::string name =
        fmt::format("images/{}_{}_{}{}", split, index, k, extension_of(bytes, origin, k));
    write_file_atomically(output / name, bytes);
    out.push_back(Row{{"path", name}});
  }
  return out;
}

}  // namespace

Row make_geo3k_row(const std::string& problem, const std::string& answer, Row images,
                   const std::string& split, std::int64_t index) {
  Row row = Row::object();
  row["data_source"] = "hiyouga/geometry3k";
  row["prompt"] = Row::array(
      {Row{{"role", "user"}, {"content", problem + " " + std::string(kGeo3kInstruction)}}});
  row["images"] = std::move(images);
  row["ability"] = "math";
  row["reward_model"] = Row{{"style", "rule"}, {"ground_truth", answer}};
  row["extra_info"] =
      Row{{"split", split}, {"index", index}, {"answer", answer}, {"question", problem}};
  return row;
}

std::vector<std::string> preprocess_geo3k(const std::string& input_dir,
                                          const std::string& output_dir, bool parquet) {
  std::error_code ec;
  if (output_dir.empty()) throw Error("geo3k: the output folder is empty (give --output DIR)");
  if (!fs::is_directory(input_dir)) throw Error(fmt::format("{}: no such folder", input_dir));
  if (fs::exists(output_dir) && fs::equivalent(input_dir, output_dir, ec)) {
    throw Error(fmt::format(
        "{}: the output folder is the input folder (the raw files would be overwritten)",
        output_dir));
  }
  // Both splits are found before anything is written.
  const std::map<std::string, std::vector<std::string>> inputs = {
      {"train", split_files(input_dir, "train")}, {"test", split_files(input_dir, "test")}};
  fs::create_directories(fs::path(output_dir) / "images", ec);
  if (ec) {
    throw Error(fmt::format("{}: cannot create output directory: {}", output_dir, ec.message()));
  }
  std::vector<std::string> written;
  for (const std::string split : {"train", "test"}) {
    std::vector<Row> rows;
    for (const std::string& file : inputs.at(split)) {
      const RowFile raw = read_rows(file);
      for (std::size_t i = 0; i < raw.rows.size(); ++i) {
        const Row& r = raw.rows[i];
        const RowOrigin& origin = raw.origins[i];
        const auto index = static_cast<std::int64_t>(rows.size());
        rows.push_back(
            make_geo3k_row(text_field(r, "problem", origin), text_field(r, "answer", origin),
                           write_images(r, origin, output_dir, split, index), split, index));
      }
    }
    const auto files = write_split(output_dir, split, rows, parquet);
    written.insert(written.end(), files.begin(), files.end());
  }
  return written;
}

}  // namespace verlpp::data
