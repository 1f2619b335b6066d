#!/usr/bin/env bash
# `verlpp sft` on a few rows: metrics per step, checkpoints in the train_checkpoint layout, resume,
# `verlpp check` of a ppo config whose model is the SFT output, `verlpp model export` of it, and
# clear errors for bad input.
# Usage: sft_test.sh VERLPP
set -uo pipefail
VERLPP=$1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# A character tokenizer (ids: "0".."9" 0-9, "+" 10, "=" 11, <|pad|> 12, <|user|> 13,
# <|assistant|> 14, <|end|> 15) with a one-line chat template.
mkdir tok
cat > tok/tokenizer.json <<'JSON'
{"added_tokens": [
  {"id": 12, "content": "<|pad|>", "special": true, "normalized": false},
  {"id": 13, "content": "<|user|>", "special": true, "normalized": false},
  {"id": 14, "content": "<|assistant|>", "special": true, "normalized": false},
  {"id": 15, "content": "<|end|>", "special": true, "normalized": false}],
 "decoder": {"type": "Fuse"},
 "model": {"type": "BPE", "merges": [], "vocab": {"0": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5,
           "6": 6, "7": 7, "8": 8, "9": 9, "+": 10, "=": 11}}}
JSON
cat > tok/tokenizer_config.json <<'JSON'
{"eos_token": "<|end|>", "pad_token": "<|pad|>",
 "chat_template": "{% for m in messages %}{% if m.role == 'user' %}<|user|>{{ m.content }}{% else %}<|assistant|>{{ m.content }}<|end|>{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"}
JSON
for i in 1 2 3 4 5 6 7 8; do
  echo "{\"prompt\": \"$i+$i=\", \"response\": \"$((i + i))\"}"
done > rows.jsonl
out=$("$VERLPP" model init --arch qwen3 --hidden-size 32 --intermediate-size 64 --num-hidden-layers 1 \
      --num-attention-heads 2 --vocab-size 16 --dtype float32 --tokenizer tok --output init 2>&1) ||
  fail "model init: $out"

sft=(data.train_files=rows.jsonl data.val_files=rows.jsonl data.prompt_key=prompt data.response_key=response
     data.train_batch_size=4 data.micro_batch_size_per_gpu=3 data.use_dynamic_bsz=false data.max_length=16
     model.path=init optim.lr=0.01 trainer.total_training_steps=3 trainer.save_freq=2
     "trainer.logger=['console']" trainer.default_local_dir=ckpt trainer.device=cpu)
out=$("$VERLPP" sft "${sft[@]}" 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "sft (exit $rc): $out"
grep -qF "engine.dtype=bfloat16 applies on CUDA; the trainer on the CPU computes in float32" <<<"$out" ||
  fail "no note on the CPU trainer's dtype: $out"
for step in 1 2 3; do
  grep -qE "^step:$step - .*train/grad_norm:.* - train/loss:[0-9.]+ - train/lr:" <<<"$out" ||
    fail "no metrics line for step $step: $out"
done
grep -qE "^step:3 - .*val/loss:[0-9.]+" <<<"$out" || fail "no val/loss after the last step: $out"

# On a terminal (script(1) gives the run one) the progress bar is a line of its own after every
# step: no step line starts behind a bar (bt20: "ETA 6sstep:2 - ...").
if command -v script > /dev/null; then
  printf '%q ' "$VERLPP" sft "${sft[@]}" trainer.default_local_dir=ckpt_tty > tty_run.sh
  script -qec "bash tty_run.sh" /dev/null > tty.log 2>&1 || fail "sft on a terminal: $(tail -3 tty.log)"
  [ "$(grep -c 'steps |' tty.log)" -eq 3 ] || fail "no bar line per step on a terminal: $(cat tty.log)"
  ! grep -qE 'steps \|.*step:' tty.log || fail "a step line ran into the bar: $(cat tty.log)"
fi
# verl's train/total_tokens(B): the running sum of train/global_tokens, in billions; train/mfu 0 on
# a CPU (no promised FLOP/s).
python3 - "$out" <<'PY' || fail "train/total_tokens(B) is not the running sum of train/global_tokens"
import re, sys
total = 0
for step in (1, 2, 3):
    line = re.search(rf"^step:{step} - (.*)$", sys.argv[1], re.M).group(1)
    m = dict(kv.split(":", 1) for kv in line.split(" - "))
    total += float(m["train/global_tokens"])
    assert abs(float(m["train/total_tokens(B)"]) - total / 1e9) <= 1e-5 * total / 1e9, (m, total)
    assert float(m["train/mfu"]) == 0, m
PY
grep -qF "model for \`verlpp ppo\`: $work/ckpt/global_step_3/actor/huggingface" <<<"$out" ||
  grep -qF "model for \`verlpp ppo\`: ckpt/global_step_3/actor/huggingface" <<<"$out" ||
  fail "final model folder not reported: $out"
for f in global_step_2/actor/optim_world_size_1_rank_0.safetensors global_step_3/actor/huggingface/model.safetensors \
         global_step_3/actor/huggingface/config.json global_step_3/actor/huggingface/tokenizer.json \
         global_step_3/trainer_state.json; do
  [ -f "ckpt/$f" ] || fail "checkpoint file $f missing"
done
[ "$(cat ckpt/latest_checkpointed_iteration.txt)" = "3" ] || fail "tracker does not say 3"

# A token budget (use_dynamic_bsz, verl's Karmarkar-Karp micro-batches, several for 4 rows)
# trains the same model: the loss is normalised by the step's tokens, not by the micro-batches.
out_static=$out
out=$("$VERLPP" sft "${sft[@]}" data.use_dynamic_bsz=true data.max_token_len_per_gpu=16 \
      trainer.save_freq=-1 trainer.default_local_dir=ckpt_dyn 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "sft with a token budget (exit $rc): $out"
python3 - "$out_static" "$out" <<'PY' || fail "token-budget sft differs from fixed micro-batches"
import re, sys
def losses(text):
    return [float(v) for v in re.findall(r"^step:\d+ - .*train/loss:([0-9.e+-]+)", text, re.M)]
a, b = losses(sys.argv[1]), losses(sys.argv[2])
assert len(a) == 3 and len(b) == 3, (a, b)
for x, y in zip(a, b):
    assert abs(x - y) <= 1e-5 * max(1.0, abs(x)), (a, b)
PY

# trainer.total_epochs ends the run before trainer.total_training_steps (verl's loop runs over the
# epochs): 8 rows in batches of 4 for one epoch are 2 steps, the second one the last (validation,
# final model).
out=$("$VERLPP" sft "${sft[@]}" trainer.total_epochs=1 trainer.total_training_steps=5 \
      trainer.save_freq=-1 trainer.default_local_dir=ckpt_epochs 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "sft with one epoch (exit $rc): $out"
[ "$(grep -cE '^step:[0-9]+ - ' <<<"$out")" = 2 ] || fail "one epoch is not 2 steps: $out"
grep -qE "^step:2 - .*val/loss:" <<<"$out" || fail "no validation at the epochs' last step: $out"
[ -f ckpt_epochs/global_step_2/actor/huggingface/model.safetensors ] ||
  fail "no final model at the epochs' last step"

# Resume (auto): nothing left to do at step 3 of 3; 5 steps continue at 4.
out=$("$VERLPP" sft "${sft[@]}" trainer.total_training_steps=5 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "resumed sft (exit $rc): $out"
grep -qF "resumed from" <<<"$out" || fail "no resume message: $out"
grep -qE "^step:4 - " <<<"$out" && grep -qE "^step:5 - " <<<"$out" || fail "resumed run did not run steps 4-5: $out"
grep -qE "^step:[123] - " <<<"$out" && fail "resumed run repeated early steps: $out"

# The SFT output is a model `verlpp ppo` accepts.
echo '{"data_source": "verlpp/arithmetic", "prompt": [{"role": "user", "content": "1+1="}], "reward_model": {"ground_truth": "2"}}' > rl.jsonl
out=$("$VERLPP" check --no-print-config actor_rollout_ref.model.path=ckpt/global_step_5/actor/huggingface actor_rollout_ref.rollout.name=vllm \
      actor_rollout_ref.rollout.tensor_model_parallel_size=1 algorithm.adv_estimator=grpo \
      data.train_files=rl.jsonl data.val_files=rl.jsonl data.train_batch_size=1 \
      actor_rollout_ref.actor.ppo_mini_batch_size=1 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 \
      actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 trainer.n_gpus_per_node=1 trainer.device=cpu 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "check of a ppo config on the SFT output (exit $rc): $out"
grep -qF "model: Qwen3ForCausalLM" <<<"$out" && grep -qF "1 layers, 2 attention heads" <<<"$out" ||
  fail "check did not read the SFT output's config.json: $out"

# Export.
out=$("$VERLPP" model export --checkpoint ckpt/global_step_5 --output exported --dtype bfloat16 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "export (exit $rc): $out"
for f in config.json model.safetensors tokenizer.json tokenizer_config.json; do
  [ -f "exported/$f" ] || fail "export did not write $f"
done
grep -qF '"torch_dtype": "bfloat16"' exported/config.json || fail "exported dtype is not bfloat16"
echo '{"prompt_ids": [13, 1, 10, 1, 11, 14], "response_ids": [2, 15]}' > score.jsonl
out=$("$VERLPP" model score --model exported --input score.jsonl --device cpu 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "score of the exported model (exit $rc): $out"
# An export into the checkpoint itself is refused before its weights are touched.
before=$(sha256sum ckpt/global_step_5/actor/huggingface/model.safetensors)
out=$("$VERLPP" model export --checkpoint ckpt/global_step_5 --output ckpt/global_step_5/actor/huggingface \
      --dtype bfloat16 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "is inside the checkpoint being exported" <<<"$out" ||
  fail "export into the checkpoint (exit $rc): $out"
[ "$(sha256sum ckpt/global_step_5/actor/huggingface/model.safetensors)" = "$before" ] ||
  fail "export into the checkpoint changed its weights"
out=$("$VERLPP" model export --checkpoint ckpt --output x 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "expected a checkpoint folder named global_step_N" <<<"$out" ||
  fail "export of a non-checkpoint folder (exit $rc): $out"
# An export over a folder that holds a model is refused, its files untouched (a break-test's export
# over a sharded model left the old shards and index beside the new file).
before=$(sha256sum exported/model.safetensors)
out=$("$VERLPP" model export --checkpoint ckpt/global_step_5 --output exported 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "already holds a model" <<<"$out" || fail "export over a model (exit $rc): $out"
[ "$(sha256sum exported/model.safetensors)" = "$before" ] || fail "export over a model changed it"
# The tools given a training checkpoint's global_step_N folder say where its model is.
for tool in "model score --model ckpt/global_step_5 --input score.jsonl" \
            "generate --model ckpt/global_step_5 --prompt hi" "tokenize --tokenizer ckpt/global_step_5"; do
  out=$("$VERLPP" $tool < /dev/null 2>&1); rc=$?
  [ "$rc" -ne 0 ] && grep -qF "ckpt/global_step_5 is a training checkpoint: its model is ckpt/global_step_5/actor/huggingface" <<<"$out" ||
    fail "$tool on a training checkpoint (exit $rc): $out"
done
# So do sft and ppo given one as their model.path (ppo said only "tokenizer.json: cannot open").
out=$("$VERLPP" sft "${sft[@]}" model.path=ckpt/global_step_5 trainer.default_local_dir="$work/x" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "model.path: ckpt/global_step_5 is a training checkpoint: its model is ckpt/global_step_5/actor/huggingface" <<<"$out" ||
  fail "sft on a training checkpoint (exit $rc): $out"
# Near misses too (report bt9): a step's actor/ folder, the run's checkpoint folder, a tokenizer
# path; a critic is pointed at its own critic/huggingface when the step has one, else the actor's.
for dir in ckpt/global_step_5/actor ckpt; do
  out=$("$VERLPP" sft "${sft[@]}" model.path=$dir trainer.default_local_dir="$work/x" 2>&1); rc=$?
  [ "$rc" -eq 1 ] && grep -qF "model.path: $dir is a" <<<"$out" &&
    grep -qF "its model is ckpt/global_step_5/actor/huggingface" <<<"$out" ||
    fail "sft with model.path=$dir (exit $rc): $out"
done
out=$("$VERLPP" sft "${sft[@]}" model.tokenizer_path=ckpt/global_step_5 trainer.default_local_dir="$work/x" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "model.tokenizer_path: ckpt/global_step_5 is a training checkpoint" <<<"$out" ||
  fail "sft with model.tokenizer_path=ckpt/global_step_5 (exit $rc): $out"
out=$("$VERLPP" check actor_rollout_ref.model.path=ckpt/global_step_5 actor_rollout_ref.rollout.name=vllm 2>&1); rc=$?
[ "$rc" -ne 0 ] && grep -qF "actor_rollout_ref.model.path: ckpt/global_step_5 is a training checkpoint" <<<"$out" &&
  grep -qF "fix: actor_rollout_ref.model.path=ckpt/global_step_5/actor/huggingface" <<<"$out" ||
  fail "check of ppo on a training checkpoint (exit $rc): $out"

# Bad input.
out=$("$VERLPP" sft "${sft[@]}" "optim.betas=[]" trainer.default_local_dir=betas 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "optim.betas: expected two numbers in [0, 1), got []" <<<"$out" || fail "empty betas (exit $rc): $out"
# Non-finite optimizer numbers and LoRA (which verlpp lacks) are refused before training (a
# break-test's runs trained a NaN model or a full fine-tune and exited 0).
out=$("$VERLPP" sft "${sft[@]}" optim.weight_decay=nan "optim.betas=[nan,0.9]" model.lora_rank=8 \
      trainer.default_local_dir=nan_optim 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "optim.weight_decay: must be a number in [0, 3.40282e+38], got nan" <<<"$out" &&
  grep -qF "optim.betas: expected two numbers in [0, 1), got [nan, 0.9]" <<<"$out" &&
  grep -qF "model.lora_rank: 8: verlpp does not implement LoRA adapters" <<<"$out" ||
  fail "non-finite optimizer numbers and LoRA (exit $rc): $out"
[ -e nan_optim ] && fail "a refused sft run wrote its checkpoint folder"
# A key nothing reads and clip_grad 0 (torch zeroes every gradient): refused, as in ppo.
out=$("$VERLPP" sft "${sft[@]}" +trainer.warmup_everything=3 optim.clip_grad=0 trainer.default_local_dir=audit 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "trainer.warmup_everything: verlpp does not implement this setting" <<<"$out" &&
  grep -qF "optim.clip_grad: must be > 0" <<<"$out" || fail "unread key and clip_grad 0 (exit $rc): $out"
[ -e audit ] && fail "a refused sft run wrote its checkpoint folder"
out=$("$VERLPP" sft "${sft[@]}" data.truncation=middle data.train_batch_size=0 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "data.truncation: unknown value 'middle'" <<<"$out" &&
  grep -qF "data.train_batch_size: must be at least 1, got 0" <<<"$out" || fail "invalid values (exit $rc): $out"
out=$("$VERLPP" sft "${sft[@]}" data.train_files=missing.jsonl trainer.resume_mode=disable 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "missing.jsonl" <<<"$out" || fail "missing data file (exit $rc): $out"
out=$("$VERLPP" sft "${sft[@]}" data.max_length=4 trainer.resume_mode=disable 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "rows.jsonl line 1: the sequence is 8 tokens, longer than data.max_length=4" <<<"$out" ||
  fail "too long a row (exit $rc): $out"
out=$("$VERLPP" sft "${sft[@]}" data.train_batch_size=9 trainer.resume_mode=disable 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "9" <<<"$out" || fail "dataset smaller than a batch (exit $rc): $out"
"$VERLPP" model init --arch qwen3 --hidden-size 64 --intermediate-size 64 --num-hidden-layers 1 \
  --num-attention-heads 2 --vocab-size 16 --dtype float32 --tokenizer tok --output other >/dev/null 2>&1
out=$("$VERLPP" sft "${sft[@]}" model.path=other trainer.total_training_steps=6 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "is from another model: hidden_size is 32 in the checkpoint but 64" <<<"$out" ||
  fail "resuming another model's checkpoint (exit $rc): $out"
# VLLM_BATCH_INVARIANT is read as by ppo: a bad value is refused, 1 trains in the mode and says so.
out=$(VLLM_BATCH_INVARIANT=yes "$VERLPP" sft "${sft[@]}" trainer.default_local_dir="$work/bi_bad" \
      trainer.total_training_steps=1 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "VLLM_BATCH_INVARIANT='yes': expected 1 (on) or 0 (off)" <<<"$out" ||
  fail "sft with VLLM_BATCH_INVARIANT=yes (exit $rc): $(tail -3 <<<"$out")"
out=$(VLLM_BATCH_INVARIANT=1 "$VERLPP" sft "${sft[@]}" trainer.default_local_dir="$work/bi" \
      trainer.total_training_steps=1 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -qF "VLLM_BATCH_INVARIANT=1: batch-invariant mode" <<<"$out" ||
  fail "sft with VLLM_BATCH_INVARIANT=1 (exit $rc): $(tail -3 <<<"$out")"
# verl's SFT keys that verlpp refused (report bt8): model.custom_chat_template (used, and saved in
# the checkpoint's tokenizer_config.json), +data.prompt_dict_keys / +data.response_dict_keys
# (GSM8K's extra_info map), data.enable_thinking_default (true, or none as verl's YAML had it).
for i in 1 2 3 4; do
  echo "{\"extra_info\": {\"question\": \"$i+$i=\", \"answer\": \"$((i + i))\"}}"
done > nested.jsonl
template='{% for m in messages %}{{ m.content }}{% endfor %}{% if add_generation_prompt %}={% endif %}'
out=$("$VERLPP" sft "${sft[@]}" data.train_files=nested.jsonl data.val_files=null \
      data.prompt_key=extra_info data.response_key=extra_info '+data.prompt_dict_keys=[question]' \
      '+data.response_dict_keys=[answer]' "model.custom_chat_template='$template'" \
      data.enable_thinking_default=true trainer.total_training_steps=1 \
      trainer.default_local_dir="$work/verlkeys" 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "sft with verl's dict keys, custom template and thinking default (exit $rc): $out"
python3 - "$work/verlkeys/global_step_1/actor/huggingface/tokenizer_config.json" "$template" <<'PY' ||
import json, sys
assert json.load(open(sys.argv[1]))["chat_template"] == sys.argv[2]
PY
  fail "the checkpoint's tokenizer_config.json does not hold model.custom_chat_template"
# A custom template that does not parse is refused before anything loads, naming the key.
out=$("$VERLPP" sft "${sft[@]}" "model.custom_chat_template='{% for m in messages %}'" \
      trainer.default_local_dir="$work/x" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "✗ model.custom_chat_template: chat template 'model.custom_chat_template' line 1:24: unexpected end of template; expected {% endfor %}" <<<"$out" ||
  fail "sft with a custom template that does not parse (exit $rc): $out"
out=$("$VERLPP" sft "${sft[@]}" data.enable_thinking_default=none data.enable_thinking_default=maybe \
      trainer.default_local_dir="$work/x" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "data.enable_thinking_default" <<<"$out" ||
  fail "data.enable_thinking_default=maybe (exit $rc): $out"
out=$("$VERLPP" check actor_rollout_ref.model.path=init actor_rollout_ref.rollout.name=vllm \
      "actor_rollout_ref.model.custom_chat_template='$template'" 2>&1)
! grep -q "✗ actor_rollout_ref.model.custom_chat_template" <<<"$out" && grep -q "== result" <<<"$out" ||
  fail "check of ppo refuses actor_rollout_ref.model.custom_chat_template: $out"

# SIGTERM during training, delivered twice at once (GNU timeout, a process group with `verlpp
# launch`): the step finishes, its checkpoint is saved, exit 143 as ppo (report bt8: sft died
# without saving while ppo saved and exited 0).
"$VERLPP" sft "${sft[@]}" trainer.default_local_dir="$work/sig" trainer.save_freq=-1 \
  trainer.total_epochs=100000 trainer.total_training_steps=200000 > "$work/sig.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do grep -q "^step:2 - " "$work/sig.log" && break; sleep 0.1; done
kill -TERM "$pid"
kill -TERM "$pid"
wait "$pid"; rc=$?
stopped=$(sed -n 's/.*sft: stopped by signal 15 after step \([0-9]*\) (checkpoint saved)$/\1/p' "$work/sig.log")
[ "$rc" -eq 143 ] || fail "sft after SIGTERM: exit $rc: $(tail -3 "$work/sig.log")"
[ -n "$stopped" ] && [ "$stopped" -ge 2 ] && [ "$stopped" -lt 200000 ] ||
  fail "SIGTERM did not stop sft after a step: $(tail -3 "$work/sig.log")"
[ "$(cat "$work/sig/latest_checkpointed_iteration.txt" 2>/dev/null)" = "$stopped" ] &&
  [ -f "$work/sig/global_step_$stopped/actor/huggingface/model.safetensors" ] ||
  fail "sft saved no checkpoint of step $stopped after SIGTERM: $(ls "$work/sig" 2>&1)"
grep -qF "verlpp sft: stopped by a signal at step $stopped, train/loss" "$work/sig.log" ||
  fail "sft's last line does not say it was stopped: $(tail -1 "$work/sig.log")"
# SIGTERM during a long validation pass (bt17 N3: ranks went on validating 200,000 rows for minutes):
# the pass stops between micro-batches, the step is logged without val/loss and saved, exit 143.
python3 -c "
for i in range(60000): print('{\"prompt\": \"%d+%d=\", \"response\": \"%d\"}' % (i % 50, i % 50, i % 50 * 2))
" > "$work/long_val.jsonl"
"$VERLPP" sft "${sft[@]}" data.val_files="$work/long_val.jsonl" data.micro_batch_size_per_gpu=1 \
  trainer.default_local_dir="$work/sigval" trainer.save_freq=-1 trainer.test_freq=2 \
  trainer.total_training_steps=4 > "$work/sigval.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do grep -q "^step:1 - " "$work/sigval.log" && break; sleep 0.1; done
kill -TERM "$pid"
kill -TERM "$pid"
wait "$pid"; rc=$?
[ "$rc" -eq 143 ] || fail "sft after SIGTERM in validation: exit $rc: $(tail -3 "$work/sigval.log")"
grep -qF "sft: validation of step 2 left unfinished by a stop signal" "$work/sigval.log" &&
  grep -qF "sft: stopped by signal 15 after step 2 (checkpoint saved)" "$work/sigval.log" ||
  fail "SIGTERM did not stop sft's validation of step 2: $(tail -4 "$work/sigval.log")"
grep -q "^step:2 - .*val/loss" "$work/sigval.log" && fail "an unfinished validation logged val/loss"
[ -f "$work/sigval/global_step_2/actor/huggingface/model.safetensors" ] ||
  fail "sft saved no checkpoint of step 2 after SIGTERM in validation: $(ls "$work/sigval" 2>&1)"
exit $((failures > 0))
