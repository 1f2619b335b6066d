#!/usr/bin/env bash
# End-to-end tests of `verlpp check`: the three seed launch scripts (examples/), their failing
# variants, and bad input as a new user would type it. Usage: check_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
cd "$2"
FIXTURES=tests/fixtures/models
failures=0
out=""
rc=0

run() { out=$("$@" 2>&1); rc=$?; }
fail() { echo "FAIL: $1"; echo "$out" | tail -20; failures=$((failures + 1)); }
expect_rc() { [ "$rc" -eq "$1" ] || fail "$2: exit $rc, expected $1"; }
expect_has() { grep -qF -- "$1" <<<"$out" || fail "$2: output lacks '$1'"; }
expect_lacks() { ! grep -qF -- "$1" <<<"$out" || fail "$2: output has '$1'"; }
expect_lines() { [ "$(wc -l <<<"$out")" -eq "$1" ] || fail "$2: expected $1 output line(s)"; }

export VERLPP_COMMAND="$VERLPP check --no-print-config"

# Seed 002: Qwen3-235B-A22B on 16×16 NPUs.
export MODEL_PATH=$FIXTURES/qwen3-235b-a22b-instruct-2507
run examples/run_qwen3_235b_256k_megatron_npu.sh
expect_rc 0 "seed 002"
expect_has "layers per pipeline stage (94 layers): 5 + 14×6 + 5" "seed 002 stages"
expect_has "tp 2 · pp 16 · cp 8 → dp 1; experts: ep 16 · etp 1 → expert-dp 1" "seed 002 layout"
expect_has "MoE parallel folding (world % (etp·ep·pp) == 0): valid, expert-dp 1" "seed 002 folding"
expect_has "verlpp trains this as sharded data parallelism (FSDP-style) over all ranks" "seed 002 runs sharded"
expect_has "Megatron distributed checkpoints are not read: the weights come from the Hugging Face checkpoint" "seed 002 weights"
expect_has "legacy rule (ep divides dense dp): INVALID: ep 16 does not divide dense dp 1" "seed 002 legacy"
expect_has "tp 4 · dp 32 · pp 1 (ep 128) = 128 devices per replica, 256 devices → 2 replicas" "seed 002 rollout"
expect_has "trainer.device npu" "seed 002 device"
expect_has "actor_rollout_ref.actor.use_torch_compile" "seed 002 ignored keys"
expect_lacks "  actor_rollout_ref.rollout.max_num_batched_tokens" "seed 002 rollout budget (used)"
expect_lacks "  actor_rollout_ref.actor.megatron.param_offload" "seed 002 param_offload (used: shards on the CPU)"
expect_has "  actor_rollout_ref.actor.megatron.grad_offload" "seed 002 grad_offload (ignored)"
expect_has "== result: valid" "seed 002 verdict"

NNODES=8 run examples/run_qwen3_235b_256k_megatron_npu.sh
expect_rc 1 "seed 002 on 128 devices"
expect_has "world size 128 is not divisible by tp 2 × pp 16 × cp 8 = 256" "seed 002 on 128 devices"
expect_has "fix: trainer.nnodes=16" "seed 002 on 128 devices fix"

FIRST_LAYER=4 run examples/run_qwen3_235b_256k_megatron_npu.sh
expect_rc 1 "seed 002 with 4 first-stage layers"
expect_has "94 layers − first stage 4 − last stage 5 = 85 left-over layers over pp 16 − 2 = 14 left-over stages" \
  "seed 002 with 4 first-stage layers"
FIRST_LAYER=0 run examples/run_qwen3_235b_256k_megatron_npu.sh
expect_rc 1 "seed 002 with an empty first stage"
expect_has "num_layers_in_first_pipeline_stage: the first pipeline stage needs at least one layer, got 0" \
  "seed 002 with an empty first stage"
unset MODEL_PATH

# Seed 003: on-policy distillation, 8 student GPUs + 8 teacher GPUs.
STUDENT_MODEL=$FIXTURES/qwen3.5-2b run examples/run_qwen3_5_2b_distill_fsdp.sh
expect_rc 0 "seed 003"
expect_has "rollout (vllm): tp 2 · dp 1 · pp 1 = 2 devices per replica, 8 devices → 4 replicas" "seed 003 rollout"
expect_has "teacher teacher_model: tp 8 · dp 1 · pp 1 (ep 8) = 8 devices per replica, 8 devices → 1 replicas" \
  "seed 003 teacher"
expect_has "distillation.teacher_models.teacher_model.inference.gpu_memory_utilization" "seed 003 ignored teacher keys"
expect_has "distillation.teacher_models.teacher_model.inference.seed" "seed 003 ignored teacher seed"
STUDENT_MODEL=$FIXTURES/qwen3.5-2b run examples/run_qwen3_5_2b_distill_fsdp.sh \
  distillation.teacher_models.teacher_model.inference.max_model_len=3000
expect_rc 1 "seed 003 short teacher context"
expect_has "prompt 1024 + response 2048 + 1 = 3073 tokens but max_model_len is 3000" "seed 003 short teacher context"

# Distillation values the losses cannot use: each an error with its key.
L=distillation.distillation_loss
STUDENT_MODEL=$FIXTURES/qwen3.5-2b run examples/run_qwen3_5_2b_distill_fsdp.sh $L.loss_max_clamp=-1 \
  $L.log_prob_min_clamp=5 $L.distillation_loss_coef=nan $L.clip_ratio_low=-0.5 \
  distillation.teacher_models.teacher_model.inference.max_num_batched_tokens=0
expect_rc 1 "seed 003 with unusable distillation values"
expect_has "$L.loss_max_clamp: must be > 0, got -1" "loss_max_clamp"
expect_has "$L.log_prob_min_clamp: is a log-probability floor and must be <= 0, got 5" "log_prob_min_clamp"
expect_has "$L.distillation_loss_coef: must be finite and >= 0, got nan" "distillation_loss_coef"
expect_has "$L.clip_ratio_low: must be finite and >= 0, got -0.5" "clip_ratio_low"
expect_has "inference.max_num_batched_tokens: must be >= 1, got 0" "max_num_batched_tokens"
STUDENT_MODEL=$FIXTURES/qwen3.5-2b run examples/run_qwen3_5_2b_distill_fsdp.sh $L.loss_mode=forward_kl_topk \
  $L.use_policy_gradient=False $L.topk=0
expect_rc 1 "seed 003 forward_kl_topk with topk 0"
expect_has "$L.topk: forward_kl_topk needs topk >= 1, got 0" "topk 0"
STUDENT_MODEL=$FIXTURES/qwen3.5-2b run examples/run_qwen3_5_2b_distill_fsdp.sh actor_rollout_ref.actor.optim.lr=nan
expect_rc 1 "a NaN learning rate"
expect_has "actor_rollout_ref.actor.optim.lr: must be a number in [0, 3.40282e+38], got nan" "a NaN learning rate"
# A teacher of another vocabulary (Qwen3's 151,936 against Qwen3.5's 248,320) is an error; an
# unreadable teacher a notice.
STUDENT_MODEL=$FIXTURES/qwen3.5-2b TEACHER_MODEL=$FIXTURES/qwen3-0.6b run examples/run_qwen3_5_2b_distill_fsdp.sh
expect_rc 1 "seed 003 with a Qwen3 teacher"
expect_has "the teacher's vocabulary has 151936 tokens but the student's has 248320" "teacher vocabulary"
STUDENT_MODEL=$FIXTURES/qwen3.5-2b run examples/run_qwen3_5_2b_distill_fsdp.sh
expect_has "teacher not checked: Qwen/Qwen3.5-35B-A3B/config.json: model config: no such file" "teacher not found"
expect_has "qwen3.5-2b/tokenizer.json is not on this machine: the tokenizer is not checked" "no tokenizer: a notice"
# A config.json that is there but broken is an error, not a skipped check (bt11): a truncated
# student's, a teacher's that is a folder.
broken=$(mktemp -d)
cp -r $FIXTURES/qwen3.5-2b "$broken/student"
head -c 40 $FIXTURES/qwen3.5-2b/config.json > "$broken/student/config.json"
STUDENT_MODEL="$broken/student" TEACHER_MODEL=$FIXTURES/qwen3.5-2b run examples/run_qwen3_5_2b_distill_fsdp.sh
expect_rc 1 "broken student config.json"
expect_has "$broken/student/config.json: not valid JSON" "broken student config.json"
mkdir -p "$broken/teacher/config.json"
STUDENT_MODEL=$FIXTURES/qwen3.5-2b TEACHER_MODEL="$broken/teacher" run examples/run_qwen3_5_2b_distill_fsdp.sh
expect_rc 1 "teacher config.json folder"
expect_has "teacher: $broken/teacher/config.json: model config is a folder, not a file" "teacher config.json folder"
# A config.json ppo would refuse is refused by check too (bt11: a hidden_size of "16" passed).
mkdir -p "$broken/typed"
sed 's/"hidden_size": *\([0-9]*\)/"hidden_size": "\1"/' $FIXTURES/qwen3.5-2b/config.json > "$broken/typed/config.json"
STUDENT_MODEL="$broken/typed" TEACHER_MODEL=$FIXTURES/qwen3.5-2b run examples/run_qwen3_5_2b_distill_fsdp.sh
expect_rc 1 "hidden_size as a string"
expect_has "'hidden_size' must be a positive integer" "hidden_size as a string"
# A tokenizer that is there but does not load is an error as well (bt11: a tokenizer.json that is
# /dev/null passed check); a folder without one (these fixtures) gets a notice, above.
cp -r $FIXTURES/qwen3.5-2b "$broken/tok"
ln -s /dev/null "$broken/tok/tokenizer.json"
STUDENT_MODEL="$broken/tok" TEACHER_MODEL=$FIXTURES/qwen3.5-2b run examples/run_qwen3_5_2b_distill_fsdp.sh
expect_rc 1 "tokenizer.json a device"
expect_has "$broken/tok/tokenizer.json: tokenizer file is not a regular file" "tokenizer.json a device"
rm -rf "$broken"

# Seed 000: Qwen3.5-35B-A3B with FSDP-Turbo on 8 GPUs.
MODEL_PATH=$FIXTURES/qwen3.5-35b-a3b run examples/run_qwen3_5_35b_fsdp_turbo.sh
expect_rc 0 "seed 000"
expect_has "fsdp_turbo: fully_shard 8 · ep 8 · ulysses 1" "seed 000 turbo"
expect_has "40 layers (30 linear attention, 10 full attention), 16 attention heads, 2 KV heads, 16/32 linear-attention key/value heads, 256 experts" \
  "seed 000 Qwen3.5-MoE layer mix"
expect_has "tp 4 · dp 1 · pp 1 = 4 devices per replica, 8 devices → 2 replicas" "seed 000 rollout"
expect_has "engine_kwargs.vllm.compilation_config.cudagraph_mode" "seed 000 ignored vllm kwargs"
MODEL_PATH=$FIXTURES/qwen3.5-35b-a3b GEN_TP=3 run examples/run_qwen3_5_35b_fsdp_turbo.sh
expect_rc 1 "seed 000 rollout tp 3"
expect_has "8 devices (trainer.nnodes × trainer.n_gpus_per_node) are not divisible by tp 3" "seed 000 rollout tp 3"

# The bundled example the README runs.
run "$VERLPP" check --config-path examples --config-name grpo_gsm8k_qwen3_0.6b
expect_rc 0 "bundled example"
expect_has "train_batch_size: 256" "bundled example prints the config"

# Bad input: each one line on stderr, exit 1.
run "$VERLPP" check actor_rollout_ref.rollout.name=vllm data.train_batch_sise=8
expect_rc 1 "unknown key"
expect_lines 1 "unknown key"
expect_has "unknown key 'data.train_batch_sise' (closest valid key: 'data.train_batch_size')" "unknown key"
run "$VERLPP" check actor_rollout_ref.rollout.name=vllm 'trainer.logger=[console'
expect_rc 1 "malformed override"
expect_lines 1 "malformed override"
expect_has "expected ',' or ']' in a list" "malformed override"
run "$VERLPP" check actor_rollout_ref.rollout.name=vllm data.train_batch_size=abc
expect_rc 1 "wrong type"
expect_lines 1 "wrong type"
expect_has "data.train_batch_size: expected an integer, got a string 'abc'" "wrong type"
# A key that others interpolate is named itself (a break-test got actor.rollout_n, its mirror).
run "$VERLPP" check actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=two
expect_rc 1 "wrong type of an interpolated key"
expect_has "actor_rollout_ref.rollout.n: expected an integer, got a string 'two'" "wrong type of an interpolated key"
run "$VERLPP" check
expect_rc 1 "unset required key"
expect_lines 1 "unset required key"
expect_has "actor_rollout_ref.rollout.name: required value is not set" "unset required key"
run "$VERLPP" check actor_rollout_ref.rollout.name=vlm
expect_rc 1 "unknown rollout name"
expect_has "actor_rollout_ref.rollout.name" "unknown rollout name"
expect_has "vlm" "unknown rollout name"
run "$VERLPP" check actor_rollout_ref.rollout.name=vllm reward.reward_manager.name=bogus
expect_rc 1 "unknown reward manager"
expect_has "reward.reward_manager.name: unknown value 'bogus'; valid: naive, dapo, gdpo" "unknown reward manager"
run "$VERLPP" check actor_rollout_ref.rollout.name=vllm actor_rollout_ref.actor.fsdp_config.dtype=bf32
expect_rc 1 "unknown fsdp dtype"
expect_has "actor_rollout_ref.actor.fsdp_config.dtype: unknown value 'bf32'; valid: bfloat16, float16" "unknown fsdp dtype"
# Qwen3's enable_thinking reaches the chat template (was refused as a setting without effect).
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm +data.apply_chat_template_kwargs.enable_thinking=False
expect_lacks "data.apply_chat_template_kwargs" "chat template kwargs"
# A network tracker verlpp does not have: check says the run skips it.
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm "trainer.logger=[console,wandb]"
expect_has "'wandb' is a network tracker, which verlpp skips" "wandb logger"
# hf_model in save_contents (verlpp writes the Hugging Face weights at every checkpoint anyway).
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm "actor_rollout_ref.actor.checkpoint.save_contents=[model,optimizer,extra,hf_model]"
expect_lacks "save_contents" "save_contents with hf_model"
expect_lacks "load_contents" "save_contents with hf_model"
# An SFT config gets `verlpp sft`'s checks (was: "model_engine: required key is absent").
run "$VERLPP" check --no-print-config --config-name sft_trainer optim.optimizer=SGD
expect_rc 1 "sft config"
expect_has "== sft config: built-in sft_trainer" "sft config"
expect_has "optim.optimizer: 'SGD' is not supported" "sft config"
# SFT's batch split over its ranks, as the launched run would refuse it (a break-test's check said
# "valid" and both ranks then failed), and verl's checkpoint items (refused as unread keys before).
run "$VERLPP" check --no-print-config --config-name sft_trainer data.train_batch_size=9 trainer.n_gpus_per_node=2 \
  "checkpoint.save_contents=[model,optimizer,extra,hf_model]" "checkpoint.load_contents=[model]"
expect_rc 1 "sft batch split"
expect_has "data.train_batch_size: 9 rows cannot be split evenly over 2 data-parallel ranks" "sft batch split"
expect_has "checkpoint.load_contents: leaves out 'optimizer'" "sft checkpoint contents"
expect_lacks "checkpoint.save_contents" "sft checkpoint contents"
# SFT's Ulysses size (refused as an unread key before, report bt8): checked as verl checks it,
# then a notice that verlpp trains data parallel.
run "$VERLPP" check --no-print-config --config-name sft_trainer trainer.n_gpus_per_node=2 \
  engine.ulysses_sequence_parallel_size=2
expect_has "engine.ulysses_sequence_parallel_size: verlpp does not split sequences; it trains sharded data parallel over all 2 ranks" "sft ulysses 2"
run "$VERLPP" check --no-print-config --config-name sft_trainer trainer.n_gpus_per_node=2 \
  engine.ulysses_sequence_parallel_size=3
expect_rc 1 "sft ulysses 3"
expect_has "engine.ulysses_sequence_parallel_size: 3 does not divide the 2 ranks" "sft ulysses 3"
# engine.fsdp_size as verl reads it: 0 refused by check (bt12: only the run refused it), 3 on 2
# ranks is all of them.
run "$VERLPP" check --no-print-config --config-name sft_trainer trainer.n_gpus_per_node=2 engine.fsdp_size=0
expect_rc 1 "sft fsdp_size 0"
expect_has "engine.fsdp_size: fsdp_size 0 is not a size" "sft fsdp_size 0"
run "$VERLPP" check --no-print-config --config-name sft_trainer trainer.n_gpus_per_node=2 engine.fsdp_size=3
expect_lacks "engine.fsdp_size" "sft fsdp_size 3"
# Megatron overrides that change the MoE router or loss are refused, not dropped (report bt10:
# moe_router_topk / moe_z_loss_coeff / num_moe_experts ran with no effect).
run "$VERLPP" check --no-print-config --config-name ppo_megatron_trainer actor_rollout_ref.rollout.name=vllm \
  +actor_rollout_ref.actor.megatron.override_transformer_config.moe_router_topk=4 \
  +actor_rollout_ref.actor.megatron.override_transformer_config.moe_z_loss_coeff=0.001
expect_rc 1 "megatron moe overrides"
expect_has "actor_rollout_ref.actor.megatron.override_transformer_config.moe_router_topk: changes the MoE router or its loss" "moe_router_topk"
expect_has "actor_rollout_ref.actor.megatron.override_transformer_config.moe_z_loss_coeff: changes the MoE router or its loss" "moe_z_loss_coeff"
# Validation's sampling keys are checked as the rollout's (val_kwargs.temperature=-1 was "valid").
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm \
  actor_rollout_ref.rollout.val_kwargs.temperature=-1 actor_rollout_ref.rollout.val_kwargs.top_p=0
expect_rc 1 "val_kwargs"
expect_has "actor_rollout_ref.rollout.val_kwargs.temperature: must be a number in [0," "val_kwargs temperature"
expect_has "actor_rollout_ref.rollout.val_kwargs.top_p: must be in (0, 1], got 0" "val_kwargs top_p"
# Any optimizer but AdamW is refused (it trained AdamW under any name).
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm actor_rollout_ref.actor.optim.optimizer=SGD
expect_rc 1 "optimizer SGD"
expect_has "actor_rollout_ref.actor.optim.optimizer: 'SGD' is not supported; verlpp trains with AdamW (named 'AdamW' for the fsdp engine)" "optimizer SGD"
# A rollout shorter than the data's prompts: a notice (the run fails only on such a prompt).
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.prompt_length=16 actor_rollout_ref.rollout.response_length=8
expect_has "max_model_len 24 (rollout.max_model_len, by default prompt_length + response_length) is below data.max_prompt_length 512" "rollout shorter than prompts"
# rollout.max_model_len as verl hands it to vLLM: 0 means prompt + response; above the model's
# positions it is refused; a prompt_length below 1 is refused.
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.max_model_len=0
expect_lacks "max_model_len is 0" "max_model_len 0 is the default"
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm actor_rollout_ref.model.path=$FIXTURES/qwen3-0.6b \
  actor_rollout_ref.rollout.max_model_len=50000
expect_has "max_model_len 50000 is above the model's 40960 positions" "max_model_len above the model"
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.prompt_length=0
expect_has "actor_rollout_ref.rollout.prompt_length: must be >= 1, got 0" "prompt_length 0"
# An explicit max_model_len below the data's prompts: the notice names it and its fix; an integer
# beyond 64 bits says so.
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.max_model_len=100
expect_has "note: actor_rollout_ref.rollout.max_model_len: max_model_len 100" "explicit max_model_len notice"
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.max_model_len=99999999999999999999
expect_has "expected an integer, got 99999999999999999999, outside the 64-bit range" "integer beyond 64 bits"
# Token budgets of every pass that uses one (the critic's, the reference's with a static actor).
gae_static=(actor_rollout_ref.rollout.name=vllm algorithm.adv_estimator=gae actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 critic.ppo_micro_batch_size_per_gpu=1
  data.max_prompt_length=96 data.max_response_length=16)
run "$VERLPP" check --no-print-config "${gae_static[@]}" critic.use_dynamic_bsz=true critic.ppo_max_token_len_per_gpu=50
expect_rc 1 "critic budget below a sequence"
expect_has "critic.ppo_max_token_len_per_gpu: token budget 50 × ulysses 1 is below the longest sequence max_prompt_length 96 + max_response_length 16 = 112" "critic budget"
run "$VERLPP" check --no-print-config "${gae_static[@]}" critic.use_dynamic_bsz=true critic.ppo_max_token_len_per_gpu=0
expect_has "critic.ppo_max_token_len_per_gpu: token budget 0 × ulysses 1 is below" "critic budget 0"
run "$VERLPP" check --no-print-config "${gae_static[@]}" actor_rollout_ref.actor.use_kl_loss=true \
  actor_rollout_ref.ref.log_prob_use_dynamic_bsz=true actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=50
expect_has "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu: token budget 50" "ref budget with a static actor"
# PF-PPO's settings: an unknown reweight method is an error; without GAE it does nothing (a notice).
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm algorithm.use_pf_ppo=true algorithm.pf_ppo.reweight_method=softmax
expect_has "algorithm.pf_ppo.reweight_method: unknown value 'softmax'; valid: pow, max_min, max_random" "pf-ppo method"
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm algorithm.use_pf_ppo=true algorithm.adv_estimator=grpo
expect_has "verl resamples the batch only after GAE; with adv_estimator grpo it has no effect" "pf-ppo without gae"
# DAPO's dynamic sampling needs its metric; verlpp has no asynchronous refill.
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm algorithm.filter_groups.enable=true
expect_has "algorithm.filter_groups.metric: dynamic sampling needs the value whose spread keeps a prompt" "filter_groups without a metric"
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm algorithm.filter_groups.enable=true \
  algorithm.filter_groups.metric=acc algorithm.filter_groups.max_inflight_gen_batches=2
expect_has "algorithm.filter_groups.max_inflight_gen_batches: verlpp generates one batch at a time" "filter_groups inflight"
# The device a run would ask for: trainer.device, or DEVICE / VERL_PLATFORM, which take precedence.
run "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm trainer.device=tpu
expect_rc 1 "unknown device"
expect_has "trainer.device: unknown device 'tpu'; expected cpu, cuda (gpu, nvidia) or npu (huawei)" "unknown device"
expect_has "trainer.device=cuda" "unknown device fix"
run env DEVICE=tpu "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm
expect_rc 1 "unknown DEVICE"
expect_has "DEVICE: unknown device 'tpu'" "unknown DEVICE"
run env DEVICE=cuda "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm trainer.device=tpu
expect_lacks "unknown device" "DEVICE over trainer.device"
# VLLM_BATCH_INVARIANT (docs/rollout.md): its values, and Qwen3.5 (Gated DeltaNet or not).
run env VLLM_BATCH_INVARIANT=yes "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm
expect_rc 1 "VLLM_BATCH_INVARIANT=yes"
expect_has "VLLM_BATCH_INVARIANT: 'yes': expected 1 (on) or 0 (off)" "VLLM_BATCH_INVARIANT=yes"
expect_has "fix: VLLM_BATCH_INVARIANT=0, or 1 for the batch-invariant mode" "VLLM_BATCH_INVARIANT=yes fix"
run env VLLM_BATCH_INVARIANT=1 "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm \
  trainer.device=cpu actor_rollout_ref.model.path=tests/fixtures/models/qwen3-0.6b
expect_has "VLLM_BATCH_INVARIANT: on:" "VLLM_BATCH_INVARIANT=1 notice"
expect_lacks "VLLM_BATCH_INVARIANT=1 covers" "VLLM_BATCH_INVARIANT=1 with Qwen3"
run env VLLM_BATCH_INVARIANT=1 "$VERLPP" check --no-print-config actor_rollout_ref.rollout.name=vllm \
  trainer.device=cpu actor_rollout_ref.model.path=tests/fixtures/models/qwen3.5-2b
expect_rc 1 "VLLM_BATCH_INVARIANT=1 with Qwen3.5"
expect_has "has Qwen3.5's Gated DeltaNet, gated attention and zero-centred norms" "VLLM_BATCH_INVARIANT=1 with Qwen3.5"
run "$VERLPP" check actor_rollout_ref.rollout.name=vllm actor_rollout_ref.actor.optim.clip_grad=0
expect_rc 1 "clip_grad 0"
expect_has "actor_rollout_ref.actor.optim.clip_grad: must be > 0" "clip_grad 0"
run "$VERLPP" check --config-path /nonexistent --config-name my_run
expect_rc 1 "missing config file"
expect_lines 1 "missing config file"
expect_has "--config-name my_run: no such config in --config-path /nonexistent nor among" "missing config file"
run "$VERLPP" check --no-print-config --config-name sft_trainer model.partial_pretrain=/m
expect_rc 1 "verl's old SFT model key"
expect_has "(closest valid key: 'model.path')" "verl's old SFT model key"

# The command line itself: one line and exit 1 for an unknown command or option; launch's help
# names what follows its options.
run "$VERLPP" foo
expect_rc 1 "unknown command"
expect_lines 1 "unknown command"
expect_has "the first argument must be a command (got 'foo';" "unknown command"
run "$VERLPP" check --cfg job
expect_rc 1 "unknown check option"
expect_lines 1 "unknown check option"
run "$VERLPP" launch --help
expect_rc 0 "launch --help"
expect_has "ppo|sft OVERRIDES..." "launch --help"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all e2e check tests passed"
