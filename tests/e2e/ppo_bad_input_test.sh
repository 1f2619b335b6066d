#!/usr/bin/env bash
# `verlpp ppo` on bad input: a dataset smaller than one batch, rows that cannot fit in memory, a
# rollout shorter than the prompts, a corrupt checkpoint, a checkpoint of another model, a
# checkpoint folder that cannot be created and a full disk. Each must fail with a one-line error
# naming the file or key (exit 1, no crash), and an earlier checkpoint must survive.
# Usage: ppo_bad_input_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
SRC=$2
cd "$SRC"
source "$SRC/tests/e2e/lib.sh"
E2E_CLEANUP='umount "$work/full" 2>/dev/null'

"$VERLPP" data gsm8k --input tests/fixtures/data/gsm8k_raw --output "$work/gsm8k" >/dev/null 2>&1 ||
  fail "data gsm8k"
init() {  # init DIR HIDDEN
  "$VERLPP" model init --arch qwen3 --hidden-size "$2" --intermediate-size 32 --num-hidden-layers 1 \
    --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 --dtype float32 \
    --tokenizer tests/fixtures/tokenizers/qwen3 --output "$1" >/dev/null 2>&1 || fail "model init $1"
}
init "$work/model" 16
init "$work/other" 24
ppo() {  # ppo MODEL CKPT_DIR overrides...
  local model=$1 ckpt=$2
  shift 2
  "$VERLPP" ppo data.train_files="$work/gsm8k/train.jsonl" data.val_files=null \
    data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=4 \
    actor_rollout_ref.model.path="$model" actor_rollout_ref.actor.ppo_mini_batch_size=2 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 algorithm.adv_estimator=grpo \
    trainer.device=cpu trainer.n_gpus_per_node=1 'trainer.logger=[console]' \
    trainer.default_local_dir="$ckpt" trainer.save_freq=1 "$@" 2>&1
}
expect_error() {  # expect_error WHAT EXPECTED_TEXT OUTPUT RC
  if [ "$4" -ne 1 ] || ! grep -qF -- "$2" <<<"$3" || grep -q "terminate called\|Segmentation" <<<"$3"; then
    fail "$1 (exit $4): $(tail -3 <<<"$3")"
  fi
}

out=$(ppo "$work/model" "$work/c0" data.train_max_samples=1 trainer.total_training_steps=1); rc=$?
expect_error "dataset smaller than one batch" "2" "$out" "$rc"
grep -qi "batch" <<<"$out" || fail "the small-dataset error does not mention the batch: $out"

# Rows that cannot fit in memory: refused before the model loads (it used to grow until swapping).
out=$(ppo "$work/model" "$work/huge" actor_rollout_ref.rollout.n=100000000 trainer.total_training_steps=1); rc=$?
expect_error "rollout.n 10^8" "data.train_batch_size 2 × actor_rollout_ref.rollout.n 100000000 rows of up to 260 tokens need about" "$out" "$rc"

# A rollout shorter than the prompts (rollout.prompt_length 16 + response 4 = max_model_len 20):
# vLLM refuses such a prompt, so does the rollout, naming the row.
out=$(ppo "$work/model" "$work/short" actor_rollout_ref.rollout.prompt_length=16 trainer.total_training_steps=1); rc=$?
expect_error "rollout shorter than the prompts" "tokens, more than max_model_len 20 (rollout.max_model_len" "$out" "$rc"

out=$(ppo "$work/model" "$work/ckpt" trainer.total_training_steps=1); rc=$?
[ "$rc" -eq 0 ] || fail "first run (exit $rc): $(tail -3 <<<"$out")"

cp -r "$work/ckpt" "$work/corrupt"
head -c 1000 "$work/ckpt/global_step_1/actor/huggingface/model.safetensors" \
  > "$work/corrupt/global_step_1/actor/huggingface/model.safetensors"
out=$(ppo "$work/model" "$work/corrupt" trainer.total_training_steps=2); rc=$?
expect_error "corrupt checkpoint" "model.safetensors" "$out" "$rc"

cp -r "$work/ckpt" "$work/foreign"
out=$(ppo "$work/other" "$work/foreign" trainer.total_training_steps=2); rc=$?
expect_error "checkpoint of another model" "hidden_size" "$out" "$rc"

# A checkpoint folder that cannot be created (a file stands where its parent folder should be).
touch "$work/not_a_folder"
out=$(ppo "$work/model" "$work/not_a_folder/ckpt" trainer.total_training_steps=1); rc=$?
expect_error "unwritable checkpoint folder" "not_a_folder/ckpt" "$out" "$rc"

# A full disk (a 75 MB tmpfs holds one checkpoint of this model, about 50 MB, not two): the save
# fails with a clear error and global_step_1 survives. Needs the right to mount a tmpfs.
mkdir -p "$work/full"
if mount -t tmpfs -o size=75m tmpfs "$work/full" 2>/dev/null; then
  out=$(ppo "$work/model" "$work/full/ckpt" trainer.total_training_steps=2); rc=$?
  expect_error "full disk" "No space left on device" "$out" "$rc"
  [ "$(cat "$work/full/ckpt/latest_checkpointed_iteration.txt")" = 1 ] || fail "tracker moved on a full disk"
  [ -f "$work/full/ckpt/global_step_1/actor/optim_world_size_1_rank_0.safetensors" ] || fail "global_step_1 did not survive a full disk"
  ls -a "$work/full/ckpt" | grep -q '^\.tmp_' && fail "a partial checkpoint was left on the full disk"
  umount "$work/full"
else
  echo "SKIP: full-disk case (cannot mount a tmpfs here)"
fi
exit $((failures > 0))
