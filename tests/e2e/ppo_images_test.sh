#!/usr/bin/env bash
# GRPO with images on the CPU (issue 23): the seed 000 script examples/run_qwen3_5_35b_fsdp_turbo.sh
# (first word changed to `verlpp ppo`, shrunk to one CPU device by appended overrides) on a tiny
# random-init Qwen3.5-MoE vision-language model (`verlpp model init --vision-depth 2`) and the
# geo3k-schema stand-in (`verlpp data geo3k --standin`: cairo diagrams, images as files).
#  1. 2 GRPO steps with images run (validation before training too), the rollout's and the
#     trainer's log-probs agree (first update's ppo_kl < 1e-6), the vision tower is updated, and
#     the checkpoint keeps the vision-language layout (model.visual.*, model.language_model.*).
#  2. Resume: one step, then a second run resuming from its checkpoint, equals 2 steps straight
#     (the vision tower's weights and optimizer state come back).
#  3. Bad input, one line naming the row: an undecodable image, an image over Pillow's pixel
#     limit, a row whose image count does not match its <image> placeholders.
# Usage: ppo_images_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
SRC=$2
cd "$SRC"
source "$SRC/tests/e2e/lib.sh"

out=$("$VERLPP" data geo3k --standin --train-rows 8 --test-rows 2 --output "$work/geo" 2>&1) ||
  fail "data geo3k --standin: $out"
out=$("$VERLPP" model init --arch qwen3_5_moe --hidden-size 16 --intermediate-size 32 \
      --num-hidden-layers 3 --num-attention-heads 2 --num-key-value-heads 1 --head-dim 24 \
      --vocab-size 151936 --linear-num-key-heads 1 --linear-num-value-heads 2 --linear-key-head-dim 6 \
      --linear-value-head-dim 10 --layer-types linear_attention full_attention linear_attention \
      --num-experts 4 --num-experts-per-tok 2 --moe-intermediate-size 8 \
      --shared-expert-intermediate-size 12 --tie-word-embeddings false --dtype float32 --seed 3 \
      --vision-depth 2 --tokenizer tests/fixtures/tokenizers/qwen3 --output "$work/vlm" 2>&1) ||
  fail "model init --vision-depth: $out"
# The Qwen3 tokenizer has the image tokens; its chat template does not render image items.
python3 - "$work/vlm/tokenizer_config.json" tests/fixtures/tokenizers/templates/qwen3_5-vl-test.jinja <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config["chat_template"] = open(sys.argv[2]).read()
json.dump(config, open(sys.argv[1], "w"))
PY

T=actor_rollout_ref.actor.fsdp_config.turbo_config.distributed
R=actor_rollout_ref.ref.fsdp_config.turbo_config.distributed
shrink=(
  data.train_batch_size=2 data.max_prompt_length=400 data.max_response_length=6
  actor_rollout_ref.actor.ppo_mini_batch_size=2 actor_rollout_ref.rollout.n=3
  actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.entropy_coeff=0.01
  $T.fully_shard_parallel_size=1 $T.expert_parallel_size=1 $R.fully_shard_parallel_size=1
  $R.expert_parallel_size=1 actor_rollout_ref.rollout.tensor_model_parallel_size=1
  trainer.device=cpu trainer.n_gpus_per_node=1 trainer.test_freq=2 "trainer.logger=[console,file]"
)
seed() {  # seed LOG CKPT overrides...
  local log=$1 ckpt=$2
  shift 2
  VERLPP_COMMAND="$VERLPP ppo" MODEL_PATH="$work/vlm" TRAIN_FILE="$work/geo/train.jsonl" \
    TEST_FILE="$work/geo/test.jsonl" NNODES=1 GEN_TP=1 EP_SIZE=1 VERL_FILE_LOGGER_PATH="$log" \
    OMP_NUM_THREADS=1 bash examples/run_qwen3_5_35b_fsdp_turbo.sh "${shrink[@]}" \
    trainer.default_local_dir="$ckpt" "$@" 2>&1
}

# --- 1. two steps ------------------------------------------------------------------------------
out=$(seed "$work/straight.jsonl" "$work/ckpt" trainer.total_training_steps=2 trainer.save_freq=1); rc=$?
[ "$rc" -eq 0 ] || fail "seed 000 with images (exit $rc): $(tail -20 <<<"$out")"
PYTHONPATH="$SRC/tests/e2e" python3 - "$work/straight.jsonl" <<'PY' || fail "metrics of the 2-step run"
import sys
from compare_runs import steps_of
steps = steps_of(sys.argv[1])
assert sorted(s for s in steps if s > 0) == [1, 2], sorted(steps)
for s in (1, 2):
    m = steps[s]
    assert m["actor/grad_norm"] > 0, m
    assert m["response_length/mean"] > 0 and m["prompt_length/mean"] > 64, m  # image pads counted
assert abs(steps[1]["actor/ppo_kl"]) < 1e-6, steps[1]["actor/ppo_kl"]
assert any(k.startswith("val-core/hiyouga/geometry3k/") for s in steps.values() for k in s), steps
print("ppo_kl", steps[1]["actor/ppo_kl"], "prompt_length", steps[1]["prompt_length/mean"])
PY
PYTHONPATH="$SRC/tests/e2e" python3 - "$work/vlm" "$work/ckpt/global_step_2/actor/huggingface" <<'PY' ||
import json, sys
from compare_runs import tensors_of
before, after = tensors_of(sys.argv[1] + "/model.safetensors"), tensors_of(sys.argv[2] + "/model.safetensors")
assert sorted(before) == sorted(after), set(before) ^ set(after)
visual = [n for n in after if n.startswith("model.visual.")]
assert len(visual) == 2 + 1 + 2 * 12 + 6, len(visual)
assert "model.language_model.layers.0.linear_attn.A_log" in after
moved = [n for n in visual if max(abs(a - b) for a, b in zip(before[n], after[n])) > 0]
assert len(moved) >= len(visual) // 2, ("vision tower not trained", len(moved), len(visual))
config = json.load(open(sys.argv[2] + "/config.json"))
assert config["architectures"] == ["Qwen3_5MoeForConditionalGeneration"], config["architectures"]
assert "vision_config" in config and "text_config" in config
PY
  fail "checkpoint with the vision tower"

# --- 2. resume -----------------------------------------------------------------------------------
seed "$work/a.jsonl" "$work/ckpt_r" trainer.total_training_steps=1 trainer.save_freq=1 \
  >/dev/null || fail "first half"
out=$(seed "$work/b.jsonl" "$work/ckpt_r" trainer.total_training_steps=2 trainer.save_freq=1 \
      trainer.resume_mode=auto trainer.val_before_train=False); rc=$?
[ "$rc" -eq 0 ] || fail "resumed run (exit $rc): $(tail -20 <<<"$out")"
PYTHONPATH="$SRC/tests/e2e" python3 - "$work/straight.jsonl" "$work/b.jsonl" <<'PY' ||
import sys
from compare_runs import steps_of, skipped
straight, b = steps_of(sys.argv[1]), steps_of(sys.argv[2])
assert 2 in b and 1 not in b, sorted(b)
for k, v in straight[2].items():
    if skipped(k) or k.startswith("val"):
        continue
    assert abs(b[2][k] - v) <= 1e-5 * max(1.0, abs(v)), (k, b[2][k], v)
PY
  fail "resume differs from the straight run"

# --- 2b. text-only data with the vision-language checkpoint: the tower is kept -------------------
# It gets no gradient (AdamW leaves it as torch does a parameter whose grad is None) and the
# checkpoint keeps it, bit for bit, in the vision-language layout.
out=$(seed "$work/text.jsonl" "$work/ckpt_text" data.train_files="$SRC/tests/fixtures/data/gsm8k_verl/train.jsonl" \
      data.val_files="$SRC/tests/fixtures/data/gsm8k_verl/test.jsonl" trainer.total_training_steps=1 \
      trainer.save_freq=1 trainer.val_before_train=False); rc=$?
[ "$rc" -eq 0 ] || fail "text-only run with the VL checkpoint (exit $rc): $(tail -20 <<<"$out")"
PYTHONPATH="$SRC/tests/e2e" python3 - "$work/vlm" "$work/ckpt_text/global_step_1/actor/huggingface" <<'PY' ||
import json, sys
from compare_runs import tensors_of
before, after = tensors_of(sys.argv[1] + "/model.safetensors"), tensors_of(sys.argv[2] + "/model.safetensors")
assert sorted(before) == sorted(after), set(before) ^ set(after)
visual = [n for n in after if n.startswith("model.visual.")]
assert len(visual) == 2 + 1 + 2 * 12 + 6, len(visual)
changed = [n for n in visual if before[n] != after[n]]
assert not changed, ("vision tower changed by text-only training", changed[:3])
moved = [n for n in after if not n.startswith("model.visual.") and before[n] != after[n]]
assert moved, "the language model did not train"
assert json.load(open(sys.argv[2] + "/config.json"))["architectures"] == ["Qwen3_5MoeForConditionalGeneration"]
PY
  fail "text-only training lost or changed the vision tower"

# --- 3. bad input --------------------------------------------------------------------------------
bad() {  # bad NAME ROWS EXPECTED
  printf '%s\n%s\n' "$2" "$2" > "$work/$1.jsonl"
  out=$(seed "$work/$1.log" "$work/ckpt_$1" data.train_files="$work/$1.jsonl" \
        data.val_files="$work/$1.jsonl" trainer.total_training_steps=1 trainer.val_before_train=False \
        data.filter_overlong_prompts=False); rc=$?
  [ "$rc" -ne 0 ] || fail "$1: accepted"
  grep -qF -- "$3" <<<"$out" || fail "$1: expected '$3' in: $(tail -3 <<<"$out")"
}
printf 'not a picture' > "$work/geo/images/broken.png"
python3 - "$work/geo/images/huge.png" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
ihdr = struct.pack(">IIBBBBB", 20000, 20000, 8, 2, 0, 0, 0)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b""))
PY
row() {  # row CONTENT IMAGES_JSON
  printf '{"data_source": "hiyouga/geometry3k", "prompt": [{"role": "user", "content": "%s"}], "images": %s, "reward_model": {"ground_truth": "3"}}' "$1" "$2"
}
bad undecodable "$(row '<image>How many?' '["geo/images/broken.png"]')" \
  "undecodable.jsonl line 1 image 0: not a PNG or JPEG image"
bad huge "$(row '<image>How many?' '["geo/images/huge.png"]')" \
  "huge.jsonl line 1 image 0: cannot decode the PNG image: 20000 x 20000 = 400000000 pixels"
bad count "$(row '<image>Two? <image>' '["geo/images/train_0.png"]')" \
  "count.jsonl line 1: the row has 1 image but its messages hold 2 \"<image>\" placeholders"
# A text-only chat template (the Qwen3 tokenizer's own) on image rows: the error says why.
cp -r "$work/vlm" "$work/vlm_text_template"
cp tests/fixtures/tokenizers/qwen3/tokenizer_config.json "$work/vlm_text_template/"
row '<image>How many?' '["geo/images/train_0.png"]' > "$work/text_template.jsonl"
out=$(seed "$work/text_template.log" "$work/ckpt_text_template" \
      actor_rollout_ref.model.path="$work/vlm_text_template" data.train_files="$work/text_template.jsonl" \
      data.val_files="$work/text_template.jsonl" trainer.total_training_steps=1 \
      trainer.val_before_train=False); rc=$?
[ "$rc" -ne 0 ] && grep -qF "text_template.jsonl line 1 (a row with images: its messages' content is a list of image and text items" <<<"$out" ||
  fail "text-only template on image rows (exit $rc): $(tail -3 <<<"$out")"
exit $((failures > 0))
