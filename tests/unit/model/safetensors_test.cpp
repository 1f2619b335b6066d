// safetensors and checkpoint-directory I/O. Expected bytes/values are worked by hand from the
// format description (8-byte little-endian header length, JSON header, raw data).
#include "verlpp/model/safetensors.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "model_fixture.h"
#include "verlpp/core/error.h"
#include "verlpp/model/checkpoint.h"

namespace verlpp::model {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("verlpp_model_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_raw(const fs::path& path, const std::string& header, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out << header << data;
}

std::string floats(std::initializer_list<float> values) {
  std::string s;
  for (float v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

std::string expect_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no verlpp::Error thrown";
  return "";
}

TEST(Safetensors, ReadsHandWrittenFile) {
  const fs::path path = temp_dir("hand") / "a.safetensors";
  // "b" starts at byte 8 of the data section: [1.5, -2] then b = [[3]], plus metadata.
  write_raw(
      path,
      R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("b":{"dtype":"F32","shape":[1,1],"data_offsets":[8,12]}})",
      floats({1.5f, -2.0f, 3.0f}));
  const SafetensorsFile f(path.string());
  EXPECT_EQ(f.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f.metadata().at("format"), "pt");
  const at::Tensor a = f.tensor("a");
  ASSERT_EQ(a.sizes().vec(), (std::vector<int64_t>{2}));
  EXPECT_EQ(a[0].item<float>(), 1.5f);
  EXPECT_EQ(a[1].item<float>(), -2.0f);
  EXPECT_EQ(f.tensor("b").sizes().vec(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(f.tensor("b").item<float>(), 3.0f);
  EXPECT_NE(expect_error([&] { f.tensor("c"); }).find("no tensor named 'c'"), std::string::npos);
}

TEST(Safetensors, WriterProducesTheFormatBytes) {
  const fs::path path = temp_dir("writer") / "w.safetensors";
  write_safetensors(path.string(), {{"x", at::tensor({1.0f, 2.0f})}});
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
  EXPECT_EQ(n % 8, 0u);
  const std::string header = bytes.substr(8, n);
  EXPECT_NE(header.find(R"("x":{"data_offsets":[0,8],"dtype":"F32","shape":[2]})"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find(R"("format":"pt")"), std::string::npos);
  EXPECT_EQ(bytes.substr(8 + n), floats({1.0f, 2.0f}));
}

TEST(Safetensors, RoundTripsEveryModelDtype) {
  const fs::path path = temp_dir("roundtrip") / "r.safetensors";
  const at::Tensor base = at::arange(12, at::kFloat).view({3, 4}) / 7.0;
  std::vector<std::pair<std::string, at::Tensor>> tensors = {{"f32", base},
                                                             {"bf16", base.to(at::kBFloat16)},
                                                             {"f16", base.to(at::kHalf)},
                                                             {"i64", at::arange(5, at::kLong)},
                                                             {"scalar", at::tensor(2.5f).view({})}};
  write_safetensors(path.string(), tensors, {{"note", "hi"}});
  const SafetensorsFile f(path.string());
  for (const auto& [name, t] : tensors) {
    const at::Tensor r = f.tensor(name);
    EXPECT_EQ(r.scalar_type(), t.scalar_type()) << name;
    EXPECT_TRUE(at::equal(r, t)) << name;
  }
  EXPECT_EQ(f.metadata().at("note"), "hi");
}

TEST(Safetensors, RejectsMalformedFiles) {
  const fs::path dir = temp_dir("bad");
  write_raw(dir / "size.safetensors", R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
            floats({1, 2}));
  EXPECT_NE(expect_error([&] {
              SafetensorsFile((dir / "size.safetensors").string());
            }).find("tensor 'w': data_offsets [0, 8] hold 8 bytes but the shape needs 12"),
            std::string::npos);
  // 2^32 x 2^32 x 4 bytes wraps 2^64 to 0: refused as too large (the break-test read "needs 0").
  write_raw(dir / "wrap.safetensors",
            R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", "");
  EXPECT_NE(expect_error([&] {
              SafetensorsFile((dir / "wrap.safetensors").string());
            }).find("tensor 'w': shape [4294967296, 4294967296] needs more than 2^64 bytes"),
            std::string::npos);
  write_raw(dir / "dtype.safetensors", R"({"w":{"dtype":"F8","shape":[1],"data_offsets":[0,1]}})",
            "x");
  EXPECT_NE(expect_error([&] {
              SafetensorsFile((dir / "dtype.safetensors").string());
            }).find("unsupported dtype 'F8'"),
            std::string::npos);
  write_raw(dir / "past.safetensors", R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
            floats({1}));
  EXPECT_NE(expect_error([&] {
              SafetensorsFile((dir / "past.safetensors").string());
            }).find("data ends at byte 8"),
            std::string::npos);
  // Hugging Face's reader: tensors follow each other without overlap or gap and fill the data.
  const auto contiguity_error = [&](const std::string& name, const std::string& header,
                                    const std::string& data) {
    write_raw(dir / name, header, data);
    return expect_error([&] { SafetensorsFile((dir / name).string()); });
  };
  EXPECT_NE(contiguity_error("overlap.safetensors",
                             R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                             floats({1, 2, 3}))
                .find("tensor 'b' starts at data byte 4, expected 8"),
            std::string::npos);
  EXPECT_NE(contiguity_error("gap.safetensors",
                             R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                             R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                             floats({1, 2, 3}))
                .find("tensor 'b' starts at data byte 8, expected 4"),
            std::string::npos);
  EXPECT_NE(
      contiguity_error("tail.safetensors",
                       R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", floats({1, 2}))
          .find("the tensors end at data byte 4 but the file holds 8 data bytes"),
      std::string::npos);
  // A header nested past nlohmann's safe depth (copying it would overflow the stack).
  EXPECT_NE(
      contiguity_error("deep.safetensors", std::string(2000, '[') + std::string(2000, ']'), "")
          .find("nested more than 1000 levels deep"),
      std::string::npos);
  {
    std::ofstream out(dir / "trunc.safetensors", std::ios::binary);
    out << std::string("\xff\x00\x00\x00\x00\x00\x00\x00{}", 10);
  }
  EXPECT_NE(expect_error([&] {
              SafetensorsFile((dir / "trunc.safetensors").string());
            }).find("header length 255 exceeds"),
            std::string::npos);
  EXPECT_NE(expect_error([&] {
              SafetensorsFile((dir / "none.safetensors").string());
            }).find("none.safetensors: safetensors file: no such file"),
            std::string::npos);
}

// rows() reads only the rows asked for: w = [[1, 2], [3, 4], [5, 6]] (F32), rows [1, 3) are
// [[3, 4], [5, 6]]; outside the tensor, or of a scalar, it is an error naming both.
TEST(Safetensors, ReadsRowsOfDimZero) {
  const fs::path path = temp_dir("rows") / "r.safetensors";
  write_raw(path,
            R"({"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]},)"
            R"("w":{"dtype":"F32","shape":[3,2],"data_offsets":[4,28]}})",
            floats({9, 1, 2, 3, 4, 5, 6}));
  const SafetensorsFile f(path.string());
  const at::Tensor rows = f.rows("w", 1, 2);
  ASSERT_EQ(rows.sizes().vec(), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(at::equal(rows, at::tensor({3.0f, 4.0f, 5.0f, 6.0f}).view({2, 2})));
  EXPECT_EQ(f.rows("w", 3, 0).sizes().vec(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(f.tensor("s").item<float>(), 9.0f);
  EXPECT_NE(expect_error([&] {
              f.rows("w", 2, 2);
            }).find("tensor 'w' of shape [3, 2] has no rows [2, 4)"),
            std::string::npos);
  EXPECT_NE(
      expect_error([&] { f.rows("s", 0, 1); }).find("tensor 's' of shape [] has no rows [0, 1)"),
      std::string::npos);
}

// A file cut short after it was opened (a job rewriting it in place, bt17): reading a tensor past
// the new end is an error naming the file and tensor (it was SIGBUS through a mapping); one
// replaced by rename is read as it was opened.
TEST(Safetensors, AFileChangedAfterOpeningIsAnErrorOrReadAsOpened) {
  const fs::path dir = temp_dir("changed");
  write_raw(dir / "cut.safetensors",
            R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
            R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
            floats({1, 2, 3}));
  const SafetensorsFile cut((dir / "cut.safetensors").string());
  const std::uintmax_t data_begin = fs::file_size(dir / "cut.safetensors") - 12;
  fs::resize_file(dir / "cut.safetensors", data_begin + 8);
  EXPECT_EQ(cut.tensor("a").item<float>(), 1.0f);
  EXPECT_NE(expect_error([&] { cut.tensor("b"); })
                .find("cut.safetensors: tensor 'b': the file has no byte " +
                      std::to_string(data_begin + 8)),
            std::string::npos);
  write_raw(dir / "kept.safetensors", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
            floats({7}));
  const SafetensorsFile kept((dir / "kept.safetensors").string());
  write_raw(dir / "new.safetensors", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
            floats({8}));
  fs::rename(dir / "new.safetensors", dir / "kept.safetensors");
  EXPECT_EQ(kept.tensor("a").item<float>(), 7.0f);
}

TEST(Checkpoint, ShardedWriteAndRead) {
  const fs::path dir = temp_dir("sharded");
  const at::Tensor a = at::arange(10, at::kFloat);       // 40 bytes
  const at::Tensor b = at::ones({3}, at::kFloat);        // 12 bytes
  const at::Tensor c = at::full({20}, 2.0, at::kFloat);  // 80 bytes, above the limit
  write_checkpoint(dir.string(), {{"a", a}, {"b", b}, {"c", c}}, /*max_shard_bytes=*/60);
  // a+b fit in 60 bytes; c alone.
  EXPECT_TRUE(fs::exists(dir / "model-00001-of-00002.safetensors"));
  EXPECT_TRUE(fs::exists(dir / "model-00002-of-00002.safetensors"));
  std::ifstream in(dir / "model.safetensors.index.json");
  const auto index = nlohmann::json::parse(in);
  EXPECT_EQ(index["metadata"]["total_size"], 132);
  EXPECT_EQ(index["weight_map"]["c"], "model-00002-of-00002.safetensors");
  const CheckpointReader r(dir.string());
  EXPECT_EQ(r.names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(at::equal(r.tensor("a"), a));
  EXPECT_TRUE(at::equal(r.tensor("c"), c));
  EXPECT_NE(expect_error([&] { r.tensor("d"); }).find("has no tensor 'd'"), std::string::npos);
  fs::remove(dir / "model-00002-of-00002.safetensors");
  EXPECT_NE(expect_error([&] {
              CheckpointReader{dir.string()};
            }).find("shard 'model-00002-of-00002.safetensors' (for tensor 'c') does not exist"),
            std::string::npos);
  // A shard that is a FIFO is refused before it is opened (bt18: opening it waited for a writer),
  // a folder is named as one.
  ASSERT_EQ(mkfifo((dir / "model-00002-of-00002.safetensors").c_str(), 0600), 0);
  EXPECT_NE(expect_error([&] {
              CheckpointReader{dir.string()};
            }).find("model-00002-of-00002.safetensors: safetensors file is not a regular file"),
            std::string::npos);
  fs::remove(dir / "model-00002-of-00002.safetensors");
  fs::create_directory(dir / "model-00002-of-00002.safetensors");
  EXPECT_NE(expect_error([&] {
              CheckpointReader{dir.string()};
            }).find("model-00002-of-00002.safetensors: safetensors file is a folder, not a file"),
            std::string::npos);
}

// A folder with both layouts (an export over a sharded model left one) reads model.safetensors,
// as transformers' from_pretrained does, so both readers load the same weights.
TEST(Checkpoint, SingleFileBeforeIndexAsTransformersLooks) {
  const fs::path dir = temp_dir("both_layouts");
  const at::Tensor old_a = at::zeros({10}, at::kFloat);
  write_checkpoint(dir.string(), {{"a", old_a}, {"b", at::ones({20}, at::kFloat)}},
                   /*max_shard_bytes=*/40);
  ASSERT_TRUE(fs::exists(dir / "model.safetensors.index.json"));
  const at::Tensor new_a = at::arange(10, at::kFloat);
  write_checkpoint(dir.string(), {{"a", new_a}}, /*max_shard_bytes=*/0);
  const CheckpointReader r(dir.string());
  EXPECT_EQ(r.names(), std::vector<std::string>{"a"});
  EXPECT_TRUE(at::equal(r.tensor("a"), new_a));
}

TEST(Checkpoint, ReadsTransformersShardedCheckpoint) {
  const CheckpointReader r(testing::checkpoint_dir("qwen3_sharded"));
  const auto& files = testing::reference_json()["models"]["qwen3_sharded"]["files"];
  int shards = 0;
  for (const auto& f : files) shards += f.get<std::string>().find("-of-") != std::string::npos;
  EXPECT_GE(shards, 2);
  EXPECT_TRUE(r.contains("lm_head.weight"));
  EXPECT_TRUE(r.contains("model.layers.2.mlp.down_proj.weight"));
  EXPECT_EQ(r.info("model.layers.0.self_attn.q_norm.weight").shape, (std::vector<int64_t>{16}));
}

TEST(Checkpoint, MissingDirectoryNamesBothFiles) {
  const fs::path dir = temp_dir("empty");
  EXPECT_NE(expect_error([&] {
              CheckpointReader{dir.string()};
            }).find("neither model.safetensors nor model.safetensors.index.json found"),
            std::string::npos);
  // A model.safetensors link whose target is gone is named, with its target (it was "neither ...
  // found").
  fs::create_symlink(dir / "gone.safetensors", dir / "model.safetensors");
  EXPECT_NE(expect_error([&] { CheckpointReader{dir.string()}; })
                .find("model.safetensors: model weights: a link to " +
                      (dir / "gone.safetensors").string() + ", which does not exist"),
            std::string::npos);
}

// Weights or an index that are a link loop or a folder: an error naming the file (a break-test
// got "internal error: filesystem error").
TEST(Checkpoint, LinkLoopsAndFoldersNameTheFile) {
  const fs::path loop = temp_dir("loop");
  fs::create_symlink(loop / "model.safetensors", loop / "model.safetensors");
  EXPECT_NE(expect_error([&] { CheckpointReader{loop.string()}; })
                .find((loop / "model.safetensors").string() +
                      ": model weights: Too many levels of symbolic links"),
            std::string::npos);
  const fs::path folder = temp_dir("index_folder");
  fs::create_directories(folder / "model.safetensors.index.json");
  EXPECT_NE(expect_error([&] {
              CheckpointReader{folder.string()};
            }).find("checkpoint index is a folder, not a file"),
            std::string::npos);
}

}  // namespace
}  // namespace verlpp::model
