#include "verlpp/trainer/step_metrics.h"

#include <ATen/ATen.h>

#include <limits>

#include "verlpp/core/error.h"

namespace verlpp::trainer {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void add_stats(Metrics& out, const std::string& prefix, const at::Tensor& values) {
  const bool empty = values.numel() == 0;
  const at::Tensor v = values.to(at::kDouble);
  out[prefix + "/mean"] = empty ? kNaN : v.mean().item<double>();
  out[prefix + "/max"] = empty ? kNaN : v.max().item<double>();
  out[prefix + "/min"] = empty ? kNaN : v.min().item<double>();
}

double clip_ratio(const at::Tensor& lengths, std::int64_t limit) {
  if (lengths.numel() == 0) return kNaN;
  return lengths.eq(static_cast<double>(limit)).to(at::kDouble).mean().item<double>();
}

at::Tensor prompt_lengths(const StepBatch& batch) {
  return batch.attention_mask.narrow(1, 0, batch.attention_mask.size(1) - batch.max_response_length)
      .to(at::kDouble)
      .sum(-1);
}

at::Tensor response_lengths(const StepBatch& batch) {
  return batch.attention_mask
      .narrow(1, batch.attention_mask.size(1) - batch.max_response_length,
              batch.max_response_length)
      .to(at::kDouble)
      .sum(-1);
}

void add_value_metrics(Metrics& out, const at::Tensor& values, const at::Tensor& returns,
                       const at::Tensor& mask) {
  const at::Tensor valid_values = values.masked_select(mask).to(at::kDouble);
  const at::Tensor valid_returns = returns.masked_select(mask).to(at::kDouble);
  add_stats(out, "critic/values", valid_values);
  if (valid_values.numel() == 0) {
    out["critic/vf_explained_var"] = kNaN;
    return;
  }
  const double diff_var = (valid_returns - valid_values).var().item<double>();
  const double return_var = valid_returns.var().item<double>();
  out["critic/vf_explained_var"] = 1.0 - diff_var / (return_var + 1e-5);
}

}  // namespace

Metrics compute_data_metrics(const StepBatch& batch) {
  Metrics out;
  const at::Tensor mask = batch.response_mask.to(at::kBool);
  const at::Tensor response_length = response_lengths(batch);
  const at::Tensor prompt_length = prompt_lengths(batch);
  const at::Tensor non_aborted = response_length.ne(0);
  add_stats(out, "critic/score", batch.token_level_scores.sum(-1).masked_select(non_aborted));
  add_stats(out, "critic/rewards", batch.token_level_rewards.sum(-1).masked_select(non_aborted));
  add_stats(out, "critic/advantages", batch.advantages.masked_select(mask));
  add_stats(out, "critic/returns", batch.returns.masked_select(mask));
  if (batch.values) add_value_metrics(out, *batch.values, batch.returns, mask);
  add_stats(out, "response_length", response_length);
  out["response_length/clip_ratio"] = clip_ratio(response_length, batch.max_response_length);
  const at::Tensor kept = response_length.masked_select(non_aborted);
  add_stats(out, "response_length_non_aborted", kept);
  out["response_length_non_aborted/clip_ratio"] = clip_ratio(kept, batch.max_response_length);
  out["response/aborted_ratio"] = (~non_aborted).to(at::kDouble).mean().item<double>();
  add_stats(out, "prompt_length", prompt_length);
  out["prompt_length/clip_ratio"] = clip_ratio(prompt_length, batch.max_prompt_length);
  return out;
}

Metrics compute_timing_metrics(const StepBatch& batch,
                               const std::map<std::string, double>& timing_s) {
  const double response_tokens = response_lengths(batch).sum().item<double>();
  const double all_tokens = response_tokens + prompt_lengths(batch).sum().item<double>();
  Metrics out;
  for (const auto& [name, seconds] : timing_s) {
    out["timing_s/" + name] = seconds;
    if (name == "gen") {
      out["timing_per_token_ms/gen"] = seconds * 1000.0 / response_tokens;
    } else if (name == "ref" || name == "values" || name == "adv" || name == "update_critic" ||
               name == "update_actor") {
      out["timing_per_token_ms/" + name] = seconds * 1000.0 / all_tokens;
    }
  }
  return out;
}

Metrics compute_throughput_metrics(const StepBatch& batch,
                                   const std::map<std::string, double>& timing_s,
                                   std::int64_t n_gpus) {
  const auto step = timing_s.find("step");
  if (step == timing_s.end()) throw Error("throughput metrics need timing_s/step");
  const double tokens = batch.attention_mask.to(at::kDouble).sum().item<double>();
  return {{"perf/total_num_tokens", tokens},
          {"perf/time_per_step", step->second},
          {"perf/throughput", tokens / (step->second * static_cast<double>(n_gpus))}};
}

Metrics compute_num_turns_metrics(const std::string& prefix) {
  constexpr double kSingleTurn = 2.0;  // the user's prompt and the response
  return {{prefix + "/num_turns/mean", kSingleTurn},
          {prefix + "/num_turns/max", kSingleTurn},
          {prefix + "/num_turns/min", kSingleTurn}};
}

}  // namespace verlpp::trainer
