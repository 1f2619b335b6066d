#!/usr/bin/env bash
# On-policy distillation (`distillation.enabled=True`, issue 19) end to end on the CPU.
#  1. The built-in demo's SFT model (it copies the demonstrations' sloppy "+1") distilled from the
#     demo's GRPO model with use_task_rewards=False, for the seed script's objective (k1 through
#     the PPO clip) and for forward_kl_topk: within 20 steps the greedy validation reward rises from
#     the SFT level to within 0.1 of the teacher's (the demo's final validation reward), and the
#     mean per-token reverse KL on validation falls.
#     Two Gloo ranks (each scoring its slice with the teacher, sharded student) equal one rank.
#  2. The seed script examples/run_qwen3_5_2b_distill_fsdp.sh (verl PR #7605's overrides) runs 2
#     steps with a tiny random-init Qwen3.5 student, a tiny Qwen3.5-MoE teacher and GSM8K, shrunk to
#     one device by appended overrides.
#  3. Bad input: a missing teacher, a teacher with another vocabulary, topk above the vocabulary,
#     an unknown loss_mode, k1 without the policy-gradient form: one-line errors.
# Usage: distill_test.sh VERLPP SOURCE_DIR DEMO_DIR (DEMO_DIR: what demo_test.sh kept)
set -uo pipefail
VERLPP=$1
SRC=$2
DEMO=$3
cd "$SRC"
source "$SRC/tests/e2e/lib.sh"

# --- 1. The demo's SFT model distilled from its GRPO model --------------------------------------
D=$DEMO/verlpp_demo
student=$(ls -d "$D"/sft/global_step_*/actor/huggingface 2>/dev/null | sort -V | tail -1)
teacher=$(ls -d "$D"/grpo/global_step_*/actor/huggingface 2>/dev/null | sort -V | tail -1)
teacher_reward=$(sed -nE 's/.*after GRPO ([0-9.]+).*/\1/p' "$DEMO/out.txt" 2>/dev/null)
if [ -z "$student" ] || [ -z "$teacher" ] || [ -z "$teacher_reward" ]; then
  fail "no demo models in $DEMO (run e2e_demo first: it keeps them)"
  exit 1
fi
demo=(
  algorithm.adv_estimator=grpo actor_rollout_ref.rollout.name=vllm
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  data.train_files="$D/data/train.jsonl" data.val_files="$D/data/val.jsonl" data.train_batch_size=32
  data.max_prompt_length=16 data.max_response_length=8 actor_rollout_ref.model.path="$student"
  actor_rollout_ref.model.enable_gradient_checkpointing=false actor_rollout_ref.rollout.n=1
  actor_rollout_ref.actor.ppo_mini_batch_size=8 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=32 actor_rollout_ref.actor.optim.lr=8e-5
  actor_rollout_ref.actor.use_kl_loss=false actor_rollout_ref.actor.entropy_coeff=0
  algorithm.use_kl_in_reward=false trainer.val_before_train=true trainer.test_freq=5
  trainer.total_training_steps=20 trainer.save_freq=-1 trainer.resume_mode=disable
  "trainer.logger=[console,file]" trainer.device=cpu trainer.n_gpus_per_node=1
  distillation.enabled=true distillation.n_gpus_per_node=1 distillation.nnodes=1
  distillation.teacher_models.teacher_model.model_path="$teacher"
  distillation.teacher_models.teacher_model.inference.tensor_model_parallel_size=1
  distillation.distillation_loss.use_task_rewards=false distillation.distillation_loss.loss_max_clamp=10
)
distil() {  # distil NAME overrides...
  local name=$1
  shift
  VERL_FILE_LOGGER_PATH="$work/$name.jsonl" OMP_NUM_THREADS=1 "$VERLPP" ppo "${demo[@]}" \
    trainer.default_local_dir="$work/$name" "$@" 2>&1
}
check_distilled() {  # check_distilled NAME: first/last validation reward and reverse KL
  PYTHONPATH="$SRC/tests/e2e" python3 - "$work/$1.jsonl" "$teacher_reward" "$1" <<'PY'
import sys
from compare_runs import steps_of
steps = steps_of(sys.argv[1])
teacher = float(sys.argv[2])
val = [(s, m) for s, m in sorted(steps.items()) if "val-core/verlpp/arithmetic/acc/mean@1" in m]
kl_key = "val-aux/verlpp/arithmetic/distillation/reverse_kl/mean@1"
rewards = [m["val-core/verlpp/arithmetic/acc/mean@1"] for _, m in val]
kls = [m[kl_key] for _, m in val]
print(f"{sys.argv[3]}: validation reward {' -> '.join(f'{r:.3f}' for r in rewards)} "
      f"(teacher {teacher:.3f}); reverse KL {' -> '.join(f'{k:.4f}' for k in kls)}")
assert len(val) >= 3, val
assert rewards[0] < teacher - 0.3, ("the SFT student already matches the teacher", rewards, teacher)
assert rewards[-1] >= teacher - 0.1, ("the student did not reach the teacher", rewards, teacher)
assert kls[-1] < 0.5 * kls[0], ("the reverse KL did not fall", kls)
last = steps[max(steps)]
for key in ["actor/distillation/loss", "actor/distillation/loss_min", "actor/distillation/loss_max",
            "actor/distillation/abs_loss", "timing_s/teacher"]:
    assert key in last, (key, sorted(last))
PY
}
out=$(distil k1 distillation.distillation_loss.loss_mode=k1 distillation.distillation_loss.use_policy_gradient=true)
rc=$?
[ "$rc" -eq 0 ] || fail "distillation k1 (exit $rc): $(tail -5 <<<"$out")"
check_distilled k1 || fail "distillation k1 did not bring the student to the teacher"
grep -qF "actor/distillation/pg_clipfrac" "$work/k1.jsonl" || fail "k1 with PG logs no distillation/pg_clipfrac"
out=$(distil topk distillation.distillation_loss.loss_mode=forward_kl_topk distillation.distillation_loss.topk=4)
rc=$?
[ "$rc" -eq 0 ] || fail "distillation forward_kl_topk (exit $rc): $(tail -5 <<<"$out")"
check_distilled topk || fail "distillation forward_kl_topk did not bring the student to the teacher"
for key in student_mass teacher_mass overlap_ratio; do
  grep -qF "actor/distillation/$key" "$work/topk.jsonl" || fail "forward_kl_topk logs no $key"
done

# --- 1b. Two Gloo ranks (student and teacher sharded, the teacher scoring each rank's slice) equal
# one rank -------------------------------------------------------------------------------------------
# One mini-batch per step, two PPO epochs, no balance_batch: the micro-batches are the same rows on
# 1 and 2 ranks, so every actor/val metric agrees within 1e-6 (relative). Weights within 1e-5: Adam's
# m/sqrt(v) magnifies fp32 reduction-order differences of near-zero gradients; at lr 8e-5 the
# weights move up to 3.2e-4 in these 2 x 2 updates, so 1e-5 is 3 % of that. The extremes
# (distillation/*_min, *_max) are one token's value, not a mean, so they carry those weight
# differences unaveraged: within 1e-5 (measured 2.4e-6 on loss_min after the first update).
same=(actor_rollout_ref.actor.ppo_mini_batch_size=32 actor_rollout_ref.actor.ppo_epochs=2
      actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16
      trainer.total_training_steps=2 trainer.test_freq=2 trainer.save_freq=2 trainer.balance_batch=false
      data.val_max_samples=32)
for mode in k1 forward_kl_topk; do
  loss=(distillation.distillation_loss.loss_mode=$mode distillation.distillation_loss.topk=4
        distillation.distillation_loss.use_policy_gradient=$([ $mode = k1 ] && echo true || echo false))
  out=$(distil "one_$mode" "${same[@]}" "${loss[@]}"); rc=$?
  [ "$rc" -eq 0 ] || fail "1-rank $mode (exit $rc): $(tail -5 <<<"$out")"
  out=$(VERL_FILE_LOGGER_PATH="$work/two_$mode.jsonl" OMP_NUM_THREADS=1 "$VERLPP" launch --nproc-per-node 2 ppo \
        "${demo[@]}" "${same[@]}" "${loss[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir="$work/two_$mode" 2>&1)
  rc=$?
  [ "$rc" -eq 0 ] || fail "2-rank $mode (exit $rc): $(tail -5 <<<"$out")"
  grep -qF "teacher teacher_model: parameters on rank 0 of 2 (sharded)" <<<"$out" ||
    fail "2-rank $mode: the colocated teacher is not sharded over the ranks"
  PYTHONPATH="$SRC/tests/e2e" python3 - "$work/one_$mode" "$work/two_$mode" "$mode" <<'PY' || fail "2-rank $mode differs from 1 rank"
import sys
from compare_runs import steps_of, tensors_of
one, two, mode = sys.argv[1:4]
a, b = steps_of(one + ".jsonl"), steps_of(two + ".jsonl")
assert sorted(a) == sorted(b) == [0, 1, 2], (sorted(a), sorted(b))
worst = 0.0
for step in sorted(a):
    keys = [k for k in a[step] if k.startswith(("actor/", "val-", "critic/score"))]
    assert keys and (step == 0 or "actor/distillation/loss" in keys), (step, keys)
    for k in keys:
        d = abs(a[step][k] - b[step][k]) / max(1.0, abs(a[step][k]))
        extreme = "/distillation/" in k and k.endswith(("_min", "_max"))
        worst = max(worst, 0.0 if extreme else d)
        assert d <= (1e-5 if extreme else 1e-6), (step, k, a[step][k], b[step][k])
wa = tensors_of(one + "/global_step_2/actor/huggingface/model.safetensors")
wb = tensors_of(two + "/global_step_2/actor/huggingface/model.safetensors")
ww = max(abs(x - y) for n in wa for x, y in zip(wa[n], wb[n]))
assert ww <= 1e-5, ww
print(f"{mode}: 2 ranks equal 1 rank, metrics within {worst:.2g} (relative), weights within {ww:.2g}")
PY
done

# --- 2. The seed script with tiny Qwen3.5 models and GSM8K --------------------------------------
prepare_gsm8k
shape=(--hidden-size 16 --intermediate-size 32 --num-hidden-layers 3 --num-attention-heads 2
       --num-key-value-heads 1 --head-dim 8 --vocab-size 151936 --linear-num-key-heads 1
       --linear-num-value-heads 2 --linear-key-head-dim 6 --linear-value-head-dim 10
       --layer-types linear_attention full_attention linear_attention
       --tie-word-embeddings false --dtype float32 --tokenizer tests/fixtures/tokenizers/qwen3)
out=$("$VERLPP" model init --arch qwen3_5 "${shape[@]}" --seed 3 --output "$work/student" 2>&1) ||
  fail "model init qwen3_5: $out"
out=$("$VERLPP" model init --arch qwen3_5_moe "${shape[@]}" --seed 4 --num-experts 4 --num-experts-per-tok 2 \
      --moe-intermediate-size 8 --shared-expert-intermediate-size 12 --output "$work/teacher" 2>&1) ||
  fail "model init qwen3_5_moe: $out"
T=distillation.teacher_models.teacher_model
shrink=(
  data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=8 data.train_max_samples=8
  data.val_max_samples=2 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.max_model_len=265
  $T.inference.tensor_model_parallel_size=1 $T.inference.expert_parallel_size=1 $T.inference.max_model_len=265
  trainer.device=cpu trainer.total_training_steps=2 trainer.save_freq=2 trainer.test_freq=2
  "trainer.logger=[console,file]" trainer.default_local_dir="$work/seed"
)
out=$(VERLPP_COMMAND="$VERLPP ppo" STUDENT_MODEL="$work/student" TEACHER_MODEL="$work/teacher" \
      TRAIN_FILE="$work/gsm8k/train.jsonl" VAL_FILE="$work/gsm8k/test.jsonl" NGPUS_PER_NODE=1 \
      TEACHER_WORLD_SIZE=1 VERL_FILE_LOGGER_PATH="$work/seed.jsonl" \
      bash examples/run_qwen3_5_2b_distill_fsdp.sh "${shrink[@]}" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || fail "seed script with tiny Qwen3.5 models (exit $rc): $(tail -5 <<<"$out")"
grep -qF "teacher teacher_model ($work/teacher, qwen3_5_moe_text)" <<<"$out" ||
  fail "the seed run did not load the Qwen3.5-MoE teacher: $(grep -F teacher <<<"$out" | head -3)"
PYTHONPATH="$SRC/tests/e2e" python3 - "$work/seed.jsonl" <<'PY' || fail "seed run metrics"
import sys
from compare_runs import steps_of
steps = steps_of(sys.argv[1])
assert sorted(steps) == [1, 2], sorted(steps)
for m in steps.values():
    for key in ["actor/distillation/loss", "actor/distillation/pg_clipfrac", "actor/distillation/ppo_kl",
                "timing_s/teacher", "critic/score/mean"]:
        assert key in m, (key, sorted(m))
    assert m["actor/distillation/abs_loss"] > 0, m
PY
ls "$work/seed/global_step_2/actor/huggingface/model.safetensors" > /dev/null 2>&1 ||
  fail "the seed run saved no checkpoint"

# --- 2b. The seed script on the data it is written for: geo3k images, vision-language models ----
# Student and teacher have vision towers (`verlpp model init --vision-depth 2`); the teachers
# score the student's image patches and M-RoPE positions. A text-only teacher is refused by name.
out=$("$VERLPP" data geo3k --standin --train-rows 4 --test-rows 2 --output "$work/geo" 2>&1) ||
  fail "data geo3k --standin: $out"
vl_shape=(--hidden-size 16 --intermediate-size 32 --num-hidden-layers 3 --num-attention-heads 2
          --num-key-value-heads 1 --head-dim 24 --vocab-size 151936 --linear-num-key-heads 1
          --linear-num-value-heads 2 --linear-key-head-dim 6 --linear-value-head-dim 10
          --layer-types linear_attention full_attention linear_attention --tie-word-embeddings false
          --dtype float32 --vision-depth 2 --tokenizer tests/fixtures/tokenizers/qwen3)
out=$("$VERLPP" model init --arch qwen3_5 "${vl_shape[@]}" --seed 3 --output "$work/vl_student" 2>&1) ||
  fail "model init qwen3_5 --vision-depth: $out"
out=$("$VERLPP" model init --arch qwen3_5_moe "${vl_shape[@]}" --seed 4 --num-experts 4 \
      --num-experts-per-tok 2 --moe-intermediate-size 8 --shared-expert-intermediate-size 12 \
      --output "$work/vl_teacher" 2>&1) || fail "model init qwen3_5_moe --vision-depth: $out"
for m in vl_student vl_teacher; do  # the Qwen3 tokenizer's own template renders no image items
  python3 - "$work/$m/tokenizer_config.json" tests/fixtures/tokenizers/templates/qwen3_5-vl-test.jinja <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config["chat_template"] = open(sys.argv[2]).read()
json.dump(config, open(sys.argv[1], "w"))
PY
done
geo() {  # geo TEACHER overrides...
  local teacher=$1
  shift
  VERLPP_COMMAND="$VERLPP ppo" STUDENT_MODEL="$work/vl_student" TEACHER_MODEL="$teacher" \
    TRAIN_FILE="$work/geo/train.jsonl" VAL_FILE="$work/geo/test.jsonl" NGPUS_PER_NODE=1 \
    TEACHER_WORLD_SIZE=1 bash examples/run_qwen3_5_2b_distill_fsdp.sh "${shrink[@]}" \
    data.max_prompt_length=400 actor_rollout_ref.rollout.max_model_len=409 \
    $T.inference.max_model_len=409 data.train_max_samples=4 trainer.total_training_steps=1 \
    trainer.save_freq=-1 trainer.test_freq=-1 trainer.val_before_train=false "$@" 2>&1
}
out=$(VERL_FILE_LOGGER_PATH="$work/geo.jsonl" geo "$work/vl_teacher" trainer.default_local_dir="$work/cgeo")
rc=$?
[ "$rc" -eq 0 ] || fail "seed script on geo3k images (exit $rc): $(tail -5 <<<"$out")"
PYTHONPATH="$SRC/tests/e2e" python3 - "$work/geo.jsonl" <<'PY' || fail "geo3k distillation metrics"
import math, sys
from compare_runs import steps_of
steps = steps_of(sys.argv[1])
assert sorted(steps) == [1], sorted(steps)
m = steps[1]
for key in ["actor/distillation/loss", "timing_s/teacher"]:
    assert key in m and math.isfinite(m[key]), (key, sorted(m))
assert m["actor/distillation/abs_loss"] > 0, m
PY
out=$(geo "$work/teacher" trainer.default_local_dir="$work/cgeo_text" "trainer.logger=[console]"); rc=$?
[ "$rc" -eq 1 ] && grep -qF "$T.model_path: the data has images (data.image_key) but $work/teacher has no vision_config" <<<"$out" ||
  fail "a text-only teacher on image data (exit $rc): $(tail -4 <<<"$out")"

# --- 3. Bad input ------------------------------------------------------------------------------
out=$("$VERLPP" model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 1 \
      --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 1000 --dtype float32 \
      --output "$work/small_vocab" 2>&1) ||
  fail "model init small vocabulary: $out"
bad() {  # bad WHAT EXPECTED overrides...
  local what=$1 expected=$2
  shift 2
  out=$(VERLPP_COMMAND="$VERLPP ppo" STUDENT_MODEL="$work/student" TEACHER_MODEL="$work/teacher" \
        TRAIN_FILE="$work/gsm8k/train.jsonl" VAL_FILE="$work/gsm8k/test.jsonl" NGPUS_PER_NODE=1 \
        TEACHER_WORLD_SIZE=1 bash examples/run_qwen3_5_2b_distill_fsdp.sh "${shrink[@]}" \
        "trainer.logger=[console]" "$@" 2>&1)
  rc=$?
  [ "$rc" -eq 1 ] && grep -qF -- "$expected" <<<"$out" || fail "$what (exit $rc): $(tail -4 <<<"$out")"
}
bad "missing teacher" "$T.model_path: $work/nope is not a model folder (no config.json there)" \
  $T.model_path="$work/nope"
bad "teacher vocabulary" "the teacher's vocabulary has 1000 tokens but the student's has 151936" \
  $T.model_path="$work/small_vocab"
mkdir -p "$work/no_weights" && cp "$work/teacher/config.json" "$work/no_weights/"
bad "teacher without weights" \
  "$T.model_path=$work/no_weights: checkpoint $work/no_weights: neither model.safetensors nor model.safetensors.index.json found" \
  $T.model_path="$work/no_weights"
bad "topk above the vocabulary" "distillation.distillation_loss.topk: 200000 must be between 1 and the vocabulary size 151936" \
  distillation.distillation_loss.loss_mode=forward_kl_topk distillation.distillation_loss.topk=200000
bad "unknown loss_mode" "distillation.distillation_loss.loss_mode" distillation.distillation_loss.loss_mode=k9
bad "k1 without policy gradient" "loss_mode k1 without the policy-gradient form" \
  distillation.distillation_loss.use_policy_gradient=False

# A teacher whose final norm is NaN: the first step's loss is NaN and the run stops with the step
# and the metric named, before any checkpoint of that step.
cp -r "$work/teacher" "$work/nan_teacher"
python3 - "$work/nan_teacher/model.safetensors" <<'PY' || fail "could not make the NaN teacher"
import json, struct, sys
path = sys.argv[1]
with open(path, "r+b") as f:
    header_len = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(header_len))
    info = header["model.norm.weight"]
    assert info["dtype"] == "F32", info
    begin, end = info["data_offsets"]
    f.seek(8 + header_len + begin)
    f.write(struct.pack("<I", 0x7FC00000) * ((end - begin) // 4))
PY
bad "a NaN teacher" "step 1: actor/loss is nan; stopping before anything of this step is saved" \
  $T.model_path="$work/nan_teacher" trainer.save_freq=1 trainer.default_local_dir="$work/nan_run"
[ ! -e "$work/nan_run/global_step_1" ] || fail "the NaN step was saved"

# Keyed teachers (+teacher_models.<name>.{key,model_path,num_replicas}; the other keys come from the
# teacher_model entry): several are routed by data_source, a row whose data_source matches no key is
# an error in training, and validation leaves such rows out of the reverse KL; a lone keyed teacher
# scores every row whatever its key (verl's _resolve_teacher_key).
keyed() {  # keyed NAME KEY: a keyed teacher entry
  echo "+distillation.teacher_models.$1.key=$2" "+distillation.teacher_models.$1.model_path=$work/teacher" \
    "+distillation.teacher_models.$1.num_replicas=1"
}
seed_run() {  # seed_run FOLDER overrides...: the shrunk seed script
  local folder=$1
  shift
  VERLPP_COMMAND="$VERLPP ppo" STUDENT_MODEL="$work/student" TEACHER_MODEL="$work/teacher" \
    TRAIN_FILE="$work/gsm8k/train.jsonl" VAL_FILE="$work/gsm8k/test.jsonl" NGPUS_PER_NODE=1 \
    TEACHER_WORLD_SIZE=1 bash examples/run_qwen3_5_2b_distill_fsdp.sh "${shrink[@]}" \
    "trainer.logger=[console]" trainer.default_local_dir="$work/$folder" "$@" 2>&1
}
out=$(seed_run keyed $(keyed gsm openai/gsm8k))
[ $? -eq 0 ] || fail "a keyed teacher matching data_source: $(tail -4 <<<"$out")"
out=$(seed_run keyed_lone $(keyed other other/data) trainer.val_before_train=false)
[ $? -eq 0 ] && grep -qF "the one keyed teacher other scores every row" <<<"$out" ||
  fail "a lone keyed teacher matching no row: $(tail -4 <<<"$out")"
two_keyed=(distillation.n_gpus_per_node=2 $(keyed other other/data)
  $(keyed more more/data))
bad "keyed teachers matching no row" "has data_source 'openai/gsm8k', which matches no teacher key (more/data, other/data)" \
  "${two_keyed[@]}" trainer.val_before_train=false trainer.default_local_dir="$work/keyed_bad"
out=$(seed_run valonly "${two_keyed[@]}" trainer.val_only=true trainer.val_before_train=true)
[ $? -eq 0 ] && ! grep -qF "distillation/reverse_kl" <<<"$out" ||
  fail "validation rows without a teacher: $(tail -4 <<<"$out")"

# A teacher inside a checkpoint folder this run would replace (resume_mode=disable starts at step 0
# and the run ends at step 2, so its save of step 2 would replace global_step_2) is refused before
# training; bt15 lost such a teacher to checkpoint rotation. One in global_step_3, a step the run
# does not reach, is used.
mkdir -p "$work/inside/global_step_2/actor" "$work/inside/global_step_3/actor"
cp -r "$work/teacher" "$work/inside/global_step_2/actor/huggingface"
cp -r "$work/teacher" "$work/inside/global_step_3/actor/huggingface"
bad "a teacher inside a replaceable checkpoint" \
  "$T.model_path: $work/inside/global_step_2/actor/huggingface is inside $work/inside/global_step_2, which this run (from step 0) replaces if it saves step 2" \
  $T.model_path="$work/inside/global_step_2/actor/huggingface" trainer.default_local_dir="$work/inside" \
  trainer.resume_mode=disable
[ -e "$work/inside/global_step_2/actor/huggingface/config.json" ] || fail "the refused run touched the teacher"
out=$(seed_run inside $T.model_path="$work/inside/global_step_3/actor/huggingface" trainer.resume_mode=disable \
      trainer.save_freq=1 trainer.max_actor_ckpt_to_keep=1 trainer.val_before_train=false)
[ $? -eq 0 ] || fail "a teacher in a checkpoint after the run's last step: $(tail -4 <<<"$out")"
# Rotation keeps one of this run's saves (global_step_2) and never the earlier run's global_step_3.
[ -d "$work/inside/global_step_2" ] && [ ! -e "$work/inside/global_step_1" ] &&
  [ -e "$work/inside/global_step_3/actor/huggingface/config.json" ] ||
  fail "rotation with an earlier run's checkpoint: $(ls "$work/inside")"

[ "$failures" -eq 0 ] && echo "distill_test: all passed" || echo "distill_test: $failures failure(s)"
exit $((failures > 0))
