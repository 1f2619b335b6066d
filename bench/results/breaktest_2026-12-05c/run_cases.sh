#!/usr/bin/env bash
# Re-creates the fixtures and re-runs the non-clean cases of /tmp/bt7/report.md.
# Usage: bash /tmp/bt7/run_cases.sh [case ...]     (no argument: every case)
# Cases: export_into_sharded val_kwargs_n0 temperature0 epoch_end_save val_only_no_vbt
#        missing_gt_row train_files_glob export_over_model gsm8k_missing_test
#        tools_on_global_step dataloader_workers_neg val_all_filtered generate_mpl_hint
#        rollout_n_string
# Each case prints what it ran, the exit code, the relevant output and "EXPECTED (verl): ...".
set -uo pipefail
V=/tmp/bt7/verlpp
W=/tmp/bt7/cases
FX=$W/fx
TK=/work/shared/data/tokenizers/qwen3
mkdir -p "$W"

fixtures() {
  [ -f "$FX/.done" ] && return
  rm -rf "$FX"; mkdir -p "$FX"
  "$V" data gsm8k --input /work/shared/data/gsm8k --output "$FX/gsm8k" >/dev/null 2>&1
  head -8 "$FX/gsm8k/train.jsonl" > "$FX/train8.jsonl"
  head -2 "$FX/gsm8k/test.jsonl" > "$FX/val2.jsonl"
  "$V" model init --arch qwen3 --hidden-size 32 --intermediate-size 64 --num-hidden-layers 2 \
    --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 --dtype float32 --seed 3 \
    --tokenizer "$TK" --output "$FX/model" >/dev/null 2>&1
  python3 - "$FX" <<'PY'
import json, sys
fx = sys.argv[1]
rows = [json.loads(l) for l in open(fx + '/train8.jsonl')]
rs = [json.loads(json.dumps(r)) for r in rows]; del rs[3]['reward_model']
open(fx + '/noreward.jsonl', 'w').write(''.join(json.dumps(r) + '\n' for r in rs))
val = [json.loads(l) for l in open(fx + '/val2.jsonl')]
for r in val: r['prompt'][0]['content'] = 'word ' * 400
open(fx + '/val_long.jsonl', 'w').write(''.join(json.dumps(r) + '\n' for r in val))
PY
  cp "$FX/train8.jsonl" "$FX/part_a.jsonl"; cp "$FX/train8.jsonl" "$FX/part_b.jsonl"
  # a 3-step checkpoint (global_step_3) from a ppo run
  ( cd "$W" && rm -rf ck3 && "$V" ppo "${COMMON[@]}" trainer.default_local_dir="$FX/ck3" \
      trainer.save_freq=1 trainer.total_training_steps=3 trainer.max_actor_ckpt_to_keep=1 >/dev/null 2>&1 )
  touch "$FX/.done"
}

COMMON=(
  data.train_files=$FX/train8.jsonl data.val_files=$FX/val2.jsonl
  data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.model.path=$FX/model
  actor_rollout_ref.actor.optim.lr=1e-3 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1
  'trainer.logger=[console,file]' trainer.project_name=bt trainer.experiment_name=x
  trainer.total_training_steps=1 trainer.val_before_train=false trainer.save_freq=-1 trainer.test_freq=-1
)

# ppo_case NAME overrides...: runs `verlpp ppo` in $W/NAME (metrics in m.jsonl, output in out.txt)
ppo_case() {
  local name=$1; shift
  rm -rf "$W/$name"; mkdir -p "$W/$name"
  ( cd "$W/$name" && VERL_FILE_LOGGER_PATH=m.jsonl timeout 300 "$V" ppo "${COMMON[@]}" \
      trainer.default_local_dir=ck "$@" > out.txt 2>&1; echo "rc=$?" )
  grep -v '^step:' "$W/$name/out.txt" | grep -v 'fsdp_config.dtype=bfloat16\|training state on rank\|plot written' | tail -5
}
say() { echo; echo "### $*"; }

case_export_into_sharded() {
  say "export_into_sharded (lost): model export into an existing sharded HF folder"
  local d=$W/export_sharded; rm -rf "$d"; mkdir -p "$d"
  echo '{"prompt_ids":[1,2,3],"response_ids":[4,5]}' > "$d/sc.jsonl"
  "$V" model init --arch qwen3 --hidden-size 32 --intermediate-size 64 --num-hidden-layers 2 \
    --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 --dtype float32 --seed 11 \
    --tokenizer "$TK" --max-shard-bytes 5000000 --output "$d/sharded" 2>&1
  echo "score of the sharded model before export:"; "$V" model score --model "$d/sharded" --input "$d/sc.jsonl" --device cpu
  echo "score of the checkpoint's actor:"; "$V" model score --model "$FX/ck3/global_step_3/actor/huggingface" --input "$d/sc.jsonl" --device cpu
  "$V" model export --checkpoint "$FX/ck3/global_step_3" --output "$d/sharded"; echo "rc=$?"
  ls "$d/sharded"
  echo "score of the export folder after export (verlpp reads the stale index, i.e. the OLD weights):"
  "$V" model score --model "$d/sharded" --input "$d/sc.jsonl" --device cpu
  echo "EXPECTED: the export folder holds exactly the exported weights (refuse a non-empty folder, or remove the old shards and index); transformers would load model.safetensors while verlpp loads the index"
}

case_val_kwargs_n0() {
  say "val_kwargs_n0 (unclear): actor_rollout_ref.rollout.val_kwargs.n=0 passes check, fails at the first validation"
  ppo_case val_kwargs_n0 actor_rollout_ref.rollout.val_kwargs.n=0 trainer.test_freq=2 \
    trainer.total_training_steps=2 trainer.save_freq=1
  echo "steps logged on the console: $(grep -c '^step:' "$W/val_kwargs_n0/out.txt")"
  echo "EXPECTED: refused at start-up (as rollout.n=0 is) naming actor_rollout_ref.rollout.val_kwargs.n"
}

case_temperature0() {
  say "temperature0 (incompatible): rollout.temperature=0 -> trainer log-probs/entropy at temperature 1"
  ppo_case temp0 actor_rollout_ref.rollout.temperature=0
  ppo_case temp1 actor_rollout_ref.rollout.temperature=1
  for d in temp0 temp1; do echo "$d: $(grep -o 'actor/entropy:[^ ]*' "$W/$d/out.txt")"; done
  echo "model score refuses the same temperature:"
  echo '{"prompt_ids":[1,2,3],"response_ids":[4,5]}' > "$W/sc.jsonl"
  "$V" model score --model "$FX/model" --input "$W/sc.jsonl" --device cpu --temperature 0; echo "rc=$?"
  echo "EXPECTED (verl.md 3.0): logits divided by clamp(temperature, 1e-8) in every forward -> entropy ~0 at temperature 0, or a notice that verlpp uses 1.0"
}

case_epoch_end_save() {
  say "epoch_end_save (incompatible): total_epochs ends before total_training_steps -> extra checkpoint + validation"
  ppo_case epoch_end_save trainer.save_freq=3 trainer.test_freq=3 trainer.total_training_steps=10 trainer.total_epochs=1
  ls "$W/epoch_end_save/ck"
  echo "validation at steps: $(python3 -c "import json;print([json.loads(l)['step'] for l in open('$W/epoch_end_save/m.jsonl') if 'val-core' in l])")"
  echo "EXPECTED (verl fit: is_last_step = global_steps >= total_training_steps): save and validate at step 3 only"
}

case_val_only_no_vbt() {
  say "val_only_no_vbt (incompatible): val_only=true with val_before_train=false"
  ppo_case val_only_no_vbt trainer.val_only=true trainer.val_before_train=false trainer.total_training_steps=2
  echo "training steps run: $(grep -c "^step:[1-9]" "$W/val_only_no_vbt/out.txt")"; cat "$W/val_only_no_vbt/m.jsonl" | cut -c1-200
  echo "EXPECTED (verl fit: 'if val_before_train: validate; if val_only: return'): val_only is ignored, 2 training steps run"
}

case_missing_gt_row() {
  say "missing_gt_row (unclear): a row without reward_model -> error after 2 steps naming only a batch position"
  ppo_case missing_gt_row data.train_files="$FX/noreward.jsonl" trainer.total_training_steps=4
  echo "steps done before the error: $(grep -c '^step:' "$W/missing_gt_row/out.txt") (the bad row is line 4 of the file)"
  echo "EXPECTED: error naming the file and line (as unknown data_source errors do), ideally at load time"
}

case_train_files_glob() {
  say "train_files_glob (incompatible): data.train_files as a glob"
  ppo_case train_files_glob "data.train_files=$FX/part_*.jsonl"
  echo "EXPECTED (verl: datasets.load_dataset(data_files=...) expands globs): both files read, or an error saying globs are not supported"
}

case_export_over_model() {
  say "export_over_model (accepted-bad): model export over another model's folder"
  local d=$W/export_over; rm -rf "$d"; mkdir -p "$d"; cp -r "$FX/model" "$d/other"
  md5sum "$d/other/model.safetensors"
  "$V" model export --checkpoint "$FX/ck3/global_step_3" --output "$d/other"; echo "rc=$?"
  md5sum "$d/other/model.safetensors"
  echo "EXPECTED: refused as 'model init --output' over an existing model is refused"
}

case_gsm8k_missing_test() {
  say "gsm8k_missing_test (accepted-bad): data gsm8k without test.jsonl fails but leaves train.* behind"
  local d=$W/gsm8k_notest; rm -rf "$d"; mkdir -p "$d/raw"
  head -3 /work/shared/data/gsm8k/train.jsonl > "$d/raw/train.jsonl"
  "$V" data gsm8k --input "$d/raw" --output "$d/out"; echo "rc=$?"; ls "$d/out"
  echo "EXPECTED: nothing written when the run fails (or both splits checked before writing)"
}

case_tools_on_global_step() {
  say "tools_on_global_step (unclear): generate / model score given a ppo global_step_N folder"
  echo '{"prompt_ids":[1,2,3],"response_ids":[4,5]}' > "$W/sc.jsonl"
  "$V" generate --model "$FX/ck3/global_step_3" --device cpu --prompt hi --response-length 2; echo "rc=$?"
  "$V" model score --model "$FX/ck3/global_step_3" --input "$W/sc.jsonl" --device cpu; echo "rc=$?"
  echo "EXPECTED: 'this is a training checkpoint: use .../actor/huggingface or verlpp model export'"
}

case_dataloader_workers_neg() {
  say "dataloader_workers_neg (accepted-bad): data.dataloader_num_workers=-3"
  ppo_case dataloader_workers_neg data.dataloader_num_workers=-3
  echo "EXPECTED (torch DataLoader): ValueError num_workers option should be non-negative"
}

case_val_all_filtered() {
  say "val_all_filtered (unclear): filter_overlong_prompts drops every validation row"
  ppo_case val_all_filtered data.filter_overlong_prompts=true data.val_files="$FX/val_long.jsonl"
  echo "EXPECTED: the message names data.val_files / the file, not just 'data:'"
}

case_generate_mpl_hint() {
  say "generate_mpl_hint (unclear): generate --max-prompt-length suggests config keys generate does not take"
  "$V" generate --model "$FX/model" --device cpu --data "$FX/train8.jsonl" --response-length 2 --max-prompt-length 20; echo "rc=$?"
  echo "EXPECTED: a hint generate can act on (raise --max-prompt-length)"
}

case_rollout_n_string() {
  say "rollout_n_string (unclear): actor_rollout_ref.rollout.n=two"
  ppo_case rollout_n_string actor_rollout_ref.rollout.n=two
  echo "EXPECTED: the error names actor_rollout_ref.rollout.n (the key set), not actor_rollout_ref.actor.rollout_n"
}

ALL=(export_into_sharded val_kwargs_n0 temperature0 epoch_end_save val_only_no_vbt missing_gt_row
     train_files_glob export_over_model gsm8k_missing_test tools_on_global_step dataloader_workers_neg
     val_all_filtered generate_mpl_hint rollout_n_string)
fixtures
for c in "${@:-${ALL[@]}}"; do
  if declare -F "case_$c" >/dev/null; then "case_$c"; else echo "unknown case: $c (known: ${ALL[*]})"; fi
done
