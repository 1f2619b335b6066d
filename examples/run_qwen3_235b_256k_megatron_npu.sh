#!/usr/bin/env bash
# verl's examples/grpo_trainer/run_qwen3_235b_256k_megatron_npu.sh (PR #5908, seed 002) with only the
# launcher changed: GRPO on Qwen3-235B-A22B-Instruct, 256K context, Megatron tp2·pp16·cp8·ep16 on
# 16 nodes × 16 NPUs. Check it anywhere with:
#   VERLPP_COMMAND="verlpp check" examples/run_qwen3_235b_256k_megatron_npu.sh
set -euo pipefail
VERLPP_COMMAND=${VERLPP_COMMAND:-verlpp main_ppo}
WORK_DIR=${WORK_DIR:-$HOME/verl}
MODEL_PATH=${MODEL_PATH:-$WORK_DIR/Qwen3-235B-A22B-Instruct-2507}
MCORE_MODEL_PATH=${MCORE_MODEL_PATH:-$WORK_DIR/Qwen3-235B-A22B-Instruct-2507-Mcore}
TRAIN_FILE=${TRAIN_FILE:-$WORK_DIR/gsm8k/train.parquet}
TEST_FILE=${TEST_FILE:-$WORK_DIR/gsm8k/test.parquet}
project_name=GRPO-Qwen3-235B-A22B-Instruct-MATH
exp_name=GRPO-Qwen3-235B-A22B-Instruct-Megatron-vLLM
CKPTS_DIR=${CKPTS_DIR:-$HOME/verl/ckpts/$project_name/$exp_name}
NNODES=${NNODES:-16}
NPUS_PER_NODE=${NPUS_PER_NODE:-16}
max_prompt_length=1024
max_response_length=$((1024 * 255))
train_prompt_bsz=4
n_resp_per_prompt=4
train_prompt_mini_bsz=4
ppo_max_token_len=262144
train_tp=${TRAIN_TP:-2}
train_ep=${TRAIN_EP:-16}
train_etp=1
train_pp=${TRAIN_PP:-16}
train_cp=${TRAIN_CP:-8}
gen_tp=4
gen_dp=32
gen_ep=128
first_layer=${FIRST_LAYER:-5}
last_layer=${LAST_LAYER:-5}
M=actor_rollout_ref.actor.megatron
RM=actor_rollout_ref.ref.megatron

$VERLPP_COMMAND --config-path=config --config-name='ppo_megatron_trainer.yaml' \
  data.train_files="$TRAIN_FILE" data.val_files="$TEST_FILE" data.prompt_key=prompt \
  data.train_batch_size=$train_prompt_bsz data.max_prompt_length=$max_prompt_length \
  data.max_response_length=$max_response_length data.filter_overlong_prompts=False data.truncation='left' \
  actor_rollout_ref.model.path="$MODEL_PATH" actor_rollout_ref.model.use_remove_padding=True \
  actor_rollout_ref.actor.use_torch_compile=False actor_rollout_ref.actor.use_dynamic_bsz=False \
  actor_rollout_ref.actor.use_kl_loss=True actor_rollout_ref.actor.kl_loss_coef=0.001 \
  actor_rollout_ref.actor.entropy_coeff=0 actor_rollout_ref.actor.ppo_epochs=1 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.actor.ppo_max_token_len_per_gpu=$ppo_max_token_len \
  actor_rollout_ref.actor.ppo_mini_batch_size=$train_prompt_mini_bsz \
  actor_rollout_ref.actor.kl_loss_type=low_var_kl \
  actor_rollout_ref.actor.optim.clip_grad=1.0 actor_rollout_ref.actor.optim.lr_warmup_steps=10 \
  actor_rollout_ref.actor.optim.weight_decay=0.1 actor_rollout_ref.actor.optim.lr=1e-6 \
  +actor_rollout_ref.actor.optim.override_optimizer_config.optimizer_offload_fraction=1 \
  +actor_rollout_ref.actor.optim.override_optimizer_config.use_precision_aware_optimizer=True \
  +actor_rollout_ref.actor.optim.override_optimizer_config.optimizer_cpu_offload=True \
  $M.tensor_model_parallel_size=$train_tp $M.pipeline_model_parallel_size=$train_pp \
  $M.context_parallel_size=$train_cp $M.expert_model_parallel_size=$train_ep \
  $M.expert_tensor_parallel_size=$train_etp \
  $M.param_offload=True $M.optimizer_offload=True $M.grad_offload=True \
  $M.use_dist_checkpointing=True $M.use_mbridge=False $M.dist_checkpointing_path="$MCORE_MODEL_PATH" \
  +$M.override_transformer_config.use_flash_attn=True \
  +$M.override_transformer_config.recompute_method=uniform \
  +$M.override_transformer_config.recompute_granularity=full \
  +$M.override_transformer_config.recompute_num_layers=1 \
  +$M.override_transformer_config.context_parallel_size=$train_cp \
  +$M.override_transformer_config.num_layers_in_first_pipeline_stage=$first_layer \
  +$M.override_transformer_config.num_layers_in_last_pipeline_stage=$last_layer \
  +$M.override_transformer_config.normalization=RMSNorm \
  +$M.override_transformer_config.use_fused_rmsnorm=True \
  +$M.override_transformer_config.swiglu=True \
  +$M.override_transformer_config.use_fused_swiglu=True \
  +$M.override_transformer_config.use_distributed_optimizer=True \
  +$M.override_transformer_config.sequence_parallel=True \
  actor_rollout_ref.ref.use_torch_compile=False actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.ref.log_prob_use_dynamic_bsz=False \
  actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=$ppo_max_token_len \
  $RM.tensor_model_parallel_size=$train_tp $RM.pipeline_model_parallel_size=$train_pp \
  $RM.context_parallel_size=$train_cp $RM.expert_model_parallel_size=$train_ep \
  $RM.expert_tensor_parallel_size=$train_etp $RM.param_offload=True $RM.use_mbridge=False \
  $RM.use_dist_checkpointing=True $RM.dist_checkpointing_path="$MCORE_MODEL_PATH" \
  ++$RM.override_transformer_config.use_flash_attn=True \
  +$RM.override_transformer_config.sequence_parallel=True \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=$n_resp_per_prompt \
  actor_rollout_ref.rollout.max_num_seqs=16 actor_rollout_ref.rollout.top_p=1.0 \
  actor_rollout_ref.rollout.top_k=-1 actor_rollout_ref.rollout.temperature=1.0 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=False \
  actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=$ppo_max_token_len \
  actor_rollout_ref.rollout.gpu_memory_utilization=0.7 \
  actor_rollout_ref.rollout.max_num_batched_tokens=2048 actor_rollout_ref.rollout.max_model_len=262144 \
  actor_rollout_ref.rollout.tensor_model_parallel_size=$gen_tp \
  actor_rollout_ref.rollout.data_parallel_size=$gen_dp \
  actor_rollout_ref.rollout.expert_parallel_size=$gen_ep \
  actor_rollout_ref.rollout.enable_chunked_prefill=True actor_rollout_ref.rollout.enable_prefix_caching=True \
  actor_rollout_ref.rollout.enforce_eager=True actor_rollout_ref.rollout.free_cache_engine=True \
  algorithm.adv_estimator=grpo algorithm.use_kl_in_reward=False algorithm.kl_ctrl.kl_coef=0.0 \
  trainer.logger='["console","tensorboard"]' trainer.project_name=$project_name \
  trainer.experiment_name=$exp_name trainer.nnodes=$NNODES trainer.n_gpus_per_node=$NPUS_PER_NODE \
  trainer.device='npu' trainer.total_epochs=15 trainer.val_before_train=False trainer.test_freq=-1 \
  trainer.save_freq=-1 trainer.default_local_dir="$CKPTS_DIR" "$@"
