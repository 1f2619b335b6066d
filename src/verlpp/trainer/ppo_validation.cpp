#include "verlpp/trainer/ppo_validation.h"

#include <ATen/ATen.h>

#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/config/home_path.h"
#include "verlpp/core/error.h"
#include "verlpp/trainer/batch_rewards.h"
#include "verlpp/trainer/data_parallel.h"
#include "verlpp/trainer/generation_dump.h"
#include "verlpp/trainer/ppo_step.h"
#include "verlpp/trainer/step_metrics.h"
#include "verlpp/trainer/validation_metrics.h"

namespace verlpp::trainer {
namespace {

// A seed stream apart from the training steps' (validation samples only when val_kwargs.do_sample).
constexpr std::int64_t kValidationSeedOffset = 1'000'003;

// With distillation teachers: each response's mean over its tokens of the reverse KL(student ||
// teacher) over the whole vocabulary (the student at the rollout temperature, the teacher at 1,
// as in training), on the student's own validation outputs. [B] fp64 on the CPU.
at::Tensor mean_reverse_kl(PpoContext& ctx, const data::Batch& batch) {
  const at::Tensor kl = ctx.teachers->reverse_kl(batch, ctx.actor->model(),
                                                 ctx.actor->settings().forward.temperature);
  const at::Tensor mask = batch.tensor("response_mask").to(kl.device(), at::kDouble);
  return ((kl.to(at::kDouble) * mask).sum(1) / mask.sum(1).clamp_min(1.0))
      .to(at::kCPU)
      .contiguous();
}

// The actor's full weights in its model for the life of the object, released however the scope
// ends (a stopped generation throws).
class GatheredWeights {
 public:
  explicit GatheredWeights(engine::Actor& actor) : actor_(actor) { actor_.gather_weights(); }
  ~GatheredWeights() { actor_.release_weights(); }
  GatheredWeights(const GatheredWeights&) = delete;
  GatheredWeights& operator=(const GatheredWeights&) = delete;

 private:
  engine::Actor& actor_;
};

// Generates and scores the validation rows `rows` (consecutive: their samples draw as they would in
// the whole set); appends their samples, and with `records` their generation records
// (trainer.validation_data_dir).
void add_samples(PpoContext& ctx, const std::vector<std::int64_t>& rows, std::int64_t global_step,
                 std::vector<ValidationSample>& samples,
                 std::vector<nlohmann::ordered_json>* records, const rollout::StopCheck& stop) {
  data::Batch prompts = ctx.val_data->collate(rows);
  std::vector<nlohmann::json> uids;
  for (const auto row : rows) uids.emplace_back("val" + std::to_string(row));
  prompts.set_non_tensor("uid", uids);
  data::Batch batch;
  at::Tensor reverse_kl;
  {
    const GatheredWeights weights(*ctx.actor);
    batch = generate_on_ranks(
        ctx.actor->model(), prompts.repeat_interleave(ctx.config.rollout.val_kwargs.n),
        ctx.val_sampling,
        rollout_seed(ctx.config.rollout.seed + kValidationSeedOffset, global_step), ctx.world,
        rows.front() * ctx.config.rollout.val_kwargs.n, stop);
    if (ctx.teachers) reverse_kl = mean_reverse_kl(ctx, batch);
  }
  const BatchRewards rewards =
      compute_batch_rewards(batch, *ctx.tokenizer, ctx.reward, ctx.config.data.reward_fn_key);
  const at::Tensor totals = rewards.token_level_scores.sum(1).to(at::kDouble).contiguous();
  if (records != nullptr) {
    const std::vector<double> scores(totals.data_ptr<double>(),
                                     totals.data_ptr<double>() + totals.numel());
    for (auto& record :
         generation_records(batch, *ctx.tokenizer, scores, rewards.extra, global_step)) {
      records->push_back(std::move(record));
    }
  }
  for (std::int64_t i = 0; i < batch.size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    ValidationSample sample;
    const nlohmann::json& source = batch.non_tensor(ctx.config.data.reward_fn_key)[k];
    sample.data_source = source.is_string() ? source.get<std::string>() : source.dump();
    sample.uid = batch.non_tensor("uid")[k].get<std::string>();
    sample.values["reward"] = totals[i].item<double>();
    if (reverse_kl.defined() && !std::isnan(reverse_kl[i].item<double>())) {
      sample.values["distillation/reverse_kl"] = reverse_kl[i].item<double>();
    }
    for (const auto& [name, values] : rewards.extra) sample.values[name] = values[k];
    sample.pred = rewards.extracted[k];
    samples.push_back(std::move(sample));
  }
}

// The validation pass; none when `stop` was set and returned true (GenerationStopped).
std::optional<Metrics> run_validation(PpoContext& ctx, std::int64_t global_step,
                                      const rollout::StopCheck& stop) {
  if (!ctx.val_data) throw Error("validation: data.val_files is empty");
  const std::int64_t size = ctx.val_data->size();
  const std::int64_t piece = ctx.config.data.val_batch_size.value_or(size);
  std::vector<ValidationSample> samples;
  const std::optional<std::string>& dump_dir = ctx.config.trainer.validation_data_dir;
  std::vector<nlohmann::ordered_json> records;
  for (std::int64_t start = 0; start < size; start += std::max<std::int64_t>(piece, 1)) {
    std::vector<std::int64_t> rows(static_cast<std::size_t>(std::min(piece, size - start)));
    std::iota(rows.begin(), rows.end(), start);
    try {
      add_samples(ctx, rows, global_step, samples, dump_dir ? &records : nullptr, stop);
    } catch (const rollout::GenerationStopped&) {
      return std::nullopt;
    }
  }
  if (dump_dir && ctx.world.is_main()) {
    write_generations(config::expand_home(*dump_dir), global_step, records);
  }
  Metrics out = validation_metrics(samples);
  const Metrics turns = compute_num_turns_metrics("val-aux");
  out.insert(turns.begin(), turns.end());
  return out;
}

}  // namespace

Metrics validate(PpoContext& ctx, std::int64_t global_step) {
  return *run_validation(ctx, global_step, {});
}

std::optional<Metrics> validate(PpoContext& ctx, std::int64_t global_step,
                                const StopRequest& stop) {
  return run_validation(ctx, global_step, [&stop] { return stop.requested(); });
}

}  // namespace verlpp::trainer
