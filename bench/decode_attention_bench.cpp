// verlpp's decode attention kernel (kernels/decode_attention.h) on a KV cache larger than the L2
// cache, contiguous and paged (16-row pages in shuffled order), against the memory bandwidth the
// same machine reaches in the same call reading the same number of bytes (ATen's sum over a bf16
// tensor of that size) and the H200's 4.8 TB/s.
//
//   verlpp_decode_attention_bench [--seqs 256] [--length 1024] [--heads 16] [--kv-heads 8]
//                                 [--head-dim 128] [--iters 50]
//
// Defaults: Qwen3-0.6B's attention heads for 256 sequences whose lengths spread evenly over
// [length / 2, 3 length / 2] (mean `length`). Bytes read by one call: every key and value row of
// every sequence (sum of lengths x kv_heads x head_dim x 2 tensors x 2 bytes). Prints one JSON
// line: ms per call, those bytes per second, their ratio to the summed read and to 4.8 TB/s, and
// the largest difference between the paged and the contiguous outputs.
#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernel_bench.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/kernels/decode_attention.h"

namespace {

using verlpp::bench::ms_per_call;
using verlpp::bench::option;

constexpr double kH200BytesPerSecond = 4.8e12;
constexpr int64_t kPageSize = 16;

// Sequence n's length: evenly spread over [length / 2, 3 length / 2].
std::vector<int64_t> spread_lengths(int64_t seqs, int64_t length) {
  std::vector<int64_t> lengths;
  for (int64_t n = 0; n < seqs; ++n)
    lengths.push_back(length / 2 + (n * length) / std::max<int64_t>(seqs - 1, 1));
  return lengths;
}

int run(int argc, char** argv) {
  if (!verlpp::cuda_available()) throw verlpp::Error("this benchmark needs a CUDA device");
  const int64_t N = option(argc, argv, "--seqs", 256), L = option(argc, argv, "--length", 1024),
                H = option(argc, argv, "--heads", 16), KV = option(argc, argv, "--kv-heads", 8),
                D = option(argc, argv, "--head-dim", 128),
                iters = option(argc, argv, "--iters", 50);
  const std::vector<int64_t> lengths = spread_lengths(N, L);
  const int64_t capacity = (3 * L / 2 + kPageSize) / kPageSize * kPageSize;  // rows per sequence
  const auto bf16 = at::TensorOptions().dtype(at::kBFloat16).device(at::kCUDA);
  const auto int32 = bf16.dtype(at::kInt);
  const at::Tensor q = at::randn({N, H, D}, bf16);
  const at::Tensor k_cache = at::randn({N * capacity, KV, D}, bf16);
  const at::Tensor v_cache = at::randn({N * capacity, KV, D}, bf16);
  std::vector<int64_t> starts;
  for (int64_t n = 0; n < N; ++n) starts.push_back(n * capacity);
  const at::Tensor starts_t = at::tensor(starts, at::kLong).to(int32);
  const at::Tensor lengths_t = at::tensor(lengths, at::kLong).to(int32);
  // The paged call reads the same rows through a page table: sequence n's pages are its own
  // capacity / 16 pages, listed in a shuffled order, and the cache rows are moved to match.
  const int64_t pages_per_seq = capacity / kPageSize;
  const at::Tensor order = at::randperm(N * pages_per_seq, at::TensorOptions().dtype(at::kLong));
  const at::Tensor pages = order.to(int32.device(at::kCUDA));
  const at::Tensor page_offsets = (at::arange(N, at::kLong) * pages_per_seq).to(int32);
  const auto paged = [&](const at::Tensor& cache) {
    at::Tensor out = at::empty_like(cache);
    out.view({-1, kPageSize, KV, D})
        .index_copy_(0, pages.to(at::kLong), cache.view({-1, kPageSize, KV, D}));
    return out;
  };
  const at::Tensor k_paged = paged(k_cache), v_paged = paged(v_cache);
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  const int64_t max_length = 3 * L / 2;
  const auto contiguous_call = [&] {
    return verlpp::kernels::decode_attention(q, k_cache, v_cache, starts_t, lengths_t, max_length,
                                             scale);
  };
  const auto paged_call = [&] {
    return verlpp::kernels::decode_attention_paged(q, k_paged, v_paged, pages, page_offsets,
                                                   kPageSize, lengths_t, max_length, scale);
  };
  const double paged_diff =
      (contiguous_call().to(at::kFloat) - paged_call().to(at::kFloat)).abs().max().item<double>();
  int64_t keys = 0;
  for (const int64_t length : lengths) keys += length;
  const double bytes = static_cast<double>(keys * KV * D * 2 * 2);
  const at::Tensor same_bytes = at::randn({keys * KV * D * 2}, bf16);
  const double sum_ms = ms_per_call(iters, [&] { (void)same_bytes.sum(at::kFloat); });
  const double contiguous_ms = ms_per_call(iters, [&] { (void)contiguous_call(); });
  const double paged_ms = ms_per_call(iters, [&] { (void)paged_call(); });
  const auto rate = [&](double ms) { return bytes / (ms / 1e3); };
  std::cout << nlohmann::json{{"seqs", N},
                              {"mean_length", L},
                              {"heads", H},
                              {"kv_heads", KV},
                              {"head_dim", D},
                              {"kv_gb_read", bytes / 1e9},
                              {"sum_ms", sum_ms},
                              {"sum_gb_per_s", rate(sum_ms) / 1e9},
                              {"contiguous_ms", contiguous_ms},
                              {"contiguous_gb_per_s", rate(contiguous_ms) / 1e9},
                              {"contiguous_of_sum", sum_ms / contiguous_ms},
                              {"contiguous_of_4_8_tb_s", rate(contiguous_ms) / kH200BytesPerSecond},
                              {"paged_ms", paged_ms},
                              {"paged_gb_per_s", rate(paged_ms) / 1e9},
                              {"paged_of_sum", sum_ms / paged_ms},
                              {"paged_of_4_8_tb_s", rate(paged_ms) / kH200BytesPerSecond},
                              {"paged_vs_contiguous_max_abs_diff", paged_diff}}
                   .dump()
            << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return verlpp::bench::main_of("verlpp_decode_attention_bench", run, argc, argv);
}
