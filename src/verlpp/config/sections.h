// Typed views of the configuration sections that verlpp acts on. Field names are verl's keys;
// defaults come from config/ppo_trainer.yaml (verl's YAML), never from here. The rest of verlpp
// reads these structs and never looks keys up by string.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/algo/rollout_correction_config.h"
#include "verlpp/config/node.h"
#include "verlpp/config/section.h"

namespace verlpp::config {

struct DataConfig {
  std::vector<std::string> train_files, val_files;  // a single string becomes a one-element list
  std::string prompt_key, reward_fn_key, truncation;
  std::int64_t train_batch_size = 0, max_prompt_length = 0, max_response_length = 0;
  std::optional<std::int64_t> val_batch_size, gen_batch_size, seed;
  std::int64_t train_max_samples = -1, val_max_samples = -1;
  bool shuffle = true, filter_overlong_prompts = false, return_raw_chat = true;
  std::string image_key;  // the column of a row's images (data/row_images.h); empty when null
  // Extra variables of the chat template (e.g. Qwen3's enable_thinking); a map.
  nlohmann::ordered_json apply_chat_template_kwargs = nlohmann::ordered_json::object();
};

struct LoraConfig {
  std::int64_t rank = 0;  // model.lora.rank, else model.lora_rank
  bool merge = false;
};

struct ModelConfig {
  std::string path;
  std::optional<std::string> hf_config_path, tokenizer_path;
  // Fields set on the model's Hugging Face config (a map; config/hf_model.h applies it).
  nlohmann::json override_config = nlohmann::json::object();
  std::optional<std::string> custom_chat_template;  // replaces the tokenizer's chat template
  bool use_remove_padding = true, enable_gradient_checkpointing = true;
  LoraConfig lora;
};

struct OptimConfig {
  std::string optimizer;
  double lr = 0, weight_decay = 0, clip_grad = 1.0, lr_warmup_steps_ratio = 0, min_lr_ratio = 0;
  std::int64_t lr_warmup_steps = -1;
  std::vector<double> betas;
  std::string lr_scheduler_type;            // FSDP optimizer; empty under Megatron
  std::optional<std::string> warmup_style;  // deprecated alias of lr_scheduler_type
  double num_cycles = 0.5;                  // cosine
  bool zero_indexed_step = true;            // cosine
};

class Section;
// The optimizer keys of an optim section (actor/critic optim, the SFT trainer's optim).
OptimConfig bind_optim(const Section& s);
// The keys of a model section (verl's hf_model.yaml) that verlpp reads.
ModelConfig bind_model(const Section& s);

// actor/ref/critic .megatron (verl's McoreEngineConfig) plus the uneven pipeline keys that live in
// override_transformer_config.
struct MegatronConfig {
  std::int64_t tensor_model_parallel_size = 1, pipeline_model_parallel_size = 1,
               context_parallel_size = 1, expert_model_parallel_size = 1;
  std::optional<std::int64_t> expert_tensor_parallel_size, virtual_pipeline_model_parallel_size;
  std::optional<std::int64_t> num_layers_in_first_pipeline_stage, num_layers_in_last_pipeline_stage;
  bool sequence_parallel = true, dynamic_context_parallel = false;
  // Kept on the CPU between uses: verlpp's sharded engine keeps its parameter shards (and the
  // optimizer's masters and moments) there, as fsdp_config's keys of the same names do.
  // grad_offload has no counterpart (the gradient shards stay on the device).
  bool param_offload = false, optimizer_offload = false;
  std::optional<std::int64_t> max_seqlen_per_dp_cp_rank;
  std::string dtype;
  // override_transformer_config.moe_router_load_balancing_type: verl sets "none" (no MoE aux loss
  // in RL); "aux_loss" adds the load-balancing loss, scaled by moe_aux_loss_coeff (verl's default:
  // the model's router_aux_loss_coef). verlpp accepts none and aux_loss.
  std::string moe_router_load_balancing_type = "none";
  std::optional<double> moe_aux_loss_coeff;
  // override_transformer_config keys that change the MoE router or loss (the top-k, the expert
  // count, the z-loss, the score function, capacity dropping): verlpp routes as the model's
  // config.json says and does not apply them; set ones are listed here and refused by check.
  std::vector<std::string> unapplied_moe_overrides;
  // verl loads the weights from dist_checkpointing_path's Megatron checkpoint; verlpp reads the
  // Hugging Face weights of model.path (a notice says so).
  bool use_dist_checkpointing = false;
};

// How an FSDP engine shards (verl's FSDPEngineConfig; engine/fsdp): fsdp_size ranks share one
// copy (-1: all), parameters and optimizer state kept on the CPU, full weights freed after each
// layer's forward.
struct ShardingConfig {
  std::int64_t fsdp_size = -1;
  bool param_offload = false, optimizer_offload = false, reshard_after_forward = true;
};
// The keys above of an FSDP engine section (absent keys keep their defaults).
ShardingConfig bind_sharding(const Section& s);

// actor/ref .fsdp_config and critic.fsdp (verl's FSDPEngineConfig), with fsdp_turbo's sizes.
struct FsdpConfig {
  std::string strategy;
  ShardingConfig sharding;
  std::int64_t fsdp_size = -1, ulysses_sequence_parallel_size = 1;
  std::int64_t turbo_fully_shard_parallel_size = 1, turbo_expert_parallel_size = 1,
               turbo_ulysses_parallel_size = 1;
  std::string dtype;  // compute dtype (fsdp_config.dtype: bfloat16); empty when absent
};

// The engine a worker runs on: exactly one of fsdp/megatron is present, as in verl.
struct EngineConfig {
  std::optional<FsdpConfig> fsdp;
  std::optional<MegatronConfig> megatron;
};

struct PolicyLossConfig {
  std::string loss_mode;
  double clip_cov_ratio = 0, kl_cov_ratio = 0;
  double clip_cov_lb = 1.0, clip_cov_ub = 5.0;  // clip_cov's covariance band
  double ppo_kl_coef = 0.1;                     // kl_cov's |delta| weight
  std::optional<double> dro_beta;
};

// A worker's checkpoint.save_contents / load_contents (verl's items: model, optimizer, extra,
// hf_model); empty when the section lacks them.
struct CheckpointContents {
  std::vector<std::string> save_contents, load_contents;
};

// The checkpoint.{save,load}_contents lists under section `s` (empty when absent).
CheckpointContents bind_checkpoint_contents(const Section& s);

struct ActorConfig {
  std::string strategy;
  CheckpointContents checkpoint;
  std::int64_t rollout_n = 1, ppo_mini_batch_size = 0, ppo_max_token_len_per_gpu = 0,
               ppo_epochs = 1;
  std::optional<std::int64_t> ppo_micro_batch_size, ppo_micro_batch_size_per_gpu;
  bool use_dynamic_bsz = false, use_kl_loss = false;
  double clip_ratio = 0.2, clip_ratio_low = 0.2, clip_ratio_high = 0.2, clip_ratio_c = 3.0;
  double tau_pos = 1.0, tau_neg = 1.05;  // SAPO's gate temperatures (A > 0, A <= 0)
  double entropy_coeff = 0, kl_loss_coef = 0;
  std::string kl_loss_type, loss_agg_mode, router_replay_mode;
  std::int64_t ulysses_sequence_parallel_size = 1;
  PolicyLossConfig policy_loss;
  OptimConfig optim;
  EngineConfig engine;
  bool shuffle = false, calculate_entropy = false;
  bool calculate_sum_pi_squared = false;  // sum_v pi_v^2 in the old_log_prob pass (OTB)
  std::int64_t data_loader_seed = 42;
  std::optional<double> loss_scale_factor;
};

struct RefConfig {
  std::string strategy;
  std::optional<std::int64_t> log_prob_micro_batch_size, log_prob_micro_batch_size_per_gpu;
  bool log_prob_use_dynamic_bsz = false;
  std::optional<std::int64_t> log_prob_max_token_len_per_gpu;
  EngineConfig engine;
};

struct SamplingConfig {
  double temperature = 1.0, top_p = 1.0;
  std::int64_t top_k = -1, n = 1;
  bool do_sample = true;
};

struct RolloutConfig {
  std::string name, mode;
  std::int64_t n = 1, prompt_length = 0, response_length = 0, seed = 0;
  SamplingConfig sampling;  // temperature, top_k, top_p, do_sample of the rollout section itself
  SamplingConfig val_kwargs;
  std::int64_t tensor_model_parallel_size = 1, data_parallel_size = 1, expert_parallel_size = 1,
               pipeline_model_parallel_size = 1, moe_tensor_parallel_size = 1;
  std::optional<std::int64_t> max_model_len, max_num_seqs;
  std::optional<std::int64_t> log_prob_micro_batch_size, log_prob_micro_batch_size_per_gpu;
  bool log_prob_use_dynamic_bsz = false, ignore_eos = false, calculate_log_probs = true;
  bool disaggregation_enabled = false;
  std::optional<std::int64_t> log_prob_max_token_len_per_gpu;
  // enforce_eager: decode without CUDA graphs (vLLM's flag); free_cache_engine: hand the rollout's
  // cached GPU memory back after generation.
  bool enforce_eager = false, free_cache_engine = true;
  // enable_prefix_caching: the n samples of a prompt share its prefill, and prompts reuse the
  // cached KV blocks of an earlier prompt's equal leading blocks.
  bool enable_prefix_caching = true;
  // max_num_batched_tokens: tokens one engine step computes at most (decodes and prefill pieces);
  // enable_chunked_prefill: a prompt longer than what is left of that budget is prefilled in
  // pieces over several steps (otherwise it waits for a step with room for all of it).
  std::int64_t max_num_batched_tokens = 8192;
  bool enable_chunked_prefill = true;

  // max_model_len given (verl reads null and 0 alike: `config.max_model_len or ...`).
  bool has_max_model_len() const { return max_model_len.value_or(0) != 0; }
  // vLLM's max_model_len as verl hands it over: max_model_len when given, else prompt_length +
  // response_length.
  std::int64_t model_len() const {
    return has_max_model_len() ? *max_model_len : prompt_length + response_length;
  }
  // gpu_memory_utilization: the fraction of the GPU's memory the process may hold once the rollout
  // engine's KV cache is allocated (vLLM's definition; verl's default 0.5).
  double gpu_memory_utilization = 0.5;
  // Rollout routing replay and verl's rollout/moe/* load-balance metrics (not implemented by
  // verlpp: rollout::sampling_params refuses them when switched on).
  bool enable_rollout_routing_replay = false;
  std::int64_t moe_load_balance_metrics_interval = 0;
};

struct CriticConfig {
  std::optional<bool> enable;  // null: on iff adv_estimator == gae
  CheckpointContents checkpoint;
  std::string strategy;
  std::int64_t ppo_mini_batch_size = 0;
  std::optional<std::int64_t> ppo_micro_batch_size, ppo_micro_batch_size_per_gpu;
  bool use_dynamic_bsz = false;
  std::int64_t ppo_max_token_len_per_gpu = 0, ulysses_sequence_parallel_size = 1;
  double cliprange_value = 0.5;
  OptimConfig optim;
  EngineConfig engine;
  ModelConfig model;  // critic.model (path of the value model's trunk)
  std::string loss_agg_mode = "token-mean";
  std::int64_t ppo_epochs = 1;
  std::optional<std::int64_t> forward_micro_batch_size_per_gpu;
  std::optional<double> loss_scale_factor;
};

struct KlControlConfig {
  std::string type;
  double kl_coef = 0, target_kl = 0;
  std::int64_t horizon = 0;
};

struct AlgorithmConfig {
  std::string adv_estimator, kl_penalty;
  double gamma = 1.0, lam = 1.0;
  bool norm_adv_by_std_in_grpo = true, use_kl_in_reward = false;
  KlControlConfig kl_ctrl;
  // DAPO's dynamic sampling (trainer/ppo_step.cpp): prompts whose n rewards are all equal are
  // dropped and more are generated until train_batch_size prompts remain.
  struct FilterGroups {
    bool enable = false;
    std::optional<std::string> metric;  // acc, score, seq_reward, seq_final_reward, ...
    std::int64_t max_num_gen_batches = 0, max_inflight_gen_batches = 1;
  } filter_groups;
  // PF-PPO (algo/pf_ppo.h): after GAE, the batch resampled by score-derived weights.
  bool use_pf_ppo = false;
  std::string pf_ppo_reweight_method = "pow";
  double pf_ppo_weight_pow = 2.0;
  algo::RolloutCorrectionConfig rollout_correction;
  // gdpo's named rewards and their weights (verl: dataclass-only, set with +algorithm.*).
  std::vector<std::string> gdpo_reward_keys;
  std::vector<double> gdpo_reward_weights;
};

struct TeacherInferenceConfig {
  std::string name, dtype;
  std::int64_t tensor_model_parallel_size = 1, data_parallel_size = 1,
               pipeline_model_parallel_size = 1, expert_parallel_size = 1, prompt_length = 0,
               response_length = 0, max_num_batched_tokens = 8192;
  std::optional<std::int64_t> max_model_len;
  // engine_kwargs.vllm.max_logprobs: verlpp's teacher needs no such cap, but verl refuses one
  // below forward_kl_topk's topk (DistillationTeacherModelConfig._validate_topk_logprobs).
  std::optional<std::int64_t> vllm_max_logprobs;
};

struct TeacherModelConfig {
  std::optional<std::string> key, model_path;
  std::int64_t num_replicas = 0;
  TeacherInferenceConfig inference;
};

struct DistillationLossConfig {
  std::string loss_mode, policy_loss_mode;
  std::int64_t topk = 0;
  bool use_task_rewards = true, use_policy_gradient = false;
  double distillation_loss_coef = 1.0, clip_ratio = 0.2;
  std::optional<double> loss_max_clamp, log_prob_min_clamp, clip_ratio_low, clip_ratio_high;
};

struct DistillationConfig {
  bool enabled = false;
  std::int64_t n_gpus_per_node = 0, nnodes = 0;
  std::map<std::string, TeacherModelConfig> teacher_models;  // by entry name
  std::string teacher_key;
  DistillationLossConfig distillation_loss;
};

struct RewardModelPoolConfig {
  bool enable = false;  // refused by validation: verlpp has no model-based reward
};

struct TrainerConfig {
  std::string project_name, experiment_name, device, resume_mode, default_local_dir;
  std::optional<std::string> resume_from_path;
  // verl's JSONL dumps of the training and the validation generations, {dir}/{step}.jsonl.
  std::optional<std::string> rollout_data_dir, validation_data_dir;
  std::vector<std::string> logger;
  std::int64_t nnodes = 1, n_gpus_per_node = 8, total_epochs = 1, save_freq = -1, test_freq = -1,
               critic_warmup = 0;
  std::optional<std::int64_t> total_training_steps;
  bool val_before_train = true, balance_batch = true, use_v1 = true, hybrid_engine = true;
  std::string v1_trainer_mode;
  std::int64_t v1_parameter_sync_step = 1;
  bool val_only = false;
  std::optional<std::int64_t> max_actor_ckpt_to_keep, max_critic_ckpt_to_keep;
};

struct Config {
  std::string
      model_engine;  // dp or megatron (selected by --config-name, as verl's defaults list does)
  DataConfig data;
  ModelConfig model;
  ActorConfig actor;
  RefConfig ref;
  RolloutConfig rollout;
  CriticConfig critic;
  AlgorithmConfig algorithm;
  RewardModelPoolConfig reward_model;
  std::string reward_manager;  // reward.reward_manager.name
  DistillationConfig distillation;
  TrainerConfig trainer;
  // actor_rollout_ref.nccl_timeout: seconds a collective may wait for the other ranks.
  std::int64_t nccl_timeout = 600;
};

// Reads the typed sections from a resolved tree. Throws verlpp::Error naming the key for a value of
// the wrong type ("data.train_batch_size: expected an integer, got a string 'abc'"), an absent key,
// or an unset required value (???). `reads`, when given, receives the paths read (unread_keys.h).
Config bind_config(const Node& root, KeyReads* reads = nullptr);

}  // namespace verlpp::config
