// Encode throughput of verlpp's tokenizer against Hugging Face `tokenizers` on the same strings
// (bench/baselines/tokenizer_encode_hf.py, run just before on the same machine).
//
//   verlpp_tokenizer_bench --tokenizer DIR --data gsm8k/train.jsonl
//       [--baseline hf.json] [--baseline-1thread hf_1thread.json] [--threads N] [--repeats R]
//
// Each GSM8K question and each answer is one string. Times are the best of R passes after a
// warm-up pass (BPE caches warm in both libraries). Prints MB/s and tokens/s for a single-thread
// encode loop and for encode_batch, and verlpp/HF throughput ratios when baselines are given.
// Also checks that the total token count and id checksum equal the baseline's.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "verlpp/core/error.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> load_texts(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw verlpp::Error(path + ": cannot open");
  std::vector<std::string> texts;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto row = nlohmann::json::parse(line);
    texts.push_back(row.at("question").get<std::string>());
    texts.push_back(row.at("answer").get<std::string>());
  }
  return texts;
}

double best_seconds(int repeats, const std::function<void()>& run) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) return argv[i + 1];
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string dir = arg(argc, argv, "--tokenizer", "");
    const std::string data = arg(argc, argv, "--data", "");
    if (dir.empty() || data.empty()) {
      std::cerr
          << "usage: verlpp_tokenizer_bench --tokenizer DIR --data FILE.jsonl "
             "[--baseline hf.json] [--baseline-1thread hf1.json] [--threads N] [--repeats R]\n";
      return 2;
    }
    const int threads =
        std::stoi(arg(argc, argv, "--threads",
                      std::to_string(std::max(1u, std::thread::hardware_concurrency()))));
    const int repeats = std::stoi(arg(argc, argv, "--repeats", "3"));
    const auto load_start = Clock::now();
    const auto tokenizer = verlpp::tokenizer::Tokenizer::from_directory(dir);
    const double load_s = std::chrono::duration<double>(Clock::now() - load_start).count();
    const auto texts = load_texts(data);
    std::size_t bytes = 0;
    for (const auto& t : texts) bytes += t.size();

    const auto warm = tokenizer.encode_batch(texts, threads);
    std::size_t tokens = 0;
    std::int64_t checksum = 0;
    for (const auto& ids : warm) {
      tokens += ids.size();
      for (const auto id : ids) checksum += id;
    }
    const double single_s = best_seconds(repeats, [&] {
      for (const auto& t : texts) (void)tokenizer.encode(t);
    });
    const double batch_s =
        best_seconds(repeats, [&] { (void)tokenizer.encode_batch(texts, threads); });

    const double mb = static_cast<double>(bytes) / 1e6;
    std::printf("verlpp tokenizer: load %.3f s; %zu strings, %.2f MB, %zu tokens, checksum %lld\n",
                load_s, texts.size(), mb, tokens, static_cast<long long>(checksum));
    std::printf("verlpp single-thread encode: %.4f s  %.2f MB/s  %.0f tokens/s\n", single_s,
                mb / single_s, static_cast<double>(tokens) / single_s);
    std::printf("verlpp encode_batch (%d threads): %.4f s  %.2f MB/s  %.0f tokens/s\n", threads,
                batch_s, mb / batch_s, static_cast<double>(tokens) / batch_s);

    int status = 0;
    const auto compare = [&](const std::string& path, const char* label) {
      if (path.empty()) return;
      std::ifstream in(path);
      if (!in) throw verlpp::Error(path + ": cannot open baseline");
      const auto hf = nlohmann::json::parse(in);
      const bool same = hf.at("tokens").get<std::size_t>() == tokens &&
                        hf.at("checksum").get<std::int64_t>() == checksum;
      if (!same) status = 1;
      const double hf_single = hf.at("single_s").get<double>();
      const double hf_batch = hf.at("batch_s").get<double>();
      std::printf("baseline %s (%s): single %.4f s, batch %.4f s (%s threads); ids %s\n", label,
                  hf.at("library").get<std::string>().c_str(), hf_single, hf_batch,
                  hf.at("batch_threads").get<std::string>().c_str(),
                  same ? "identical (tokens, checksum)" : "DIFFER");
      std::printf("ratio verlpp/HF throughput, single-thread encode loop: %.2fx\n",
                  hf_single / single_s);
      std::printf("ratio verlpp/HF throughput, encode_batch vs HF batch (%s): %.2fx\n", label,
                  hf_batch / batch_s);
    };
    compare(arg(argc, argv, "--baseline", ""), "all cores");
    const std::string one = arg(argc, argv, "--baseline-1thread", "");
    if (!one.empty()) {
      const double batch1_s =
          best_seconds(repeats, [&] { (void)tokenizer.encode_batch(texts, 1); });
      std::ifstream in(one);
      const auto hf = nlohmann::json::parse(in);
      std::printf(
          "verlpp encode_batch (1 thread): %.4f s; HF encode_batch (1 rayon thread): %.4f s\n",
          batch1_s, hf.at("batch_s").get<double>());
      std::printf("ratio verlpp/HF throughput, 1-thread batch: %.2fx\n",
                  hf.at("batch_s").get<double>() / batch1_s);
    }
    return status;
  } catch (const std::exception& e) {
    std::cerr << "verlpp_tokenizer_bench: " << e.what() << "\n";
    return 1;
  }
}
