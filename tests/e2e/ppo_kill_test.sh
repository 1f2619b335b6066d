#!/usr/bin/env bash
# Kill tests of checkpointing (issue 24): `verlpp ppo` (GRPO on GSM8K, a tiny random Qwen3, CPU) is
# killed with SIGKILL at each point of step 3's checkpoint commit (core/fault_point.h:
# VERLPP_KILL_AT=NAME@3): staging written and synced / the old global_step_3 moved aside / the
# new one renamed into place / the tracker rewritten. Then a run with resume_mode=auto continues to
# step 4. Asserts for every point: the killed run died by SIGKILL; the next run resumes from a
# complete checkpoint (step 2, or 3 once the tracker names it), leaves no .tmp_ / .old_ folder, ends
# with the tracker at 4; every step it logs has the metrics of an uninterrupted 4-step run (timings
# aside) and its global_step_4 weights and optimizer state are the uninterrupted run's bytes. The
# same with step 3 replacing an existing global_step_3 (a rerun from step 2 into a folder that has
# one). Usage: ppo_kill_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
SRC=$2
cd "$SRC"
source "$SRC/tests/e2e/lib.sh"

prepare_gsm8k
init_tiny_qwen3

common=(
  data.train_files="$work/gsm8k/train.jsonl" data.val_files="$work/gsm8k/test.jsonl"
  data.train_max_samples=8 data.train_batch_size=2
  data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.model.path="$work/model"
  actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1
  'trainer.logger=[console,file]' trainer.project_name=e2e trainer.experiment_name=kill
  trainer.save_freq=1 trainer.test_freq=-1 trainer.val_before_train=false
)
ppo() {  # ppo LOGFILE CKPT_DIR overrides...
  local log=$1 ckpt=$2
  shift 2
  VERL_FILE_LOGGER_PATH=$log "$VERLPP" ppo "${common[@]}" trainer.default_local_dir="$ckpt" "$@" 2>&1
}

out=$(ppo "$work/straight.jsonl" "$work/straight" trainer.total_training_steps=4) ||
  fail "uninterrupted run: $(tail -5 <<<"$out")"

# check_resumed NAME: the folder $work/NAME after the resumed run, and its log against the
# uninterrupted run's.
check_resumed() {
  local name=$1 dir=$work/$1
  [ "$(cat "$dir/latest_checkpointed_iteration.txt" 2>/dev/null)" = 4 ] || fail "$name: tracker is not 4"
  ls -a "$dir" | grep -qE '^\.tmp_|^\.old_' && fail "$name: left $(ls -a "$dir" | tr '\n' ' ')"
  for f in actor/huggingface/model.safetensors actor/optim_world_size_1_rank_0.safetensors; do
    cmp -s "$work/straight/global_step_4/$f" "$dir/global_step_4/$f" ||
      fail "$name: global_step_4/$f differs from the uninterrupted run's"
  done
  python3 - "$work/straight.jsonl" "$work/$name.jsonl" <<'PY' || fail "$name: metrics differ"
import json, sys
def load(path):
    steps = {}
    for l in open(path):
        l = json.loads(l)
        steps.setdefault(l["step"], {}).update(
            {k: v for k, v in l["data"].items()
             if not k.startswith(("timing_s/", "timing_per_token_ms/", "perf/"))})
    return steps
a, b = load(sys.argv[1]), load(sys.argv[2])
assert 4 in b and set(b) <= set(a), sorted(b)
for step in b:
    for k in a[step]:
        assert a[step][k] == b[step].get(k), (step, k, a[step][k], b[step].get(k))
PY
}

for point in checkpoint_staged checkpoint_old_moved checkpoint_renamed checkpoint_tracked; do
  VERLPP_KILL_AT=$point@3 ppo "$work/$point.jsonl" "$work/$point" trainer.total_training_steps=4 \
    > "$work/$point.killed.log"
  rc=$?
  [ "$rc" -eq 137 ] || fail "$point: the run was not killed (exit $rc): $(tail -3 "$work/$point.killed.log")"
  want=2
  [ "$point" = checkpoint_tracked ] && want=3
  out=$(ppo "$work/$point.jsonl" "$work/$point" trainer.total_training_steps=4) ||
    fail "$point: the resumed run failed: $(tail -5 <<<"$out")"
  grep -q "resumed from global step $want" <<<"$out" ||
    fail "$point: did not resume from step $want: $(grep -i resum <<<"$out" | head -3)"
  check_resumed "$point"
done

# Replacing an existing step: a complete 3-step folder, then a rerun from step 2 that is killed
# while its step 3 replaces the existing global_step_3, then auto-resume.
for point in checkpoint_old_moved checkpoint_renamed; do
  name=replace_$point
  out=$(ppo "$work/$name.first.jsonl" "$work/$name" trainer.total_training_steps=3) ||
    fail "$name: first run: $(tail -5 <<<"$out")"
  VERLPP_KILL_AT=$point@3 ppo "$work/$name.jsonl" "$work/$name" trainer.total_training_steps=4 \
    trainer.resume_mode=resume_path trainer.resume_from_path="$work/$name/global_step_2" \
    > "$work/$name.killed.log"
  rc=$?
  [ "$rc" -eq 137 ] || fail "$name: the run was not killed (exit $rc): $(tail -3 "$work/$name.killed.log")"
  [ -d "$work/$name/global_step_3" ] || compgen -G "$work/$name/.old_global_step_3_*" > /dev/null ||
    fail "$name: neither global_step_3 nor its .old_global_step_3_* survived the kill"
  out=$(ppo "$work/$name.jsonl" "$work/$name" trainer.total_training_steps=4) ||
    fail "$name: the resumed run failed: $(tail -5 <<<"$out")"
  grep -q "resumed from global step 3" <<<"$out" ||
    fail "$name: did not resume from step 3: $(grep -i resum <<<"$out" | head -3)"
  check_resumed "$name"
done

[ "$failures" -eq 0 ] && echo "ppo kill tests passed"
exit "$failures"
