#!/usr/bin/env bash
# Data-parallel training over c10d (Gloo on the CPU), started by `verlpp launch`: a 2-rank run of
# the same global batch, sharded FSDP-style (the default, fsdp_size -1), equals the 1-rank run
# within 1e-6 (every metric but timings, and the updated weights) and reports its collectives'
# time (timing_s/collectives), for GRPO with a reference policy (sharded like the actor; on one rank also with its weights offloaded), for GAE with a critic, with trainer.balance_batch (loss, grad_norm, weights), for
# `verlpp sft`, and after resuming a 2-rank checkpoint (on 2 ranks, and resharded onto 1); the
# replicated 2-rank run (fsdp_size 1) equals the sharded one; each rank writes its optimizer shard
# and holds half of the training state; 4 ranks with fsdp_size 2 (hybrid sharding) equal 1 rank;
# bad launches end with clear errors: a rank killed mid-run,
# MASTER_PORT taken, WORLD_SIZE disagreeing with trainer.n_gpus_per_node.
# Usage: ppo_dp_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
SRC=$2
cd "$SRC"
source "$SRC/tests/e2e/lib.sh"
E2E_CLEANUP='pkill -P $$ 2>/dev/null'
compare() { python3 "$SRC/tests/e2e/compare_runs.py" "$@"; }
check_metrics() { PYTHONPATH="$SRC/tests/e2e" python3 - "$@"; }  # a script on stdin, steps_of at hand

prepare_gsm8k
out=$("$VERLPP" model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 \
      --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 --dtype float32 --seed 3 \
      --tokenizer tests/fixtures/tokenizers/qwen3 --output "$work/model" 2>&1) || fail "model init: $out"

# One mini-batch per step (the whole batch: 4 prompts × 2), two PPO epochs so that the second pass
# has ratios != 1 (pg_clipfrac, ppo_kl), micro-batches of 2 rows on every rank.
common=(
  data.train_files="$work/gsm8k/train.jsonl" data.val_files="$work/gsm8k/test.jsonl"
  data.train_max_samples=8 data.val_max_samples=3 data.train_batch_size=4
  data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.model.path="$work/model"
  actor_rollout_ref.actor.optim.lr=3e-4 actor_rollout_ref.actor.ppo_mini_batch_size=4
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.actor.ppo_epochs=2
  actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.actor.entropy_coeff=0.01
  actor_rollout_ref.actor.clip_ratio=0.0005
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.balance_batch=false
  trainer.total_training_steps=2 trainer.save_freq=1 trainer.test_freq=2
  'trainer.logger=[console,file]' trainer.project_name=e2e trainer.experiment_name=dp
)
one() {  # one NAME overrides...: a single process
  local name=$1
  shift
  VERL_FILE_LOGGER_PATH="$work/$name.jsonl" "$VERLPP" ppo "${common[@]}" trainer.n_gpus_per_node=1 \
    trainer.default_local_dir="$work/$name" "$@" 2>&1
}
two() {  # two NAME overrides...: two ranks
  local name=$1
  shift
  VERL_FILE_LOGGER_PATH="$work/$name.jsonl" "$VERLPP" launch --nproc-per-node 2 ppo "${common[@]}" \
    trainer.n_gpus_per_node=2 trainer.default_local_dir="$work/$name" "$@" 2>&1
}

# 1. GRPO with a reference policy (kl_loss), validation of 3 prompts (not a multiple of 2 ranks).
out=$(one grpo1); rc=$?
[ "$rc" -eq 0 ] || fail "1-rank GRPO (exit $rc): $(tail -5 <<<"$out")"
one_out=$out
out=$(two grpo2); rc=$?
[ "$rc" -eq 0 ] || fail "2-rank GRPO (exit $rc): $(tail -5 <<<"$out")"
[ "$(grep -c '^step:2 - ' <<<"$out")" = 1 ] || fail "2-rank run: expected one console line per step (rank 0): $out"
compare "$work/grpo1.jsonl" "$work/grpo2.jsonl" "$work/grpo1" "$work/grpo2" '*' 1e-6 ||
  fail "2-rank GRPO differs from 1 rank"
check_metrics "$work/grpo2.jsonl" "$work/grpo1.jsonl" <<'PY' || fail "2-rank GRPO metrics"
import sys
from compare_runs import steps_of
steps = steps_of(sys.argv[1])
s2 = steps[2]
assert s2["actor/kl_loss"] > 0 and s2["actor/grad_norm"] > 0, s2
assert any(k.startswith("val-core/") for k in s2), sorted(s2)
# The time the collectives took, within the step's; a world of one has none.
for step in (1, 2):
    assert 0 < steps[step]["timing_s/collectives"] < steps[step]["timing_s/step"], steps[step]
assert all("timing_s/collectives" not in s for s in steps_of(sys.argv[2]).values())
PY
for r in 0 1; do
  [ -f "$work/grpo2/global_step_2/actor/optim_world_size_2_rank_$r.safetensors" ] ||
    fail "2-rank checkpoint lacks actor/optim_world_size_2_rank_$r.safetensors"
done
# Rank 0's training state (parameters + gradients + optimizer) is about half of one rank's.
check_metrics "$(grep -F 'actor: training state on rank 0 of 1 ' <<<"$one_out")" \
              "$(grep -F 'actor: training state on rank 0 of 2 ' <<<"$out")" <<'PY' || fail "sharded state is not half"
import re, sys
def total(line):
    assert "(replicated)" in line or "(sharded)" in line, line
    return sum(int(x) for x in re.findall(r"(\d+) B", line))
one, two = total(sys.argv[1]), total(sys.argv[2])
assert "(sharded)" in sys.argv[2] and 0.5 <= two / one <= 0.51, (one, two)
print("training state per rank: 1 rank %d B, 2 ranks %d B (%.4f)" % (one, two, two / one))
PY

# The reference policy is sharded over the 2 ranks as the actor is: rank 0 keeps the actor's share.
ref_bytes=$(grep -oP 'ref: parameters on rank 0 of 2 \(sharded\): \K\d+' <<<"$out")
actor_bytes=$(grep -oP 'actor: training state on rank 0 of 2 \(sharded\): parameters \K\d+' <<<"$out")
[ -n "$ref_bytes" ] && [ "$ref_bytes" = "$actor_bytes" ] ||
  fail "2-rank ref not sharded like the actor (ref '$ref_bytes' B, actor '$actor_bytes' B)"

# 1b. The same run replicated (fsdp_size 1: gradients all-reduced) equals the sharded one.
out=$(two rep2 actor_rollout_ref.actor.fsdp_config.fsdp_size=1 actor_rollout_ref.rollout.disable_log_stats=false); rc=$?
[ "$rc" -eq 0 ] || fail "2-rank replicated GRPO (exit $rc): $(tail -5 <<<"$out")"
# Start-up notes come from rank 0 only (bt12: every rank printed them).
[ "$(grep -c "ppo: note: actor_rollout_ref.rollout.disable_log_stats: accepted but ignored" <<<"$out")" = 1 ] ||
  fail "2-rank run: expected the ignored-key note once: $(grep -F 'note:' <<<"$out")"
grep -qF "actor: training state on rank 0 of 2 (replicated)" <<<"$out" || fail "fsdp_size=1 is not replicated: $out"
compare "$work/rep2.jsonl" "$work/grpo2.jsonl" "$work/rep2" "$work/grpo2" '*' 1e-6 ||
  fail "2-rank sharded GRPO differs from replicated"
# 1c. One rank with the ref's weights on the CPU between passes (ref param_offload: sharded over
# one rank) equals the plain run.
out=$(one off1 actor_rollout_ref.ref.fsdp_config.param_offload=true); rc=$?
[ "$rc" -eq 0 ] || fail "1-rank ref param_offload (exit $rc): $(tail -5 <<<"$out")"
grep -qF "ref: parameters on rank 0 of 1 (sharded, on the CPU)" <<<"$out" || fail "ref param_offload not applied: $out"
compare "$work/grpo1.jsonl" "$work/off1.jsonl" "$work/grpo1" "$work/off1" '*' 1e-6 ||
  fail "1-rank GRPO with ref param_offload differs"

# 1d. Hybrid sharding: 4 ranks, actor and ref fsdp_size 2 (two copies, each sharded over 2 ranks,
# as verl's (ddp, fsdp) mesh) equal the 1-rank run; only the first copy writes optimizer shards.
out=$(VERL_FILE_LOGGER_PATH="$work/hsdp4.jsonl" "$VERLPP" launch --nproc-per-node 4 ppo "${common[@]}" \
  trainer.n_gpus_per_node=4 trainer.default_local_dir="$work/hsdp4" \
  actor_rollout_ref.actor.fsdp_config.fsdp_size=2 actor_rollout_ref.ref.fsdp_config.fsdp_size=2 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "4-rank hybrid-sharded GRPO (exit $rc): $(tail -5 <<<"$out")"
grep -qF "actor: training state on rank 0 of 4 (sharded over 2 ranks, 2 copies)" <<<"$out" &&
  grep -qF "ref: parameters on rank 0 of 4 (sharded over 2 ranks, 2 copies)" <<<"$out" ||
  fail "4-rank fsdp_size=2 is not hybrid: $(grep -F 'rank 0 of 4' <<<"$out")"
compare "$work/grpo1.jsonl" "$work/hsdp4.jsonl" "$work/grpo1" "$work/hsdp4" '*' 1e-6 ||
  fail "4-rank hybrid-sharded GRPO differs from 1 rank"
ls "$work/hsdp4/global_step_2/actor" | grep -q '^optim_world_size_2_rank_1.safetensors$' &&
  [ "$(ls "$work/hsdp4/global_step_2/actor" | grep -c '^optim_')" = 2 ] ||
  fail "hybrid checkpoint: expected optim_world_size_2_rank_{0,1} only: $(ls "$work/hsdp4/global_step_2/actor")"

# 2. GAE with a critic.
gae=(algorithm.adv_estimator=gae critic.model.path="$work/model" critic.ppo_micro_batch_size_per_gpu=2
     critic.optim.lr=1e-3 actor_rollout_ref.actor.use_kl_loss=false trainer.test_freq=-1 trainer.val_before_train=false)
out=$(one gae1 "${gae[@]}"); rc=$?
[ "$rc" -eq 0 ] || fail "1-rank GAE (exit $rc): $(tail -5 <<<"$out")"
out=$(two gae2 "${gae[@]}"); rc=$?
[ "$rc" -eq 0 ] || fail "2-rank GAE (exit $rc): $(tail -5 <<<"$out")"
compare "$work/gae1.jsonl" "$work/gae2.jsonl" "$work/gae1" "$work/gae2" '*' 1e-6 ||
  fail "2-rank GAE differs from 1 rank"
# GRPO's advantages are 0 here (a random model earns no GSM8K reward, so only the KL and entropy
# terms move the actor); GAE's are not: its policy loss and critic must be active.
check_metrics "$work/gae2.jsonl" <<'PY' || fail "2-rank GAE metrics"
import sys
from compare_runs import steps_of
steps = steps_of(sys.argv[1])
for s in steps.values():
    assert s["actor/pg_loss"] != 0 and s["critic/advantages/max"] > 0, s
    assert s["critic/vf_loss"] > 0 and s["critic/grad_norm"] > 0, s
PY

# 3. balance_batch reorders rows differently for 1 and 2 ranks: the update is the same.
bal=(trainer.balance_batch=true trainer.test_freq=-1 trainer.val_before_train=false)
out=$(one bal1 "${bal[@]}"); rc=$?
[ "$rc" -eq 0 ] || fail "1-rank balanced (exit $rc): $(tail -5 <<<"$out")"
out=$(two bal2 "${bal[@]}"); rc=$?
[ "$rc" -eq 0 ] || fail "2-rank balanced (exit $rc): $(tail -5 <<<"$out")"
compare "$work/bal1.jsonl" "$work/bal2.jsonl" "$work/bal1" "$work/bal2" \
  actor/pg_loss,actor/grad_norm,actor/kl_loss,critic/score/mean,response_length/mean 1e-6 ||
  fail "2-rank balanced run differs from 1 rank"

# 4. Resume of a 2-rank checkpoint equals the straight 2-rank run.
rm -rf "$work/grpo2/global_step_2"
echo 1 > "$work/grpo2/latest_checkpointed_iteration.txt"
out=$(two resumed trainer.default_local_dir="$work/grpo2" trainer.val_before_train=false); rc=$?
[ "$rc" -eq 0 ] || fail "2-rank resume (exit $rc): $(tail -5 <<<"$out")"
grep -qF "resumed from global step 1" <<<"$out" || fail "no resume message: $out"
check_metrics "$work/grpo2.jsonl" "$work/resumed.jsonl" <<'PY' || fail "resumed step 2 differs"
import sys
from compare_runs import steps_of
a, b = steps_of(sys.argv[1])[2], steps_of(sys.argv[2])[2]
for k in ["actor/pg_loss", "actor/grad_norm", "actor/pg_clipfrac", "actor/ppo_kl", "critic/score/mean"]:
    assert abs(a[k] - b[k]) <= 1e-6 * max(1, abs(a[k])), (k, a[k], b[k])
PY

# same_step2_as_grpo2 LOG: step 2 of LOG, a run resumed from a step-1 checkpoint in another
# layout, is the 2-rank run's up to fp32 rounding. ppo_kl is a mean of differences of per-token
# log-probs near -12 (151,936 tokens), which fp32 resolves to about 1e-6, so it gets 1e-5.
same_step2_as_grpo2() {
  check_metrics "$work/grpo2.jsonl" "$1" <<'PY'
import sys
from compare_runs import steps_of
a, b = steps_of(sys.argv[1])[2], steps_of(sys.argv[2])[2]
for k, tol in [("actor/pg_loss", 1e-6), ("actor/grad_norm", 1e-6), ("actor/kl_loss", 1e-6),
               ("critic/score/mean", 1e-6), ("actor/ppo_kl", 1e-5)]:
    assert abs(a[k] - b[k]) <= tol * max(1, abs(a[k])), (k, a[k], b[k])
PY
}

# The 2-rank checkpoint of step 1 resumed on one rank (the optimizer shards read back whole).
out=$(one resharded trainer.resume_mode=resume_path trainer.resume_from_path="$work/grpo2/global_step_1" \
      trainer.val_before_train=false); rc=$?
[ "$rc" -eq 0 ] || fail "1-rank resume of a 2-rank checkpoint (exit $rc): $(tail -5 <<<"$out")"
same_step2_as_grpo2 "$work/resharded.jsonl" || fail "resharded step 2 differs"

# The hybrid 4-rank checkpoint of step 1 (two copies over 2 ranks each) resumed on 2 ranks
# sharded over both: step 2 is the 2-rank run's.
out=$(two hsdp_resumed trainer.resume_mode=resume_path trainer.resume_from_path="$work/hsdp4/global_step_1" \
      trainer.val_before_train=false); rc=$?
[ "$rc" -eq 0 ] || fail "2-rank resume of a hybrid checkpoint (exit $rc): $(tail -5 <<<"$out")"
same_step2_as_grpo2 "$work/hsdp_resumed.jsonl" || fail "hybrid-resumed step 2 differs"

# 5. SFT on 2 ranks equals 1 rank.
for i in 1 2 3 4 5 6 7 8 9 10 11; do
  echo "{\"prompt\": \"What is $i plus $((i * 7))?\", \"response\": \"It is $((i * 8)).\"}"
done > "$work/sft.jsonl"
sft=(data.train_files="$work/sft.jsonl" data.val_files="$work/sft.jsonl" data.prompt_key=prompt data.response_key=response
     data.train_max_samples=8 data.val_max_samples=3 data.train_batch_size=4 data.micro_batch_size_per_gpu=1
     data.max_length=256 data.truncation=right model.path="$work/model" optim.lr=1e-3
     trainer.total_training_steps=2 trainer.save_freq=2 trainer.test_freq=1 trainer.device=cpu
     'trainer.logger=[file]' trainer.project_name=e2e trainer.experiment_name=sft)
out=$(VERL_FILE_LOGGER_PATH="$work/sft1.jsonl" "$VERLPP" sft "${sft[@]}" trainer.default_local_dir="$work/sft1" 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "1-rank sft (exit $rc): $(tail -5 <<<"$out")"
# Without trainer.n_gpus_per_node, as verl's torchrun SFT scripts launch (its world is the
# launch's; bt13: the default of 1 refused a 2-rank launch).
out=$(VERL_FILE_LOGGER_PATH="$work/sft2.jsonl" "$VERLPP" launch --nproc-per-node 2 sft "${sft[@]}" \
      trainer.default_local_dir="$work/sft2" 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "2-rank sft (exit $rc): $(tail -5 <<<"$out")"
compare "$work/sft1.jsonl" "$work/sft2.jsonl" "$work/sft1" "$work/sft2" '*' 1e-6 ||
  fail "2-rank sft differs from 1 rank"

# 6. Bad launches.
out=$("$VERLPP" ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir="$work/x" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "trainer.n_gpus_per_node × trainer.nnodes = 2 × 1 = 2 ranks, but this run has 1" <<<"$out" ||
  fail "n_gpus_per_node 2 in one process (exit $rc): $out"
out=$(RANK=0 WORLD_SIZE=3 "$VERLPP" ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir="$work/x" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "but this run has 3 (WORLD_SIZE=3 from torchrun)" <<<"$out" ||
  fail "WORLD_SIZE 3 against 2 GPUs (exit $rc): $out"
# The world comes first, before problems judged for the configured 8 ranks (bt12: a 2-rank launch of
# an 8-GPU config was told to change its micro-batch size).
out=$(RANK=0 WORLD_SIZE=2 "$VERLPP" ppo "${common[@]}" trainer.n_gpus_per_node=8 trainer.default_local_dir="$work/x" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "= 8 ranks, but this run has 2 (WORLD_SIZE=2 from torchrun)" <<<"$out" &&
  ! grep -qF "ppo_micro_batch_size_per_gpu" <<<"$out" ||
  fail "WORLD_SIZE 2 against an 8-GPU config (exit $rc): $out"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1', $port)); s.listen(); time.sleep(30)" &
listener=$!
sleep 0.5
out=$("$VERLPP" launch --nproc-per-node 2 --master-port "$port" ppo "${common[@]}" trainer.n_gpus_per_node=2 2>&1); rc=$?
kill "$listener" 2>/dev/null
[ "$rc" -eq 1 ] && grep -qF -- "--master-port $port on 127.0.0.1 is taken" <<<"$out" ||
  fail "master port taken (exit $rc): $out"

# Node 0 of 2 says that its ranks wait for the other node (a break-test's waited silently); its
# rank and then the launcher are killed once it has said so.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VERLPP" launch --nnodes 2 --node-rank 0 --nproc-per-node 1 --master-port "$port" ppo "${common[@]}" \
  trainer.nnodes=2 trainer.default_local_dir="$work/nn2" > "$work/nn2.log" 2>&1 &
nn2=$!
for _ in $(seq 50); do grep -q "they wait at" "$work/nn2.log" && break; sleep 0.1; done
pkill -KILL -P "$nn2"; kill -KILL "$nn2" 2>/dev/null; wait "$nn2" 2>/dev/null
grep -qF "verlpp launch: node 0 of 2 started ranks 0-0; they wait at 127.0.0.1:$port for the 1 ranks of the other nodes" "$work/nn2.log" ||
  fail "launch --nnodes 2 waits silently: $(cat "$work/nn2.log")"

# launch_long NAME: a 100-step 2-rank run in the background ($work/NAME.log, checkpoints in
# $work/NAME), once it has logged its first step; sets $launcher.
launch_long() {
  local name=$1
  VERL_FILE_LOGGER_PATH="$work/$name.jsonl" "$VERLPP" launch --nproc-per-node 2 ppo "${common[@]}" \
    trainer.n_gpus_per_node=2 trainer.default_local_dir="$work/$name" trainer.total_training_steps=100 \
    trainer.val_before_train=false trainer.test_freq=-1 trainer.save_freq=-1 > "$work/$name.log" 2>&1 &
  launcher=$!
  for _ in $(seq 1 600); do [ -s "$work/$name.jsonl" ] && break; sleep 0.1; done
}
# rank_pid RANK: the pid of that rank of $launcher.
rank_pid() {
  for pid in $(pgrep -P "$launcher"); do
    tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "RANK=$1" && echo "$pid"
  done
}

# A rank killed mid-run: the launcher names it and the run ends (no hang).
launch_long killed
victim=$(rank_pid 1)
[ -n "$victim" ] || fail "could not find rank 1 of the launched run"
[ -n "$victim" ] && kill -9 "$victim"
start=$SECONDS
wait "$launcher"; rc=$?
elapsed=$((SECONDS - start))
[ "$rc" -ne 0 ] || fail "the run with a killed rank exited 0"
[ "$elapsed" -le 60 ] || fail "the run took ${elapsed}s to stop after rank 1 died"
grep -qF "verlpp launch: rank 1 (pid $victim) was killed by signal 9" "$work/killed.log" ||
  fail "the launcher did not name the killed rank: $(tail -5 "$work/killed.log")"

# SIGTERM to the launcher mid-run: it passes it on, both ranks finish the same step, rank 0 saves
# it, every rank exits 143 and so does the launcher, which does not take that for a failure
# (no "stopping the other ranks", no SIGKILL). The same with SIGTERM to rank 1 alone (report bt9:
# "rank 0 ... stopping the other ranks").
for target in launcher rank1; do
  launch_long "sig_$target"
  if [ "$target" = launcher ]; then kill -TERM "$launcher"; else kill -TERM "$(rank_pid 1)"; fi
  wait "$launcher"; rc=$?
  log=$work/sig_$target.log
  stopped=$(sed -n 's/.*stopped by signal 15 after step \([0-9]*\) (checkpoint saved); exit status 143$/\1/p' "$log")
  [ "$rc" -eq 143 ] || fail "launch after SIGTERM to the $target: exit $rc: $(tail -5 "$log")"
  grep -q "stopping the other ranks\|was killed by signal" "$log" &&
    fail "the launcher took the stop for a failure: $(grep "verlpp launch" "$log")"
  [ -n "$stopped" ] && [ "$(cat "$work/sig_$target/latest_checkpointed_iteration.txt" 2>/dev/null)" = "$stopped" ] ||
    fail "no checkpoint of the stopped step after SIGTERM to the $target: $(tail -5 "$log")"
done

# term_rank1_when FILE REGEX NAME: once REGEX shows in FILE and 2 s more have passed, SIGTERM
# to rank 1 of $launcher alone (its run logs to $work/NAME.log); then checks that the run exits
# 143 within 20 s (bt18 B2, bt19 B1: the other rank went on through its share of the validation,
# minutes here, while rank 1 waited in a collective) and says the validation was left unfinished.
term_rank1_when() {
  local file=$1 regex=$2 name=$3 start elapsed rc
  for _ in $(seq 1 1200); do grep -q "$regex" "$file" 2>/dev/null && break; sleep 0.1; done
  sleep 2
  kill -TERM "$(rank_pid 1)"
  start=$SECONDS
  wait "$launcher"; rc=$?
  elapsed=$((SECONDS - start))
  [ "$rc" -eq 143 ] || fail "$name after SIGTERM to rank 1 in validation: exit $rc: $(tail -3 "$work/$name.log")"
  grep -q "validation of step [0-9]* left unfinished by a stop signal" "$work/$name.log" ||
    fail "SIGTERM to rank 1 did not stop $name's validation: $(tail -4 "$work/$name.log")"
  [ "$elapsed" -le 20 ] || fail "$name took ${elapsed}s to stop after SIGTERM to rank 1 in validation"
}

# sft: the ranks agree on a stop before every micro-batch; step 2 (trained in well under a second
# after step 1 is logged) is saved.
python3 -c "
for i in range(200): print('{\"prompt\": \"Count to %d.\", \"response\": \"%s\"}' % (i, ' '.join(str(j) for j in range(i % 7, 250))))
" > "$work/long_val.jsonl"
VERL_FILE_LOGGER_PATH="$work/sigval2.jsonl" "$VERLPP" launch --nproc-per-node 2 sft "${sft[@]}" \
  data.val_files="$work/long_val.jsonl" data.val_max_samples=-1 data.max_length=1024 \
  data.use_dynamic_bsz=false trainer.total_training_steps=4 trainer.save_freq=-1 trainer.test_freq=2 \
  trainer.default_local_dir="$work/sigval2" > "$work/sigval2.log" 2>&1 &
launcher=$!
term_rank1_when "$work/sigval2.jsonl" . sigval2
[ -f "$work/sigval2/global_step_2/actor/huggingface/model.safetensors" ] ||
  fail "no checkpoint of step 2 after SIGTERM to rank 1 in sft's validation: $(ls "$work/sigval2" 2>&1)"

# ppo: rank 1 raises its stop flag in the store, rank 0 sees it within 8 decode steps (it generated
# its whole share of 1,000 prompts first, 95 s in bt19, and past nccl_timeout the run died with
# exit 1); step 1 is saved.
for _ in $(seq 334); do head -3 "$work/gsm8k/test.jsonl"; done | head -1000 > "$work/val1000.jsonl"
VERL_FILE_LOGGER_PATH="$work/ppo_sigval.jsonl" "$VERLPP" launch --nproc-per-node 2 ppo "${common[@]}" \
  trainer.n_gpus_per_node=2 trainer.default_local_dir="$work/ppo_sigval" data.val_files="$work/val1000.jsonl" \
  data.val_max_samples=-1 data.max_response_length=32 trainer.total_training_steps=3 trainer.save_freq=1 \
  trainer.test_freq=1 trainer.val_before_train=false > "$work/ppo_sigval.log" 2>&1 &
launcher=$!
term_rank1_when "$work/ppo_sigval.log" "saved checkpoint .*global_step_1" ppo_sigval
[ "$(cat "$work/ppo_sigval/latest_checkpointed_iteration.txt" 2>/dev/null)" = 1 ] ||
  fail "no checkpoint of step 1 after SIGTERM to rank 1 in ppo's validation"

# SIGKILL to the launcher (bt12: its ranks trained on as orphans): its end reaches each rank as
# SIGTERM, so they stop after the step with a checkpoint, within a minute.
launch_long orphans
ranks_of_launcher="$(rank_pid 0) $(rank_pid 1)"
kill -KILL "$launcher"
wait "$launcher" 2>/dev/null
for _ in $(seq 1 600); do
  alive=0
  for pid in $ranks_of_launcher; do kill -0 "$pid" 2>/dev/null && alive=1; done
  [ "$alive" -eq 0 ] && break
  sleep 0.1
done
[ "$alive" -eq 0 ] || { fail "ranks still run a minute after the launcher was killed"; kill -KILL $ranks_of_launcher; }
stopped=$(sed -n 's/.*stopped by signal 15 after step \([0-9]*\) (checkpoint saved); exit status 143$/\1/p' "$work/orphans.log" | head -1)
[ -n "$stopped" ] && [ "$(cat "$work/orphans/latest_checkpointed_iteration.txt" 2>/dev/null)" = "$stopped" ] ||
  fail "no checkpoint of the stopped step after the launcher was killed: $(tail -5 "$work/orphans.log")"

# 2 ranks generate what 1 rank does: with VLLM_BATCH_INVARIANT=1 every logit is the same whatever
# the rank's batch, so the step's 32-token responses and their scores are equal (the dumps). A
# wider model than above (hidden 128): without the mode 1 of its 8 responses differed between 1
# and 2 ranks on the machine this was written on.
"$VERLPP" model init --arch qwen3 --hidden-size 128 --intermediate-size 256 --num-hidden-layers 2 \
  --num-attention-heads 4 --num-key-value-heads 2 --initializer-range 0.2 --vocab-size 151936 \
  --dtype float32 --seed 3 --tokenizer tests/fixtures/tokenizers/qwen3 --output "$work/wide" \
  > /dev/null 2>&1 || fail "model init (wide)"
for ranks in one two; do
  out=$(VLLM_BATCH_INVARIANT=1 $ranks bi_$ranks trainer.total_training_steps=1 trainer.save_freq=-1 \
        trainer.val_before_train=false trainer.test_freq=-1 data.max_response_length=32 \
        actor_rollout_ref.model.path="$work/wide" actor_rollout_ref.actor.ppo_epochs=1 \
        trainer.rollout_data_dir="$work/bi_dump_$ranks"); rc=$?
  [ "$rc" -eq 0 ] || fail "VLLM_BATCH_INVARIANT=1 on $ranks rank(s) (exit $rc): $(tail -5 <<<"$out")"
done
cmp -s "$work/bi_dump_one/1.jsonl" "$work/bi_dump_two/1.jsonl" ||
  fail "VLLM_BATCH_INVARIANT=1: 2 ranks generated other responses than 1 rank"
check_metrics "$work/bi_one.jsonl" "$work/bi_two.jsonl" <<'PY' || fail "VLLM_BATCH_INVARIANT=1 rollout_probs_diff_max"
import sys
from compare_runs import steps_of
for path in sys.argv[1:]:
    assert steps_of(path)[1]["training/rollout_probs_diff_max"] == 0.0, path
PY

[ "$failures" -eq 0 ] && echo "ppo_dp_test: all passed" || echo "ppo_dp_test: $failures failure(s)"
exit $((failures > 0))
