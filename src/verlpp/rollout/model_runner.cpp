#include "verlpp/rollout/model_runner.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "verlpp/core/error.h"
#include "verlpp/core/host_copy.h"
#include "verlpp/core/log.h"

namespace verlpp::rollout {

namespace {

// The cache row of token i of a request holding `blocks`; 0 (a row nothing reads) for a model
// without attention layers, whose requests hold no blocks (a break-test's all-linear Qwen3.5
// read past the empty table).
int64_t row_of(const std::vector<int64_t>& blocks, int64_t block_size, int64_t i) {
  if (blocks.empty()) return 0;
  return blocks[static_cast<size_t>(i / block_size)] * block_size + i % block_size;
}

// The M-RoPE streams [3, T] of a prefill holding images: a request's prompt takes its images'
// streams, every other token its position on all three.
at::Tensor mrope_streams(const Scheduler& scheduler, const std::vector<ScheduledChunk>& chunks,
                         const std::vector<int64_t>& positions) {
  at::Tensor streams = at::tensor(positions, at::kLong).unsqueeze(0).repeat({3, 1});
  int64_t offset = 0;
  for (const ScheduledChunk& c : chunks) {
    const Request& r = scheduler.request(c.request);
    if (r.images) {
      const int64_t prompt = r.images->mrope_positions.size(1);
      streams.narrow(1, offset, prompt).copy_(r.images->mrope_positions);
    }
    offset += c.num_tokens;
  }
  return streams;
}

// The images of the prefill's requests, in order; nullopt when none has any.
std::optional<model::ImageInputs> prefill_images(const Scheduler& scheduler,
                                                 const std::vector<ScheduledChunk>& chunks) {
  model::ImageInputs images;
  std::vector<at::Tensor> pixels;
  for (const ScheduledChunk& c : chunks) {
    const Request& r = scheduler.request(c.request);
    if (!r.images) continue;
    pixels.push_back(r.images->inputs.pixel_values);
    images.grids.insert(images.grids.end(), r.images->inputs.grids.begin(),
                        r.images->inputs.grids.end());
  }
  if (pixels.empty()) return std::nullopt;
  images.pixel_values = pixels.size() == 1 ? pixels[0] : at::cat(pixels);
  return images;
}

// The prefill of the chunks (each a request's tokens [start, start + num_tokens), after `start`
// tokens already in the cache): hidden states of the last tokens of the chunks that sample
// [sampling chunks, hidden].
at::Tensor prefill(const model::CausalLM& model, PagedKVCache& cache, const Scheduler& scheduler,
                   const KVCacheManager& kv, const std::vector<ScheduledChunk>& chunks) {
  std::vector<int64_t> ids, positions, rows, slots, key_rows, last, cu = {0};
  model::PrefillContext context;
  for (const ScheduledChunk& c : chunks) {
    const Request& r = scheduler.request(c.request);
    const std::vector<int64_t>& blocks = kv.block_table(c.request);
    for (int64_t i = 0; i < c.start; ++i) key_rows.push_back(row_of(blocks, cache.block_size(), i));
    for (int64_t i = c.start; i < c.start + c.num_tokens; ++i) {
      if (r.token(i) == kPendingToken) {
        throw Error(fmt::format("rollout: request {} is prefilled before its token {} is known",
                                c.request, i));
      }
      ids.push_back(r.token(i));
      positions.push_back(r.position(i));
      rows.push_back(row_of(blocks, cache.block_size(), i));
      key_rows.push_back(rows.back());
    }
    slots.push_back(std::max<int64_t>(kv.state_slot(c.request), 0));
    context.lengths.push_back(c.start);
    cu.push_back(static_cast<int64_t>(ids.size()));
    if (c.samples) last.push_back(cu.back() - 1);
  }
  const at::Device dev = model.device();
  const std::optional<model::ImageInputs> images = prefill_images(scheduler, chunks);
  const at::Tensor position_ids = images
                                      ? to_device(mrope_streams(scheduler, chunks, positions), dev)
                                      : device_tensor(positions, dev);
  // The cached tokens' keys only when some chunk has them (most steps prefill whole prompts).
  const bool continues = std::any_of(chunks.begin(), chunks.end(),
                                     [](const ScheduledChunk& c) { return c.start > 0; });
  if (continues) context.key_rows = device_tensor(key_rows, dev);
  const at::Tensor hidden =
      model.prefill(device_tensor(ids, dev), position_ids, at::tensor(cu, at::kLong),
                    device_tensor(rows, dev), device_tensor(slots, dev), cache.view(),
                    images ? &*images : nullptr, continues ? &context : nullptr);
  return hidden.index_select(0, device_tensor(last, dev));
}

// The row of `request`'s pending token in the previous step's device tokens.
int64_t pending_row(const ModelRunner::DeviceTokens* previous, int64_t request) {
  if (previous != nullptr) {
    const auto it = previous->rows.find(request);
    if (it != previous->rows.end()) return it->second;
  }
  throw Error(fmt::format("rollout: request {}'s pending token is not on the device", request));
}

// The decode step's inputs for sequences whose last token (the one sampled last step) is new.
PagedDecodeInputs decode_inputs(const Scheduler& scheduler, const KVCacheManager& kv,
                                const std::vector<ScheduledChunk>& chunks, int64_t block_size,
                                const ModelRunner::DeviceTokens* previous) {
  PagedDecodeInputs in;
  if (previous != nullptr) in.device_tokens = previous->tokens;
  for (const ScheduledChunk& c : chunks) {
    const Request& r = scheduler.request(c.request);
    const std::vector<int64_t>& blocks = kv.block_table(c.request);
    in.device_rows.push_back(r.token(c.start) == kPendingToken ? pending_row(previous, c.request)
                                                               : -1);
    in.tokens.push_back(r.token(c.start));
    in.positions.push_back(r.position(c.start));
    in.lengths.push_back(c.start + 1);
    in.new_rows.push_back(row_of(blocks, block_size, c.start));
    in.state_slots.push_back(std::max<int64_t>(kv.state_slot(c.request), 0));
    in.block_tables.push_back(&blocks);
  }
  return in;
}

void copy_forks(PagedKVCache& cache, const ForkCopies& copies, const at::Device& dev) {
  std::vector<int64_t> src, dst;
  for (const auto& [from, to] : copies.blocks) {
    src.push_back(from);
    dst.push_back(to);
  }
  cache.copy_blocks(device_tensor(src, dev), device_tensor(dst, dev));
  src.clear();
  dst.clear();
  for (const auto& [from, to] : copies.slots) {
    src.push_back(from);
    dst.push_back(to);
  }
  cache.copy_state_slots(device_tensor(src, dev), device_tensor(dst, dev));
}

}  // namespace

ModelRunner::ModelRunner(const model::CausalLM& model, PagedKVCache& cache)
    : model_(model), cache_(cache) {}

ModelRunner::~ModelRunner() = default;

void ModelRunner::use_cuda_graphs(int64_t max_rows, int64_t max_pages, int64_t scratch_block,
                                  int64_t scratch_slot) {
  graphed_ = std::make_unique<GraphedPagedDecoder>(model_, cache_, max_rows, max_pages,
                                                   scratch_block, scratch_slot);
}

at::Tensor ModelRunner::decode(const PagedDecodeInputs& in) {
  if (graphed_) {
    try {
      return graphed_->step(in);
    } catch (const Error& e) {
      log_warning(std::string("rollout: ") + e.what() + "; decoding without CUDA graphs");
      graphed_.reset();
    }
  }
  return paged_decode(model_, cache_, in);
}

ModelRunner::StepLogits ModelRunner::run(const SchedulerOutput& out, const Scheduler& scheduler,
                                         const KVCacheManager& kv, const DeviceTokens* previous) {
  // A sampling chunk of one token after computed ones is a decode (the usual step, or the last
  // token of a chunked prompt); everything else is prefilled, after its cached tokens.
  std::vector<ScheduledChunk> prefills, decodes;
  for (const ScheduledChunk& c : out.chunks) {
    (c.num_tokens == 1 && c.samples && c.start > 0 ? decodes : prefills).push_back(c);
  }
  StepLogits result;
  std::vector<at::Tensor> hidden;
  if (!prefills.empty()) {
    at::Tensor h = prefill(model_, cache_, scheduler, kv, prefills);
    if (h.size(0) > 0) hidden.push_back(std::move(h));
  }
  if (!decodes.empty()) {
    hidden.push_back(decode(decode_inputs(scheduler, kv, decodes, cache_.block_size(), previous)));
  }
  if (!out.copies.blocks.empty() || !out.copies.slots.empty()) {
    copy_forks(cache_, out.copies, model_.device());
  }
  std::map<int64_t, int64_t> row_of_request;
  for (const auto* list : {&prefills, &decodes}) {
    for (const ScheduledChunk& c : *list) {
      if (!c.samples) continue;
      row_of_request[c.request] = static_cast<int64_t>(result.requests.size());
      result.requests.push_back(c.request);
    }
  }
  if (hidden.empty()) return result;
  at::Tensor logits = model_.logits(hidden.size() == 1 ? hidden[0] : at::cat(hidden));
  std::vector<int64_t> parents;
  for (const auto& [parent, child] : out.forks) {
    parents.push_back(row_of_request.at(parent));
    result.requests.push_back(child);
  }
  if (!parents.empty()) {
    logits = at::cat({logits, logits.index_select(0, device_tensor(parents, logits.device()))});
  }
  result.logits = logits;
  return result;
}

}  // namespace verlpp::rollout
