#!/usr/bin/env bash
# verl's examples/on_policy_distillation_trainer/run_qwen3_5_2b_fsdp.sh (PR #7605, seed 003) with only
# the launcher changed: on-policy distillation of Qwen3.5-2B from Qwen3.5-35B-A3B, 8 GPUs for the
# student and 8 for the teacher. Check it with VERLPP_COMMAND="verlpp check".
set -euo pipefail
VERLPP_COMMAND=${VERLPP_COMMAND:-verlpp main_ppo}
STUDENT_MODEL=${STUDENT_MODEL:-Qwen/Qwen3.5-2B}
TEACHER_MODEL=${TEACHER_MODEL:-Qwen/Qwen3.5-35B-A3B}
TRAIN_FILE=${TRAIN_FILE:-$HOME/data/geo3k/train.parquet}
VAL_FILE=${VAL_FILE:-$HOME/data/geo3k/test.parquet}
NNODES=${NNODES:-1}
NGPUS_PER_NODE=${NGPUS_PER_NODE:-8}
TEACHER_WORLD_SIZE=${TEACHER_WORLD_SIZE:-8}
MAX_PROMPT_LENGTH=1024
MAX_RESPONSE_LENGTH=2048
MAX_NUM_TOKENS=$((MAX_PROMPT_LENGTH + MAX_RESPONSE_LENGTH + 1))
T=distillation.teacher_models.teacher_model

$VERLPP_COMMAND \
  algorithm.adv_estimator=grpo algorithm.use_kl_in_reward=False \
  data.train_files="['$TRAIN_FILE']" data.val_files="['$VAL_FILE']" \
  data.train_batch_size=128 data.max_prompt_length=$MAX_PROMPT_LENGTH \
  data.max_response_length=$MAX_RESPONSE_LENGTH data.filter_overlong_prompts=True \
  data.truncation='error' data.image_key=images \
  actor_rollout_ref.model.path="$STUDENT_MODEL" actor_rollout_ref.model.use_remove_padding=True \
  actor_rollout_ref.model.enable_gradient_checkpointing=True \
  actor_rollout_ref.actor.optim.lr=1e-6 actor_rollout_ref.actor.ppo_mini_batch_size=128 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 actor_rollout_ref.actor.use_dynamic_bsz=False \
  actor_rollout_ref.actor.ppo_max_token_len_per_gpu=24576 actor_rollout_ref.actor.use_torch_compile=False \
  actor_rollout_ref.actor.strategy=fsdp2 \
  actor_rollout_ref.actor.fsdp_config.reshard_after_forward=True \
  actor_rollout_ref.actor.fsdp_config.entropy_checkpointing=False \
  actor_rollout_ref.actor.fsdp_config.entropy_from_logits_with_chunking=False \
  actor_rollout_ref.actor.fsdp_config.offload_policy=False \
  actor_rollout_ref.actor.fsdp_config.param_offload=True \
  actor_rollout_ref.actor.fsdp_config.optimizer_offload=True \
  actor_rollout_ref.ref.strategy=fsdp2 actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.ref.fsdp_config.offload_policy=False actor_rollout_ref.ref.fsdp_config.param_offload=True \
  actor_rollout_ref.ref.fsdp_config.reshard_after_forward=True \
  actor_rollout_ref.ref.fsdp_config.entropy_from_logits_with_chunking=False \
  actor_rollout_ref.ref.use_torch_compile=False \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.rollout.tensor_model_parallel_size=2 actor_rollout_ref.rollout.gpu_memory_utilization=0.4 \
  actor_rollout_ref.rollout.n=1 actor_rollout_ref.rollout.max_model_len=$MAX_NUM_TOKENS \
  actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=False \
  actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=24576 \
  actor_rollout_ref.rollout.calculate_log_probs=True \
  trainer.balance_batch=True trainer.logger='["console","tensorboard"]' \
  trainer.project_name=verl_distill_geo3k trainer.experiment_name=qwen3_5_2b_from_qwen3_5_35b_geo3k \
  trainer.n_gpus_per_node=$NGPUS_PER_NODE trainer.nnodes=$NNODES trainer.val_before_train=False \
  trainer.save_freq=5 trainer.test_freq=5 trainer.total_epochs=30 \
  distillation.enabled=True distillation.n_gpus_per_node=$TEACHER_WORLD_SIZE distillation.nnodes=$NNODES \
  $T.model_path="$TEACHER_MODEL" $T.inference.tensor_model_parallel_size=8 \
  $T.inference.expert_parallel_size=8 $T.inference.name=vllm $T.inference.gpu_memory_utilization=0.4 \
  $T.inference.max_model_len=$MAX_NUM_TOKENS \
  distillation.distillation_loss.loss_mode=k1 distillation.distillation_loss.topk=64 \
  distillation.distillation_loss.use_task_rewards=False distillation.distillation_loss.use_policy_gradient=True \
  distillation.distillation_loss.loss_max_clamp=10.0 distillation.distillation_loss.log_prob_min_clamp=-10.0 \
  data.shuffle=False data.validation_shuffle=False data.seed=42 \
  actor_rollout_ref.actor.data_loader_seed=42 actor_rollout_ref.actor.fsdp_config.seed=42 \
  actor_rollout_ref.actor.fsdp_config.full_determinism=True \
  actor_rollout_ref.ref.fsdp_config.seed=42 actor_rollout_ref.ref.fsdp_config.full_determinism=True \
  actor_rollout_ref.rollout.seed=42 +$T.inference.seed=42 \
  ray_kwargs.ray_init.runtime_env.py_executable=null "$@"
