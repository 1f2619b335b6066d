#include "verlpp/config/sections.h"

#include "verlpp/config/node_json.h"
#include "verlpp/config/section.h"
#include "verlpp/config/yaml_io.h"
#include "verlpp/core/error.h"

namespace verlpp::config {

OptimConfig bind_optim(const Section& s) {
  OptimConfig o;
  o.optimizer = s.string("optimizer");
  o.lr = s.real("lr");
  o.weight_decay = s.real("weight_decay");
  o.clip_grad = s.real("clip_grad");
  o.lr_warmup_steps_ratio = s.real("lr_warmup_steps_ratio");
  if (s.has("lr_warmup_steps")) o.lr_warmup_steps = s.opt_integer("lr_warmup_steps").value_or(-1);
  if (s.has("betas")) o.betas = s.reals("betas");
  if (s.has("min_lr_ratio")) o.min_lr_ratio = s.opt_real("min_lr_ratio").value_or(0.0);
  if (s.has("lr_scheduler_type")) o.lr_scheduler_type = s.string("lr_scheduler_type");
  if (s.has("warmup_style")) o.warmup_style = s.opt_string("warmup_style");
  if (s.has("num_cycles")) o.num_cycles = s.real("num_cycles");
  if (s.has("zero_indexed_step")) o.zero_indexed_step = s.boolean("zero_indexed_step");
  return o;
}

ModelConfig bind_model(const Section& s) {
  ModelConfig m;
  m.path = s.string("path");
  m.hf_config_path = s.opt_string("hf_config_path");
  m.tokenizer_path = s.opt_string("tokenizer_path");
  if (s.is_set("override_config")) {
    m.override_config = nlohmann::json(node_to_json(s.child("override_config").node()));
  }
  if (s.has("custom_chat_template")) m.custom_chat_template = s.opt_string("custom_chat_template");
  m.use_remove_padding = s.boolean("use_remove_padding");
  m.enable_gradient_checkpointing = s.boolean("enable_gradient_checkpointing");
  m.lora.rank = s.integer("lora_rank");
  if (s.has("lora")) {
    const Section lora = s.child("lora");
    const std::int64_t rank = lora.integer("rank");
    if (rank > 0) m.lora.rank = rank;
    m.lora.merge = lora.boolean("merge");
  }
  return m;
}

ShardingConfig bind_sharding(const Section& s) {
  ShardingConfig c;
  if (s.has("fsdp_size")) c.fsdp_size = s.integer("fsdp_size");
  if (s.has("param_offload")) c.param_offload = s.boolean("param_offload");
  if (s.has("optimizer_offload")) c.optimizer_offload = s.boolean("optimizer_offload");
  if (s.has("reshard_after_forward")) c.reshard_after_forward = s.boolean("reshard_after_forward");
  return c;
}

namespace {

DataConfig bind_data(const Section& s) {
  DataConfig d;
  d.train_files = s.strings("train_files");
  d.val_files = s.strings("val_files");
  d.prompt_key = s.string("prompt_key");
  d.reward_fn_key = s.string("reward_fn_key");
  d.truncation = s.string("truncation");
  d.train_batch_size = s.integer("train_batch_size");
  d.max_prompt_length = s.integer("max_prompt_length");
  d.max_response_length = s.integer("max_response_length");
  d.val_batch_size = s.opt_integer("val_batch_size");
  d.gen_batch_size = s.opt_integer("gen_batch_size");
  d.seed = s.opt_integer("seed");
  d.train_max_samples = s.integer("train_max_samples");
  d.val_max_samples = s.integer("val_max_samples");
  d.shuffle = s.boolean("shuffle");
  d.filter_overlong_prompts = s.boolean("filter_overlong_prompts");
  d.return_raw_chat = s.boolean("return_raw_chat");
  if (s.has("image_key")) d.image_key = s.opt_string("image_key").value_or("");
  if (s.has("apply_chat_template_kwargs")) {
    d.apply_chat_template_kwargs = node_to_json(s.child("apply_chat_template_kwargs").node());
  }
  return d;
}

MegatronConfig bind_megatron(const Section& s) {
  MegatronConfig m;
  m.tensor_model_parallel_size = s.integer("tensor_model_parallel_size");
  m.pipeline_model_parallel_size = s.integer("pipeline_model_parallel_size");
  m.context_parallel_size = s.integer("context_parallel_size");
  m.expert_model_parallel_size = s.integer("expert_model_parallel_size");
  m.expert_tensor_parallel_size = s.opt_integer("expert_tensor_parallel_size");
  m.virtual_pipeline_model_parallel_size = s.opt_integer("virtual_pipeline_model_parallel_size");
  m.sequence_parallel = s.boolean("sequence_parallel");
  m.dtype = s.string("dtype");
  if (s.has("param_offload")) m.param_offload = s.boolean("param_offload");
  if (s.has("optimizer_offload")) m.optimizer_offload = s.boolean("optimizer_offload");
  if (s.has("use_dist_checkpointing"))
    m.use_dist_checkpointing = s.boolean("use_dist_checkpointing");
  if (s.has("dynamic_context_parallel"))
    m.dynamic_context_parallel = s.boolean("dynamic_context_parallel");
  if (s.has("max_seqlen_per_dp_cp_rank"))
    m.max_seqlen_per_dp_cp_rank = s.opt_integer("max_seqlen_per_dp_cp_rank");
  const Section overrides = s.child("override_transformer_config");
  if (overrides.has("num_layers_in_first_pipeline_stage")) {
    m.num_layers_in_first_pipeline_stage =
        overrides.opt_integer("num_layers_in_first_pipeline_stage");
  }
  if (overrides.has("num_layers_in_last_pipeline_stage")) {
    m.num_layers_in_last_pipeline_stage =
        overrides.opt_integer("num_layers_in_last_pipeline_stage");
  }
  if (overrides.has("moe_router_load_balancing_type")) {
    m.moe_router_load_balancing_type = overrides.string("moe_router_load_balancing_type");
    if (m.moe_router_load_balancing_type != "none" &&
        m.moe_router_load_balancing_type != "aux_loss") {
      throw Error(overrides.path() + ".moe_router_load_balancing_type: '" +
                  m.moe_router_load_balancing_type +
                  "' is not supported by verlpp (expected none or aux_loss)");
    }
  }
  if (overrides.has("moe_aux_loss_coeff")) {
    m.moe_aux_loss_coeff = overrides.opt_real("moe_aux_loss_coeff");
  }
  for (const char* key :
       {"moe_router_topk", "num_moe_experts", "moe_z_loss_coeff", "moe_router_score_function",
        "moe_router_pre_softmax", "moe_router_topk_scaling_factor", "moe_expert_capacity_factor",
        "moe_router_enable_expert_bias", "moe_input_jitter_eps", "moe_router_num_groups",
        "moe_router_group_topk"}) {
    if (overrides.is_set(key)) m.unapplied_moe_overrides.push_back(key);
  }
  return m;
}

FsdpConfig bind_fsdp(const Section& s) {
  FsdpConfig f;
  f.strategy = s.string("strategy");
  f.fsdp_size = s.integer("fsdp_size");
  f.sharding = bind_sharding(s);
  f.ulysses_sequence_parallel_size = s.integer("ulysses_sequence_parallel_size");
  if (s.has("turbo_config")) {
    const Section distributed = s.child("turbo_config").child("distributed");
    f.turbo_fully_shard_parallel_size = distributed.integer("fully_shard_parallel_size");
    f.turbo_expert_parallel_size = distributed.integer("expert_parallel_size");
    f.turbo_ulysses_parallel_size = distributed.integer("ulysses_parallel_size");
  }
  if (s.has("dtype")) f.dtype = s.opt_string("dtype").value_or("");
  return f;
}

EngineConfig bind_engine(const Section& s, const std::string& fsdp_key) {
  EngineConfig e;
  if (s.has("megatron")) e.megatron = bind_megatron(s.child("megatron"));
  if (s.has(fsdp_key)) e.fsdp = bind_fsdp(s.child(fsdp_key));
  return e;
}

SamplingConfig bind_sampling(const Section& s) {
  SamplingConfig v;
  v.temperature = s.real("temperature");
  v.top_k = s.integer("top_k");
  v.top_p = s.real("top_p");
  v.do_sample = s.boolean("do_sample");
  if (s.has("n")) v.n = s.integer("n");
  return v;
}

ActorConfig bind_actor(const Section& s) {
  ActorConfig a;
  a.strategy = s.string("strategy");
  a.checkpoint = bind_checkpoint_contents(s);
  a.rollout_n = s.integer("rollout_n");
  a.ppo_mini_batch_size = s.integer("ppo_mini_batch_size");
  a.ppo_micro_batch_size = s.opt_integer("ppo_micro_batch_size");
  a.ppo_micro_batch_size_per_gpu = s.opt_integer("ppo_micro_batch_size_per_gpu");
  a.use_dynamic_bsz = s.boolean("use_dynamic_bsz");
  a.ppo_max_token_len_per_gpu = s.integer("ppo_max_token_len_per_gpu");
  a.ppo_epochs = s.integer("ppo_epochs");
  a.clip_ratio = s.real("clip_ratio");
  a.clip_ratio_low = s.real("clip_ratio_low");
  a.clip_ratio_high = s.real("clip_ratio_high");
  a.clip_ratio_c = s.real("clip_ratio_c");
  a.tau_pos = s.real("tau_pos");
  a.tau_neg = s.real("tau_neg");
  a.entropy_coeff = s.real("entropy_coeff");
  a.use_kl_loss = s.boolean("use_kl_loss");
  a.kl_loss_coef = s.real("kl_loss_coef");
  a.kl_loss_type = s.string("kl_loss_type");
  a.loss_agg_mode = s.string("loss_agg_mode");
  if (s.has("ulysses_sequence_parallel_size")) {
    a.ulysses_sequence_parallel_size = s.integer("ulysses_sequence_parallel_size");
  }
  a.router_replay_mode = s.child("router_replay").string("mode");
  const Section loss = s.child("policy_loss");
  a.policy_loss.loss_mode = loss.string("loss_mode");
  a.policy_loss.clip_cov_ratio = loss.real("clip_cov_ratio");
  a.policy_loss.kl_cov_ratio = loss.real("kl_cov_ratio");
  a.policy_loss.clip_cov_lb = loss.real("clip_cov_lb");
  a.policy_loss.clip_cov_ub = loss.real("clip_cov_ub");
  a.policy_loss.ppo_kl_coef = loss.real("ppo_kl_coef");
  a.policy_loss.dro_beta = loss.opt_real("dro_beta");
  a.optim = bind_optim(s.child("optim"));
  a.engine = bind_engine(s, "fsdp_config");
  if (s.has("shuffle")) a.shuffle = s.boolean("shuffle");
  if (s.has("calculate_entropy")) a.calculate_entropy = s.boolean("calculate_entropy");
  if (s.has("calculate_sum_pi_squared")) {
    a.calculate_sum_pi_squared = s.boolean("calculate_sum_pi_squared");
  }
  if (s.has("data_loader_seed")) a.data_loader_seed = s.integer("data_loader_seed");
  if (s.has("loss_scale_factor")) a.loss_scale_factor = s.opt_real("loss_scale_factor");
  return a;
}

RefConfig bind_ref(const Section& s) {
  RefConfig r;
  r.strategy = s.string("strategy");
  r.log_prob_micro_batch_size = s.opt_integer("log_prob_micro_batch_size");
  r.log_prob_micro_batch_size_per_gpu = s.opt_integer("log_prob_micro_batch_size_per_gpu");
  r.log_prob_use_dynamic_bsz = s.boolean("log_prob_use_dynamic_bsz");
  r.log_prob_max_token_len_per_gpu = s.opt_integer("log_prob_max_token_len_per_gpu");
  r.engine = bind_engine(s, "fsdp_config");
  return r;
}

RolloutConfig bind_rollout(const Section& s) {
  RolloutConfig r;
  r.name = s.string("name");
  r.mode = s.string("mode");
  r.n = s.integer("n");
  r.prompt_length = s.integer("prompt_length");
  r.response_length = s.integer("response_length");
  r.seed = s.integer("seed");
  r.sampling = bind_sampling(s);
  r.val_kwargs = bind_sampling(s.child("val_kwargs"));
  r.tensor_model_parallel_size = s.integer("tensor_model_parallel_size");
  r.data_parallel_size = s.integer("data_parallel_size");
  r.expert_parallel_size = s.integer("expert_parallel_size");
  r.pipeline_model_parallel_size = s.integer("pipeline_model_parallel_size");
  if (s.has("moe_tensor_parallel_size"))
    r.moe_tensor_parallel_size = s.integer("moe_tensor_parallel_size");
  r.max_model_len = s.opt_integer("max_model_len");
  r.max_num_seqs = s.opt_integer("max_num_seqs");
  r.log_prob_micro_batch_size = s.opt_integer("log_prob_micro_batch_size");
  r.log_prob_micro_batch_size_per_gpu = s.opt_integer("log_prob_micro_batch_size_per_gpu");
  r.log_prob_use_dynamic_bsz = s.boolean("log_prob_use_dynamic_bsz");
  r.log_prob_max_token_len_per_gpu = s.opt_integer("log_prob_max_token_len_per_gpu");
  r.ignore_eos = s.boolean("ignore_eos");
  r.calculate_log_probs = s.boolean("calculate_log_probs");
  if (s.has("disaggregation"))
    r.disaggregation_enabled = s.child("disaggregation").boolean("enabled");
  if (s.has("enforce_eager")) r.enforce_eager = s.boolean("enforce_eager");
  if (s.has("free_cache_engine")) r.free_cache_engine = s.boolean("free_cache_engine");
  if (s.has("enable_prefix_caching")) r.enable_prefix_caching = s.boolean("enable_prefix_caching");
  if (s.has("max_num_batched_tokens"))
    r.max_num_batched_tokens = s.integer("max_num_batched_tokens");
  if (s.has("enable_chunked_prefill")) {
    r.enable_chunked_prefill = s.boolean("enable_chunked_prefill");
  }
  if (s.has("gpu_memory_utilization")) r.gpu_memory_utilization = s.real("gpu_memory_utilization");
  if (s.has("enable_rollout_routing_replay")) {
    r.enable_rollout_routing_replay = s.boolean("enable_rollout_routing_replay");
  }
  if (s.has("moe_load_balance_metrics_interval")) {
    r.moe_load_balance_metrics_interval = s.integer("moe_load_balance_metrics_interval");
  }
  return r;
}

CriticConfig bind_critic(const Section& s) {
  CriticConfig c;
  c.enable = s.opt_boolean("enable");
  c.checkpoint = bind_checkpoint_contents(s);
  c.strategy = s.string("strategy");
  c.ppo_mini_batch_size = s.integer("ppo_mini_batch_size");
  c.ppo_micro_batch_size = s.opt_integer("ppo_micro_batch_size");
  c.ppo_micro_batch_size_per_gpu = s.opt_integer("ppo_micro_batch_size_per_gpu");
  c.use_dynamic_bsz = s.boolean("use_dynamic_bsz");
  c.ppo_max_token_len_per_gpu = s.integer("ppo_max_token_len_per_gpu");
  if (s.has("ulysses_sequence_parallel_size")) {
    c.ulysses_sequence_parallel_size = s.integer("ulysses_sequence_parallel_size");
  }
  c.cliprange_value = s.real("cliprange_value");
  c.optim = bind_optim(s.child("optim"));
  c.engine = bind_engine(s, "fsdp");
  if (s.has("model")) c.model = bind_model(s.child("model"));
  if (s.has("loss_agg_mode")) c.loss_agg_mode = s.string("loss_agg_mode");
  if (s.has("ppo_epochs")) c.ppo_epochs = s.integer("ppo_epochs");
  if (s.has("forward_micro_batch_size_per_gpu")) {
    c.forward_micro_batch_size_per_gpu = s.opt_integer("forward_micro_batch_size_per_gpu");
  }
  if (s.has("loss_scale_factor")) c.loss_scale_factor = s.opt_real("loss_scale_factor");
  return c;
}

AlgorithmConfig bind_algorithm(const Section& s) {
  AlgorithmConfig a;
  a.adv_estimator = s.string("adv_estimator");
  a.kl_penalty = s.string("kl_penalty");
  a.gamma = s.real("gamma");
  a.lam = s.real("lam");
  a.norm_adv_by_std_in_grpo = s.boolean("norm_adv_by_std_in_grpo");
  a.use_kl_in_reward = s.boolean("use_kl_in_reward");
  if (s.has("filter_groups")) {
    const Section f = s.child("filter_groups");
    a.filter_groups.enable = f.boolean("enable");
    a.filter_groups.metric = f.opt_string("metric");
    a.filter_groups.max_num_gen_batches = f.integer("max_num_gen_batches");
    if (f.has("max_inflight_gen_batches")) {
      a.filter_groups.max_inflight_gen_batches = f.integer("max_inflight_gen_batches");
    }
  }
  if (s.has("use_pf_ppo")) a.use_pf_ppo = s.boolean("use_pf_ppo");
  if (s.has("pf_ppo")) {
    const Section pf = s.child("pf_ppo");
    a.pf_ppo_reweight_method = pf.string("reweight_method");
    a.pf_ppo_weight_pow = pf.real("weight_pow");
  }
  const Section kl = s.child("kl_ctrl");
  a.kl_ctrl.type = kl.string("type");
  a.kl_ctrl.kl_coef = kl.real("kl_coef");
  a.kl_ctrl.horizon = kl.integer("horizon");
  a.kl_ctrl.target_kl = kl.real("target_kl");
  const Section rc = s.child("rollout_correction");
  algo::RolloutCorrectionConfig& r = a.rollout_correction;
  r.rollout_is = rc.opt_string("rollout_is");
  r.rollout_is_threshold = rc.real("rollout_is_threshold");
  r.rollout_is_batch_normalize = rc.boolean("rollout_is_batch_normalize");
  r.rollout_rs = rc.opt_string("rollout_rs");
  r.rollout_rs_threshold = rc.opt_text("rollout_rs_threshold");
  r.bypass_mode = rc.boolean("bypass_mode");
  r.loss_type = rc.string("loss_type");
  if (s.has("gdpo_reward_keys")) a.gdpo_reward_keys = s.strings("gdpo_reward_keys");
  if (s.has("gdpo_reward_weights")) a.gdpo_reward_weights = s.opt_reals("gdpo_reward_weights");
  return a;
}

// The keys reward::reward_settings (reward/reward_settings.cpp) reads from the tree: the custom
// reward library, the reward manager and its kwargs.
void mark_reward_settings(const Section& reward) {
  for (const char* key :
       {"custom_reward_function.path", "custom_reward_function.name", "reward_manager.name",
        "reward_kwargs.verl_compat", "reward_kwargs.overlong_buffer_cfg.enable",
        "reward_kwargs.overlong_buffer_cfg.len", "reward_kwargs.overlong_buffer_cfg.penalty_factor",
        "reward_kwargs.overlong_buffer_cfg.log", "reward_kwargs.max_resp_len"}) {
    reward.mark_read(key);
  }
}

// The pool's own keys are read as their types (a wrong type is an error) but matter only with
// enable, which validation refuses.
RewardModelPoolConfig bind_reward_model(const Section& s) {
  RewardModelPoolConfig r;
  r.enable = s.boolean("enable");
  (void)s.boolean("enable_resource_pool");
  (void)s.integer("n_gpus_per_node");
  (void)s.integer("nnodes");
  return r;
}

// `defaults`: the values of inference keys the entry does not give (a +teacher_models.<name> entry
// inherits the teacher_model entry's, which holds teacher_model.yaml's defaults).
TeacherModelConfig bind_teacher(const Section& s, const TeacherInferenceConfig& defaults) {
  TeacherModelConfig t;
  t.key = s.opt_string("key");
  t.model_path = s.opt_string("model_path");
  if (s.has("num_replicas")) t.num_replicas = s.integer("num_replicas");
  t.inference = defaults;
  if (!s.has("inference")) return t;
  const Section inference = s.child("inference");
  TeacherInferenceConfig& i = t.inference;
  if (inference.has("name")) i.name = inference.string("name");
  if (inference.has("dtype")) i.dtype = inference.opt_string("dtype").value_or("");
  for (const auto& [field, value] :
       {std::pair{"tensor_model_parallel_size", &i.tensor_model_parallel_size},
        std::pair{"data_parallel_size", &i.data_parallel_size},
        std::pair{"pipeline_model_parallel_size", &i.pipeline_model_parallel_size},
        std::pair{"expert_parallel_size", &i.expert_parallel_size},
        std::pair{"prompt_length", &i.prompt_length},
        std::pair{"response_length", &i.response_length},
        std::pair{"max_num_batched_tokens", &i.max_num_batched_tokens}}) {
    if (inference.has(field)) *value = inference.integer(field);
  }
  if (inference.has("max_model_len")) i.max_model_len = inference.opt_integer("max_model_len");
  if (inference.has("engine_kwargs") && inference.child("engine_kwargs").has("vllm")) {
    i.vllm_max_logprobs =
        inference.child("engine_kwargs").child("vllm").opt_integer("max_logprobs");
  }
  return t;
}

DistillationConfig bind_distillation(const Section& s) {
  DistillationConfig d;
  d.enabled = s.boolean("enabled");
  d.n_gpus_per_node = s.integer("n_gpus_per_node");
  d.nnodes = s.integer("nnodes");
  d.teacher_key = s.string("teacher_key");
  const Section teachers = s.child("teacher_models");
  TeacherInferenceConfig defaults;
  if (teachers.has("teacher_model")) {
    d.teacher_models["teacher_model"] = bind_teacher(teachers.child("teacher_model"), defaults);
    defaults = d.teacher_models["teacher_model"].inference;
  }
  for (const auto& [name, node] : teachers.node().entries()) {
    if (name != "teacher_model")
      d.teacher_models[name] = bind_teacher(teachers.child(name), defaults);
  }
  const Section loss = s.child("distillation_loss");
  d.distillation_loss.loss_mode = loss.string("loss_mode");
  d.distillation_loss.policy_loss_mode = loss.string("policy_loss_mode");
  d.distillation_loss.topk = loss.integer("topk");
  d.distillation_loss.use_task_rewards = loss.boolean("use_task_rewards");
  d.distillation_loss.use_policy_gradient = loss.boolean("use_policy_gradient");
  d.distillation_loss.loss_max_clamp = loss.opt_real("loss_max_clamp");
  d.distillation_loss.log_prob_min_clamp = loss.opt_real("log_prob_min_clamp");
  d.distillation_loss.distillation_loss_coef = loss.real("distillation_loss_coef");
  d.distillation_loss.clip_ratio = loss.real("clip_ratio");
  d.distillation_loss.clip_ratio_low = loss.opt_real("clip_ratio_low");
  d.distillation_loss.clip_ratio_high = loss.opt_real("clip_ratio_high");
  return d;
}

TrainerConfig bind_trainer(const Section& s) {
  TrainerConfig t;
  t.project_name = s.string("project_name");
  t.experiment_name = s.string("experiment_name");
  t.device = s.string("device");
  t.resume_mode = s.string("resume_mode");
  t.resume_from_path = s.opt_string("resume_from_path");
  if (s.has("rollout_data_dir")) t.rollout_data_dir = s.opt_string("rollout_data_dir");
  if (s.has("validation_data_dir")) t.validation_data_dir = s.opt_string("validation_data_dir");
  t.default_local_dir = s.string("default_local_dir");
  t.logger = s.strings("logger");
  t.nnodes = s.integer("nnodes");
  t.n_gpus_per_node = s.integer("n_gpus_per_node");
  t.total_epochs = s.integer("total_epochs");
  t.total_training_steps = s.opt_integer("total_training_steps");
  t.save_freq = s.integer("save_freq");
  t.test_freq = s.integer("test_freq");
  t.critic_warmup = s.integer("critic_warmup");
  t.val_before_train = s.boolean("val_before_train");
  t.balance_batch = s.boolean("balance_batch");
  t.use_v1 = s.boolean("use_v1");
  const Section v1 = s.child("v1");
  t.v1_trainer_mode = v1.string("trainer_mode");
  t.v1_parameter_sync_step = v1.child("separate_async").integer("parameter_sync_step");
  if (s.has("val_only")) t.val_only = s.boolean("val_only");
  if (s.has("max_actor_ckpt_to_keep"))
    t.max_actor_ckpt_to_keep = s.opt_integer("max_actor_ckpt_to_keep");
  if (s.has("max_critic_ckpt_to_keep"))
    t.max_critic_ckpt_to_keep = s.opt_integer("max_critic_ckpt_to_keep");
  return t;
}

}  // namespace

CheckpointContents bind_checkpoint_contents(const Section& s) {
  CheckpointContents c;
  if (!s.has("checkpoint")) return c;
  const Section checkpoint = s.child("checkpoint");
  if (checkpoint.has("save_contents")) c.save_contents = checkpoint.strings("save_contents");
  if (checkpoint.has("load_contents")) c.load_contents = checkpoint.strings("load_contents");
  return c;
}

Config bind_config(const Node& root, KeyReads* reads) {
  const Section top(&root, "", reads);
  Config c;
  c.model_engine = top.string("model_engine");
  c.data = bind_data(top.child("data"));
  const Section arr = top.child("actor_rollout_ref");
  c.model = bind_model(arr.child("model"));
  // The rollout first: actor.rollout_n and the ref's keys interpolate rollout.n, and a bad value
  // is named by the key the user set.
  c.rollout = bind_rollout(arr.child("rollout"));
  c.actor = bind_actor(arr.child("actor"));
  c.ref = bind_ref(arr.child("ref"));
  c.critic = bind_critic(top.child("critic"));
  c.algorithm = bind_algorithm(top.child("algorithm"));
  c.reward_model = bind_reward_model(top.child("reward").child("reward_model"));
  mark_reward_settings(top.child("reward"));
  c.reward_manager = top.child("reward").child("reward_manager").string("name");
  c.distillation = bind_distillation(top.child("distillation"));
  c.trainer = bind_trainer(top.child("trainer"));
  c.trainer.hybrid_engine = arr.boolean("hybrid_engine");
  c.nccl_timeout = arr.opt_integer("nccl_timeout").value_or(600);
  return c;
}

}  // namespace verlpp::config
