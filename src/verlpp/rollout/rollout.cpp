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
#include "verlpp/rollout/graphed_decode.h"
#include "verlpp/rollout/kv_cache.h"
#include "verlpp/rollout/sampling.h"

namespace verlpp::rollout {

namespace {

// The prompts' real tokens packed back to back (rows in order), on the host.
struct PackedPrompts {
  at::Tensor ids, positions, cu_seqlens;  // [T], [T], [B + 1]
  std::vector<int64_t> lengths;
  at::Tensor last_positions;  // [B] int64: position id of each row's last real token
  int64_t max_length = 0;
};

const at::Tensor& prompt_tensor(const data::Batch& prompts, const std::string& key) {
  if (!prompts.has_tensor(key)) {
    throw Error("generate_sequences: the prompt batch has no tensor '" + key +
                "' (expected input_ids, attention_mask, position_ids [batch, prompt_length])");
  }
  const at::Tensor& t = prompts.tensor(key);
  const at::Tensor& ids = prompts.tensor("input_ids");
  if (t.dim() != 2 || t.sizes() != ids.sizes()) {
    throw Error(
        fmt::format("generate_sequences: '{}' has shape [{}]; expected [batch, prompt_length] "
                    "like input_ids [{}]",
                    key, fmt::join(t.sizes(), ", "), fmt::join(ids.sizes(), ", ")));
  }
  return t;
}

PackedPrompts pack_prompts(const data::Batch& prompts, int64_t vocab_size) {
  const at::Tensor ids = prompt_tensor(prompts, "input_ids").to(at::kCPU, at::kLong);
  const at::Tensor mask = prompt_tensor(prompts, "attention_mask").to(at::kCPU).ne(0);
  const at::Tensor pos = prompt_tensor(prompts, "position_ids").to(at::kCPU, at::kLong);
  PackedPrompts p;
  p.ids = ids.masked_select(mask);
  p.positions = pos.masked_select(mask);
  const at::Tensor lengths = mask.sum(1).to(at::kLong).contiguous();
  p.lengths.assign(lengths.data_ptr<int64_t>(), lengths.data_ptr<int64_t>() + lengths.numel());
  for (size_t b = 0; b < p.lengths.size(); ++b) {
    if (p.lengths[b] == 0)
      throw Error(fmt::format("generate_sequences: prompt row {} is empty", b));
  }
  p.max_length = *std::max_element(p.lengths.begin(), p.lengths.end());
  const int64_t lowest = p.ids.min().item<int64_t>();
  const int64_t highest = p.ids.max().item<int64_t>();
  if (lowest < 0 || highest >= vocab_size) {
    throw Error(
        fmt::format("generate_sequences: prompt token id {} is outside the model's "
                    "vocabulary [0, {}) (tokenizer and model do not match?)",
                    lowest < 0 ? lowest : highest, vocab_size));
  }
  std::vector<int64_t> cu(p.lengths.size() + 1, 0);
  std::partial_sum(p.lengths.begin(), p.lengths.end(), cu.begin() + 1);
  p.cu_seqlens = at::tensor(cu, at::kLong);
  p.last_positions = p.positions.index_select(0, p.cu_seqlens.narrow(0, 1, lengths.numel()) - 1);
  return p;
}

// Rows whose prompts are the same tokens at the same positions (the trainer repeats each prompt
// rollout.n times): each prompt's first row, and for each row the index of its prompt there.
// Without `share` every row is its own group.
struct PromptGroups {
  std::vector<int64_t> firsts;  // ascending rows
  std::vector<int64_t> group;   // [B]
};

PromptGroups group_prompts(const PackedPrompts& p, bool share) {
  PromptGroups g;
  if (!share) {
    g.firsts.resize(p.lengths.size());
    std::iota(g.firsts.begin(), g.firsts.end(), 0);
    g.group = g.firsts;
    return g;
  }
  const int64_t* ids = p.ids.data_ptr<int64_t>();
  const int64_t* positions = p.positions.data_ptr<int64_t>();
  const int64_t* cu = p.cu_seqlens.data_ptr<int64_t>();
  std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>, int64_t> seen;
  for (size_t b = 0; b < p.lengths.size(); ++b) {
    auto key = std::make_pair(std::vector<int64_t>(ids + cu[b], ids + cu[b + 1]),
                              std::vector<int64_t>(positions + cu[b], positions + cu[b + 1]));
    const auto [it, inserted] = seen.emplace(std::move(key), static_cast<int64_t>(g.firsts.size()));
    if (inserted) g.firsts.push_back(static_cast<int64_t>(b));
    g.group.push_back(it->second);
  }
  return g;
}

// The packed prompts of `rows` (ascending) only.
PackedPrompts packed_rows(const PackedPrompts& p, const std::vector<int64_t>& rows) {
  const int64_t* cu = p.cu_seqlens.data_ptr<int64_t>();
  std::vector<int64_t> tokens, new_cu = {0};
  PackedPrompts q;
  for (const int64_t r : rows) {
    for (int64_t t = cu[r]; t < cu[r + 1]; ++t) tokens.push_back(t);
    q.lengths.push_back(p.lengths[static_cast<size_t>(r)]);
    new_cu.push_back(static_cast<int64_t>(tokens.size()));
  }
  const at::Tensor take = at::tensor(tokens, at::kLong);
  q.ids = p.ids.index_select(0, take);
  q.positions = p.positions.index_select(0, take);
  q.cu_seqlens = at::tensor(new_cu, at::kLong);
  q.last_positions = p.last_positions.index_select(0, at::tensor(rows, at::kLong));
  q.max_length = *std::max_element(q.lengths.begin(), q.lengths.end());
  return q;
}

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

SamplerSettings sampler_settings(const SamplingParams& params) {
  SamplerSettings s;
  s.greedy = !params.do_sample || params.temperature == 0.0;
  s.temperature = params.temperature > 0.0 ? params.temperature : 1.0;
  s.top_k = params.top_k;
  s.top_p = params.top_p;
  return s;
}

// Responses being written, one column per step, and which rows have ended.
struct ResponseBuffers {
  at::Tensor tokens, mask, logprobs;  // [B, R]
  at::Tensor done;                    // [B] bool
  at::Tensor eos;                     // [E] int64
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
  model::DecodeView view;
  view.slot_starts = batch.rows * cache.capacity();
  view.lengths = batch.lengths;
  view.max_length = max_length;
  if (flash) {
    const at::Tensor end = at::full({1}, cache.slots() * cache.capacity(), batch.rows.options());
    view.cu_starts_i32 = at::cat({view.slot_starts, end}).to(at::kInt);
    view.lengths_i32 = batch.lengths.to(at::kInt);
  }
  return view;
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
                           const SamplingParams& params, std::uint64_t seed,
                           std::int64_t first_row) {
  const int64_t R = params.max_response_length;
  if (R < 1) {
    throw Error(fmt::format("generate_sequences: max_response_length must be >= 1, got {}", R));
  }
  c10::AutoGradMode no_grad(false);
  const at::Device dev = model.device();
  const PackedPrompts packed = pack_prompts(prompts, model.config().vocab_size);
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
    if (!params.ignore_eos && s % interval == 0) {
      const at::Tensor alive =
          out.done.index_select(0, batch.rows).logical_not().nonzero().view(-1);
      if (alive.numel() == 0) break;
      if (alive.numel() < batch.rows.numel()) batch.keep(alive);
    }
    at::Tensor logits;
    if (graphed) {
      try {
        logits = graphed->step(batch.tokens, batch.positions, batch.rows * cache->capacity(),
                               batch.lengths);
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

  const at::Tensor prompt_ids = prompts.tensor("input_ids").to(dev, at::kLong);
  const at::Tensor prompt_mask = prompts.tensor("attention_mask").to(dev, at::kLong);
  const at::Tensor prompt_pos = prompts.tensor("position_ids").to(dev, at::kLong);
  const at::Tensor response_pos =
      packed.last_positions.to(dev).unsqueeze(1) + at::arange(1, R + 1, long_options).unsqueeze(0);
  data::Batch result;
  result.meta_info = prompts.meta_info;
  for (const auto& [key, values] : prompts.non_tensors()) result.set_non_tensor(key, values);
  result.set_tensor("prompts", prompt_ids);
  result.set_tensor("responses", out.tokens);
  result.set_tensor("response_mask", out.mask);
  result.set_tensor("input_ids", at::cat({prompt_ids, out.tokens}, 1));
  result.set_tensor("attention_mask", at::cat({prompt_mask, out.mask}, 1));
  result.set_tensor("position_ids", at::cat({prompt_pos, response_pos}, 1));
  if (params.calculate_log_probs) result.set_tensor("rollout_log_probs", out.logprobs);
  return result;
}

}  // namespace

data::Batch generate_sequences(const model::CausalLM& model, const data::Batch& prompts,
                               const SamplingParams& params, std::uint64_t seed,
                               std::int64_t first_row) {
  if (params.max_num_seqs <= 0 || prompts.size() <= params.max_num_seqs) {
    return generate_chunk(model, prompts, params, seed, first_row);
  }
  std::vector<data::Batch> chunks;
  std::int64_t offset = first_row;
  for (const auto& chunk : prompts.split(params.max_num_seqs)) {
    chunks.push_back(generate_chunk(model, chunk, params, seed, offset));
    offset += chunk.size();
  }
  return data::Batch::concat(chunks);
}

}  // namespace verlpp::rollout
