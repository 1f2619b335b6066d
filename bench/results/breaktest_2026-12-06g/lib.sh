# sourced: common settings for bt19
B=/work/main/build/verlpp
W=/tmp/bt19
cd /work/main
common=(
  data.train_files="$W/gsm8k/train.jsonl" data.val_files="$W/gsm8k/test.jsonl"
  data.train_max_samples=8 data.val_max_samples=2 data.train_batch_size=2
  data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.model.path="$W/model"
  actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.actor.use_kl_loss=true
  actor_rollout_ref.actor.entropy_coeff=0.01
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4
  algorithm.adv_estimator=grpo trainer.device=cpu
  'trainer.logger=[console,file]' trainer.project_name=bt19 trainer.experiment_name=grpo
)
longval=(data.val_files="$W/long_val4.jsonl" data.val_max_samples=-1 data.max_response_length=${RL:-32})
# ppo_bg NAME overrides... : background single-rank run; sets pid
ppo_bg() { local n=$1; shift; rm -rf "$W/$n" "$W/$n.jsonl"
  VERL_FILE_LOGGER_PATH="$W/$n.jsonl" timeout -s KILL 600 "$B" ppo "${common[@]}" trainer.n_gpus_per_node=1 trainer.default_local_dir="$W/$n" "$@" > "$W/$n.log" 2>&1 &
  pid=$!; }
launch_bg() { local n=$1; shift; rm -rf "$W/$n" "$W/$n.jsonl"
  VERL_FILE_LOGGER_PATH="$W/$n.jsonl" timeout -s KILL 600 "$B" launch --nproc-per-node 2 ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir="$W/$n" "$@" > "$W/$n.log" 2>&1 &
  pid=$!; }
# launcher pid is the child of timeout
launcher_of() { pgrep -P "$1" | head -1; }
rank_pid() { local l=$(launcher_of $pid); for p in $(pgrep -P "$l"); do tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "RANK=$1" && echo "$p"; done; }
waitfor() { # waitfor FILE REGEX SECS
  local i; for i in $(seq 1 $(( $3 * 10 ))); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
finish() { # finish NAME : wait for pid, print rc, elapsed since $t0, tail, ckpt
  local n=$1; wait $pid; rc=$?; el=$(( $(date +%s%N)/1000000 - t0 ))
  echo "== $n rc=$rc signal->exit ${el}ms"; tail -5 "$W/$n.log"
  echo "latest: $(cat $W/$n/latest_checkpointed_iteration.txt 2>/dev/null)"; ls $W/$n 2>/dev/null | tr '\n' ' '; echo
  for d in $W/$n/global_step_*; do [ -d "$d" ] && echo "$d: $(ls $d/actor 2>/dev/null | tr '\n' ' ') hf:$(ls $d/actor/huggingface/model.safetensors 2>/dev/null)"; done
  echo "jsonl steps: $(python3 -c "
import json,sys
try:
  for l in open('$W/$n.jsonl'): d=json.loads(l); print(d['step'], sum(1 for k in d['data'] if k.startswith('val')), end='; ')
except Exception as e: print(e)")"; }
now() { t0=$(( $(date +%s%N)/1000000 )); }
