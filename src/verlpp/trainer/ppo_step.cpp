#include "verlpp/trainer/ppo_step.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "verlpp/algo/advantage.h"
#include "verlpp/algo/agg_loss.h"
#include "verlpp/algo/groups.h"
#include "verlpp/algo/kl_controller.h"
#include "verlpp/algo/pf_ppo.h"
#include "verlpp/algo/rollout_correction.h"
#include "verlpp/algo/rollout_probs_diff.h"
#include "verlpp/config/home_path.h"
#include "verlpp/core/device_memory.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/core/host_memory.h"
#include "verlpp/core/splitmix64.h"
#include "verlpp/data/seqlen_balancing.h"
#include "verlpp/engine/log_prob.h"
#include "verlpp/trainer/batch_rewards.h"
#include "verlpp/trainer/data_parallel.h"
#include "verlpp/trainer/flops.h"
#include "verlpp/trainer/generation_dump.h"
#include "verlpp/trainer/ppo_settings.h"

namespace verlpp::trainer {
namespace {

// The reward's named values per row (verl's reward_extra_info) travel in the batch under this
// prefix, double [batch] each: gdpo's per-reward advantages read them.
const std::string kRewardExtraInfo = "reward_extra_info/";
// Mixed into the step's seed for PF-PPO's draws ("PF").
constexpr std::uint64_t kPfPpoSeedKey = 0x5046;

// "step<N>-<i>" for i from first (verl: uuid4; these repeat on a resumed run).
std::vector<std::string> prompt_uids(std::int64_t global_step, std::size_t first,
                                     std::size_t count) {
  std::vector<std::string> uids;
  for (std::size_t i = first; i < first + count; ++i) {
    uids.push_back("step" + std::to_string(global_step) + "-" + std::to_string(i));
  }
  return uids;
}

// The step's `gen_batch`-th generation batch (0 for the first; more with filter_groups): its
// prompts' uids continue the numbering after `first_uid`, its draws come from their own seed. The
// actor's weights must be gathered.
data::Batch generate(PpoContext& ctx, std::int64_t global_step,
                     const std::vector<std::int64_t>& rows, std::size_t first_uid,
                     std::int64_t gen_batch) {
  data::Batch prompts = ctx.train_data->collate(rows);
  const auto uids = prompt_uids(global_step, first_uid, rows.size());
  prompts.set_non_tensor("uid", std::vector<nlohmann::json>(uids.begin(), uids.end()));
  const data::Batch repeated = prompts.repeat_interleave(ctx.config.rollout.n);
  const std::uint64_t seed = rollout_seed(ctx.config.rollout.seed, global_step);
  return generate_on_ranks(
      ctx.actor->model(), repeated, ctx.train_sampling,
      gen_batch == 0 ? seed : splitmix64(seed, static_cast<std::uint64_t>(gen_batch)), ctx.world);
}

std::vector<std::int64_t> sequence_lengths(const at::Tensor& attention_mask) {
  const at::Tensor lengths = attention_mask.ne(0).sum(1).to(at::kCPU).to(at::kLong).contiguous();
  const auto* p = lengths.data_ptr<std::int64_t>();
  return {p, p + lengths.numel()};
}

// trainer.balance_batch: rows reordered so that each data-parallel rank's contiguous slice carries
// an equal share of the workload (data::balanced_order), with verl's global_seqlen/* metrics.
data::Batch balance_batch(const PpoContext& ctx, const data::Batch& batch, Metrics& metrics) {
  const std::vector<std::int64_t> lengths = sequence_lengths(batch.tensor("attention_mask"));
  const std::vector<std::int64_t> order = data::balanced_order(lengths, ctx.world.size());
  const auto unbalance = data::seqlen_unbalance_metrics(lengths, order, ctx.world.size());
  metrics.insert(unbalance.begin(), unbalance.end());
  return batch.select(order);
}

std::vector<std::string> uids_of(const data::Batch& batch) {
  std::vector<std::string> out;
  for (const auto& uid : batch.non_tensor("uid")) out.push_back(uid.get<std::string>());
  return out;
}

// verl's decoupled rollout correction (compute_rollout_correction_and_add_to_batch): with the
// rollout's log-probs and without bypass_mode, IS weights against the recomputed old_log_probs,
// rejection (response_mask loses the rejected tokens) and the rollout_corr/* metrics.
void correct_rollout(const PpoContext& ctx, data::Batch& batch, Metrics& metrics) {
  const algo::RolloutCorrectionConfig& rc = ctx.config.algorithm.rollout_correction;
  if (rc.bypass_mode || !batch.has_tensor("rollout_log_probs")) return;
  const algo::RolloutCorrectionResult r =
      algo::compute_rollout_correction(batch.tensor("old_log_probs").to(at::kCPU, at::kFloat),
                                       batch.tensor("rollout_log_probs").to(at::kCPU, at::kFloat),
                                       batch.tensor("response_mask").to(at::kCPU), rc);
  batch.set_tensor("response_mask", r.response_mask);
  if (r.rollout_is_weights.defined()) batch.set_tensor("rollout_is_weights", r.rollout_is_weights);
  metrics.insert(r.metrics.begin(), r.metrics.end());
}

// token_level_rewards (KL in the reward when configured), the rollout correction, advantages and
// returns.
void compute_advantages(PpoContext& ctx, data::Batch& batch, Metrics& metrics) {
  at::Tensor mask = batch.tensor("response_mask").to(at::kCPU).to(at::kFloat);
  at::Tensor rewards = batch.tensor("token_level_scores").to(at::kCPU);
  if (ctx.config.algorithm.use_kl_in_reward) {
    algo::KLInRewardResult kl =
        algo::apply_kl_penalty(rewards, batch.tensor("old_log_probs").to(at::kCPU),
                               batch.tensor("ref_log_prob").to(at::kCPU), mask, *ctx.kl_ctrl,
                               ctx.config.algorithm.kl_penalty);
    rewards = kl.token_level_rewards;
    metrics.insert(kl.metrics.begin(), kl.metrics.end());
  }
  correct_rollout(ctx, batch, metrics);
  mask = batch.tensor("response_mask").to(at::kCPU).to(at::kFloat);
  algo::AdvantageInputs in;
  in.token_level_rewards = rewards;
  in.response_mask = mask;
  in.index = algo::group_index_from_uids(uids_of(batch));
  if (batch.has_tensor("values")) in.values = batch.tensor("values").to(at::kCPU);
  in.old_log_probs = batch.tensor("old_log_probs").to(at::kCPU);
  for (const auto& [key, values] : batch.tensors()) {
    if (key.starts_with(kRewardExtraInfo))
      in.reward_values[key.substr(kRewardExtraInfo.size())] = values;
  }
  if (batch.has_tensor("sum_pi_squared")) {
    in.sum_pi_squared = batch.tensor("sum_pi_squared").to(at::kCPU);
  }
  if (batch.has_tensor("rollout_is_weights")) {
    in.rollout_is_weights = batch.tensor("rollout_is_weights").to(at::kCPU);
  }
  if (batch.has_tensor("reward_baselines")) {
    in.reward_baselines = batch.tensor("reward_baselines").to(at::kCPU);
  }
  const algo::AdvantageResult adv =
      algo::compute_advantage(ctx.config.algorithm.adv_estimator, in, advantage_config(ctx.config));
  batch.set_tensor("token_level_rewards", rewards);
  batch.set_tensor("advantages", adv.advantages.to(at::kFloat));
  batch.set_tensor("returns", adv.returns.to(at::kFloat));
}

// verl's bypass mode: the rollout's log-probs stand for old_log_probs; nothing is recomputed.
void bypass_old_log_prob(data::Batch& batch) {
  if (!batch.has_tensor("rollout_log_probs")) {
    throw Error(
        "algorithm.rollout_correction.bypass_mode=true needs the rollout's log-probs; set "
        "actor_rollout_ref.rollout.calculate_log_probs=true");
  }
  batch.set_tensor("old_log_probs", batch.tensor("rollout_log_probs"));
}

// Each rank scores its slice; every rank gets the whole batch's log-probs and entropy.
void old_log_prob(PpoContext& ctx, data::Batch& batch, Metrics& metrics) {
  const engine::LogProbOutput out =
      ctx.actor->compute_log_prob(local_rows(batch, ctx.world, "old_log_prob"), true);
  const at::Tensor log_probs = ctx.world.all_gather(out.log_probs);
  const at::Tensor entropy = ctx.world.all_gather(out.entropy);
  batch.set_tensor("old_log_probs", log_probs);
  if (out.sum_pi_squared.defined()) {
    batch.set_tensor("sum_pi_squared", ctx.world.all_gather(out.sum_pi_squared));
  }
  const at::Tensor mask = batch.tensor("response_mask").to(entropy.device());
  metrics["actor/entropy"] =
      algo::agg_loss(entropy, mask, ctx.config.actor.loss_agg_mode).item<double>();
  if (batch.has_tensor("rollout_log_probs")) {
    for (const auto& [key, value] : algo::rollout_probs_diff_metrics(
             batch.tensor("rollout_log_probs"), log_probs, batch.tensor("response_mask"))) {
      metrics[key] = value;
    }
  }
}

// The actor update on this rank's slice; MFU over the whole batch and every rank's device.
void update_actor(PpoContext& ctx, const data::Batch& batch, PhaseTimer& timer, Metrics& metrics) {
  const data::Batch local = local_rows(batch, ctx.world, "update_actor");
  const Metrics actor = timer.time("update_actor", [&] { return ctx.actor->update_policy(local); });
  metrics.insert(actor.begin(), actor.end());
  const double flops = training_flops(ctx.shape, sequence_lengths(batch.tensor("attention_mask"))) *
                       static_cast<double>(ctx.config.actor.ppo_epochs);
  metrics["perf/mfu/actor"] =
      mfu(flops, timer.seconds().at("update_actor"), ctx.device_name, ctx.world.size());
  if (const auto peak = device_memory_peak(ctx.actor->model().device())) {
    metrics["perf/max_memory_allocated_gb"] = peak->max_allocated_gib;
    metrics["perf/max_memory_reserved_gb"] = peak->max_reserved_gib;
  }
  if (const auto used = used_memory_bytes()) {
    metrics["perf/cpu_memory_used_gb"] = *used / (1024.0 * 1024.0 * 1024.0);
  }
}

// A NaN or infinite loss or gradient norm (a NaN teacher, reward or data row) stops the run before
// the step's checkpoint: the optimizer skipped the update, so the last checkpoint is still good.
void require_finite(const Metrics& metrics, std::int64_t global_step) {
  for (const char* key : {"actor/loss", "actor/grad_norm", "critic/vf_loss", "critic/grad_norm"}) {
    const auto it = metrics.find(key);
    if (it != metrics.end() && !std::isfinite(it->second)) {
      throw Error(fmt::format(
          "step {}: {} is {}; stopping before anything of this step is saved (the update was "
          "skipped). Look for a NaN learning rate, teacher, reward or data row.",
          global_step, key, it->second));
    }
  }
}

StepBatch step_batch(const data::Batch& batch) {
  StepBatch s;
  s.token_level_scores = batch.tensor("token_level_scores").to(at::kCPU);
  s.token_level_rewards = batch.tensor("token_level_rewards").to(at::kCPU);
  s.advantages = batch.tensor("advantages").to(at::kCPU);
  s.returns = batch.tensor("returns").to(at::kCPU);
  s.response_mask = batch.tensor("response_mask").to(at::kCPU);
  s.attention_mask = batch.tensor("attention_mask").to(at::kCPU);
  s.max_response_length = s.response_mask.size(1);
  s.max_prompt_length = s.attention_mask.size(1) - s.max_response_length;
  if (batch.has_tensor("values")) s.values = batch.tensor("values").to(at::kCPU);
  return s;
}

// ReMax's baseline (verl's trainer, adv_estimator remax: `gen_max`): each prompt's greedy
// response (do_sample false) scored by the reward function, the sum of its token-level scores
// repeated for the prompt's n rows: reward_baselines fp32 [rows × n].
at::Tensor greedy_baselines(PpoContext& ctx, const std::vector<std::int64_t>& rows) {
  const data::Batch prompts = ctx.train_data->collate(rows);
  rollout::SamplingParams greedy = ctx.train_sampling;
  greedy.do_sample = false;
  const data::Batch generated =
      generate_on_ranks(ctx.actor->model(), prompts, greedy, 0, ctx.world);
  const BatchRewards rewards =
      compute_batch_rewards(generated, *ctx.tokenizer, ctx.reward, ctx.config.data.reward_fn_key);
  return rewards.token_level_scores.sum(-1).to(at::kFloat).repeat_interleave(ctx.config.rollout.n);
}

// A generation batch with its rewards: token_level_scores and reward_extra_info/* (see generate),
// and reward_baselines for ReMax.
data::Batch generate_scored(PpoContext& ctx, std::int64_t global_step,
                            const std::vector<std::int64_t>& rows, std::size_t first_uid,
                            std::int64_t gen_batch, PhaseTimer& timer) {
  data::Batch batch =
      timer.time("gen", [&] { return generate(ctx, global_step, rows, first_uid, gen_batch); });
  if (ctx.config.algorithm.adv_estimator == "remax") {
    batch.set_tensor("reward_baselines",
                     timer.time("gen_max", [&] { return greedy_baselines(ctx, rows); }));
  }
  ctx.actor->release_weights();
  if (ctx.config.rollout.free_cache_engine) {
    release_cached_device_memory(ctx.actor->model().device());
  }
  timer.time("reward", [&] {
    const BatchRewards rewards =
        compute_batch_rewards(batch, *ctx.tokenizer, ctx.reward, ctx.config.data.reward_fn_key);
    batch.set_tensor("token_level_scores", rewards.token_level_scores);
    for (const auto& [key, values] : rewards.extra) {
      batch.set_tensor(kRewardExtraInfo + key, at::tensor(values, at::kDouble));
    }
  });
  return batch;
}

// The rows of `batch` whose prompt (uid) has more than one distinct value of
// algorithm.filter_groups.metric among its responses (largest != smallest), or a single response
// (DAPO's filter, verl's std > 0; equal values count as equal, without numpy's rounding of their
// mean), in row order, and how many prompts they hold.
struct KeptGroups {
  std::vector<std::int64_t> rows;
  std::int64_t prompts = 0;
};
KeptGroups varied_groups(const data::Batch& batch, const std::string& metric) {
  at::Tensor values;
  if (metric == "seq_reward" || metric == "seq_final_reward") {
    values = batch.tensor("token_level_scores").sum(1);
  } else if (batch.has_tensor(kRewardExtraInfo + metric)) {
    values = batch.tensor(kRewardExtraInfo + metric);
  } else {
    std::string given;
    for (const auto& [key, tensor] : batch.tensors()) {
      if (key.starts_with(kRewardExtraInfo)) {
        given += (given.empty() ? "" : ", ") + key.substr(kRewardExtraInfo.size());
      }
    }
    throw Error(fmt::format(
        "algorithm.filter_groups.metric: the reward gives no '{}' (it gives: {}; or seq_reward, "
        "seq_final_reward)",
        metric, given.empty() ? "nothing named" : given));
  }
  const algo::Groups groups =
      algo::make_groups(algo::group_index_from_uids(uids_of(batch)), batch.size(), "filter_groups");
  const at::Tensor v = values.to(at::kCPU, at::kDouble);
  const auto per_group = [&](double start, const char* reduce) {
    return at::full({groups.count}, start, v.options())
        .scatter_reduce(0, groups.inverse, v, reduce);
  };
  const at::Tensor group_kept = per_group(-INFINITY, "amax").ne(per_group(INFINITY, "amin")) |
                                at::bincount(groups.inverse, {}, groups.count).eq(1);
  const at::Tensor rows =
      group_kept.index_select(0, groups.inverse).nonzero().view(-1).contiguous();
  KeptGroups kept;
  kept.prompts = group_kept.sum().item<std::int64_t>();
  kept.rows.assign(rows.data_ptr<std::int64_t>(), rows.data_ptr<std::int64_t>() + rows.numel());
  return kept;
}

// algorithm.filter_groups (DAPO's dynamic sampling, verl's recipe/dapo trainer): generation
// batches of data.gen_batch_size prompts (the first `rows`, then the loader's next ones) are
// generated and scored and only their prompts with varied rewards kept, until train_batch_size
// prompts are; the first train_batch_size x n rows of them go on. train/num_gen_batches counts the
// batches. Throws verlpp::Error after max_num_gen_batches (> 0) batches without enough.
data::Batch dynamic_sampling(PpoContext& ctx, std::int64_t global_step,
                             std::vector<std::int64_t> rows, PhaseTimer& timer, Metrics& metrics) {
  const config::AlgorithmConfig::FilterGroups& f = ctx.config.algorithm.filter_groups;
  const std::int64_t wanted = ctx.config.data.train_batch_size;
  std::vector<data::Batch> kept;
  std::int64_t prompts = 0;
  std::size_t uids = 0;
  for (std::int64_t gen_batch = 0;; ++gen_batch) {
    if (gen_batch > 0) {
      ctx.actor->gather_weights();
      rows = ctx.loader->next();
    }
    const data::Batch batch = generate_scored(ctx, global_step, rows, uids, gen_batch, timer);
    uids += rows.size();
    const KeptGroups k = varied_groups(batch, f.metric.value_or(""));
    prompts += k.prompts;
    kept.push_back(batch.select(k.rows));
    if (prompts >= wanted) {
      metrics["train/num_gen_batches"] = static_cast<double>(gen_batch + 1);
      break;
    }
    if (f.max_num_gen_batches > 0 && gen_batch + 1 >= f.max_num_gen_batches) {
      throw Error(fmt::format(
          "algorithm.filter_groups: after {} generation batches (max_num_gen_batches) only {} of "
          "the {} prompts a step needs had rewards that vary; the data may be too hard or too "
          "easy for the model (max_num_gen_batches=0 generates until there are enough)",
          gen_batch + 1, prompts, wanted));
    }
  }
  return data::Batch::concat(kept).slice(0, wanted * ctx.config.rollout.n);
}

// algorithm.use_pf_ppo after GAE (algo/pf_ppo.h): the batch's rows drawn again by their scores,
// the same rows on every rank (a CPU generator seeded by the step).
data::Batch pf_ppo_resampled(const PpoContext& ctx, const data::Batch& batch,
                             std::int64_t global_step) {
  const config::AlgorithmConfig& al = ctx.config.algorithm;
  const at::Tensor scores = batch.tensor("token_level_scores").sum(1);
  at::Generator generator = make_generator(
      at::kCPU, splitmix64(rollout_seed(ctx.config.rollout.seed, global_step), kPfPpoSeedKey));
  const at::Tensor rows =
      algo::pf_ppo_sample(scores, al.pf_ppo_reweight_method, al.pf_ppo_weight_pow, generator)
          .contiguous();
  return batch.select(std::vector<std::int64_t>(rows.data_ptr<std::int64_t>(),
                                                rows.data_ptr<std::int64_t>() + rows.numel()));
}

// trainer.rollout_data_dir: the step's generations with their scores and reward_extra_info, written
// by rank 0 (every rank holds the whole batch).
void dump_generations(const PpoContext& ctx, const data::Batch& batch, std::int64_t global_step) {
  if (!ctx.world.is_main()) return;
  const at::Tensor totals =
      batch.tensor("token_level_scores").sum(1).to(at::kCPU, at::kDouble).contiguous();
  const std::vector<double> scores(totals.data_ptr<double>(),
                                   totals.data_ptr<double>() + totals.numel());
  std::map<std::string, std::vector<double>> extra;
  for (const auto& [key, tensor] : batch.tensors()) {
    if (!key.starts_with(kRewardExtraInfo)) continue;
    const at::Tensor values = tensor.to(at::kCPU, at::kDouble).contiguous();
    extra[key.substr(kRewardExtraInfo.size())] =
        std::vector<double>(values.data_ptr<double>(), values.data_ptr<double>() + values.numel());
  }
  write_generations(config::expand_home(*ctx.config.trainer.rollout_data_dir), global_step,
                    generation_records(batch, *ctx.tokenizer, scores, extra, global_step));
}

}  // namespace

std::uint64_t rollout_seed(std::int64_t rollout_seed_key, std::int64_t global_step) {
  // Distinct, well-mixed seeds per step.
  return splitmix64(static_cast<std::uint64_t>(rollout_seed_key),
                    static_cast<std::uint64_t>(global_step));
}

StepOutput train_step(PpoContext& ctx, std::int64_t global_step,
                      const std::vector<std::int64_t>& rows, PhaseTimer& timer) {
  StepOutput out;
  timer.time("update_weights", [&] { ctx.actor->gather_weights(); });
  data::Batch batch = ctx.config.algorithm.filter_groups.enable
                          ? dynamic_sampling(ctx, global_step, rows, timer, out.metrics)
                          : generate_scored(ctx, global_step, rows, 0, 0, timer);
  if (ctx.config.trainer.balance_batch) batch = balance_batch(ctx, batch, out.metrics);
  if (ctx.teachers) {
    timer.time("teacher", [&] {
      ctx.teachers->score(batch, ctx.world);
      if (ctx.config.rollout.free_cache_engine) release_cached_device_memory(ctx.device);
    });
  }
  if (ctx.config.algorithm.rollout_correction.bypass_mode) {
    bypass_old_log_prob(batch);
  } else {
    timer.time("old_log_prob", [&] { old_log_prob(ctx, batch, out.metrics); });
  }
  if (ctx.ref) {
    timer.time("ref", [&] {
      const data::Batch local = local_rows(batch, ctx.world, "ref");
      batch.set_tensor("ref_log_prob", ctx.world.all_gather(ctx.ref->log_probs(local)));
    });
  }
  if (ctx.critic) {
    timer.time("values", [&] {
      const data::Batch local = local_rows(batch, ctx.world, "values");
      batch.set_tensor("values", ctx.world.all_gather(ctx.critic->compute_values(local)));
    });
  }
  timer.time("adv", [&] {
    compute_advantages(ctx, batch, out.metrics);
    const config::AlgorithmConfig& al = ctx.config.algorithm;
    if (al.use_pf_ppo && al.adv_estimator == "gae")
      batch = pf_ppo_resampled(ctx, batch, global_step);
  });
  if (ctx.critic) {
    const data::Batch local = local_rows(batch, ctx.world, "update_critic");
    const Metrics critic =
        timer.time("update_critic", [&] { return ctx.critic->update_critic(local); });
    out.metrics.insert(critic.begin(), critic.end());
  }
  if (ctx.config.trainer.critic_warmup <= global_step) update_actor(ctx, batch, timer, out.metrics);
  if (ctx.config.trainer.rollout_data_dir) {
    timer.time("dump_rollout_generations", [&] { dump_generations(ctx, batch, global_step); });
  }
  require_finite(out.metrics, global_step);
  out.batch = step_batch(batch);
  return out;
}

}  // namespace verlpp::trainer
