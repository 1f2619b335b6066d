#!/usr/bin/env bash
# `verlpp ppo` end to end on real input, on the CPU: GSM8K prepared by `verlpp data gsm8k`, the real
# Qwen3 tokenizer, a tiny random Qwen3 from `verlpp model init`; GRPO steps with rewards from the
# gsm8k scorer, validation, checkpoints and resume. Asserts: the run's JSONL metrics (verl's names;
# first update actor/ppo_kl == 0 within 1e-6 and actor/pg_clipfrac == 0, as the first update's
# ratio is 1), the checkpoint layout, and that 4 steps straight equal 2 steps + resume + 2 steps
# (every metric but timings), and that SIGTERM ends the run with a checkpoint. Usage: ppo_gsm8k_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
SRC=$2
cd "$SRC"
source "$SRC/tests/e2e/lib.sh"

prepare_gsm8k
init_tiny_qwen3
# verl's seed scripts read the Parquet files; so does this run where the build writes them.
ext=jsonl
[ -f "$work/gsm8k/train.parquet" ] && ext=parquet

common=(
  data.train_files="$work/gsm8k/train.$ext" data.val_files="$work/gsm8k/test.$ext"
  data.train_max_samples=8 data.val_max_samples=2 data.train_batch_size=2
  data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.model.path="$work/model"
  actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.actor.use_kl_loss=true
  actor_rollout_ref.actor.entropy_coeff=0.01
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1
  'trainer.logger=[console,file]' trainer.project_name=e2e trainer.experiment_name=grpo
)
ppo() {  # ppo LOGFILE CKPT_DIR overrides...
  local log=$1 ckpt=$2
  shift 2
  VERL_FILE_LOGGER_PATH=$log "$VERLPP" ppo "${common[@]}" trainer.default_local_dir="$ckpt" "$@" 2>&1
}

# 1. Two GRPO steps with validation before training and at the end, a checkpoint every step.
out=$(ppo "$work/run.jsonl" "$work/ckpt" trainer.total_training_steps=2 trainer.save_freq=1 \
      trainer.test_freq=2 trainer.rollout_data_dir="$work/gen" trainer.validation_data_dir="$work/valgen"); rc=$?
[ "$rc" -eq 0 ] || fail "ppo run (exit $rc): $(tail -20 <<<"$out")"
grep -q "^step:1 - " <<<"$out" || fail "no console line for step 1"
# verl's default fsdp_config.dtype (bfloat16) does not apply to the CPU trainer, which says so.
grep -qF "actor_rollout_ref.actor.fsdp_config.dtype=bfloat16 applies on CUDA; the trainer on the CPU computes in float32" <<<"$out" ||
  fail "no note on the CPU trainer's dtype"
python3 - "$work/run.jsonl" <<'PY' || fail "metrics of the 2-step run"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
steps = {}
for l in lines:
    steps.setdefault(l["step"], {}).update(l["data"])
assert sorted(steps) == [0, 1, 2], sorted(steps)
val = [k for k in steps[0] if k.startswith("val-core/openai/gsm8k/")]
assert val, "no val-core/openai/gsm8k/* metric before training: %s" % sorted(steps[0])
assert any(k.startswith("val-core/openai/gsm8k/") for k in steps[2]), "no validation at the last step"
s1 = steps[1]
for key in ["critic/score/mean", "critic/advantages/mean", "response_length/mean", "actor/pg_loss",
            "actor/entropy", "actor/kl_loss", "actor/pg_clipfrac", "actor/ppo_kl", "actor/grad_norm",
            "actor/lr", "timing_s/gen", "timing_s/reward", "timing_s/old_log_prob", "timing_s/ref",
            "timing_s/adv", "timing_s/update_actor", "timing_s/save_checkpoint", "timing_s/step",
            "perf/throughput", "perf/mfu/actor", "training/global_step", "training/epoch"]:
    assert key in s1, "step 1 lacks " + key
assert abs(s1["actor/ppo_kl"]) < 1e-6, s1["actor/ppo_kl"]
assert s1["actor/pg_clipfrac"] == 0, s1["actor/pg_clipfrac"]
assert abs(s1["actor/kl_loss"]) < 1e-6, s1["actor/kl_loss"]  # actor == reference before any update
assert s1["actor/lr"] == 0.01 and s1["training/global_step"] == 1
assert 1 <= s1["response_length/mean"] <= 8
assert steps[2]["actor/kl_loss"] > 0, "the policy did not move away from the reference"
assert "timing_s/dump_rollout_generations" in s1, "no dump timing"
# verl's single-turn agent loop counts the prompt's user turn and the response: 2 turns a row.
assert s1["training/num_turns/mean"] == 2 and s1["training/num_turns/min"] == 2, s1
assert steps[0]["val-aux/num_turns/mean"] == 2, sorted(steps[0])
PY
# trainer.rollout_data_dir / validation_data_dir: verl's {dir}/{step}.jsonl, one row per sample, its
# fields in verl's order; the scores average to the step's critic/score/mean.
python3 - "$work/run.jsonl" "$work/gen" "$work/valgen" <<'PY' || fail "generation dumps"
import json, os, sys
steps = {}
for l in open(sys.argv[1]):
    rec = json.loads(l)
    steps.setdefault(rec["step"], {}).update(rec["data"])
for folder, names, rows in ((sys.argv[2], ["1.jsonl", "2.jsonl"], 4), (sys.argv[3], ["0.jsonl", "2.jsonl"], 2)):
    assert sorted(os.listdir(folder)) == names, (folder, os.listdir(folder))
    for name in names:
        records = [json.loads(l) for l in open(os.path.join(folder, name))]
        assert len(records) == rows, (folder, name, len(records))
        step = int(name.split(".")[0])
        for r in records:
            assert list(r)[:5] == ["input", "output", "gts", "score", "step"], list(r)
            assert r["step"] == step and "Let's think step by step" in r["input"], r
            assert "<|im_start|>" not in r["input"] and r["gts"].replace(",", "").lstrip("-").isdigit(), r
        if folder == sys.argv[2]:
            mean = sum(r["score"] for r in records) / rows
            assert abs(mean - steps[step]["critic/score/mean"]) < 1e-6, (mean, steps[step])
PY
[ "$(cat "$work/ckpt/latest_checkpointed_iteration.txt" 2>/dev/null)" = 2 ] || fail "tracker is not 2"
for f in global_step_1/actor/huggingface/model.safetensors global_step_2/actor/huggingface/config.json \
         global_step_2/actor/huggingface/tokenizer.json global_step_2/actor/optim_world_size_1_rank_0.safetensors \
         global_step_2/trainer_state.json; do
  [ -f "$work/ckpt/$f" ] || fail "checkpoint lacks $f"
done
ls -a "$work/ckpt" | grep -q '^\.tmp_' && fail "a temporary checkpoint folder was left behind"

# training/epoch is the epoch of the step's batch: 4 rows in batches of 2 give epochs 0, 0, 1.
out=$(ppo "$work/epochs.jsonl" "$work/cepochs" trainer.total_training_steps=3 data.train_max_samples=4 \
      trainer.save_freq=-1 trainer.test_freq=-1 trainer.val_before_train=false) ||
  fail "epochs run: $(tail -5 <<<"$out")"
python3 - "$work/epochs.jsonl" <<'PY' || fail "training/epoch is not the epoch of the step's batch"
import json, sys
epochs = {}
for line in open(sys.argv[1]):
    record = json.loads(line)
    if "training/epoch" in record["data"]:
        epochs[record["step"]] = record["data"]["training/epoch"]
assert epochs == {1: 0, 2: 0, 3: 1}, epochs
PY
# trainer.total_epochs ends the run before trainer.total_training_steps, as verl's loop does.
out=$(ppo "$work/one_epoch.jsonl" "$work/cone" trainer.total_training_steps=3 data.train_max_samples=4 \
      trainer.total_epochs=1 trainer.save_freq=-1 trainer.test_freq=-1 trainer.val_before_train=false) ||
  fail "one-epoch run: $(tail -5 <<<"$out")"
[ "$(grep -c '"training/epoch"' "$work/one_epoch.jsonl")" = 2 ] ||
  fail "one epoch of 4 rows in batches of 2 is not 2 steps: $(cat "$work/one_epoch.jsonl")"

# 2. Resume equality: 4 steps straight == 2 steps, then resume_mode=auto for steps 3 and 4.
run4=(trainer.save_freq=2 trainer.test_freq=2 trainer.val_before_train=false)
out=$(ppo "$work/straight.jsonl" "$work/c4" trainer.total_training_steps=4 "${run4[@]}") ||
  fail "4-step run: $(tail -5 <<<"$out")"
out=$(ppo "$work/split.jsonl" "$work/c22" trainer.total_training_steps=2 "${run4[@]}") ||
  fail "first 2 steps: $(tail -5 <<<"$out")"
out=$(ppo "$work/split.jsonl" "$work/c22" trainer.total_training_steps=4 "${run4[@]}") ||
  fail "resumed 2 steps: $(tail -5 <<<"$out")"
grep -q "resumed from global step 2" <<<"$out" || fail "the second run did not resume: $(tail -5 <<<"$out")"
python3 - "$work/straight.jsonl" "$work/split.jsonl" <<'PY' || fail "resume changed the metrics"
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
assert sorted(a) == sorted(b) == [1, 2, 3, 4], (sorted(a), sorted(b))
for step in a:
    assert a[step].keys() == b[step].keys(), (step, a[step].keys() ^ b[step].keys())
    for k in a[step]:
        assert a[step][k] == b[step][k] or (a[step][k] != a[step][k] and b[step][k] != b[step][k]), \
            (step, k, a[step][k], b[step][k])
PY

# 3. PPO with a critic (gae), KL in the reward, dynamic token-budget micro-batches and critic warmup.
out=$(ppo "$work/gae.jsonl" "$work/cgae" algorithm.adv_estimator=gae algorithm.use_kl_in_reward=true \
      critic.model.path="$work/model" critic.ppo_micro_batch_size_per_gpu=1 \
      actor_rollout_ref.actor.use_dynamic_bsz=true actor_rollout_ref.actor.ppo_max_token_len_per_gpu=300 \
      trainer.critic_warmup=2 trainer.total_training_steps=2 trainer.save_freq=2 trainer.val_before_train=false \
      trainer.test_freq=-1 actor_rollout_ref.rollout.disable_log_stats=false); rc=$?
[ "$rc" -eq 0 ] || fail "gae run (exit $rc): $(tail -5 <<<"$out")"
# A key verlpp accepts and does not act on is named once, as sft names them (report bt10).
grep -qF "verlpp ppo: note: actor_rollout_ref.rollout.disable_log_stats: accepted but ignored" <<<"$out" ||
  fail "ppo did not name the ignored key: $(grep -i note <<<"$out" | head -3)"
python3 - "$work/gae.jsonl" <<'PY' || fail "metrics of the gae run"
import json, sys
steps = {}
for l in open(sys.argv[1]):
    l = json.loads(l)
    steps.setdefault(l["step"], {}).update(l["data"])
for step in (1, 2):
    for key in ["critic/vf_loss", "critic/vf_clipfrac", "critic/vpred_mean", "critic/grad_norm",
                "critic/values/mean", "critic/vf_explained_var", "actor/reward_kl_penalty",
                "timing_s/values", "timing_s/update_critic"]:
        assert key in steps[step], (step, key)
assert "actor/pg_loss" not in steps[1], "the actor was updated during critic_warmup"
assert "actor/pg_loss" in steps[2], "the actor was not updated after critic_warmup"
assert steps[1]["actor/reward_kl_penalty"] == 0  # actor == reference before any actor update
PY
for f in critic/huggingface/model.safetensors critic/optim_world_size_1_rank_0.safetensors critic/value_head/model.safetensors; do
  [ -f "$work/cgae/global_step_2/$f" ] || fail "critic checkpoint lacks $f"
done

# PF-PPO (algorithm.use_pf_ppo after GAE; the draws are unit-tested in algo_pf_ppo_test.cpp): a step
# runs and logs verl's metrics from the resampled batch.
out=$(ppo "$work/pfppo.jsonl" "$work/cpfppo" algorithm.adv_estimator=gae critic.model.path="$work/model" \
      critic.ppo_micro_batch_size_per_gpu=1 algorithm.use_pf_ppo=true algorithm.pf_ppo.reweight_method=max_random \
      trainer.total_training_steps=1 trainer.save_freq=-1 trainer.val_before_train=false trainer.test_freq=-1); rc=$?
[ "$rc" -eq 0 ] || fail "pf-ppo run (exit $rc): $(tail -5 <<<"$out")"
grep -q "critic/score/mean" "$work/pfppo.jsonl" && grep -q "actor/pg_loss" "$work/pfppo.jsonl" ||
  fail "pf-ppo run logged no step metrics"

# 4. Rollout correction, the optimal token baseline and gdpo (verl's algorithm.rollout_correction,
#    bypass mode; adv_estimator optimal_token_baseline with calculate_sum_pi_squared; gdpo over a
#    custom reward's named values): one step each.
rc_common=(trainer.total_training_steps=1 trainer.save_freq=-1 trainer.test_freq=-1
           trainer.val_before_train=false)
out=$(ppo "$work/bypass.jsonl" "$work/cbypass" "${rc_common[@]}" \
      algorithm.rollout_correction.bypass_mode=true algorithm.rollout_correction.loss_type=reinforce \
      algorithm.rollout_correction.rollout_is=token algorithm.rollout_correction.rollout_rs=token_k1 \
      algorithm.rollout_correction.rollout_rs_threshold=0.5_2.0); rc=$?
[ "$rc" -eq 0 ] || fail "bypass run (exit $rc): $(tail -5 <<<"$out")"
out=$(ppo "$work/otb.jsonl" "$work/cotb" "${rc_common[@]}" \
      algorithm.adv_estimator=optimal_token_baseline actor_rollout_ref.actor.calculate_sum_pi_squared=true \
      algorithm.rollout_correction.rollout_is=sequence); rc=$?
[ "$rc" -eq 0 ] || fail "optimal_token_baseline run (exit $rc): $(tail -5 <<<"$out")"
# gdpo with a custom reward library giving two named rewards (verlpp_reward_abi.h's _named form).
cat > "$work/named.c" <<'C'
#include <string.h>
int two_named(const char* data_source, const char* solution, const char* truth, const char* extra,
              const char** names, double* values, int capacity) {
  (void)data_source; (void)extra; (void)capacity;
  names[0] = "score"; values[0] = strstr(solution, truth) != NULL;
  names[1] = "length"; values[1] = (double)strlen(solution) / 100.0;
  return 2;
}
C
cc -shared -fPIC -o "$work/libnamed.so" "$work/named.c" || fail "cannot build the named reward library"
out=$(ppo "$work/gdpo.jsonl" "$work/cgdpo" "${rc_common[@]}" algorithm.adv_estimator=gdpo \
      '+algorithm.gdpo_reward_keys=[score,length]' '+algorithm.gdpo_reward_weights=[1.0,0.5]' \
      reward.custom_reward_function.path="$work/libnamed.so" reward.custom_reward_function.name=two); rc=$?
[ "$rc" -eq 0 ] || fail "gdpo run (exit $rc): $(tail -5 <<<"$out")"
out=$(ppo "$work/gdpo_bad.jsonl" "$work/cgdpo_bad" "${rc_common[@]}" algorithm.adv_estimator=gdpo \
      '+algorithm.gdpo_reward_keys=[score,format]' \
      reward.custom_reward_function.path="$work/libnamed.so" reward.custom_reward_function.name=two); rc=$?
[ "$rc" -ne 0 ] && grep -q "no value 'format' (it gives: length, score)" <<<"$out" ||
  fail "gdpo with a reward name the library lacks: exit $rc: $(tail -3 <<<"$out")"
# ReMax (bt13: check passed it, the first step failed without reward_baselines): each prompt's
# greedy response is generated and scored (timing_s/gen_max) as the baseline. A length reward
# (characters / 100) makes scores vary. With greedy training rollouts every response is that
# greedy response, so every advantage is 0 (a baseline of 0 would leave the reward, > 0); sampled
# from the same model and prompts, each advantage is its score minus that greedy score.
cat > "$work/length.c" <<'C'
#include <string.h>
double length_score(const char* data_source, const char* solution, const char* truth,
                    const char* extra) {
  (void)data_source; (void)truth; (void)extra;
  return (double)strlen(solution) / 100.0;
}
C
cc -shared -fPIC -o "$work/liblength.so" "$work/length.c" || fail "cannot build the length reward library"
remax=("${rc_common[@]}" algorithm.adv_estimator=remax
       reward.custom_reward_function.path="$work/liblength.so" reward.custom_reward_function.name=length_score)
out=$(ppo "$work/remax_greedy.jsonl" "$work/cremax_greedy" "${remax[@]}" actor_rollout_ref.rollout.do_sample=false); rc=$?
[ "$rc" -eq 0 ] || fail "remax greedy run (exit $rc): $(tail -5 <<<"$out")"
out=$(ppo "$work/remax.jsonl" "$work/cremax" "${remax[@]}"); rc=$?
[ "$rc" -eq 0 ] || fail "remax run (exit $rc): $(tail -5 <<<"$out")"
python3 - "$work/remax_greedy.jsonl" "$work/remax.jsonl" <<'PY' || fail "remax advantages"
import json, sys
greedy, sampled = ({k: v for l in open(p) for k, v in json.loads(l)["data"].items()} for p in sys.argv[1:3])
assert "timing_s/gen_max" in greedy and "timing_s/gen_max" in sampled, sorted(greedy)
g = greedy["critic/score/mean"]
assert g > 0 and greedy["critic/score/min"] == greedy["critic/score/max"], greedy
assert greedy["critic/advantages/max"] == 0 and greedy["critic/advantages/min"] == 0, greedy
assert sampled["critic/score/max"] > sampled["critic/score/min"], sampled
for end in ("max", "min"):
    want = sampled["critic/score/" + end] - g
    assert abs(sampled["critic/advantages/" + end] - want) < 1e-6, (end, sampled, g)
PY
# DAPO's dynamic sampling (algorithm.filter_groups): prompts whose n rewards are all equal are
# dropped and more generated. On the named reward's length (it varies) a step runs and logs
# train/num_gen_batches; on its score (0 for every response of a random model) no prompt is kept
# and max_num_gen_batches ends the run with an error naming the key.
dapo=("${rc_common[@]}" algorithm.filter_groups.enable=true data.gen_batch_size=4
      reward.custom_reward_function.path="$work/libnamed.so" reward.custom_reward_function.name=two)
out=$(ppo "$work/dapo.jsonl" "$work/cdapo" "${dapo[@]}" algorithm.filter_groups.metric=length); rc=$?
[ "$rc" -eq 0 ] || fail "dynamic sampling run (exit $rc): $(tail -5 <<<"$out")"
python3 - "$work/dapo.jsonl" <<'PY' || fail "dynamic sampling metrics"
import json, sys
s = {}
for l in open(sys.argv[1]):
    s.update(json.loads(l)["data"])
assert s["train/num_gen_batches"] >= 1, s.get("train/num_gen_batches")
assert "actor/pg_loss" in s
PY
out=$(ppo "$work/dapo0.jsonl" "$work/cdapo0" "${dapo[@]}" algorithm.filter_groups.metric=score \
      algorithm.filter_groups.max_num_gen_batches=2); rc=$?
[ "$rc" -eq 1 ] && grep -qF "algorithm.filter_groups: after 2 generation batches (max_num_gen_batches) only 0 of the 2 prompts" <<<"$out" ||
  fail "dynamic sampling without varied rewards: exit $rc: $(tail -3 <<<"$out")"
# A reward that is not a number: the error names the data file's line, not the batch position.
cat > "$work/nan.c" <<'C'
#include <math.h>
double nan_score(const char* data_source, const char* solution, const char* truth, const char* extra) {
  (void)data_source; (void)solution; (void)truth; (void)extra;
  return NAN;
}
C
cc -shared -fPIC -o "$work/libnan.so" "$work/nan.c" || fail "cannot build the NaN reward library"
out=$(ppo "$work/nan.jsonl" "$work/cnan" "${rc_common[@]}" \
      reward.custom_reward_function.path="$work/libnan.so" reward.custom_reward_function.name=nan_score); rc=$?
[ "$rc" -eq 1 ] && grep -qE "reward row 0 \(.*train\.[a-z]+ (line|row) [0-9]+\): custom reward 'nan_score' .* returned NaN" <<<"$out" ||
  fail "NaN reward (exit $rc): $(grep -i reward <<<"$out" | tail -3)"
python3 - "$work/bypass.jsonl" "$work/otb.jsonl" "$work/gdpo.jsonl" <<'PY' || fail "metrics of the correction runs"
import json, sys
def step1(path):
    data = {}
    for l in open(path):
        l = json.loads(l)
        if l["step"] == 1:
            data.update(l["data"])
    return data
bypass, otb = step1(sys.argv[1]), step1(sys.argv[2])
# Bypass: no old_log_prob pass; the loss reports the correction of the current policy.
assert "timing_s/old_log_prob" not in bypass and "actor/entropy" not in bypass, sorted(bypass)
for key in ["actor/rollout_corr/rollout_is_mean", "actor/rollout_corr/rollout_rs_token_k1_masked_fraction",
            "actor/rollout_corr/kl", "actor/ppo_kl", "actor/pg_loss"]:
    assert key in bypass, key
# The rollout's and the trainer's log-probs of the same fp32 CPU model agree closely.
assert abs(bypass["actor/rollout_corr/kl"]) < 1e-4, bypass["actor/rollout_corr/kl"]
# Decoupled: the correction of the recomputed old_log_probs, computed once per step.
for key in ["rollout_corr/rollout_is_mean", "rollout_corr/chi2_seq", "rollout_corr/training_ppl",
            "critic/advantages/mean", "timing_s/old_log_prob"]:
    assert key in otb, key
assert abs(otb["rollout_corr/rollout_is_mean"] - 1) < 1e-3, otb["rollout_corr/rollout_is_mean"]
# gdpo whitens the combined advantages over the batch's tokens: mean 0.
gdpo = step1(sys.argv[3])
assert abs(gdpo["critic/advantages/mean"]) < 1e-4 or gdpo["critic/advantages/max"] == 0, gdpo
PY

# 5. SIGTERM during training, delivered twice at once (as GNU timeout and a process group with
# `verlpp launch` deliver one signal): the step finishes, a checkpoint is saved, exit 143 (128 +
# SIGTERM, what a shell reports for a process the signal ended).
VERL_FILE_LOGGER_PATH="$work/sig.jsonl" "$VERLPP" ppo "${common[@]}" trainer.default_local_dir="$work/csig" \
  trainer.total_training_steps=200 trainer.save_freq=-1 trainer.val_before_train=false > "$work/sig.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do grep -q "^step:1 - " "$work/sig.log" && break; sleep 0.1; done
kill -TERM "$pid"
kill -TERM "$pid"
wait "$pid"; rc=$?
stopped=$(sed -n 's/.*stopped by signal 15 after step \([0-9]*\) (checkpoint saved); exit status 143$/\1/p' "$work/sig.log")
[ "$rc" -eq 143 ] || fail "SIGTERM: exit $rc: $(tail -3 "$work/sig.log")"
[ -n "$stopped" ] && [ "$stopped" -lt 200 ] || fail "SIGTERM did not stop the run: $(tail -3 "$work/sig.log")"
[ "$(cat "$work/csig/latest_checkpointed_iteration.txt" 2>/dev/null)" = "$stopped" ] ||
  fail "no checkpoint of step $stopped after SIGTERM"

# 6. SIGTERM during a long validation (1,500 prompts x 256 tokens, minutes on this model): the
# rollout abandons it before its next decode step, the step is logged without val-* metrics, its
# checkpoint kept, exit 143 within seconds (it used to generate the whole set first).
for _ in $(seq 500); do head -3 "$work/gsm8k/test.jsonl"; done > "$work/long_val.jsonl"
VERL_FILE_LOGGER_PATH="$work/sigval.jsonl" "$VERLPP" ppo "${common[@]}" trainer.default_local_dir="$work/csigval" \
  data.val_files="$work/long_val.jsonl" data.val_max_samples=-1 data.max_response_length=256 \
  trainer.total_training_steps=3 trainer.save_freq=1 trainer.test_freq=1 trainer.val_before_train=false \
  > "$work/sigval.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do grep -q "saved checkpoint .*global_step_1" "$work/sigval.log" && break; sleep 0.1; done
sleep 1
kill -TERM "$pid"
start=$SECONDS
wait "$pid"; rc=$?
elapsed=$((SECONDS - start))
[ "$rc" -eq 143 ] || fail "SIGTERM in validation: exit $rc: $(tail -3 "$work/sigval.log")"
grep -qF "validation of step 1 left unfinished by a stop signal" "$work/sigval.log" &&
  grep -qF "stopped by signal 15 after step 1 (checkpoint saved); exit status 143" "$work/sigval.log" ||
  fail "SIGTERM did not stop the validation of step 1: $(tail -4 "$work/sigval.log")"
[ "$elapsed" -le 20 ] || fail "ppo took ${elapsed}s to stop after SIGTERM in validation"
grep -q "val-core" "$work/sigval.jsonl" && fail "an unfinished validation logged val-core metrics"
[ "$(cat "$work/csigval/latest_checkpointed_iteration.txt" 2>/dev/null)" = 1 ] ||
  fail "no checkpoint of step 1 after SIGTERM in validation"
exit $((failures > 0))
