#!/usr/bin/env bash
# verl seed 000: examples/grpo_trainer/run_qwen3_5_35b_fsdp_turbo.sh (post-#7678), every key kept, sizes shrunk.
# usage: CMD="verlpp ppo" MODEL_PATH=.. TRAIN_FILE=.. TEST_FILE=.. bash seed000.sh [extra overrides]
CMD=${CMD:-/tmp/bt6/verlpp ppo}
T=actor_rollout_ref.actor.fsdp_config.turbo_config
R=actor_rollout_ref.ref.fsdp_config.turbo_config
fsdp_size=1; EP_SIZE=1; SP_SIZE=1; ep_dispatcher=eager
$CMD \
  algorithm.adv_estimator=grpo algorithm.use_kl_in_reward=False \
  data.train_files="$TRAIN_FILE" data.val_files="$TEST_FILE" \
  data.train_batch_size=2 data.max_prompt_length=2048 data.max_response_length=8 \
  data.filter_overlong_prompts=True data.truncation='error' data.image_key=images data.shuffle=False \
  actor_rollout_ref.model.path="$MODEL_PATH" actor_rollout_ref.model.use_remove_padding=True \
  actor_rollout_ref.model.enable_gradient_checkpointing=False \
  actor_rollout_ref.actor.optim.lr=1e-6 actor_rollout_ref.actor.optim.optimizer=AdamW \
  actor_rollout_ref.actor.ppo_mini_batch_size=2 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.actor.use_kl_loss=True actor_rollout_ref.actor.entropy_coeff=0 \
  actor_rollout_ref.actor.kl_loss_coef=0.01 actor_rollout_ref.actor.kl_loss_type=low_var_kl \
  actor_rollout_ref.actor.use_dynamic_bsz=False actor_rollout_ref.actor.strategy=fsdp_turbo \
  $T.distributed.fully_shard_parallel_size=$fsdp_size $T.distributed.expert_parallel_size=$EP_SIZE \
  $T.distributed.ulysses_parallel_size=$SP_SIZE \
  "+$T.distributed.fsdp_plan.apply_modules={model.visual.blocks.\{*\}:{},model.visual.patch_embed:{},model.visual.pos_embed:{},model.language_model.embed_tokens:{},model.language_model.layers.\{*\}:{},lm_head:{}}" \
  "+$T.distributed.fsdp_plan.hook_modules=['model.language_model.layers.{*}']" \
  "+$T.distributed.ep_plan.apply_modules=['model.language_model.layers.{*}.mlp.experts']" \
  +$T.distributed.ep_plan.dispatcher=$ep_dispatcher +$T.memory.recompute=True \
  "+$T.memory.recompute_plan=['model.language_model.layers.{*}','model.visual.blocks.{*}']" \
  actor_rollout_ref.actor.fsdp_config.reshard_after_forward=True \
  actor_rollout_ref.actor.fsdp_config.entropy_checkpointing=True \
  actor_rollout_ref.actor.entropy_from_logits_with_chunking=True \
  actor_rollout_ref.actor.use_torch_compile=False \
  actor_rollout_ref.actor.fsdp_config.offload_policy=True \
  actor_rollout_ref.actor.fsdp_config.param_offload=True \
  actor_rollout_ref.actor.fsdp_config.optimizer_offload=True \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1 actor_rollout_ref.ref.strategy=fsdp_turbo \
  $R.distributed.fully_shard_parallel_size=$fsdp_size $R.distributed.expert_parallel_size=$EP_SIZE \
  $R.distributed.ulysses_parallel_size=$SP_SIZE \
  "+$R.distributed.fsdp_plan.apply_modules={model.visual.blocks.\{*\}:{},model.visual.patch_embed:{},model.visual.pos_embed:{},model.language_model.embed_tokens:{},model.language_model.layers.\{*\}:{},lm_head:{}}" \
  "+$R.distributed.fsdp_plan.hook_modules=['model.language_model.layers.{*}']" \
  "+$R.distributed.ep_plan.apply_modules=['model.language_model.layers.{*}.mlp.experts']" \
  +$R.distributed.ep_plan.dispatcher=$ep_dispatcher +$R.memory.recompute=True \
  "+$R.memory.recompute_plan=['model.language_model.layers.{*}','model.visual.blocks.{*}']" \
  actor_rollout_ref.ref.fsdp_config.reshard_after_forward=True \
  actor_rollout_ref.ref.entropy_from_logits_with_chunking=True \
  actor_rollout_ref.ref.use_torch_compile=False \
  actor_rollout_ref.ref.fsdp_config.offload_policy=True actor_rollout_ref.ref.fsdp_config.param_offload=True \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.ignore_eos=False \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
  actor_rollout_ref.rollout.gpu_memory_utilization=0.5 actor_rollout_ref.rollout.n=2 \
  actor_rollout_ref.rollout.enable_chunked_prefill=True actor_rollout_ref.rollout.max_num_batched_tokens=8192 \
  actor_rollout_ref.rollout.free_cache_engine=True actor_rollout_ref.rollout.enforce_eager=False \
  actor_rollout_ref.rollout.enable_prefix_caching=False \
  actor_rollout_ref.rollout.checkpoint_engine.update_weights_bucket_megabytes=6144 \
  +actor_rollout_ref.rollout.engine_kwargs.vllm.compilation_config.cudagraph_mode="FULL_DECODE_ONLY" \
  +actor_rollout_ref.rollout.engine_kwargs.vllm.compilation_config.cudagraph_capture_sizes="[4,8,12,16,24,32,48,56,64]" \
  trainer.critic_warmup=0 "trainer.logger=['console']" trainer.project_name=GRPO-Qwen3_5 \
  trainer.experiment_name=GRPO-Qwen3_5-35B trainer.n_gpus_per_node=1 \
  trainer.nnodes=1 trainer.balance_batch=False trainer.resume_from_path=checkpoints/ \
  trainer.val_before_train=True trainer.save_freq=-1 trainer.test_freq=10 trainer.total_epochs=100 \
  trainer.device=cpu "$@"
