#include "verlpp/rollout/engine.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "verlpp/core/cuda_graph.h"
#include "verlpp/core/device_memory.h"
#include "verlpp/core/error.h"
#include "verlpp/core/gpu_name.h"
#include "verlpp/core/host_copy.h"
#include "verlpp/rollout/block_pool.h"
#include "verlpp/rollout/kv_cache.h"
#include "verlpp/rollout/kv_cache_manager.h"
#include "verlpp/rollout/model_runner.h"
#include "verlpp/rollout/prompts.h"
#include "verlpp/rollout/sampling.h"
#include "verlpp/rollout/scheduler.h"

namespace verlpp::rollout {

namespace {

constexpr int64_t kBlockSize = 16;

// A prefix-cache key for prompt positions: 0 for the usual 0, 1, 2, ..., else their hash
// (hash_block's; equal tokens at other positions have other keys and values).
std::uint64_t positions_key(const std::vector<int64_t>& positions) {
  for (size_t i = 0; i < positions.size(); ++i) {
    if (positions[i] != static_cast<int64_t>(i)) return hash_block(0, positions, 0).value;
  }
  return 0;
}

// One request per row: its real prompt tokens and positions, and the tokens it may sample
// (`max_tokens`, or its entry of `capped` when that is not empty); rows repeating an earlier row's
// prompt fork from it.
std::vector<Request> make_requests(const PackedPrompts& packed, const PromptGroups& groups,
                                   int64_t max_tokens, const std::vector<int64_t>& capped) {
  const int64_t* ids = packed.ids.data_ptr<int64_t>();
  const int64_t* positions = packed.positions.data_ptr<int64_t>();
  const int64_t* cu = packed.cu_seqlens.data_ptr<int64_t>();
  std::vector<Request> requests;
  for (size_t b = 0; b < packed.lengths.size(); ++b) {
    Request r;
    r.id = static_cast<int64_t>(b);
    r.prompt.assign(ids + cu[b], ids + cu[b + 1]);
    r.prompt_positions.assign(positions + cu[b], positions + cu[b + 1]);
    r.prefix_key = positions_key(r.prompt_positions);
    if (!packed.images.empty() && packed.images[b]) {
      r.images = packed.images[b];
      const at::Tensor t_stream = r.images->mrope_positions[0].contiguous();
      r.prompt_positions.assign(t_stream.data_ptr<int64_t>(),
                                t_stream.data_ptr<int64_t>() + t_stream.numel());
    }
    r.max_tokens = capped.empty() ? max_tokens : capped[b];
    const int64_t first = groups.firsts[static_cast<size_t>(groups.group[b])];
    if (first != r.id) r.fork_of = first;
    requests.push_back(std::move(r));
  }
  return requests;
}

// `blocks` attention blocks, or (blocks <= 0) enough for the max_seqs rows that run at once: the
// largest rows' prompts and responses in whole blocks, plus the block a fork copies; a state slot
// per running row for linear-attention layers.
KVCacheSizes cache_sizes(const model::CausalLM& model, const PackedPrompts& packed, int64_t R,
                         int64_t max_seqs, int64_t blocks, bool prefix_caching) {
  bool attention = false, state = false;
  for (const model::LayerStateSpec& spec : model.generation_state()) {
    (spec.kind == model::LayerStateKind::kv_cache ? attention : state) = true;
  }
  KVCacheSizes sizes;
  sizes.block_size = kBlockSize;
  sizes.enable_prefix_caching = prefix_caching;
  if (attention && blocks > 0) {
    sizes.num_blocks = blocks;
  } else if (attention) {
    std::vector<int64_t> needs;  // blocks of each row, and the block a fork copies
    for (const int64_t length : packed.lengths) {
      needs.push_back((length + R + kBlockSize - 1) / kBlockSize + 1);
    }
    std::sort(needs.rbegin(), needs.rend());
    for (size_t i = 0; i < needs.size() && static_cast<int64_t>(i) < max_seqs; ++i) {
      sizes.num_blocks += needs[i];
    }
  }
  sizes.num_state_slots = state ? max_seqs : 0;
  return sizes;
}

// The scheduler's token budget and chunking (sampling_params.h): a batch with images prefills
// those prompts whole, so its budget is at least the longest prompt + response (a preempted row
// recomputes its prompt and its tokens so far in one piece).
SchedulerConfig scheduler_config(const PackedPrompts& packed, const SamplingParams& params,
                                 int64_t R) {
  SchedulerConfig config;
  config.max_num_batched_tokens = params.max_num_batched_tokens > 0
                                      ? params.max_num_batched_tokens
                                      : std::numeric_limits<int64_t>::max() / 2;
  config.enable_chunked_prefill = params.enable_chunked_prefill;
  const bool images = std::any_of(packed.images.begin(), packed.images.end(),
                                  [](const auto& image) { return image != nullptr; });
  if (images) {
    config.max_num_batched_tokens = std::max(config.max_num_batched_tokens, packed.max_length + R);
  }
  return config;
}

// The uniform of each sampling request (row_uniform), keyed by its row and response index, fp64
// [N] on `device`: one copy per step, whatever steps the rows are at.
at::Tensor draws(const std::vector<int64_t>& requests, const Scheduler& scheduler,
                 std::uint64_t seed, int64_t first_row, const at::Device& device) {
  std::vector<double> u;
  u.reserve(requests.size());
  for (const int64_t r : requests) {
    const auto step = static_cast<int64_t>(scheduler.request(r).output.size());
    u.push_back(row_uniform(seed, r + first_row, step));
  }
  return to_device(at::tensor(u, at::kDouble), device);
}

// Bytes of one block of every attention layer's keys and values, and of one state slot of every
// linear-attention layer.
struct CacheUnitBytes {
  double block = 0.0, slot = 0.0;
};

CacheUnitBytes cache_unit_bytes(const model::CausalLM& model, int64_t block_size) {
  const double element = static_cast<double>(c10::elementSize(model.dtype()));
  CacheUnitBytes unit;
  for (const model::LayerStateSpec& spec : model.generation_state()) {
    if (spec.kind == model::LayerStateKind::kv_cache) {
      unit.block += 2.0 * static_cast<double>(block_size * spec.kv_heads * spec.head_dim) * element;
    } else {
      unit.slot +=
          static_cast<double>(spec.conv_dim * spec.conv_window) * element +
          4.0 * static_cast<double>(spec.value_heads * spec.key_head_dim * spec.value_head_dim);
    }
  }
  return unit;
}

// The paged cache's bytes for `sizes`, checked before anything is allocated: on the CPU against the
// machine's physical memory (a response_length of 1e9 must be an error, not the OOM killer).
void check_cache_fits(const model::CausalLM& model, const KVCacheSizes& sizes, int64_t R,
                      const at::Device& device) {
  const CacheUnitBytes unit = cache_unit_bytes(model, sizes.block_size);
  const double bytes = static_cast<double>(sizes.num_blocks) * unit.block +
                       static_cast<double>(sizes.num_state_slots) * unit.slot;
  const double physical =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (!device.is_cuda() && physical > 0 && bytes > physical) {
    throw Error(fmt::format(
        "rollout: the KV cache for these rows with response_length {} would take {:.1f} GB, more "
        "than this machine's {:.1f} GB; lower response_length or the rows at once "
        "(rollout.max_num_seqs; --batch-size of verlpp generate)",
        R, bytes / 1e9, physical / 1e9));
  }
}

// On CUDA without kv_cache_blocks: at most the blocks gpu_memory_utilization leaves (its share of
// the GPU's memory less what is allocated now, less the state slots and the scratch block and
// slot); fewer than `sizes` asks for means preemption, fewer than `one_row` blocks an error.
void limit_to_memory(const model::CausalLM& model, const SamplingParams& params, int64_t one_row,
                     KVCacheSizes& sizes) {
  const at::Device dev = model.device();
  const std::optional<double> allocated = device_memory_allocated(dev);
  const double total =
      static_cast<double>(cuda_device_total_memory(dev.has_index() ? dev.index() : 0));
  if (!allocated || total <= 0.0 || sizes.num_blocks == 0) return;
  const CacheUnitBytes unit = cache_unit_bytes(model, sizes.block_size);
  const double budget = params.gpu_memory_utilization * total - *allocated -
                        static_cast<double>(sizes.num_state_slots + 1) * unit.slot - unit.block;
  const auto blocks = static_cast<int64_t>(std::max(0.0, budget) / unit.block);
  if (blocks >= sizes.num_blocks) return;
  if (blocks < one_row) {
    throw Error(fmt::format(
        "rollout: gpu_memory_utilization {} of this GPU's {:.1f} GB, with {:.1f} GB already "
        "allocated, leaves {} KV blocks; one row needs {} (raise "
        "actor_rollout_ref.rollout.gpu_memory_utilization or lower response_length)",
        params.gpu_memory_utilization, total / 1e9, *allocated / 1e9, blocks, one_row));
  }
  sizes.num_blocks = blocks;
}

// One step's samples: on the device for the next step's decode inputs, and on their way to the
// host (HostCopy) for the scheduler.
class InFlight {
 public:
  InFlight(std::vector<int64_t> requests, const SampledTokens& s)
      : requests_(std::move(requests)),
        tokens_(s.tokens.to(at::kLong)),
        logprobs_(s.logprobs.to(at::kFloat)) {
    device_.tokens = s.tokens;
    for (size_t i = 0; i < requests_.size(); ++i) {
      device_.rows[requests_[i]] = static_cast<int64_t>(i);
    }
  }

  const ModelRunner::DeviceTokens& device() const { return device_; }

  // The samples as pending tokens, for Scheduler::update.
  std::vector<SampledToken> placeholders() const {
    std::vector<SampledToken> out;
    for (const int64_t r : requests_) out.push_back({r, kPendingToken, 0.f, true});
    return out;
  }

  // Their values, for Scheduler::resolve (waits for the copies).
  std::vector<SampledToken> values() {
    const int64_t* token = tokens_.wait().data_ptr<int64_t>();
    const float* logprob = logprobs_.wait().data_ptr<float>();
    std::vector<SampledToken> out;
    for (size_t i = 0; i < requests_.size(); ++i) {
      out.push_back({requests_[i], token[i], logprob[i]});
    }
    return out;
  }

 private:
  std::vector<int64_t> requests_;
  HostCopy tokens_, logprobs_;
  ModelRunner::DeviceTokens device_;
};

// The tokens never sampled: a vision-language model's image and video pads (verl's
// get_vision_placeholder_token_ids, banned in vLLM's compute_logits: a sampled pad would break the
// pairing of pad runs and image grids). Empty for a text model.
at::Tensor banned_tokens(const model::CausalLM& model) {
  const auto& vision = model.config().vision;
  if (!vision) return at::Tensor();
  return at::tensor({vision->image_token_id, vision->video_token_id}, at::kLong).to(model.device());
}

// Decode steps from CUDA graphs: bf16/fp16 CUDA models whose decode allows capture.
bool use_cuda_graphs(const model::CausalLM& model, const SamplingParams& params) {
  return model.device().is_cuda() && model.dtype() != at::kFloat && params.use_cuda_graph &&
         model.decode_capturable() && compat::CudaGraph::available();
}

}  // namespace

data::Batch generate_with_engine(const model::CausalLM& model, const data::Batch& prompts,
                                 const SamplingParams& params, std::uint64_t seed,
                                 std::int64_t first_row, EngineStats* stats,
                                 const StopCheck& stop) {
  if (stats != nullptr) *stats = EngineStats{};
  c10::AutoGradMode no_grad(false);
  const at::Device dev = model.device();
  const PackedPrompts packed = pack_prompts(prompts, model.config());
  const int64_t R =
      response_length(params, packed, model.config().max_position_embeddings, first_row);
  const auto B = static_cast<int64_t>(packed.lengths.size());
  const int64_t max_seqs = params.max_num_seqs > 0 ? std::min(params.max_num_seqs, B) : B;
  KVCacheSizes sizes =
      cache_sizes(model, packed, R, max_seqs, params.kv_cache_blocks, params.enable_prefix_caching);
  if (dev.is_cuda() && params.kv_cache_blocks <= 0) {
    limit_to_memory(model, params, (packed.max_length + R + kBlockSize - 1) / kBlockSize + 1,
                    sizes);
  }
  check_cache_fits(model, sizes, R, dev);
  KVCacheManager kv(sizes);
  SchedulerConfig config = scheduler_config(packed, params, R);
  config.max_num_seqs = max_seqs;
  config.eos_token_ids.assign(params.eos_token_ids.begin(), params.eos_token_ids.end());
  config.ignore_eos = params.ignore_eos;
  Scheduler scheduler(config, kv);
  for (Request& r : make_requests(packed, group_prompts(packed, params.enable_prefix_caching), R,
                                  capped_response_lengths(params, packed, R))) {
    scheduler.add(std::move(r));
  }
  // One block and one state slot more than the KV manager hands out: the scratch of graph buckets'
  // unused rows.
  PagedKVCache cache(model.generation_state(), sizes.num_blocks + 1, sizes.block_size,
                     sizes.num_state_slots + 1, model.dtype(), dev);
  ModelRunner runner(model, cache);
  if (use_cuda_graphs(model, params)) {
    const int64_t max_pages = (packed.max_length + R + sizes.block_size - 1) / sizes.block_size;
    runner.use_cuda_graphs(max_seqs, max_pages, sizes.num_blocks, sizes.num_state_slots);
  }
  const SamplerSettings settings = sampler_settings(params);
  const at::Tensor banned = banned_tokens(model);
  // Asynchronous scheduling: step k+1 is scheduled and queued while step k's samples travel to
  // the host; they are resolved (their eos stops applied) after that.
  std::optional<InFlight> previous;
  while (!scheduler.done()) {
    throw_if_stopped(stop);
    const SchedulerOutput out = scheduler.schedule();
    if (stats != nullptr) {
      ++stats->steps;
      stats->max_step_tokens = std::max(stats->max_step_tokens, out.num_tokens());
      stats->preemptions += static_cast<int64_t>(out.preempted.size());
    }
    const ModelRunner::StepLogits step =
        runner.run(out, scheduler, kv, previous ? &previous->device() : nullptr);
    std::optional<InFlight> current;
    if (!step.requests.empty()) {
      const at::Tensor logits =
          banned.defined()
              ? step.logits.index_fill(1, banned, -std::numeric_limits<float>::infinity())
              : step.logits;
      current.emplace(
          step.requests,
          sample_tokens(logits, settings, draws(step.requests, scheduler, seed, first_row, dev)));
    }
    if (previous) scheduler.resolve(previous->values());
    scheduler.update(out, current ? current->placeholders() : std::vector<SampledToken>{});
    previous = std::move(current);
  }
  if (previous) scheduler.resolve(previous->values());
  if (stats != nullptr) stats->prefix_cache_hit_tokens = scheduler.prefix_cache_hit_tokens();
  at::Tensor tokens = at::full({B, R}, params.pad_token_id, at::kLong);
  at::Tensor mask = at::zeros({B, R}, at::kLong);
  at::Tensor logprobs = at::zeros({B, R}, at::kFloat);
  for (int64_t b = 0; b < B; ++b) {
    const Request& r = scheduler.request(b);
    const auto n = static_cast<int64_t>(r.output.size());
    tokens[b].narrow(0, 0, n).copy_(at::tensor(r.output, at::kLong));
    mask[b].narrow(0, 0, n).fill_(1);
    logprobs[b].narrow(0, 0, n).copy_(at::tensor(r.logprobs, at::kFloat));
  }
  return response_batch(prompts, packed, tokens.to(dev), mask.to(dev), logprobs.to(dev), params);
}

}  // namespace verlpp::rollout
