#include "verlpp/config/validate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

#include "verlpp/config/loggers.h"
#include "verlpp/core/batch_invariant_env.h"
#include "verlpp/core/device_kind.h"
#include "verlpp/core/error.h"

namespace verlpp::config {
namespace {

const std::string kActor = "actor_rollout_ref.actor";
const std::string kRollout = "actor_rollout_ref.rollout";

template <std::size_t N>
bool one_of(const std::string& value, const std::array<const char*, N>& names) {
  return std::find(names.begin(), names.end(), value) != names.end();
}

template <std::size_t N>
std::string list(const std::array<const char*, N>& names) {
  std::string out;
  for (const char* name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

template <std::size_t N>
void check_name(const std::string& key, const std::string& value,
                const std::array<const char*, N>& names, Findings& out) {
  if (!one_of(value, names)) {
    add_error(out, key, fmt::format("unknown value '{}'; valid: {}", value, list(names)),
              fmt::format("{}={}", key, names[0]));
  }
}

constexpr std::array kLossAggModes = {"token-mean", "token-sum", "seq-mean-token-sum",
                                      "seq-mean-token-mean", "seq-mean-token-sum-norm"};
// core/dtype.h's parse_dtype names.
constexpr std::array kDtypeNames = {"bfloat16", "float16", "float32", "bf16",
                                    "fp16",     "half",    "fp32",    "float"};
constexpr std::array kStrategies = {"fsdp",     "fsdp2",  "fsdp_turbo",
                                    "megatron", "veomni", "torchtitan"};
constexpr std::array kAdvEstimators = {"gae",
                                       "grpo",
                                       "reinforce_plus_plus",
                                       "reinforce_plus_plus_baseline",
                                       "remax",
                                       "rloo",
                                       "opo",
                                       "grpo_passk",
                                       "gpg",
                                       "rloo_vectorized",
                                       "grpo_vectorized",
                                       "optimal_token_baseline",
                                       "tir_optimal_token_baseline",
                                       "gdpo"};
constexpr std::array kPolicyLosses = {"vanilla",  "dppo_tv", "dppo_kl",  "gspo",
                                      "sapo",     "gpg",     "clip_cov", "kl_cov",
                                      "geo_mean", "dro",     "cispo",    "bypass_mode"};
constexpr std::array kKlPenalties = {"kl",  "k1",          "abs", "mse",  "k2",   "low_var_kl",
                                     "k3",  "full",        "kl+", "k1+",  "abs+", "mse+",
                                     "k2+", "low_var_kl+", "k3+", "full+"};
constexpr std::array kSchedulers = {"constant", "cosine"};
constexpr std::array kPfPpoMethods = {"pow", "max_min", "max_random"};
constexpr std::array kRouterReplay = {"disabled", "R2", "R3"};
constexpr std::array kDistillationLosses = {"kl", "k1",         "abs", "mse",
                                            "k2", "low_var_kl", "k3",  "forward_kl_topk"};

// The Ulysses sequence-parallel size the actor runs with (FSDP engines; 1 under Megatron).
std::int64_t actor_ulysses(const Layout& layout) {
  return layout.actor_fsdp ? layout.actor_fsdp->ulysses_sp : 1;
}

// "exactly one of" two micro-batch keys (verl's ValueError / AssertionError pair).
void exactly_one(const std::string& section, const std::string& global_key, bool global_set,
                 const std::string& per_gpu_key, bool per_gpu_set, Findings& out) {
  if (global_set && per_gpu_set) {
    add_error(out, section + "." + per_gpu_key,
              fmt::format("both {} and {} are set; set exactly one", global_key, per_gpu_key),
              fmt::format("{}.{}=null", section, global_key));
  } else if (!global_set && !per_gpu_set) {
    add_error(out, section + "." + per_gpu_key,
              fmt::format("neither {} nor {} is set; set exactly one (static batching)", global_key,
                          per_gpu_key),
              fmt::format("{}.{}=1 (or use_dynamic_bsz=True)", section, per_gpu_key));
  }
}

// True when the batch counts the batch checks divide are >= 1 (check_numbers reports them
// otherwise; a fix derived from a count below 1 would be nonsense).
bool batch_counts_valid(const Config& c) {
  return c.data.train_batch_size >= 1 && c.rollout.n >= 1;
}

void check_batches(const Config& c, const Layout& layout, Findings& out) {
  const bool counts_valid = batch_counts_valid(c);
  const std::int64_t n_gpus = layout.world;
  const std::int64_t samples = c.data.train_batch_size * c.rollout.n;
  const ActorConfig& a = c.actor;
  const bool megatron_invalid = layout.actor_megatron && layout.actor_megatron->dp == 0;
  if (!a.use_dynamic_bsz) {
    std::int64_t minimal = megatron_invalid ? 0 : n_gpus;
    std::string why = fmt::format("the {} devices", n_gpus);
    if (layout.actor_megatron && layout.actor_megatron->dp > 0 && a.ppo_micro_batch_size_per_gpu) {
      minimal = layout.actor_megatron->dp * *a.ppo_micro_batch_size_per_gpu;
      why = fmt::format("megatron dp {} × ppo_micro_batch_size_per_gpu {}",
                        layout.actor_megatron->dp, *a.ppo_micro_batch_size_per_gpu);
    }
    if (counts_valid && minimal > 0 && samples % minimal != 0) {
      add_error(out, "data.train_batch_size",
                fmt::format(
                    "train_batch_size {} × rollout.n {} = {} samples are not divisible by {} = {}",
                    c.data.train_batch_size, c.rollout.n, samples, why, minimal),
                fmt::format("data.train_batch_size={}",
                            (c.data.train_batch_size / minimal + 1) * minimal));
    }
    exactly_one(kActor, "ppo_micro_batch_size", a.ppo_micro_batch_size.has_value(),
                "ppo_micro_batch_size_per_gpu", a.ppo_micro_batch_size_per_gpu.has_value(), out);
    if (counts_valid && c.data.train_batch_size < a.ppo_mini_batch_size) {
      add_error(out, kActor + ".ppo_mini_batch_size",
                fmt::format("ppo_mini_batch_size {} is larger than data.train_batch_size {}",
                            a.ppo_mini_batch_size, c.data.train_batch_size),
                fmt::format("{}.ppo_mini_batch_size={}", kActor, c.data.train_batch_size));
    }
    if (a.ppo_micro_batch_size) {
      if (*a.ppo_micro_batch_size <= 0 || a.ppo_mini_batch_size % *a.ppo_micro_batch_size != 0) {
        add_error(out, kActor + ".ppo_micro_batch_size",
                  fmt::format("ppo_mini_batch_size {} is not divisible by ppo_micro_batch_size {}",
                              a.ppo_mini_batch_size, *a.ppo_micro_batch_size),
                  fmt::format("{}.ppo_micro_batch_size_per_gpu=1 {}.ppo_micro_batch_size=null",
                              kActor, kActor));
      } else if (*a.ppo_micro_batch_size * actor_ulysses(layout) < n_gpus) {
        add_error(out, kActor + ".ppo_micro_batch_size",
                  fmt::format("ppo_micro_batch_size {} × ulysses {} is smaller than the {} devices",
                              *a.ppo_micro_batch_size, actor_ulysses(layout), n_gpus),
                  fmt::format("{}.ppo_micro_batch_size={}", kActor, n_gpus));
      }
    }
  }
  const std::int64_t mini = a.ppo_mini_batch_size * c.rollout.n;
  const std::int64_t dp = layout.actor_dp;
  if (c.rollout.n < 1) return;  // reported by check_numbers
  if (dp > 0 && mini % dp != 0) {
    add_error(out, kActor + ".ppo_mini_batch_size",
              fmt::format("ppo_mini_batch_size {} × rollout.n {} = {} samples do not split over "
                          "data-parallel size {}",
                          a.ppo_mini_batch_size, c.rollout.n, mini, dp),
              fmt::format("{}.ppo_mini_batch_size={}", kActor,
                          std::max<std::int64_t>(dp, a.ppo_mini_batch_size / dp * dp)));
  } else if (dp > 0 && !a.use_dynamic_bsz && a.ppo_micro_batch_size_per_gpu &&
             *a.ppo_micro_batch_size_per_gpu > 0 &&
             (mini / dp) % *a.ppo_micro_batch_size_per_gpu != 0) {
    add_error(
        out, kActor + ".ppo_micro_batch_size_per_gpu",
        fmt::format(
            "each of the {} data-parallel ranks gets {} samples per mini-batch, not divisible by "
            "ppo_micro_batch_size_per_gpu {}",
            dp, mini / dp, *a.ppo_micro_batch_size_per_gpu),
        fmt::format("{}.ppo_micro_batch_size_per_gpu=1", kActor));
  }
}

// A token budget (use_dynamic_bsz) must hold the longest sequence, max_prompt_length +
// max_response_length, over the Ulysses group of `sp` ranks (verl's rearrange_micro_batches
// asserts max_token_len >= the sequence length).
void check_token_budget(const Config& c, const std::string& key, std::optional<std::int64_t> tokens,
                        std::int64_t sp, Findings& out) {
  const std::int64_t longest = c.data.max_prompt_length + c.data.max_response_length;
  if (!tokens) {
    add_error(out, key, "dynamic batching needs a token budget",
              fmt::format("{}={}", key, longest));
  } else if (static_cast<double>(*tokens) * static_cast<double>(sp) <
             static_cast<double>(longest)) {
    add_error(
        out, key,
        fmt::format("token budget {} × ulysses {} is below the longest sequence "
                    "max_prompt_length {} + max_response_length {} = {}",
                    *tokens, sp, c.data.max_prompt_length, c.data.max_response_length, longest),
        fmt::format("{}={}", key, longest));
  }
}

void check_log_prob_batches(const Config& c, const Layout& layout, Findings& out) {
  const ActorConfig& a = c.actor;
  const RolloutConfig& r = c.rollout;
  if (a.use_dynamic_bsz != r.log_prob_use_dynamic_bsz) {
    add_error(out, kRollout + ".log_prob_use_dynamic_bsz",
              fmt::format(
                  "actor.use_dynamic_bsz ({}) and rollout.log_prob_use_dynamic_bsz ({}) must agree",
                  a.use_dynamic_bsz, r.log_prob_use_dynamic_bsz),
              fmt::format("{}.log_prob_use_dynamic_bsz={}", kRollout,
                          a.use_dynamic_bsz ? "True" : "False"));
  }
  const bool use_ref = need_reference_policy(c);
  if (!r.log_prob_use_dynamic_bsz) {
    exactly_one(kRollout, "log_prob_micro_batch_size", r.log_prob_micro_batch_size.has_value(),
                "log_prob_micro_batch_size_per_gpu",
                r.log_prob_micro_batch_size_per_gpu.has_value(), out);
  }
  if (use_ref && !c.ref.log_prob_use_dynamic_bsz) {
    exactly_one("actor_rollout_ref.ref", "log_prob_micro_batch_size",
                c.ref.log_prob_micro_batch_size.has_value(), "log_prob_micro_batch_size_per_gpu",
                c.ref.log_prob_micro_batch_size_per_gpu.has_value(), out);
  }
  const std::int64_t sp = actor_ulysses(layout);
  if (a.use_dynamic_bsz) {
    check_token_budget(c, kActor + ".ppo_max_token_len_per_gpu", a.ppo_max_token_len_per_gpu, sp,
                       out);
  }
  if (r.log_prob_use_dynamic_bsz) {
    check_token_budget(c, kRollout + ".log_prob_max_token_len_per_gpu",
                       r.log_prob_max_token_len_per_gpu, sp, out);
  }
  if (use_ref && c.ref.log_prob_use_dynamic_bsz) {
    check_token_budget(c, "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu",
                       c.ref.log_prob_max_token_len_per_gpu, sp, out);
  }
}

// The full-vocabulary KL ("full", "full+") is a name verl accepts and then raises on at the first
// update, as verlpp's loss does (bt13: check passed it): refused up front when it is used.
void refuse_full_kl(const std::string& key, const std::string& name, Findings& out) {
  if (name != "full" && name != "full+") return;
  add_error(out, key,
            "the full-vocabulary KL is not implemented (verl raises at the first update too)",
            key + "=low_var_kl");
}

void check_actor(const Config& c, const Layout& layout, Findings& out) {
  const ActorConfig& a = c.actor;
  check_name(kActor + ".strategy", a.strategy, kStrategies, out);
  check_checkpoint_contents(kActor + ".checkpoint", a.checkpoint, out);
  check_name(kActor + ".loss_agg_mode", a.loss_agg_mode, kLossAggModes, out);
  check_name(kActor + ".policy_loss.loss_mode", a.policy_loss.loss_mode, kPolicyLosses, out);
  check_name(kActor + ".kl_loss_type", a.kl_loss_type, kKlPenalties, out);
  if (a.use_kl_loss) refuse_full_kl(kActor + ".kl_loss_type", a.kl_loss_type, out);
  check_name(kActor + ".router_replay.mode", a.router_replay_mode, kRouterReplay, out);
  if (a.engine.fsdp) {
    check_name(kActor + ".fsdp_config.strategy", a.engine.fsdp->strategy,
               std::array{"fsdp", "fsdp2", "fsdp_turbo"}, out);
    if (!a.engine.fsdp->dtype.empty()) {
      check_name(kActor + ".fsdp_config.dtype", a.engine.fsdp->dtype, kDtypeNames, out);
    }
    const std::int64_t sp = actor_ulysses(layout);
    if (sp > 1 && !c.model.use_remove_padding) {
      add_error(out, "actor_rollout_ref.model.use_remove_padding",
                fmt::format("Ulysses sequence parallel ({}) needs use_remove_padding", sp),
                "actor_rollout_ref.model.use_remove_padding=True");
    }
  }
  if (a.policy_loss.loss_mode == "vanilla" && a.clip_ratio_c <= 1.0) {
    add_error(out, kActor + ".clip_ratio_c",
              fmt::format("dual-clip constant must be > 1, got {}", a.clip_ratio_c),
              kActor + ".clip_ratio_c=3.0");
  }
  if (a.policy_loss.loss_mode == "dro" && a.policy_loss.dro_beta.value_or(0) <= 0) {
    add_error(out, kActor + ".policy_loss.dro_beta", "loss_mode dro needs dro_beta > 0",
              kActor + ".policy_loss.dro_beta=0.1");
  }
  if (a.policy_loss.loss_mode == "clip_cov" && a.policy_loss.clip_cov_ratio <= 0) {
    add_error(out, kActor + ".policy_loss.clip_cov_ratio",
              "loss_mode clip_cov needs clip_cov_ratio > 0",
              kActor + ".policy_loss.clip_cov_ratio=0.0002");
  }
  if (a.policy_loss.loss_mode == "kl_cov" && a.policy_loss.kl_cov_ratio <= 0) {
    add_error(out, kActor + ".policy_loss.kl_cov_ratio", "loss_mode kl_cov needs kl_cov_ratio > 0",
              kActor + ".policy_loss.kl_cov_ratio=0.0002");
  }
  if (!a.optim.lr_scheduler_type.empty()) {
    check_name(kActor + ".optim.lr_scheduler_type", a.optim.lr_scheduler_type, kSchedulers, out);
  }
  if (a.optim.warmup_style)
    check_name(kActor + ".optim.warmup_style", *a.optim.warmup_style, kSchedulers, out);
}

void check_critic(const Config& c, const Layout& layout, Findings& out) {
  const CriticConfig& cr = c.critic;
  check_checkpoint_contents("critic.checkpoint", cr.checkpoint, out);
  if (cr.use_dynamic_bsz) {
    check_token_budget(c, "critic.ppo_max_token_len_per_gpu", cr.ppo_max_token_len_per_gpu,
                       cr.ulysses_sequence_parallel_size, out);
  } else {
    exactly_one("critic", "ppo_micro_batch_size", cr.ppo_micro_batch_size.has_value(),
                "ppo_micro_batch_size_per_gpu", cr.ppo_micro_batch_size_per_gpu.has_value(), out);
    if (cr.ppo_micro_batch_size) {
      if (*cr.ppo_micro_batch_size <= 0 || cr.ppo_mini_batch_size % *cr.ppo_micro_batch_size != 0) {
        add_error(
            out, "critic.ppo_micro_batch_size",
            fmt::format("critic ppo_mini_batch_size {} is not divisible by ppo_micro_batch_size {}",
                        cr.ppo_mini_batch_size, *cr.ppo_micro_batch_size),
            "critic.ppo_micro_batch_size_per_gpu=1 critic.ppo_micro_batch_size=null");
      } else if (cr.engine.fsdp &&
                 *cr.ppo_micro_batch_size * cr.ulysses_sequence_parallel_size < layout.world) {
        add_error(out, "critic.ppo_micro_batch_size",
                  fmt::format(
                      "critic ppo_micro_batch_size {} × ulysses {} is smaller than the {} devices",
                      *cr.ppo_micro_batch_size, cr.ulysses_sequence_parallel_size, layout.world),
                  fmt::format("critic.ppo_micro_batch_size={}", layout.world));
      }
    }
  }
  if (batch_counts_valid(c) && c.data.train_batch_size < cr.ppo_mini_batch_size) {
    add_error(out, "critic.ppo_mini_batch_size",
              fmt::format("critic ppo_mini_batch_size {} is larger than data.train_batch_size {}",
                          cr.ppo_mini_batch_size, c.data.train_batch_size),
              fmt::format("critic.ppo_mini_batch_size={}", c.data.train_batch_size));
  }
  if (!cr.optim.lr_scheduler_type.empty()) {
    check_name("critic.optim.lr_scheduler_type", cr.optim.lr_scheduler_type, kSchedulers, out);
  }
}

constexpr std::array kRolloutNames = {"vllm", "sglang", "trtllm", "hf"};
// The reward managers reward/reward_manager.h implements (verl's naive and dapo).
// gdpo: verl's reward loop registers it for GDPO runs; it scores as naive does.
constexpr std::array kRewardManagers = {"naive", "dapo", "gdpo"};

void check_rollout(const Config& c, Findings& out) {
  const RolloutConfig& r = c.rollout;
  check_name(kRollout + ".name", r.name, kRolloutNames, out);
  if (r.mode == "sync") {
    add_error(out, kRollout + ".mode", "the sync rollout mode was removed from verl",
              kRollout + ".mode=async");
  }
  if (r.val_kwargs.do_sample && r.sampling.temperature <= 0) {
    add_error(out, kRollout + ".temperature",
              fmt::format("val_kwargs.do_sample=True needs rollout.temperature > 0, got {}",
                          r.sampling.temperature),
              kRollout + ".temperature=1.0");
  }
  if (r.max_num_seqs && *r.max_num_seqs < 1) {
    add_error(out, kRollout + ".max_num_seqs",
              fmt::format("the rows generated at once must be >= 1, got {}", *r.max_num_seqs),
              kRollout + ".max_num_seqs=256");
  }
  if (!(r.gpu_memory_utilization > 0.0 && r.gpu_memory_utilization <= 1.0)) {
    add_error(out, kRollout + ".gpu_memory_utilization",
              fmt::format("a share of the GPU's memory in (0, 1] is expected, got {}",
                          r.gpu_memory_utilization),
              kRollout + ".gpu_memory_utilization=0.5");
  }
  const std::int64_t needed = r.prompt_length + r.response_length;
  if (r.max_num_batched_tokens < 1) {
    add_error(out, kRollout + ".max_num_batched_tokens",
              fmt::format("the tokens one engine step computes must be >= 1, got {}",
                          r.max_num_batched_tokens),
              kRollout + ".max_num_batched_tokens=8192");
  }
  // verl's vLLM rollout (from vLLM's SchedulerConfig): without chunked prefill a step must hold a
  // whole sequence of max_model_len (default prompt + response) tokens.
  const std::int64_t model_len = r.model_len();
  if (!r.enable_chunked_prefill && r.max_num_batched_tokens >= 1 &&
      r.max_num_batched_tokens < model_len) {
    add_error(out, kRollout + ".max_num_batched_tokens",
              fmt::format("max_num_batched_tokens ({}) is smaller than max_model_len ({}) with "
                          "enable_chunked_prefill=False",
                          r.max_num_batched_tokens, model_len),
              fmt::format("{}.max_num_batched_tokens={} (or {}.enable_chunked_prefill=True)",
                          kRollout, model_len, kRollout));
  }
  if (model_len < c.data.max_prompt_length) {
    const bool explicit_len = r.has_max_model_len();
    add_notice(out, kRollout + (explicit_len ? ".max_model_len" : ".prompt_length"),
               fmt::format("max_model_len {} (rollout.max_model_len, by default prompt_length + "
                           "response_length) is below data.max_prompt_length {}: a longer prompt "
                           "ends the run, as vLLM refuses it",
                           model_len, c.data.max_prompt_length),
               explicit_len ? fmt::format("{}.max_model_len={}", kRollout,
                                          c.data.max_prompt_length + r.response_length)
                            : kRollout + ".prompt_length=${data.max_prompt_length}");
  }
  if (r.has_max_model_len() && needed > *r.max_model_len) {
    add_error(out, kRollout + ".max_model_len",
              fmt::format("the rollout holds prompt {} + response {} = {} tokens but "
                          "max_model_len is {}",
                          r.prompt_length, r.response_length, needed, *r.max_model_len),
              fmt::format("{}.max_model_len={}", kRollout, needed));
  }
  if (r.disaggregation_enabled && r.name != "vllm" && r.name != "sglang") {
    add_error(out, kRollout + ".disaggregation.enabled",
              "disaggregation needs rollout.name vllm or sglang, got " + r.name,
              kRollout + ".disaggregation.enabled=False");
  }
  if (r.enable_rollout_routing_replay) {
    add_error(out, kRollout + ".enable_rollout_routing_replay",
              "the rollout does not record MoE routing in verlpp yet",
              kRollout + ".enable_rollout_routing_replay=False");
  }
  if (r.moe_load_balance_metrics_interval > 0) {
    add_error(out, kRollout + ".moe_load_balance_metrics_interval",
              "verl's rollout/moe/* load-balance metrics are not implemented by verlpp yet (the "
              "actor logs actor/moe_aux_loss)",
              kRollout + ".moe_load_balance_metrics_interval=0");
  }
  check_no_lora("actor_rollout_ref.model", c.model.lora.rank, out);
}

// algorithm.rollout_correction: its own rules, and what it needs from the rollout and the actor.
void check_rollout_correction(const Config& c, Findings& out) {
  const std::string key = "algorithm.rollout_correction";
  const algo::RolloutCorrectionConfig& rc = c.algorithm.rollout_correction;
  try {
    algo::validate_rollout_correction(rc);
  } catch (const Error& e) {
    // The message starts with the key it is about; the fix resets that key to verl's default.
    const std::string what = e.what();
    const auto colon = what.find(": ");
    const std::string at = colon == std::string::npos ? key + ".rollout_is" : what.substr(0, colon);
    const std::string name = at.substr(at.rfind('.') + 1);
    const std::string fix =
        name == "rollout_is_threshold" ? "2.0"
        : name == "loss_type"          ? "ppo_clip"
        : name == "rollout_rs_threshold" && rc.rollout_rs
            ? (rc.rollout_rs->find("k1") != std::string::npos ? "0.5_2.0" : "0.01")
            : "null";
    add_error(out, at, colon == std::string::npos ? what : what.substr(colon + 2), at + "=" + fix);
  }
  const bool used = rc.rollout_is || rc.rollout_rs || rc.bypass_mode;
  if (used && !c.rollout.calculate_log_probs) {
    add_error(out, kRollout + ".calculate_log_probs",
              "rollout correction (rollout_is, rollout_rs or bypass_mode) needs the rollout's "
              "log-probs",
              kRollout + ".calculate_log_probs=true");
  }
  const std::string& loss_mode = c.actor.policy_loss.loss_mode;
  if (rc.bypass_mode && loss_mode != "vanilla" && loss_mode != "bypass_mode") {
    add_error(
        out, kActor + ".policy_loss.loss_mode",
        fmt::format("{}.bypass_mode=true replaces the policy loss with bypass_mode ({}.loss_type "
                    "{}), so loss_mode {} would not act",
                    key, key, rc.loss_type, loss_mode),
        kActor + ".policy_loss.loss_mode=vanilla");
  }
  if (!rc.bypass_mode && loss_mode == "bypass_mode") {
    add_error(
        out, kActor + ".policy_loss.loss_mode",
        "loss_mode bypass_mode is what algorithm.rollout_correction.bypass_mode=true selects; "
        "set that instead",
        key + ".bypass_mode=true");
  }
}

void check_algorithm(const Config& c, Findings& out) {
  check_rollout_correction(c, out);
  const AlgorithmConfig& al = c.algorithm;
  if (al.use_pf_ppo) {
    check_name("algorithm.pf_ppo.reweight_method", al.pf_ppo_reweight_method, kPfPpoMethods, out);
    if (!std::isfinite(al.pf_ppo_weight_pow)) {
      add_error(out, "algorithm.pf_ppo.weight_pow",
                fmt::format("must be a finite number, got {}", al.pf_ppo_weight_pow),
                "algorithm.pf_ppo.weight_pow=2.0");
    }
    if (al.adv_estimator != "gae") {
      add_notice(out, "algorithm.use_pf_ppo",
                 "verl resamples the batch only after GAE; with adv_estimator " + al.adv_estimator +
                     " it has no effect",
                 "algorithm.use_pf_ppo=False");
    }
  }
  const AlgorithmConfig::FilterGroups& fg = al.filter_groups;
  if (fg.enable && (!fg.metric || fg.metric->empty())) {
    add_error(out, "algorithm.filter_groups.metric",
              "dynamic sampling needs the value whose spread keeps a prompt (acc, score, "
              "seq_reward, seq_final_reward or a custom reward's named value)",
              "algorithm.filter_groups.metric=acc");
  }
  if (fg.enable && fg.max_inflight_gen_batches != 1) {
    add_error(out, "algorithm.filter_groups.max_inflight_gen_batches",
              fmt::format("verlpp generates one batch at a time (verl's asynchronous refill is not "
                          "implemented), got {}",
                          fg.max_inflight_gen_batches),
              "algorithm.filter_groups.max_inflight_gen_batches=1");
  }
  if (fg.enable && fg.metric == "seq_final_reward" && al.use_kl_in_reward) {
    add_error(out, "algorithm.filter_groups.metric",
              "seq_final_reward with use_kl_in_reward needs the KL penalty before the reference "
              "pass; verlpp filters before it",
              "algorithm.filter_groups.metric=seq_reward");
  }
  check_name("algorithm.adv_estimator", al.adv_estimator, kAdvEstimators, out);
  check_name("algorithm.kl_penalty", al.kl_penalty, kKlPenalties, out);
  check_name("algorithm.kl_ctrl.type", al.kl_ctrl.type, std::array{"fixed", "adaptive"}, out);
  if (al.use_kl_in_reward) refuse_full_kl("algorithm.kl_penalty", al.kl_penalty, out);
  const bool otb = al.adv_estimator == "optimal_token_baseline" ||
                   al.adv_estimator == "tir_optimal_token_baseline";
  if (otb && !c.actor.calculate_sum_pi_squared) {
    add_error(out, kActor + ".calculate_sum_pi_squared",
              fmt::format("adv_estimator {} needs sum_v pi_v^2 from the actor's log-prob pass",
                          al.adv_estimator),
              kActor + ".calculate_sum_pi_squared=true");
  }
  if (otb && al.rollout_correction.bypass_mode) {
    add_error(out, "algorithm.rollout_correction.bypass_mode",
              fmt::format("adv_estimator {} needs the actor's log-prob pass, which bypass_mode "
                          "skips",
                          al.adv_estimator),
              "algorithm.rollout_correction.bypass_mode=false");
  }
  if (al.adv_estimator == "gdpo" && al.gdpo_reward_keys.empty()) {
    add_error(out, "algorithm.gdpo_reward_keys",
              "adv_estimator gdpo needs the names of the rewards to normalise apart (values the "
              "reward function returns, e.g. a custom reward's compute_score_named)",
              "+algorithm.gdpo_reward_keys=[score,format]");
  }
  if (!al.gdpo_reward_weights.empty() &&
      al.gdpo_reward_weights.size() != al.gdpo_reward_keys.size()) {
    add_error(out, "algorithm.gdpo_reward_weights",
              fmt::format("{} weights for {} gdpo_reward_keys", al.gdpo_reward_weights.size(),
                          al.gdpo_reward_keys.size()),
              "algorithm.gdpo_reward_weights=null (every weight 1)");
  }
  if (al.adv_estimator == "grpo_passk" && c.rollout.n < 2) {
    add_error(out, kRollout + ".n",
              fmt::format("grpo_passk needs at least 2 samples per prompt, got {}", c.rollout.n),
              kRollout + ".n=2");
  }
  if (al.use_kl_in_reward && al.kl_ctrl.type == "adaptive" && al.kl_ctrl.horizon <= 0) {
    add_error(out, "algorithm.kl_ctrl.horizon", "the adaptive KL controller needs horizon > 0",
              "algorithm.kl_ctrl.horizon=10000");
  }
  if (al.use_kl_in_reward && c.actor.use_kl_loss) {
    add_notice(
        out, "algorithm.use_kl_in_reward",
        "both in-reward KL and KL loss are on; verl allows it but usually only one is meant");
  }
}

// Values the distillation losses cannot use (verl's dataclasses do not check them; they train on
// NaN or learn nothing). Each with its key and verl's default as the fix.
void check_distillation_numbers(const DistillationConfig& config, Findings& out) {
  const DistillationLossConfig& d = config.distillation_loss;
  const std::string key = "distillation.distillation_loss.";
  if (d.loss_max_clamp && !(*d.loss_max_clamp > 0)) {
    add_error(out, key + "loss_max_clamp", fmt::format("must be > 0, got {}", *d.loss_max_clamp),
              key + "loss_max_clamp=10.0");
  }
  if (d.log_prob_min_clamp && !(*d.log_prob_min_clamp <= 0)) {
    add_error(
        out, key + "log_prob_min_clamp",
        fmt::format("is a log-probability floor and must be <= 0, got {}", *d.log_prob_min_clamp),
        key + "log_prob_min_clamp=-10.0");
  }
  if (!std::isfinite(d.distillation_loss_coef) || d.distillation_loss_coef < 0) {
    add_error(out, key + "distillation_loss_coef",
              fmt::format("must be finite and >= 0, got {}", d.distillation_loss_coef),
              key + "distillation_loss_coef=1.0");
  }
  for (const auto& [value, name] : {std::pair{std::optional<double>(d.clip_ratio), "clip_ratio"},
                                    std::pair{d.clip_ratio_low, "clip_ratio_low"},
                                    std::pair{d.clip_ratio_high, "clip_ratio_high"}}) {
    if (value && !(std::isfinite(*value) && *value >= 0)) {
      add_error(out, key + name, fmt::format("must be finite and >= 0, got {}", *value),
                key + name + "=0.2");
    }
  }
  if (d.loss_mode == "forward_kl_topk" && d.topk < 1) {
    add_error(out, key + "topk", fmt::format("forward_kl_topk needs topk >= 1, got {}", d.topk),
              key + "topk=32");
  }
  for (const auto& [name, teacher] : config.teacher_models) {
    const std::optional<std::int64_t> cap = teacher.inference.vllm_max_logprobs;
    if (d.loss_mode == "forward_kl_topk" && teacher.inference.name == "vllm" && cap &&
        *cap < d.topk) {
      const std::string field =
          "distillation.teacher_models." + name + ".inference.engine_kwargs.vllm.max_logprobs";
      add_error(out, field,
                fmt::format("{} is below distillation_loss.topk {} (verl refuses it: vLLM would "
                            "return fewer log-probs than the loss needs)",
                            *cap, d.topk),
                fmt::format("{}={}", field, d.topk));
    }
    const std::int64_t tokens = teacher.inference.max_num_batched_tokens;
    if (tokens < 1) {
      const std::string field =
          "distillation.teacher_models." + name + ".inference.max_num_batched_tokens";
      add_error(out, field, fmt::format("must be >= 1, got {}", tokens), field + "=8192");
    }
  }
}

void check_distillation(const Config& c, Findings& out) {
  const DistillationLossConfig& d = c.distillation.distillation_loss;
  const std::string key = "distillation.distillation_loss";
  check_name(key + ".loss_mode", d.loss_mode, kDistillationLosses, out);
  if (d.policy_loss_mode != "vanilla") {
    add_error(out, key + ".policy_loss_mode",
              "only vanilla is supported, got " + d.policy_loss_mode,
              key + ".policy_loss_mode=vanilla");
  }
  if ((d.loss_mode == "k1" || d.loss_mode == "kl") && !d.use_policy_gradient) {
    add_error(out, key + ".use_policy_gradient",
              "loss_mode k1 without the policy-gradient form has a gradient that does not depend "
              "on the teacher",
              key + ".use_policy_gradient=True");
  }
  if (d.loss_mode == "forward_kl_topk" && d.use_policy_gradient) {
    add_notice(out, key + ".use_policy_gradient",
               "forward_kl_topk with the policy-gradient form (verl warns)");
  }
  if (!d.use_task_rewards && c.actor.use_kl_loss) {
    add_notice(out, "actor_rollout_ref.actor.use_kl_loss",
               "has no effect with distillation_loss.use_task_rewards=False: the actor's loss is "
               "the distillation loss alone, as in verl (actor/kl_loss is still logged)");
  }
  check_distillation_numbers(c.distillation, out);
}

void check_engine_choice(const Config& c, Findings& out) {
  const bool megatron = c.actor.engine.megatron.has_value();
  if ((c.model_engine == "megatron") != megatron) {
    add_error(
        out, "model_engine",
        fmt::format(
            "model_engine={} but the loaded config has the {} engine sections; verlpp selects the "
            "engine by config name, not by a model_engine override",
            c.model_engine, megatron ? "megatron" : "dp (FSDP)"),
        megatron ? "drop the model_engine override" : "--config-name ppo_megatron_trainer");
  }
  if (megatron && c.actor.engine.megatron->use_dist_checkpointing) {
    add_notice(out, kActor + ".megatron.use_dist_checkpointing",
               "Megatron distributed checkpoints are not read: the weights come from the Hugging "
               "Face checkpoint at actor_rollout_ref.model.path, not from "
               "dist_checkpointing_path");
  }
}

void check_trainer(const Config& c, Findings& out) {
  const TrainerConfig& t = c.trainer;
  if (t.max_critic_ckpt_to_keep && t.max_critic_ckpt_to_keep != t.max_actor_ckpt_to_keep &&
      need_critic(c)) {
    add_notice(out, "trainer.max_critic_ckpt_to_keep",
               "not read: verlpp keeps or removes a global_step_N whole (actor and critic "
               "together) by trainer.max_actor_ckpt_to_keep; verl rotates critic/ by this key",
               "trainer.max_actor_ckpt_to_keep=<the count to keep>");
  }
  if (!t.use_v1 && !t.hybrid_engine) {
    add_error(out, "actor_rollout_ref.hybrid_engine",
              "the legacy trainer (trainer.use_v1=False) needs hybrid_engine",
              "actor_rollout_ref.hybrid_engine=True");
  }
  if (t.use_v1 && t.v1_trainer_mode == "separate_async" &&
      (t.v1_parameter_sync_step <= 0 || c.data.train_batch_size % t.v1_parameter_sync_step != 0)) {
    add_error(out, "trainer.v1.separate_async.parameter_sync_step",
              fmt::format("data.train_batch_size {} is not divisible by parameter_sync_step {}",
                          c.data.train_batch_size, t.v1_parameter_sync_step),
              "trainer.v1.separate_async.parameter_sync_step=1");
  }
  if (c.data.val_batch_size) {
    add_notice(out, "data.val_batch_size", "deprecated: the validation set is sent as one batch",
               "data.val_batch_size=null");
  }
  if (t.val_only && !t.val_before_train) {
    add_notice(out, "trainer.val_only",
               "acts only with trainer.val_before_train=True (verl's fit validates, then returns "
               "on val_only, inside that branch): this run trains",
               "trainer.val_before_train=True");
  }
  check_name("reward.reward_manager.name", c.reward_manager, kRewardManagers, out);
  for (const std::string& logger : t.logger) {
    if (std::find(kSkippedLoggers.begin(), kSkippedLoggers.end(), logger) !=
        kSkippedLoggers.end()) {
      add_notice(out, "trainer.logger",
                 fmt::format("'{}' is a network tracker, which verlpp skips (metrics go to "
                             "console, file and tensorboard)",
                             logger),
                 "trainer.logger=[console,file]");
    }
  }
  const DeviceRequest device = requested_device(t.device);
  if (!is_device_name(device.name)) {
    add_error(out, device.source,
              fmt::format("unknown device '{}'; expected {}", device.name, kDeviceNames),
              device.source + "=cuda");
  }
  const RewardModelPoolConfig& rm = c.reward_model;
  if (rm.enable) {  // bt13: accepted, and the run trained on the rule reward without a word
    add_error(out, "reward.reward_model.enable",
              "verlpp has no model-based reward (a reward model scoring the responses); it scores "
              "with the rule-based scorers and custom reward functions",
              "reward.reward_model.enable=False");
  }
}

// VLLM_BATCH_INVARIANT=1 (model/batch_invariant.h): what verlpp's batch-invariant mode covers.
void check_batch_invariant(const Layout& layout, Findings& out) {
  const std::string value = batch_invariant_value();
  if (!is_batch_invariant_value(value)) {
    add_error(out, "VLLM_BATCH_INVARIANT", fmt::format("'{}': expected 1 (on) or 0 (off)", value),
              "VLLM_BATCH_INVARIANT=0, or 1 for the batch-invariant mode");
    return;
  }
  if (value != "1") return;
  if (layout.model && (layout.model->linear_attention_layers > 0 ||
                       layout.model->architecture.rfind("Qwen3_5", 0) == 0 ||
                       layout.model->architecture.rfind("qwen3_5", 0) == 0)) {
    add_error(out, "actor_rollout_ref.model.path",
              fmt::format("VLLM_BATCH_INVARIANT=1 covers attention, MLP and sparse MoE layers; {} "
                          "({}) has Qwen3.5's Gated DeltaNet, gated attention and zero-centred "
                          "norms",
                          layout.model->architecture, layout.model->source),
              "unset VLLM_BATCH_INVARIANT");
  }
  add_notice(out, "VLLM_BATCH_INVARIANT",
             "on: the rollout and the trainer compute every token with batch-invariant "
             "operations, so training/rollout_probs_diff_max and the first update's ppo_kl are 0 "
             "(slower than the usual kernels)");
}

// The fix for prompt + response above the model's `positions`: a shorter response where the
// prompt leaves room, else a prompt of three quarters of the positions and a response of the rest.
std::string fit_positions(std::int64_t prompt_length, std::int64_t positions) {
  if (prompt_length < positions) {
    return fmt::format("data.max_response_length={}", positions - prompt_length);
  }
  const std::int64_t prompt = std::max<std::int64_t>(positions * 3 / 4, 1);
  return fmt::format("data.max_prompt_length={} data.max_response_length={}", prompt,
                     std::max<std::int64_t>(positions - prompt, 1));
}

}  // namespace

// The model's positions hold prompt + response: vLLM refuses a max_model_len above the model's
// max_position_embeddings (the rollout refuses it at run time; check says so before the run).
void check_model_length(const Config& c, const Layout& layout, Findings& out) {
  if (!layout.model || !layout.model->max_position_embeddings) return;
  const std::int64_t positions = *layout.model->max_position_embeddings;
  const std::int64_t model_len = c.rollout.model_len();
  if (model_len > positions && c.rollout.has_max_model_len()) {
    add_error(out, kRollout + ".max_model_len",
              fmt::format("max_model_len {} is above the model's {} positions "
                          "(max_position_embeddings in {}), which vLLM refuses",
                          model_len, positions, layout.model->source),
              fmt::format("{}.max_model_len={}", kRollout, positions));
    return;
  }
  const std::int64_t needed = c.rollout.prompt_length + c.rollout.response_length;
  if (needed <= positions) return;
  add_error(out, "data.max_prompt_length + data.max_response_length",
            fmt::format("prompt {} + response {} = {} tokens, but the model holds {} positions "
                        "(max_position_embeddings in {})",
                        c.rollout.prompt_length, c.rollout.response_length, needed, positions,
                        layout.model->source),
            fit_positions(c.rollout.prompt_length, positions));
}

// Sizes and numbers a run cannot use, named before anything is loaded (a break-test found them
// accepted by check and refused, or misnamed, only after the model was loaded).
void at_least(Findings& out, const std::string& key, std::int64_t value, std::int64_t least) {
  if (value < least) {
    add_error(out, key, fmt::format("must be >= {}, got {}", least, value),
              fmt::format("{}={}", key, least));
  }
}

// Token counts above this are refused (2^30: no model has that many positions).
constexpr std::int64_t kMaxSequenceTokens = std::int64_t{1} << 30;

void at_most(Findings& out, const std::string& key, std::int64_t value, std::int64_t most) {
  if (value > most) {
    add_error(out, key, fmt::format("must be <= {}, got {}", most, value),
              fmt::format("{}={}", key, most));
  }
}

// Within [least, the largest float]: these settings become fp32 tensors.
// A top_p: in (0, 1] (NaN fails).
void check_top_p(Findings& out, const std::string& key, double value) {
  if (!(value > 0.0 && value <= 1.0)) {
    add_error(out, key, fmt::format("must be in (0, 1], got {}", value), key + "=1.0");
  }
}

void finite_at_least(Findings& out, const std::string& key, double value, double least,
                     const std::string& fix) {
  const double most = std::numeric_limits<float>::max();
  if (!std::isfinite(value) || value < least || value > most) {
    add_error(out, key, fmt::format("must be a number in [{}, {:g}], got {}", least, most, value),
              key + "=" + fix);
  }
}

void check_clip_grad(const std::string& key, double value, Findings& out) {
  finite_at_least(out, key, value, 0.0, "1.0");
  if (value == 0.0) {
    add_error(out, key,
              "must be > 0: verl clips with torch's clip_grad_norm_, which at max_norm 0 zeroes "
              "every gradient (nothing would be learned)",
              key + "=1.0");
  }
}

// An error unless least <= value <= most (NaN fails).
void in_range(Findings& out, const std::string& key, double value, double least, double most,
              const std::string& fix) {
  if (!(value >= least && value <= most)) {
    add_error(out, key, fmt::format("must be a number in [{}, {}], got {}", least, most, value),
              key + "=" + fix);
  }
}

void check_no_lora(const std::string& prefix, std::int64_t rank, Findings& out) {
  if (rank != 0) {
    add_error(out, prefix + ".lora_rank",
              fmt::format("{}: verlpp does not implement LoRA adapters; it would train every "
                          "weight of the model instead",
                          rank),
              prefix + ".lora_rank=0");
  }
}

void check_optim(const std::string& prefix, const OptimConfig& o, const std::string& strategy,
                 Findings& out) {
  const std::string adamw = strategy == "megatron" ? "adam" : "AdamW";
  if (o.optimizer != adamw) {
    add_error(out, prefix + ".optimizer",
              fmt::format("'{}' is not supported; verlpp trains with AdamW (named '{}' for the {} "
                          "engine)",
                          o.optimizer, adamw, strategy),
              prefix + ".optimizer=" + adamw);
  }
  finite_at_least(out, prefix + ".lr", o.lr, 0.0, "1e-6");
  finite_at_least(out, prefix + ".weight_decay", o.weight_decay, 0.0, "0.01");
  check_clip_grad(prefix + ".clip_grad", o.clip_grad, out);
  if (!o.betas.empty()) {
    const bool valid = o.betas.size() == 2 && std::all_of(o.betas.begin(), o.betas.end(),
                                                          [](double b) { return b >= 0 && b < 1; });
    if (!valid) {
      add_error(out, prefix + ".betas",
                fmt::format("expected two numbers in [0, 1), got [{}]", fmt::join(o.betas, ", ")),
                prefix + ".betas=[0.9,0.999]");
    }
  }
  in_range(out, prefix + ".lr_warmup_steps_ratio", o.lr_warmup_steps_ratio, 0.0, 1.0, "0.0");
  in_range(out, prefix + ".min_lr_ratio", o.min_lr_ratio, 0.0, 1.0, "0.0");
  if (!std::isfinite(o.num_cycles)) {
    add_error(out, prefix + ".num_cycles", fmt::format("must be finite, got {}", o.num_cycles),
              prefix + ".num_cycles=0.5");
  }
}

void check_numbers(const Config& c, Findings& out) {
  at_least(out, "data.train_batch_size", c.data.train_batch_size, 1);
  at_least(out, "data.max_prompt_length", c.data.max_prompt_length, 1);
  at_least(out, "data.max_response_length", c.data.max_response_length, 1);
  at_least(out, kRollout + ".n", c.rollout.n, 1);
  at_least(out, kRollout + ".val_kwargs.n", c.rollout.val_kwargs.n, 1);
  at_least(out, kRollout + ".prompt_length", c.rollout.prompt_length, 1);
  at_least(out, "trainer.total_epochs", c.trainer.total_epochs, 1);
  if (c.trainer.total_training_steps) {
    at_least(out, "trainer.total_training_steps", *c.trainer.total_training_steps, 1);
  }
  at_least(out, kActor + ".ppo_epochs", c.actor.ppo_epochs, 1);
  at_least(out, kActor + ".ppo_mini_batch_size", c.actor.ppo_mini_batch_size, 1);
  if (need_critic(c)) at_least(out, "critic.ppo_mini_batch_size", c.critic.ppo_mini_batch_size, 1);
  // No model holds more positions; their sum would overflow before any memory check sees it.
  at_most(out, "data.max_prompt_length", c.data.max_prompt_length, kMaxSequenceTokens);
  at_most(out, "data.max_response_length", c.data.max_response_length, kMaxSequenceTokens);
  // Validation samples with val_kwargs as the rollout samples with its own keys (a break-test's
  // val_kwargs.temperature=-1 was "valid" here and refused by the run).
  check_top_p(out, kRollout + ".val_kwargs.top_p", c.rollout.val_kwargs.top_p);
  finite_at_least(out, kRollout + ".val_kwargs.temperature", c.rollout.val_kwargs.temperature, 0.0,
                  "0");
  check_top_p(out, kRollout + ".top_p", c.rollout.sampling.top_p);
  if (c.data.train_files.empty()) {
    add_error(out, "data.train_files", "no training file given", "data.train_files=train.parquet");
  }
  finite_at_least(out, kRollout + ".temperature", c.rollout.sampling.temperature, 0.0, "1.0");
  finite_at_least(out, kActor + ".clip_ratio", c.actor.clip_ratio, 0.0, "0.2");
  finite_at_least(out, kActor + ".clip_ratio_low", c.actor.clip_ratio_low, 0.0, "0.2");
  finite_at_least(out, kActor + ".clip_ratio_high", c.actor.clip_ratio_high, 0.0, "0.2");
  if (!std::isfinite(c.actor.entropy_coeff)) {
    add_error(out, kActor + ".entropy_coeff",
              fmt::format("must be a finite number, got {}", c.actor.entropy_coeff),
              kActor + ".entropy_coeff=0");
  }
  finite_at_least(out, kActor + ".kl_loss_coef", c.actor.kl_loss_coef, 0.0, "0.001");
  check_optim(kActor + ".optim", c.actor.optim, c.actor.strategy, out);
  if (need_critic(c)) check_optim("critic.optim", c.critic.optim, c.critic.strategy, out);
  finite_at_least(out, "algorithm.gamma", c.algorithm.gamma, 0.0, "1.0");
  finite_at_least(out, "algorithm.lam", c.algorithm.lam, 0.0, "1.0");
  finite_at_least(out, "algorithm.kl_ctrl.kl_coef", c.algorithm.kl_ctrl.kl_coef, 0.0, "0.001");
}

void check_checkpoint_contents(const std::string& prefix, const CheckpointContents& c,
                               Findings& out) {
  constexpr std::array<std::string_view, 4> kItems = {"model", "optimizer", "extra", "hf_model"};
  constexpr std::array<std::string_view, 3> kRestored = {"model", "optimizer", "extra"};
  const auto has = [](const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  };
  for (const auto& [key, list] : {std::pair{prefix + ".save_contents", &c.save_contents},
                                  std::pair{prefix + ".load_contents", &c.load_contents}}) {
    for (const std::string& item : *list) {
      if (std::find(kItems.begin(), kItems.end(), item) == kItems.end()) {
        add_error(out, key,
                  fmt::format("unknown item '{}'; valid: model, optimizer, extra, hf_model", item),
                  key + "=[model,optimizer,extra]");
      }
    }
  }
  for (const auto item : kRestored) {
    if (!c.save_contents.empty() && !has(c.save_contents, item)) {
      add_notice(out, prefix + ".save_contents",
                 fmt::format("leaves out '{}', but verlpp saves model, optimizer, extra and the "
                             "Hugging Face weights at every checkpoint",
                             item));
    }
    if (!c.load_contents.empty() && !has(c.load_contents, item)) {
      add_error(out, prefix + ".load_contents",
                fmt::format("leaves out '{}', but verlpp restores model, optimizer and extra on "
                            "resume",
                            item),
                prefix + ".load_contents=[model,optimizer,extra]");
    }
  }
}

void validate_config(const Config& config, const Layout& layout, Findings& findings) {
  check_numbers(config, findings);
  check_batches(config, layout, findings);
  check_log_prob_batches(config, layout, findings);
  check_actor(config, layout, findings);
  if (need_critic(config)) check_critic(config, layout, findings);
  check_rollout(config, findings);
  check_model_length(config, layout, findings);
  check_algorithm(config, findings);
  if (config.distillation.enabled) check_distillation(config, findings);
  check_engine_choice(config, findings);
  check_trainer(config, findings);
  check_batch_invariant(layout, findings);
}

}  // namespace verlpp::config
