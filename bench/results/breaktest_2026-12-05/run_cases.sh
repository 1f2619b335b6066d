#!/usr/bin/env bash
# Re-runs the non-clean cases of the VLLM_BATCH_INVARIANT break-test (report: /tmp/bt/report.md).
# Builds its own inputs under /tmp/bt/repro; uses /tmp/bt/verlpp; one verlpp at a time.
set -u
V=/tmp/bt/verlpp
SRC=/work/main
TOK=$SRC/tests/fixtures/tokenizers/qwen3
W=/tmp/bt/repro
rm -rf "$W"; mkdir -p "$W"
raw=/work/shared/data/gsm8k; [ -f "$raw/train.jsonl" ] || raw=$SRC/tests/fixtures/data/gsm8k_raw
$V data gsm8k --input "$raw" --output $W/gsm8k >/dev/null 2>&1
$V model init --arch qwen3 --hidden-size 32 --intermediate-size 64 --num-hidden-layers 2 --num-attention-heads 4 \
  --num-key-value-heads 2 --vocab-size 151936 --dtype float32 --seed 3 --initializer-range 0.3 --tokenizer $TOK \
  --output $W/qwen3 >/dev/null 2>&1
$V model init --arch qwen3_5 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 \
  --layer-types full_attention full_attention --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 \
  --dtype float32 --seed 3 --tokenizer $TOK --output $W/q35full >/dev/null 2>&1
$V model init --arch qwen3_5 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 \
  --layer-types full_attention full_attention --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 \
  --dtype float32 --seed 3 --vision-depth 1 --tokenizer $TOK --output $W/q35fullvl >/dev/null 2>&1
base=(data.train_files=$W/gsm8k/train.jsonl data.val_files=$W/gsm8k/test.jsonl data.train_max_samples=8
  data.val_max_samples=2 data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.name=vllm
  actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 algorithm.adv_estimator=grpo
  trainer.device=cpu trainer.n_gpus_per_node=1 trainer.val_before_train=false trainer.total_training_steps=1
  'trainer.logger=[console,file]' trainer.project_name=bt trainer.experiment_name=bt)
ppo() { local name=$1; shift; rm -rf $W/$name $W/$name.jsonl
  VERL_FILE_LOGGER_PATH=$W/$name.jsonl $V ppo "${base[@]}" trainer.default_local_dir=$W/$name "$@" 2>&1; }
hdr() { echo; echo "=== $*"; }

hdr "N1 check accepts VLLM_BATCH_INVARIANT=1 for a Qwen3.5 checkpoint without Gated DeltaNet layers; ppo then refuses"
for m in q35full q35fullvl; do
  out=$(VLLM_BATCH_INVARIANT=1 $V check --no-print-config "${base[@]}" actor_rollout_ref.model.path=$W/$m 2>&1); echo "check $m: exit $? :: $(grep '== result' <<<"$out")"
  out=$(VLLM_BATCH_INVARIANT=1 ppo n1_$m actor_rollout_ref.model.path=$W/$m); echo "ppo   $m: exit $? :: $(tail -1 <<<"$out")"
done

hdr "N2 default trainer.device (cuda) on a machine without a GPU: plain run falls back to cpu, the mode refuses; generate falls back"
nb=(); for x in "${base[@]}"; do [ "$x" = trainer.device=cpu ] || nb+=("$x"); done
out=$(VERL_FILE_LOGGER_PATH=$W/n2.jsonl $V ppo "${nb[@]}" actor_rollout_ref.model.path=$W/qwen3 trainer.default_local_dir=$W/n2 2>&1); echo "ppo, mode off: exit $? :: $(grep -m1 'warning' <<<"$out")"
out=$(VLLM_BATCH_INVARIANT=1 VERL_FILE_LOGGER_PATH=$W/n2b.jsonl $V ppo "${nb[@]}" actor_rollout_ref.model.path=$W/qwen3 trainer.default_local_dir=$W/n2b 2>&1); echo "ppo, mode on : exit $? :: $(grep -m1 '✗' <<<"$out")"
printf '{"prompt_ids": [9, 8, 7]}\n{"prompt_ids": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}\n' > $W/in.jsonl
out=$(VLLM_BATCH_INVARIANT=1 $V generate --model $W/qwen3 --input $W/in.jsonl --response-length 4 2>&1 >/dev/null); echo "generate (default --device cuda), mode on: exit $? :: $(head -1 <<<"$out")"

hdr "N3 model score ignores VLLM_BATCH_INVARIANT: it does not reproduce generate's mode-on log-probs (and takes 'yes')"
VLLM_BATCH_INVARIANT=1 $V generate --model $W/qwen3 --device cpu --input $W/in.jsonl --n 2 --response-length 24 --seed 1 > $W/gen.jsonl 2>/dev/null
python3 - $W <<'PY'
import json, sys
w = sys.argv[1]
inp = [json.loads(l) for l in open(w + "/in.jsonl")]
with open(w + "/pairs.jsonl", "w") as f:
    for r in map(json.loads, open(w + "/gen.jsonl")):
        f.write(json.dumps({"prompt_ids": inp[r["index"]]["prompt_ids"], "response_ids": r["response_ids"]}) + "\n")
PY
VLLM_BATCH_INVARIANT=1 $V model score --model $W/qwen3 --input $W/pairs.jsonl --device cpu > $W/score.jsonl 2>/dev/null
python3 - $W <<'PY'
import json, sys
w = sys.argv[1]
g = [json.loads(l) for l in open(w + "/gen.jsonl")]; s = [json.loads(l) for l in open(w + "/score.jsonl")]
d = [abs(a - b) for r, x in zip(g, s) for a, b in zip(r["response_log_probs"], x["logprobs"])]
print("generate (mode on) vs VLLM_BATCH_INVARIANT=1 model score: max|diff| %.3g, %d/%d tokens bit-equal" % (max(d), sum(x == 0 for x in d), len(d)))
PY
VLLM_BATCH_INVARIANT=yes $V model score --model $W/qwen3 --input $W/pairs.jsonl --device cpu >/dev/null 2>&1; echo "model score with VLLM_BATCH_INVARIANT=yes: exit $?"

hdr "N4 sft runs with VLLM_BATCH_INVARIANT=yes (ppo/generate/check reject it)"
python3 - $W <<'PY'
import json, sys
w = sys.argv[1]
rows = [json.loads(l) for l in open(w + "/gsm8k/train.jsonl")][:8]
with open(w + "/sft.jsonl", "w") as f:
    for r in rows: f.write(json.dumps({"prompt": r["extra_info"]["question"], "response": r["extra_info"]["answer"]}) + "\n")
PY
out=$(VLLM_BATCH_INVARIANT=yes $V sft data.train_files=$W/sft.jsonl data.val_files=$W/sft.jsonl data.prompt_key=prompt \
  data.response_key=response data.train_batch_size=4 data.micro_batch_size_per_gpu=2 data.use_dynamic_bsz=false \
  data.max_length=512 model.path=$W/qwen3 optim.lr=0.01 trainer.total_training_steps=1 "trainer.logger=['console']" \
  trainer.device=cpu trainer.default_local_dir=$W/sft_ckpt 2>&1); echo "sft, VLLM_BATCH_INVARIANT=yes: exit $? :: $(grep -o 'train/loss:[0-9.]*' <<<"$out")"
out=$(VLLM_BATCH_INVARIANT=yes ppo n4 actor_rollout_ref.model.path=$W/qwen3); echo "ppo, VLLM_BATCH_INVARIANT=yes: exit $? :: $(grep -m1 '✗' <<<"$out")"

hdr "N5 ppo on the CPU silently ignores bf16 dtype keys (docs: the mode covers fp32 and bf16)"
out=$(VLLM_BATCH_INVARIANT=1 ppo n5 actor_rollout_ref.model.path=$W/qwen3 actor_rollout_ref.actor.fsdp_config.dtype=bfloat16 \
  actor_rollout_ref.actor.fsdp_config.model_dtype=bfloat16 actor_rollout_ref.rollout.dtype=bfloat16); echo "exit $? :: $(grep -m1 'training state' <<<"$out") (4880576 params x 4 B = fp32); bf16/dtype mentions: $(grep -ci 'bfloat16\|dtype' <<<"$out")"

hdr "N6 fix hint for an 'off'-looking bad value turns the mode on"
out=$(VLLM_BATCH_INVARIANT='0 ' $V check --no-print-config "${base[@]}" actor_rollout_ref.model.path=$W/qwen3 2>&1); echo "exit $?"; grep -A1 '✗' <<<"$out"

hdr "N7 unknown device under the mode: the fix suggests cuda, which the mode refuses"
out=$(VLLM_BATCH_INVARIANT=1 $V check --no-print-config "${base[@]}" actor_rollout_ref.model.path=$W/qwen3 trainer.device=CPU 2>&1); grep -A1 '✗' <<<"$out"
out=$(VLLM_BATCH_INVARIANT=1 $V check --no-print-config "${base[@]}" actor_rollout_ref.model.path=$W/qwen3 trainer.device=cuda 2>&1); echo "after applying that fix:"; grep -A1 '✗' <<<"$out"

hdr "N8 sampled validation depends on data.val_batch_size even with the mode (generate does not depend on --batch-size)"
for vb in 6 1; do
  VLLM_BATCH_INVARIANT=1 ppo n8_vb$vb actor_rollout_ref.model.path=$W/qwen3 trainer.val_before_train=true trainer.val_only=true \
    data.val_max_samples=6 data.val_batch_size=$vb trainer.validation_data_dir=$W/n8_vb${vb}_val \
    actor_rollout_ref.rollout.val_kwargs.do_sample=true actor_rollout_ref.rollout.val_kwargs.temperature=0.8 \
    actor_rollout_ref.rollout.val_kwargs.n=2 data.max_response_length=16 >/dev/null
done
python3 - $W <<'PY'
import json, sys
w = sys.argv[1]
a = [json.loads(l)["output"] for l in open(w + "/n8_vb6_val/0.jsonl")]; b = [json.loads(l)["output"] for l in open(w + "/n8_vb1_val/0.jsonl")]
print("val_batch_size 6 vs 1 (mode on, sampled validation): %d of %d generations equal" % (sum(x == y for x, y in zip(a, b)), len(a)))
PY

hdr "N9 neither ppo nor generate says the mode is on (check does)"
out=$(VLLM_BATCH_INVARIANT=1 ppo n9 actor_rollout_ref.model.path=$W/qwen3); echo "ppo lines mentioning invariant: $(grep -ci invariant <<<"$out")"
out=$(VLLM_BATCH_INVARIANT=1 $V generate --model $W/qwen3 --device cpu --input $W/in.jsonl --response-length 4 2>&1 >/dev/null); echo "generate stderr lines mentioning invariant: $(grep -ci invariant <<<"$out")"
out=$(VLLM_BATCH_INVARIANT=1 $V check --no-print-config "${base[@]}" actor_rollout_ref.model.path=$W/qwen3 2>&1); echo "check: $(grep -c 'note: VLLM_BATCH_INVARIANT' <<<"$out") notice line"
