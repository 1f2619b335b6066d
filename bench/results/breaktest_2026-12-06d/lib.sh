# Helpers for the bt16 checkpoint break-test. Source it; B=/tmp/bt16.
B=${B:-/tmp/bt16}
V=$B/verlpp
M=$B/model
PPO_BASE=(
  algorithm.adv_estimator=grpo actor_rollout_ref.rollout.name=vllm
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  data.train_files=$B/data/train.jsonl data.val_files=$B/data/val.jsonl data.train_batch_size=4
  data.max_prompt_length=16 data.max_response_length=8 actor_rollout_ref.model.path=$M
  actor_rollout_ref.rollout.n=2 actor_rollout_ref.actor.ppo_mini_batch_size=4
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 actor_rollout_ref.actor.optim.lr=1e-5
  actor_rollout_ref.actor.use_kl_loss=false trainer.val_before_train=false trainer.test_freq=-1
  "trainer.logger=[console]" trainer.device=cpu trainer.n_gpus_per_node=1 trainer.save_freq=1
  trainer.total_training_steps=3
)
SFT_BASE=(
  data.train_files=$B/data/sft.jsonl data.val_files=$B/data/sft_val.jsonl data.prompt_key=prompt
  data.response_key=response data.train_batch_size=4 data.micro_batch_size_per_gpu=4
  data.max_length=16 model.path=$M optim.lr=1e-5 trainer.total_training_steps=3 trainer.save_freq=1
  "trainer.logger=['console']" trainer.device=cpu
)
export OMP_NUM_THREADS=1
# snap DIR: md5 of every file under DIR (sorted), to $B/logs/$CASE.before|after
snap() { (cd "$1" 2>/dev/null && find . -type f ! -name '*.lock' ! -name '.verlpp*' -print0 | sort -z | xargs -0 -r md5sum); }
# lst DIR: one-line listing of DIR's entries, tracker value
lst() { echo "ls: $(ls -a "$1" 2>/dev/null | grep -v '^\.\.\?$' | tr '\n' ' ') tracker=$(cat "$1/latest_checkpointed_iteration.txt" 2>/dev/null || echo none)"; }
# keyl LOG: the lines a case is judged on
keyl() { grep -E "removed|refus|rror|resum|saved checkpoint|restored|stopped|missing|replac|inside|warning|not locked|in use" "$1" | grep -v '^step:' | cut -c1-400; }
# run_case ID kind(ppo|sft|launch2ppo|launch2sft) overrides...: runs in cwd, logs to $B/logs/ID.log
run_case() {
  local id=$1 kind=$2; shift 2
  local log=$B/logs/$id.log
  case $kind in
    ppo) timeout 300 "$V" ppo "${PPO_BASE[@]}" "$@" > "$log" 2>&1 ;;
    sft) timeout 300 "$V" sft "${SFT_BASE[@]}" "$@" > "$log" 2>&1 ;;
    l2ppo) timeout 300 "$V" launch --nproc-per-node 2 ppo "${PPO_BASE[@]}" trainer.n_gpus_per_node=2 "$@" > "$log" 2>&1 ;;
    l2sft) timeout 300 "$V" launch --nproc-per-node 2 sft "${SFT_BASE[@]}" trainer.n_gpus_per_node=2 "$@" > "$log" 2>&1 ;;
  esac
  local rc=$?
  echo "[$id] rc=$rc"
  keyl "$log"
  return $rc
}
