// Rollout throughput: verlpp's generate_sequences on a preset's shape (model::preset_config,
// random weights; default qwen3-0.6b; also qwen3.5-2b, whose Gated DeltaNet layers keep a conv
// window and a recurrent state per slot), against transformers' `generate` measured just before on
// the same GPU by bench/baselines/rollout_generate_hf.py --preset (same shape, prompts, lengths and
// sampling).
//
//   verlpp_rollout_bench [--preset qwen3-0.6b] [--prompts 256] [--prompt-length 512]
//       [--response-length 1024] [--n 1] [--no-prefix-caching]
//       [--dtype bfloat16] [--baseline hf.json] [--seed 0] [--no-cuda-graph]
//       [--prompts-file bench/data/gsm8k_qwen3_prompts.txt] [--eos-tokens K] [--static-batches]
//       [--max-num-seqs N] [--max-num-batched-tokens T] [--draw-on-gpu]
//       [--gpu-memory-utilization 0.5]
//
// Every prompt is prompt-length random ids, or with --prompts-file the file's first --prompts
// lines (JSON lists of token ids, left-padded to the longest), repeated --n times in consecutive
// rows as the trainer repeats a GRPO prompt (rollout.n; prompts x n rows in all);
// --no-prefix-caching is rollout.enable_prefix_caching=false (every row prefilled, not each prompt
// once); responses are response-length tokens (ignore_eos), or with --eos-tokens K they stop at
// any of K end ids spread evenly over the vocabulary (random weights give near-uniform next-token
// probabilities, so lengths spread geometrically with mean about vocab / K, capped at
// response-length); sampled at temperature 1 with top_k/top_p off (verl's rollout defaults).
// generate_sequences runs the engine (scheduler, paged KV, continuous batching, CUDA graphs over
// block tables); --static-batches the static batches before it (SamplingParams::static_batches:
// a KV slot per row, CUDA-graph decode); --max-num-seqs is rollout.max_num_seqs (rows generated at
// once: static batches run the rows in chunks of N, each waiting for its longest row; the engine
// admits a waiting row whenever one finishes); --max-num-batched-tokens is
// rollout.max_num_batched_tokens (the engine's tokens per step; chunked prefill; default 0: no
// limit); --gpu-memory-utilization is rollout.gpu_memory_utilization (verl's default 0.5; a
// 30B preset's weights alone take 0.72 of an 80 GB GPU). The random weights are drawn on the CPU (the draws every earlier run used: with
// --eos-tokens they set the response lengths) or, with --draw-on-gpu, on the GPU (other weights;
// minutes faster for a 30B preset). With VLLM_BATCH_INVARIANT=1 in the environment the model runs
// in verlpp's batch-invariant mode (model/batch_invariant.h), for its cost. One warm-up call on 8
// prompts first. Prints a JSON line with output tokens/s (responses only, prefill time included),
// the prefill time (the fastest of three calls with one response token; prefill_first_seconds the
// first of them), the mean decode step, the decode steps' memory-bandwidth use (decode_mbu, below)
// and peak CUDA memory allocated; then, when a baseline is given, a JSON line with the ratio to its
// tokens/s and, when the baseline reports one, both MFUs: the baseline's (verl's FLOPs formula over
// prompt + response tokens, forward only) and this run's on the same work (the baseline's times the
// speedup).
//
// decode_mbu = bytes the decode steps must read / decode time / 4.8e12 B/s (the H200's HBM3e
// bandwidth), decode time = wall time - prefill time: per step the weights once (every
// parameter, all experts of a MoE model, the tied embedding once) plus, per live row, every
// attention layer's keys and values of its context (prompt + tokens so far) and every
// linear-attention layer's fp32 recurrent state and conv window. Rows are taken at the mean
// prompt length.
#ifdef VERLPP_PROFILE
#include <torch/cuda.h>

#include "kernel_profile.h"
#endif

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "verlpp/core/cuda_graph.h"
#include "verlpp/core/device.h"
#include "verlpp/core/dtype.h"
#include "verlpp/core/error.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/presets.h"
#include "verlpp/rollout/rollout.h"

#if __has_include(<c10/cuda/CUDACachingAllocator.h>) && __has_include(<cuda_runtime_api.h>)
#include <c10/cuda/CUDACachingAllocator.h>
#define VERLPP_BENCH_CUDA_STATS 1
#endif

namespace {

struct Options {
  std::string preset = "qwen3-0.6b";
  int64_t prompts = 256;
  int64_t prompt_length = 512;
  int64_t response_length = 1024;
  int64_t n = 1;
  bool prefix_caching = true;
  std::string dtype = "bfloat16";
  std::string baseline;
  uint64_t seed = 0;
  bool cuda_graph = true;
  std::string prompts_file;
  int64_t eos_tokens = 0;
  bool static_batches = false;
  bool draw_on_gpu = false;
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  double gpu_memory_utilization = 0.5;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--no-cuda-graph" || key == "--no-prefix-caching" || key == "--static-batches" ||
        key == "--draw-on-gpu") {
      if (key == "--static-batches" || key == "--draw-on-gpu") {
        (key == "--static-batches" ? o.static_batches : o.draw_on_gpu) = true;
      } else {
        (key == "--no-cuda-graph" ? o.cuda_graph : o.prefix_caching) = false;
      }
      --i;
      continue;
    }
    if (i + 1 >= argc) throw verlpp::Error("option " + key + " needs a value");
    const std::string value = argv[i + 1];
    if (key == "--preset") {
      o.preset = value;
    } else if (key == "--prompts") {
      o.prompts = std::stoll(value);
    } else if (key == "--prompt-length") {
      o.prompt_length = std::stoll(value);
    } else if (key == "--response-length") {
      o.response_length = std::stoll(value);
    } else if (key == "--n") {
      o.n = std::stoll(value);
    } else if (key == "--dtype") {
      o.dtype = value;
    } else if (key == "--baseline") {
      o.baseline = value;
    } else if (key == "--seed") {
      o.seed = std::stoull(value);
    } else if (key == "--prompts-file") {
      o.prompts_file = value;
    } else if (key == "--eos-tokens") {
      o.eos_tokens = std::stoll(value);
    } else if (key == "--max-num-seqs") {
      o.max_num_seqs = std::stoll(value);
    } else if (key == "--max-num-batched-tokens") {
      o.max_num_batched_tokens = std::stoll(value);
    } else if (key == "--gpu-memory-utilization") {
      o.gpu_memory_utilization = std::stod(value);
    } else {
      throw verlpp::Error("unknown option " + key);
    }
  }
  return o;
}

// B random prompts of P tokens, each repeated n times in consecutive rows.
verlpp::data::Batch random_prompts(int64_t B, int64_t P, int64_t vocab, uint64_t seed,
                                   int64_t n = 1) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  verlpp::data::Batch batch;
  batch.set_tensor("input_ids",
                   at::randint(0, vocab, {B, P}, gen, at::kLong).repeat_interleave(n, 0));
  batch.set_tensor("attention_mask", at::ones({B * n, P}, at::kLong));
  batch.set_tensor("position_ids", at::arange(P, at::kLong).unsqueeze(0).repeat({B * n, 1}));
  return batch;
}

// The first B prompts of `path` (one JSON list of token ids a line), left-padded with id 0 under a
// zero attention mask, each repeated n times in consecutive rows.
verlpp::data::Batch file_prompts(const std::string& path, int64_t B, int64_t n) {
  std::ifstream in(path);
  if (!in) throw verlpp::Error("--prompts-file " + path + ": cannot open");
  std::vector<std::vector<int64_t>> rows;
  std::string line;
  while (static_cast<int64_t>(rows.size()) < B && std::getline(in, line)) {
    rows.push_back(nlohmann::json::parse(line).get<std::vector<int64_t>>());
  }
  if (static_cast<int64_t>(rows.size()) < B) {
    throw verlpp::Error("--prompts-file " + path + ": fewer than --prompts lines");
  }
  size_t P = 0;
  for (const auto& r : rows) P = std::max(P, r.size());
  at::Tensor ids = at::zeros({B, static_cast<int64_t>(P)}, at::kLong);
  at::Tensor mask = at::zeros({B, static_cast<int64_t>(P)}, at::kLong);
  for (int64_t b = 0; b < B; ++b) {
    const auto& r = rows[static_cast<size_t>(b)];
    const auto pad = static_cast<int64_t>(P - r.size());
    ids[b].narrow(0, pad, static_cast<int64_t>(r.size())).copy_(at::tensor(r, at::kLong));
    mask[b].narrow(0, pad, static_cast<int64_t>(r.size())).fill_(1);
  }
  verlpp::data::Batch batch;
  batch.set_tensor("input_ids", ids.repeat_interleave(n, 0));
  batch.set_tensor("attention_mask", mask.repeat_interleave(n, 0));
  batch.set_tensor("position_ids", (mask.cumsum(1) - 1).clamp_min(0).repeat_interleave(n, 0));
  return batch;
}

// K end-of-sequence ids spread evenly over the vocabulary.
std::vector<int32_t> spread_eos_ids(int64_t K, int64_t vocab) {
  std::vector<int32_t> ids;
  for (int64_t i = 0; i < K; ++i) ids.push_back(static_cast<int32_t>(i * vocab / K));
  return ids;
}

void reset_peak_memory() {
#ifdef VERLPP_BENCH_CUDA_STATS
  c10::cuda::CUDACachingAllocator::resetPeakStats(0);
#endif
}

double peak_memory_gib() {
#ifdef VERLPP_BENCH_CUDA_STATS
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
  return static_cast<double>(stats.allocated_bytes[0].peak) / (1024.0 * 1024.0 * 1024.0);
#else
  return 0.0;
#endif
}

struct Timed {
  double seconds = 0.0;
  int64_t tokens = 0;
  std::vector<int64_t> lengths;  // each row's response length
};

// One generate_sequences call, waiting for the device.
Timed timed_generate(const verlpp::model::CausalLM& model, const verlpp::data::Batch& prompts,
                     const verlpp::rollout::SamplingParams& params) {
  const auto t0 = std::chrono::steady_clock::now();
  const verlpp::data::Batch out = verlpp::rollout::generate_sequences(model, prompts, params, 1);
  const at::Tensor lengths = out.tensor("response_mask").sum(1).cpu();
  Timed t;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.tokens = lengths.sum().item<int64_t>();
  t.lengths.assign(lengths.data_ptr<int64_t>(), lengths.data_ptr<int64_t>() + lengths.numel());
  return t;
}

// The q-quantile of `values` (nearest rank).
int64_t quantile(std::vector<int64_t> values, double q) {
  std::sort(values.begin(), values.end());
  const auto i = static_cast<size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(i, values.size() - 1)];
}

constexpr double kHbmBytesPerSecond = 4.8e12;

// What one decode step of one row reads from its layers' state besides the weights: per
// context token (keys and values of every attention layer) and per row (the linear-attention
// layers' recurrent state and conv window).
struct StateBytes {
  double per_context_token = 0.0;
  double per_row = 0.0;
};

StateBytes state_bytes(const verlpp::model::ModelConfig& c, at::ScalarType dtype) {
  const auto element = static_cast<double>(c10::elementSize(dtype));
  StateBytes b;
  for (int64_t layer = 0; layer < c.num_hidden_layers; ++layer) {
    if (c.is_linear_attention_layer(layer)) {
      const verlpp::model::LinearAttentionConfig& l = c.linear_attention;
      b.per_row += 4.0 * static_cast<double>(l.value_dim() * l.key_head_dim);
      b.per_row += element * static_cast<double>(l.conv_dim() * (l.conv_kernel_dim - 1));
    } else {
      b.per_context_token +=
          2.0 * element * static_cast<double>(c.num_key_value_heads * c.head_dim);
    }
  }
  return b;
}

// Bytes the decode steps after the first sampled token read (decode_mbu above): a row with L
// response tokens runs decode steps 2..L, step s over a context of prompt + s tokens.
double decode_bytes(const verlpp::model::ModelConfig& c, at::ScalarType dtype,
                    double mean_prompt_length, const std::vector<int64_t>& lengths, int64_t steps) {
  const StateBytes state = state_bytes(c, dtype);
  double bytes = static_cast<double>(c.num_parameters()) *
                 static_cast<double>(c10::elementSize(dtype)) *
                 static_cast<double>(std::max<int64_t>(steps - 1, 0));
  for (const int64_t length : lengths) {
    const auto l = static_cast<double>(length);
    const double decode_steps = std::max(l - 1.0, 0.0);
    const double context_tokens = decode_steps * mean_prompt_length + (l * (l + 1) / 2 - 1.0);
    bytes += state.per_context_token * (length > 1 ? context_tokens : 0.0) +
             state.per_row * decode_steps;
  }
  return bytes;
}

int run(const Options& o) {
  if (!verlpp::cuda_available()) throw verlpp::Error("this benchmark needs a CUDA device");
  const at::Device cuda(at::kCUDA, 0);
  const verlpp::model::ModelConfig config = verlpp::model::preset_config(o.preset);
  const at::ScalarType dtype = verlpp::parse_dtype(o.dtype, "--dtype");
  verlpp::model::CausalLM model = verlpp::model::CausalLM::random_init(
      config, o.seed, 0.02, dtype, o.draw_on_gpu ? cuda : at::Device(at::kCPU));
  model.to(dtype, cuda);
  verlpp::model::apply_batch_invariant_setting(model);

  verlpp::rollout::SamplingParams params;
  params.temperature = 1.0;
  params.ignore_eos = o.eos_tokens <= 0;
  params.eos_token_ids = o.eos_tokens > 0
                             ? spread_eos_ids(o.eos_tokens, config.vocab_size)
                             : std::vector<int32_t>{static_cast<int32_t>(config.eos_token_id)};
  params.use_cuda_graph = o.cuda_graph;
  params.enable_prefix_caching = o.prefix_caching;
  params.max_num_seqs = o.max_num_seqs;
  params.max_num_batched_tokens = o.max_num_batched_tokens;
  params.gpu_memory_utilization = o.gpu_memory_utilization;
  params.static_batches = o.static_batches;
  params.max_response_length = 16;
  timed_generate(model, random_prompts(8, 64, config.vocab_size, 1), params);

  const verlpp::data::Batch prompts =
      o.prompts_file.empty()
          ? random_prompts(o.prompts, o.prompt_length, config.vocab_size, o.seed + 2, o.n)
          : file_prompts(o.prompts_file, o.prompts, o.n);
  // Prefill plus the first sampled token alone, to split the time: the first such call (which
  // also grows the allocator's pools to this batch's sizes) and the fastest of three.
  params.max_response_length = 1;
  const double prefill_first_seconds = timed_generate(model, prompts, params).seconds;
  double prefill_seconds = prefill_first_seconds;
  for (int i = 0; i < 2; ++i) {
    prefill_seconds = std::min(prefill_seconds, timed_generate(model, prompts, params).seconds);
  }

  params.max_response_length = o.response_length;
#ifdef VERLPP_PROFILE
  double wall = 0.0;
  verlpp::bench::print_kernel_profile("one generate call", [&] {
    wall = timed_generate(model, prompts, params).seconds;
    torch::cuda::synchronize();
  });
  std::cout << "wall ms of the profiled call: " << 1e3 * wall << "\n";
  return 0;
#endif
  reset_peak_memory();
  const Timed timed = timed_generate(model, prompts, params);
  const double seconds = timed.seconds;
  const int64_t tokens = timed.tokens;
  const int64_t prompt_tokens = prompts.tensor("attention_mask").sum().item<int64_t>();
  const int64_t steps = quantile(timed.lengths, 1.0);  // decode steps: the longest response
  const double mean_prompt = static_cast<double>(prompt_tokens) / double(prompts.size());
  const double bytes = decode_bytes(config, dtype, mean_prompt, timed.lengths, steps);
  const double decode_seconds = seconds - prefill_seconds;
  nlohmann::json result = {
      {"impl", "verlpp"},
      {"preset", o.preset},
      {"prompts", o.prompts},
      {"n", o.n},
      {"prefix_caching", o.prefix_caching},
      {"prompt_length", o.prompts_file.empty() ? o.prompt_length : -1},
      {"prompts_file", o.prompts_file},
      {"mean_prompt_length", mean_prompt},
      {"engine", !o.static_batches},
      {"max_num_seqs", o.max_num_seqs},
      {"max_num_batched_tokens", o.max_num_batched_tokens},
      {"eos_tokens", o.eos_tokens},
      {"mean_response_length", static_cast<double>(tokens) / double(timed.lengths.size())},
      {"p90_response_length", quantile(timed.lengths, 0.9)},
      {"max_response_length", steps},
      {"response_length", o.response_length},
      {"dtype", o.dtype},
      {"cuda_graph", o.cuda_graph && verlpp::compat::CudaGraph::available()},
      {"batch_invariant", verlpp::model::batch_invariant()},
      {"output_tokens", tokens},
      {"seconds", seconds},
      {"tokens_per_s", static_cast<double>(tokens) / seconds},
      {"prefill_seconds", prefill_seconds},
      {"prefill_first_seconds", prefill_first_seconds},
      {"decode_ms_per_step", 1e3 * decode_seconds / double(std::max<int64_t>(steps - 1, 1))},
      {"decode_gb_per_step", bytes / 1e9 / double(std::max<int64_t>(steps - 1, 1))},
      {"decode_mbu", bytes / decode_seconds / kHbmBytesPerSecond},
      {"peak_memory_gib", peak_memory_gib()}};
  std::cout << result.dump() << std::endl;
  if (!o.baseline.empty()) {
    const double ours = result["tokens_per_s"].get<double>();
    std::ifstream in(o.baseline);
    if (!in) throw verlpp::Error("--baseline " + o.baseline + ": cannot open");
    const nlohmann::json base = nlohmann::json::parse(in);
    const double speedup = ours / base.at("tokens_per_s").get<double>();
    nlohmann::json ratio = {{"baseline_tokens_per_s", base.at("tokens_per_s")},
                            {"baseline_peak_memory_gib", base.at("peak_memory_gib")},
                            {"speedup_vs_baseline", speedup}};
    if (base.contains("mfu") && base["mfu"].is_number()) {
      ratio["baseline_mfu"] = base["mfu"];
      ratio["mfu"] = base["mfu"].get<double>() * speedup;
    }
    std::cout << ratio.dump() << std::endl;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "verlpp_rollout_bench: " << e.what() << "\n";
    return 1;
  }
}
