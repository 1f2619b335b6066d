#include "verlpp/rollout/model_runner.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "verlpp/core/error.h"

namespace verlpp::rollout {

namespace {

// The cache row of token i of a request holding `blocks`.
int64_t row_of(const std::vector<int64_t>& blocks, int64_t block_size, int64_t i) {
  return blocks[static_cast<size_t>(i / block_size)] * block_size + i % block_size;
}

at::Tensor on(const std::vector<int64_t>& values, const at::Device& device,
              at::ScalarType dtype = at::kLong) {
  return at::tensor(values, at::kLong).to(device, dtype);
}

// The prefill of whole sequences: hidden states of their last tokens [S, hidden].
at::Tensor prefill(const model::CausalLM& model, PagedKVCache& cache, const Scheduler& scheduler,
                   const KVCacheManager& kv, const std::vector<ScheduledChunk>& chunks) {
  std::vector<int64_t> ids, positions, rows, slots, cu = {0};
  for (const ScheduledChunk& c : chunks) {
    const Request& r = scheduler.request(c.request);
    const std::vector<int64_t>& blocks = kv.block_table(c.request);
    for (int64_t i = 0; i < c.num_tokens; ++i) {
      ids.push_back(r.token(i));
      positions.push_back(r.position(i));
      rows.push_back(row_of(blocks, cache.block_size(), i));
    }
    slots.push_back(std::max<int64_t>(kv.state_slot(c.request), 0));
    cu.push_back(static_cast<int64_t>(ids.size()));
  }
  const at::Device dev = model.device();
  const at::Tensor hidden =
      model.prefill(on(ids, dev), on(positions, dev), at::tensor(cu, at::kLong), on(rows, dev),
                    on(slots, dev), cache.view());
  std::vector<int64_t> last(cu.begin() + 1, cu.end());
  for (int64_t& t : last) --t;
  return hidden.index_select(0, on(last, dev));
}

// One decode step for sequences whose last token (the one sampled last step) is new: [N, hidden].
at::Tensor decode(const model::CausalLM& model, PagedKVCache& cache, const Scheduler& scheduler,
                  const KVCacheManager& kv, const std::vector<ScheduledChunk>& chunks) {
  std::vector<int64_t> tokens, positions, lengths, new_rows, slots, pages, offsets;
  const int64_t bs = cache.block_size();
  for (const ScheduledChunk& c : chunks) {
    const Request& r = scheduler.request(c.request);
    const std::vector<int64_t>& blocks = kv.block_table(c.request);
    tokens.push_back(r.token(c.start));
    positions.push_back(r.position(c.start));
    lengths.push_back(c.start + 1);
    new_rows.push_back(row_of(blocks, bs, c.start));
    slots.push_back(std::max<int64_t>(kv.state_slot(c.request), 0));
    offsets.push_back(static_cast<int64_t>(pages.size()));
    pages.insert(pages.end(), blocks.begin(), blocks.end());
  }
  const at::Device dev = model.device();
  model::DecodeView view;
  view.page_size = bs;
  view.pages = on(pages, dev, at::kInt);
  view.page_offsets = on(offsets, dev, at::kInt);
  view.lengths = on(lengths, dev);
  view.lengths_i32 = view.lengths.to(at::kInt);
  view.max_length = *std::max_element(lengths.begin(), lengths.end());
  view.new_rows = on(new_rows, dev);
  view.state_slots = on(slots, dev);
  return model.decode(on(tokens, dev), on(positions, dev), view, cache.view());
}

void copy_forks(PagedKVCache& cache, const ForkCopies& copies, const at::Device& dev) {
  std::vector<int64_t> src, dst;
  for (const auto& [from, to] : copies.blocks) {
    src.push_back(from);
    dst.push_back(to);
  }
  cache.copy_blocks(on(src, dev), on(dst, dev));
  src.clear();
  dst.clear();
  for (const auto& [from, to] : copies.slots) {
    src.push_back(from);
    dst.push_back(to);
  }
  cache.copy_state_slots(on(src, dev), on(dst, dev));
}

}  // namespace

ModelRunner::ModelRunner(const model::CausalLM& model, PagedKVCache& cache)
    : model_(model), cache_(cache) {}

ModelRunner::StepLogits ModelRunner::run(const SchedulerOutput& out, const Scheduler& scheduler,
                                         const KVCacheManager& kv) {
  std::vector<ScheduledChunk> prefills, decodes;
  for (const ScheduledChunk& c : out.chunks) {
    if (c.start == 0 && c.samples) {
      prefills.push_back(c);
    } else if (c.num_tokens == 1 && c.samples) {
      decodes.push_back(c);
    } else {
      throw Error(fmt::format(
          "rollout: request {} continues from token {} with {} tokens (chunked prefill or a "
          "prefix-cache hit), which the model runner does not take yet",
          c.request, c.start, c.num_tokens));
    }
  }
  StepLogits result;
  std::vector<at::Tensor> hidden;
  if (!prefills.empty()) hidden.push_back(prefill(model_, cache_, scheduler, kv, prefills));
  if (!decodes.empty()) hidden.push_back(decode(model_, cache_, scheduler, kv, decodes));
  copy_forks(cache_, out.copies, model_.device());
  std::map<int64_t, int64_t> row_of_request;
  for (const auto* list : {&prefills, &decodes}) {
    for (const ScheduledChunk& c : *list) {
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
    logits = at::cat({logits, logits.index_select(0, on(parents, logits.device()))});
  }
  result.logits = logits;
  return result;
}

}  // namespace verlpp::rollout
