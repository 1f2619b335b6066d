#!/usr/bin/env bash
# verl seed 002: examples/grpo_trainer/run_qwen3_235b_256k_megatron_npu.sh (PR #5908), every key kept, sizes shrunk.
CMD=${CMD:-/tmp/bt6/verlpp ppo}
A=actor_rollout_ref.actor.megatron
train_tp=${train_tp:-1}; train_pp=${train_pp:-1}; train_cp=${train_cp:-1}; train_ep=${train_ep:-1}; first_layer=${first_layer:-1}; last_layer=${last_layer:-1}
$CMD --config-path=config --config-name='ppo_megatron_trainer.yaml' \
  data.train_files=${TRAIN_FILE} data.val_files=${TEST_FILE} data.prompt_key=prompt data.train_batch_size=2 \
  data.max_prompt_length=256 data.max_response_length=8 data.filter_overlong_prompts=False data.truncation='left' \
  actor_rollout_ref.model.path=${MODEL_PATH} actor_rollout_ref.model.use_remove_padding=True \
  actor_rollout_ref.actor.use_torch_compile=False actor_rollout_ref.actor.use_dynamic_bsz=False \
  actor_rollout_ref.actor.use_kl_loss=True actor_rollout_ref.actor.kl_loss_coef=0.001 actor_rollout_ref.actor.entropy_coeff=0 \
  actor_rollout_ref.actor.ppo_epochs=1 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.actor.ppo_max_token_len_per_gpu=4096 actor_rollout_ref.actor.ppo_mini_batch_size=2 \
  actor_rollout_ref.actor.kl_loss_type=low_var_kl \
  actor_rollout_ref.actor.optim.clip_grad=1.0 actor_rollout_ref.actor.optim.lr_warmup_steps=10 \
  actor_rollout_ref.actor.optim.weight_decay=0.1 actor_rollout_ref.actor.optim.lr=1e-6 \
  +actor_rollout_ref.actor.optim.override_optimizer_config.optimizer_offload_fraction=1 \
  +actor_rollout_ref.actor.optim.override_optimizer_config.use_precision_aware_optimizer=True \
  +actor_rollout_ref.actor.optim.override_optimizer_config.optimizer_cpu_offload=True \
  $A.tensor_model_parallel_size=$train_tp $A.pipeline_model_parallel_size=$train_pp $A.context_parallel_size=$train_cp \
  $A.expert_model_parallel_size=$train_ep $A.expert_tensor_parallel_size=1 \
  $A.param_offload=True $A.optimizer_offload=True $A.grad_offload=True \
  $A.use_dist_checkpointing=True $A.use_mbridge=False $A.dist_checkpointing_path=${MCORE_MODEL_PATH:-/tmp/bt6/fx/mcore} \
  +$A.override_transformer_config.use_flash_attn=True \
  +$A.override_transformer_config.recompute_method=uniform +$A.override_transformer_config.recompute_granularity=full \
  +$A.override_transformer_config.recompute_num_layers=1 \
  +$A.override_transformer_config.context_parallel_size=$train_cp \
  +$A.override_transformer_config.num_layers_in_first_pipeline_stage=$first_layer \
  +$A.override_transformer_config.num_layers_in_last_pipeline_stage=$last_layer \
  +$A.override_transformer_config.normalization=RMSNorm +$A.override_transformer_config.use_fused_rmsnorm=True \
  +$A.override_transformer_config.swiglu=True +$A.override_transformer_config.use_fused_swiglu=True \
  +$A.override_transformer_config.use_distributed_optimizer=True +$A.override_transformer_config.sequence_parallel=True \
  actor_rollout_ref.ref.use_torch_compile=False actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.ref.log_prob_use_dynamic_bsz=False actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=4096 \
  actor_rollout_ref.ref.megatron.tensor_model_parallel_size=$train_tp actor_rollout_ref.ref.megatron.pipeline_model_parallel_size=$train_pp \
  actor_rollout_ref.ref.megatron.context_parallel_size=$train_cp actor_rollout_ref.ref.megatron.expert_model_parallel_size=$train_ep \
  actor_rollout_ref.ref.megatron.expert_tensor_parallel_size=1 actor_rollout_ref.ref.megatron.param_offload=True \
  actor_rollout_ref.ref.megatron.use_mbridge=False actor_rollout_ref.ref.megatron.use_dist_checkpointing=True \
  actor_rollout_ref.ref.megatron.dist_checkpointing_path=${MCORE_MODEL_PATH:-/tmp/bt6/fx/mcore} \
  ++actor_rollout_ref.ref.megatron.override_transformer_config.use_flash_attn=True \
  +actor_rollout_ref.ref.megatron.override_transformer_config.sequence_parallel=True \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.max_num_seqs=16 \
  actor_rollout_ref.rollout.top_p=1.0 actor_rollout_ref.rollout.top_k=-1 actor_rollout_ref.rollout.temperature=1.0 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=False \
  actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=4096 \
  actor_rollout_ref.rollout.gpu_memory_utilization=0.7 actor_rollout_ref.rollout.max_num_batched_tokens=2048 \
  actor_rollout_ref.rollout.max_model_len=4096 \
  actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.data_parallel_size=1 \
  actor_rollout_ref.rollout.expert_parallel_size=1 \
  actor_rollout_ref.rollout.enable_chunked_prefill=True actor_rollout_ref.rollout.enable_prefix_caching=True \
  actor_rollout_ref.rollout.enforce_eager=True actor_rollout_ref.rollout.free_cache_engine=True \
  algorithm.adv_estimator=grpo algorithm.use_kl_in_reward=False algorithm.kl_ctrl.kl_coef=0.0 \
  trainer.logger='["console","tensorboard"]' trainer.project_name=GRPO-Qwen3-235B-A22B-Instruct-MATH \
  trainer.experiment_name=GRPO-Qwen3-235B-A22B-Instruct-Megatron-vLLM trainer.nnodes=1 trainer.n_gpus_per_node=1 \
  trainer.device='cpu' trainer.total_epochs=15 trainer.val_before_train=False trainer.test_freq=-1 trainer.save_freq=-1 \
  trainer.default_local_dir=${CKPTS_DIR:-ckpts} "$@"
