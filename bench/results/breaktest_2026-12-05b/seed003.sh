#!/usr/bin/env bash
# verl seed 003: examples/on_policy_distillation_trainer/run_qwen3_5_2b_fsdp.sh (PR #7605), GPU branch + DETERMINISM=true, sizes shrunk.
CMD=${CMD:-/tmp/bt6/verlpp ppo}
max_num_tokens=$((256+8+1))
$CMD \
  algorithm.adv_estimator=grpo algorithm.use_kl_in_reward=False \
  data.train_files="['${TRAIN_FILE}']" data.val_files="['${VAL_FILE}']" \
  data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=8 \
  data.filter_overlong_prompts=True data.truncation='error' data.image_key=images \
  actor_rollout_ref.model.path="${STUDENT_MODEL}" actor_rollout_ref.model.use_remove_padding=True \
  actor_rollout_ref.model.enable_gradient_checkpointing=True \
  actor_rollout_ref.actor.optim.lr=1e-6 actor_rollout_ref.actor.ppo_mini_batch_size=2 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 actor_rollout_ref.actor.use_dynamic_bsz=False \
  actor_rollout_ref.actor.ppo_max_token_len_per_gpu=24576 actor_rollout_ref.actor.use_torch_compile=False \
  actor_rollout_ref.actor.strategy=fsdp2 \
  actor_rollout_ref.actor.fsdp_config.reshard_after_forward=True \
  actor_rollout_ref.actor.fsdp_config.entropy_checkpointing=False \
  actor_rollout_ref.actor.fsdp_config.entropy_from_logits_with_chunking=False \
  actor_rollout_ref.actor.fsdp_config.offload_policy=False \
  actor_rollout_ref.actor.fsdp_config.param_offload=True actor_rollout_ref.actor.fsdp_config.optimizer_offload=True \
  actor_rollout_ref.ref.strategy=fsdp2 actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.ref.fsdp_config.offload_policy=False actor_rollout_ref.ref.fsdp_config.param_offload=True \
  actor_rollout_ref.ref.fsdp_config.reshard_after_forward=True \
  actor_rollout_ref.ref.fsdp_config.entropy_from_logits_with_chunking=False actor_rollout_ref.ref.use_torch_compile=False \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.gpu_memory_utilization=0.4 \
  actor_rollout_ref.rollout.n=1 actor_rollout_ref.rollout.max_model_len=$max_num_tokens \
  actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=False actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=24576 \
  actor_rollout_ref.rollout.calculate_log_probs=True \
  trainer.balance_batch=True trainer.logger='["console","tensorboard"]' \
  trainer.project_name=verl_distill_geo3k trainer.experiment_name=qwen3_5_2b_from_qwen3_5_35b_geo3k \
  trainer.n_gpus_per_node=1 trainer.nnodes=1 trainer.val_before_train=False \
  trainer.save_freq=5 trainer.test_freq=5 trainer.total_epochs=30 \
  distillation.enabled=True distillation.n_gpus_per_node=1 distillation.nnodes=1 \
  distillation.teacher_models.teacher_model.model_path="${TEACHER_MODEL}" \
  distillation.teacher_models.teacher_model.inference.tensor_model_parallel_size=1 \
  distillation.teacher_models.teacher_model.inference.expert_parallel_size=1 \
  distillation.teacher_models.teacher_model.inference.name=vllm \
  distillation.teacher_models.teacher_model.inference.gpu_memory_utilization=0.4 \
  distillation.teacher_models.teacher_model.inference.max_model_len=$max_num_tokens \
  distillation.distillation_loss.loss_mode=k1 distillation.distillation_loss.topk=64 \
  distillation.distillation_loss.use_task_rewards=False distillation.distillation_loss.use_policy_gradient=True \
  distillation.distillation_loss.loss_max_clamp=10.0 distillation.distillation_loss.log_prob_min_clamp=-10.0 \
  data.shuffle=False data.validation_shuffle=False data.seed=42 \
  actor_rollout_ref.actor.data_loader_seed=42 actor_rollout_ref.actor.fsdp_config.seed=42 \
  actor_rollout_ref.actor.fsdp_config.full_determinism=True \
  actor_rollout_ref.ref.fsdp_config.seed=42 actor_rollout_ref.ref.fsdp_config.full_determinism=True \
  actor_rollout_ref.rollout.seed=42 \
  +distillation.teacher_models.teacher_model.inference.seed=42 \
  ray_kwargs.ray_init.runtime_env.py_executable="uv -v run --frozen --all-packages --extra vllm --extra fsdp" \
  trainer.device=cpu "$@"
