#include "verlpp/rollout/rollout.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <utility>

#include "verlpp/core/cuda_graph.h"
#include "verlpp/core/error.h"
#include "verlpp/core/log.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/rollout/engine.h"
#include "verlpp/rollout/graphed_decode.h"
#include "verlpp/rollout/kv_cache.h"
#include "verlpp/rollout/prompts.h"
#include "verlpp/rollout/sampling.h"

namespace verlpp::rollout {

namespace {

// Prefills each distinct prompt once into the slots of its first row and copies that state to the
// slots of the rows repeating it (with `share`; else every row is its own group); returns the
// hidden state of every row's last prompt token [B, hidden].
at::Tensor prefill_shared(const model::CausalLM& model, const PackedPrompts& packed, KVCache& cache,
                          bool share) {
  const PromptGroups g = group_prompts(packed, share);
  const auto B = static_cast<int64_t>(packed.lengths.size());
  const auto U = static_cast<int64_t>(g.firsts.size());
  const PackedPrompts firsts = U == B ? packed : packed_rows(packed, g.firsts);
  const at::Tensor hidden =
      model.prefill(firsts.ids, firsts.positions, firsts.cu_seqlens, g.firsts, cache.view());
  const at::Device dev = model.device();
  std::vector<int64_t> src, dst;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t first = g.firsts[static_cast<size_t>(g.group[static_cast<size_t>(b)])];
    if (first != b) {
      src.push_back(first);
      dst.push_back(b);
    }
  }
  if (!src.empty()) {
    cache.copy_slots(at::tensor(src, at::kLong).to(dev), at::tensor(dst, at::kLong).to(dev),
                     packed.max_length);
  }
  const at::Tensor last = (firsts.cu_seqlens.narrow(0, 1, U) - 1).to(dev);
  return hidden.index_select(0, last).index_select(0, at::tensor(g.group, at::kLong).to(dev));
}

// Responses being written, one column per step, and which rows have ended.
struct ResponseBuffers {
  at::Tensor tokens, mask, logprobs;  // [B, R]
  at::Tensor done;                    // [B] bool
  at::Tensor eos;                     // [E] int64
  at::Tensor limit;                   // [B] int64: tokens each row may sample; undefined: R
};

// Records step `s` for rows `rows`; rows already done get padding.
void record(ResponseBuffers& out, int64_t s, const at::Tensor& rows, const SampledTokens& sampled,
            const SamplingParams& params) {
  const at::Tensor alive = out.done.index_select(0, rows).logical_not();
  const at::Tensor pad = at::full_like(sampled.tokens, params.pad_token_id);
  out.tokens.select(1, s).index_copy_(0, rows, at::where(alive, sampled.tokens, pad));
  out.mask.select(1, s).index_copy_(0, rows, alive.to(at::kLong));
  out.logprobs.select(1, s).index_copy_(
      0, rows, sampled.logprobs * alive.to(sampled.logprobs.scalar_type()));
  if (!params.ignore_eos && out.eos.numel() > 0) {
    out.done.index_copy_(0, rows,
                         out.done.index_select(0, rows) | at::isin(sampled.tokens, out.eos));
  }
  if (out.limit.defined()) {
    out.done.index_copy_(
        0, rows, out.done.index_select(0, rows) | out.limit.index_select(0, rows).le(s + 1));
  }
}

// The decode batch: rows still generating and, aligned with them, the token to feed, its
// position id and the cache entries its row will hold once the token is stored.
struct DecodeBatch {
  at::Tensor rows, tokens, positions, lengths;

  void keep(const at::Tensor& index) {
    rows = rows.index_select(0, index);
    tokens = tokens.index_select(0, index);
    positions = positions.index_select(0, index);
    lengths = lengths.index_select(0, index);
  }
};

model::DecodeView decode_view(const DecodeBatch& batch, const KVCache& cache, int64_t max_length,
                              bool flash) {
  return model::slot_decode_view(batch.rows, batch.lengths, cache.capacity(), cache.slots(),
                                 max_length, flash);
}

// Finished rows leave the decode batch every `interval` steps (by default 1 on the CPU; on CUDA
// the check costs a host synchronisation, so it is done less often and finished rows are masked
// meanwhile).
int64_t compaction_interval(const SamplingParams& params, const at::Device& device) {
  if (params.compaction_interval > 0) return params.compaction_interval;
  return device.is_cuda() ? 8 : 1;
}

// Without a KV cache (SamplingParams::use_kv_cache false): the next-token logits [N, vocab] of
// rows `rows` after `s` generated tokens, from a packed forward over each row's prompt and its
// tokens so far.
at::Tensor recomputed_logits(const model::CausalLM& model, const PackedPrompts& packed,
                             const at::Tensor& tokens, const at::Tensor& rows, int64_t s) {
  const at::Tensor host_rows = rows.to(at::kCPU).contiguous();
  const at::Tensor generated = tokens.narrow(1, 0, s).index_select(0, rows).to(at::kCPU);
  const at::Tensor steps = at::arange(1, s + 1, at::kLong);
  const int64_t* starts = packed.cu_seqlens.data_ptr<int64_t>();
  std::vector<at::Tensor> ids, positions;
  std::vector<int64_t> cu{0};
  for (int64_t i = 0; i < host_rows.size(0); ++i) {
    const int64_t r = host_rows.data_ptr<int64_t>()[i];
    const int64_t length = packed.lengths[static_cast<size_t>(r)];
    ids.push_back(at::cat({packed.ids.narrow(0, starts[r], length), generated[i]}));
    positions.push_back(
        at::cat({packed.positions.narrow(0, starts[r], length), packed.last_positions[r] + steps}));
    cu.push_back(cu.back() + length + s);
  }
  const at::Tensor cu_seqlens = at::tensor(cu, at::kLong);
  const at::Tensor hidden = model.forward_packed(at::cat(ids), at::cat(positions), cu_seqlens);
  const at::Tensor last = (cu_seqlens.narrow(0, 1, host_rows.size(0)) - 1).to(model.device());
  return model.logits(hidden.index_select(0, last));
}

data::Batch generate_chunk(const model::CausalLM& model, const data::Batch& prompts,
                           const SamplingParams& params, std::uint64_t seed, std::int64_t first_row,
                           const StopCheck& stop) {
  c10::AutoGradMode no_grad(false);
  const at::Device dev = model.device();
  const PackedPrompts packed = pack_prompts(prompts, model.config());
  const int64_t R =
      response_length(params, packed, model.config().max_position_embeddings, first_row);
  const int64_t B = static_cast<int64_t>(packed.lengths.size());
  const auto long_options = at::TensorOptions().dtype(at::kLong).device(dev);
  const SamplerSettings settings = sampler_settings(params);

  const bool flash =
      dev.is_cuda() && model.dtype() != at::kFloat && compat::has_flash_attention_kvcache();
  const bool graphs = flash && params.use_kv_cache && params.use_cuda_graph &&
                      model.decode_capturable() && compat::CudaGraph::available();
  std::optional<KVCache> cache;
  at::Tensor last_hidden;  // [B, hidden]: each row's last prompt token
  if (params.use_kv_cache) {
    // With graphs, one more slot: the scratch slot of the graph buckets' unused rows.
    cache.emplace(model.generation_state(), B + (graphs ? 1 : 0), packed.max_length + R,
                  model.dtype(), dev);
    last_hidden = prefill_shared(model, packed, *cache, params.enable_prefix_caching);
  } else {
    last_hidden = model.forward_packed(packed.ids, packed.positions, packed.cu_seqlens)
                      .index_select(0, (packed.cu_seqlens.narrow(0, 1, B) - 1).to(dev));
  }
  const auto draws = [&](const at::Tensor& rows, int64_t step) {
    return row_uniforms(seed, rows + first_row, step);
  };
  SampledTokens sampled =
      sample_tokens(model.logits(last_hidden), settings, draws(at::arange(B, long_options), 0));

  ResponseBuffers out;
  out.tokens = at::full({B, R}, params.pad_token_id, long_options);
  out.mask = at::zeros({B, R}, long_options);
  out.logprobs = at::zeros({B, R}, long_options.dtype(at::kFloat));
  out.done = at::zeros({B}, long_options.dtype(at::kBool));
  const std::vector<int64_t> capped = capped_response_lengths(params, packed, R);
  if (!capped.empty()) out.limit = at::tensor(capped, at::kLong).to(dev);
  out.eos =
      at::tensor(std::vector<int64_t>(params.eos_token_ids.begin(), params.eos_token_ids.end()),
                 at::kLong)
          .to(dev);
  DecodeBatch batch;
  batch.rows = at::arange(B, long_options);
  record(out, 0, batch.rows, sampled, params);
  batch.tokens = sampled.tokens;
  batch.positions = packed.last_positions.to(dev) + 1;
  batch.lengths = at::tensor(packed.lengths, at::kLong).to(dev) + 1;

  const int64_t interval = compaction_interval(params, dev);
  std::unique_ptr<GraphedDecoder> graphed;
  if (graphs) graphed = std::make_unique<GraphedDecoder>(model, *cache, B);
  for (int64_t s = 1; s < R; ++s) {
    throw_if_stopped(stop);
    if (!params.ignore_eos && s % interval == 0) {
      const at::Tensor alive =
          out.done.index_select(0, batch.rows).logical_not().nonzero().view(-1);
      if (alive.numel() == 0) break;
      if (alive.numel() < batch.rows.numel()) batch.keep(alive);
    }
    at::Tensor logits;
    if (graphed) {
      try {
        logits = graphed->step(batch.tokens, batch.positions, batch.rows, batch.lengths);
      } catch (const Error& e) {
        log_warning(std::string("rollout: ") + e.what() + "; decoding without CUDA graphs");
        graphed.reset();
      }
    }
    if (!logits.defined() && cache) {
      const model::DecodeView view = decode_view(batch, *cache, packed.max_length + s, flash);
      logits = model.logits(model.decode(batch.tokens, batch.positions, view, cache->view()));
    }
    if (!logits.defined()) logits = recomputed_logits(model, packed, out.tokens, batch.rows, s);
    sampled = sample_tokens(logits, settings, draws(batch.rows, s));
    record(out, s, batch.rows, sampled, params);
    batch.tokens = sampled.tokens;
    batch.positions = batch.positions + 1;
    batch.lengths = batch.lengths + 1;
  }

  return response_batch(prompts, packed, out.tokens, out.mask, out.logprobs, params);
}

}  // namespace

data::Batch generate_sequences(const model::CausalLM& model, const data::Batch& prompts,
                               const SamplingParams& params, std::uint64_t seed,
                               std::int64_t first_row, const StopCheck& stop) {
  // The engine (engine.h: scheduler, paged cache, continuous batching, CUDA-graph decode); the
  // static batches below on request (the benchmarks' baseline) and for use_kv_cache = false.
  if (params.use_kv_cache && !params.static_batches) {
    return generate_with_engine(model, prompts, params, seed, first_row, nullptr, stop);
  }
  if (prompts.has_row_tensors("image_grid_thw")) {
    throw Error(
        "generate_sequences: prompts with images are generated by the rollout engine only; "
        "static_batches and use_kv_cache = false do not take them");
  }
  if (params.max_num_seqs <= 0 || prompts.size() <= params.max_num_seqs) {
    return generate_chunk(model, prompts, params, seed, first_row, stop);
  }
  std::vector<data::Batch> chunks;
  std::int64_t offset = first_row;
  for (const auto& chunk : prompts.split(params.max_num_seqs)) {
    chunks.push_back(generate_chunk(model, chunk, params, seed, offset, stop));
    offset += chunk.size();
  }
  return data::Batch::concat(chunks);
}

}  // namespace verlpp::rollout
