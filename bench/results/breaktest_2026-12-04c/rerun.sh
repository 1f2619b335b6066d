#!/usr/bin/env bash
# Re-runs the 25 non-clean cases of report.md after the session's fixes, from /work/main with the
# break test's folder $W (report.md's set-up: gsm8k, the tiny model, rw/libvar.so, cfg/*.yaml).
# Prints each case's exit status and first error or note line.
V=${V:-/work/main/build/verlpp}; W=${W:-/tmp/breaktest12}
PPO="data.train_files=$W/gsm8k/train.jsonl data.val_files=null data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=4 actor_rollout_ref.model.path=$W/model actor_rollout_ref.actor.ppo_mini_batch_size=2 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1 trainer.logger=[console] trainer.total_training_steps=1 trainer.save_freq=-1"
CK="check --no-print-config $PPO"
BASE6="data.train_files=$W/gsm8k/train.jsonl data.val_files=null data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=16 actor_rollout_ref.model.path=$W/model actor_rollout_ref.actor.ppo_mini_batch_size=1 actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=4 actor_rollout_ref.rollout.tensor_model_parallel_size=1 trainer.device=cpu trainer.n_gpus_per_node=1 trainer.logger=[console] trainer.total_training_steps=1 trainer.save_freq=-1 reward.custom_reward_function.path=$W/rw/libvar.so reward.custom_reward_function.name=varied actor_rollout_ref.actor.optim.lr=1e-4"
STAT6="actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 critic.ppo_micro_batch_size_per_gpu=2"
dyn6() { echo "actor_rollout_ref.actor.use_dynamic_bsz=true actor_rollout_ref.actor.ppo_max_token_len_per_gpu=$1 actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=true actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=$1 actor_rollout_ref.ref.log_prob_use_dynamic_bsz=true actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=$1 critic.use_dynamic_bsz=true critic.ppo_max_token_len_per_gpu=$1"; }
G="data.max_prompt_length=96 algorithm.adv_estimator=grpo"
case_() {  # case_ NAME command...
  local name=$1; shift
  local out rc; out=$(cd /tmp/rr && timeout 120 "$@" 2>&1); rc=$?
  printf '%-12s rc=%s  %s\n' "$name" "$rc" "$(grep -m1 -E 'error|✗|note|valid|^step:1' <<<"$out" | cut -c1-220)"
}
case_ s21 $V check $PPO "actor_rollout_ref.actor.optim={lr:2e-5}"
case_ s26 $V check $PPO "actor_rollout_ref.rollout.val_kwargs={temperature:0.5}"
case_ s27 $V check $PPO "actor_rollout_ref.actor.checkpoint={save_contents:[model]}"
case_ s30 $V $CK 'data={}'
case_ s06 $V $CK 'actor_rollout_ref.actor={}'
case_ s09 $V $CK ++actor_rollout_ref.actor=3
case_ e05 $V ppo $BASE6 $G $STAT6 actor_rollout_ref.actor.use_dynamic_bsz=true actor_rollout_ref.actor.ppo_max_token_len_per_gpu=9223372036854775807
case_ e15 $V ppo $BASE6 $G $(dyn6 200) actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=9223372036854775807
case_ e07 $V check --no-print-config $BASE6 $G $STAT6 algorithm.adv_estimator=gae critic.model.path=$W/model critic.use_dynamic_bsz=true critic.ppo_max_token_len_per_gpu=50
case_ e10 $V check --no-print-config $BASE6 $G $STAT6 algorithm.adv_estimator=gae critic.model.path=$W/model critic.use_dynamic_bsz=true critic.ppo_max_token_len_per_gpu=0
case_ e11 $V check --no-print-config $BASE6 $G $STAT6 algorithm.adv_estimator=gae critic.model.path=$W/model critic.use_dynamic_bsz=true critic.ppo_max_token_len_per_gpu=-7
case_ e12 $V check --no-print-config $BASE6 $G $STAT6 actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.ref.log_prob_use_dynamic_bsz=true actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=50
case_ e13 $V check --no-print-config $BASE6 $G $STAT6 actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.ref.log_prob_use_dynamic_bsz=true actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=0
case_ m02 $V ppo $PPO actor_rollout_ref.rollout.max_model_len=0
case_ m21 $V $CK actor_rollout_ref.rollout.prompt_length=0
case_ m23 $V $CK actor_rollout_ref.rollout.prompt_length=-1
case_ m24 $V $CK actor_rollout_ref.rollout.max_model_len=99999999999999
case_ m18 $V launch --nproc-per-node 2 ppo $PPO trainer.n_gpus_per_node=2 data.train_files=$W/s3l.jsonl data.train_batch_size=4 actor_rollout_ref.actor.ppo_mini_batch_size=4 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 data.shuffle=false actor_rollout_ref.rollout.prompt_length=70
case_ d27 $V generate --model $W/model --prompt hi --device tpu --response-length 2
for f in nul_value nul ctrl fffe nul_int nul_line; do
  case_ "y_$f" $V check --no-print-config --config-path $W/cfg --config-name $f
done
