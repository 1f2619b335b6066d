#!/usr/bin/env bash
# `verlpp generate` on the CPU with a tiny random-init Qwen3 checkpoint carrying the Qwen3 tokenizer
# (tests/fixtures/tokenizers/qwen3): JSONL rows from a verl data file with the GSM8K scorer, --n
# samples, --ignore-eos lengths, chat-templated --prompt texts, greedy and seeded determinism, the
# summary line, and errors; token ids in and out (--input) on the Qwen3-MoE and Qwen3.5 fixtures
# (Qwen3.5 prompts up to 130 tokens: longer than one 64-token delta-rule chunk), with and without
# the KV cache, against transformers' greedy generate. Usage: generate_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
SRC=$2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

out=$("$VERLPP" model init --arch qwen3 --hidden-size 32 --intermediate-size 64 --num-hidden-layers 2 \
      --num-attention-heads 4 --num-key-value-heads 2 --vocab-size 151669 --dtype float32 \
      --initializer-range 0.5 --tokenizer "$SRC/tests/fixtures/tokenizers/qwen3" --output "$work/ckpt" 2>&1) ||
  { echo "FAIL: model init: $out"; exit 1; }
gen() { "$VERLPP" generate --model "$work/ckpt" --device cpu --threads 1 "$@"; }
data="$SRC/tests/fixtures/data/gsm8k_verl/test.jsonl"

# Data rows: 3 prompts x n=2, each line with prompt text, response and a GSM8K score.
gen --data "$data" --max-samples 3 --n 2 --response-length 8 --seed 1 --output "$work/a.jsonl" 2> "$work/a.err" ||
  fail "generate --data: $(cat "$work/a.err")"
python3 - "$work/a.jsonl" "$work/a.err" "$data" <<'PY' || fail "generate --data output (above)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
summary = json.loads(open(sys.argv[2]).read().split("verlpp generate: ", 1)[1])
data = [json.loads(l) for l in open(sys.argv[3])][:3]
assert len(rows) == 6, len(rows)
assert [(r["index"], r["sample"]) for r in rows] == [(i, s) for i in range(3) for s in range(2)]
for r in rows:
    q = data[r["index"]]["prompt"][0]["content"]
    assert r["prompt"].startswith("<|im_start|>user\n" + q), r["prompt"][:80]
    assert r["prompt"].endswith("<|im_start|>assistant\n"), r["prompt"][-40:]
    assert 1 <= r["response_tokens"] <= 8 and isinstance(r["response"], str)
    assert r["data_source"] == "openai/gsm8k"
    # random weights never write "#### <answer>": GSM8K's strict rule gives 0
    assert r["score"] == 0.0, r
assert summary["rows"] == 6 and summary["scored"] == 6 and summary["mean_score"] == 0.0, summary
assert summary["response_tokens"] == sum(r["response_tokens"] for r in rows), summary
assert summary["tokens_per_s"] > 0
PY

# Same seed: same output; another seed: different samples.
gen --data "$data" --max-samples 3 --n 2 --response-length 8 --seed 1 --output "$work/b.jsonl" 2>/dev/null
cmp -s "$work/a.jsonl" "$work/b.jsonl" || fail "same seed gave different output"
gen --data "$data" --max-samples 3 --n 2 --response-length 8 --seed 2 --output "$work/c.jsonl" 2>/dev/null
cmp -s "$work/a.jsonl" "$work/c.jsonl" && fail "seeds 1 and 2 gave the same output"
# Rows are keyed by their place in the output: --batch-size does not change what they sample.
gen --data "$data" --max-samples 3 --n 2 --response-length 8 --seed 1 --batch-size 2 \
  --output "$work/b2.jsonl" 2>/dev/null
# (Logits differ in their last bits between batch shapes, so a near-tie may still flip a rare
# token: at most one of the 6 rows may differ; with a seed per batch, as before, most did.)
python3 - "$work/a.jsonl" "$work/b2.jsonl" <<'PY' || fail "--batch-size 2 changed the sampled output"
import sys
a, b = (open(p).read().splitlines() for p in sys.argv[1:3])
assert len(a) == len(b) == 6 and sum(x == y for x, y in zip(a, b)) >= 5, (len(a), len(b))
PY
# With VLLM_BATCH_INVARIANT=1 (docs/rollout.md) the logits no longer depend on the batch: every
# row's tokens and log-probs are the same whatever --batch-size and --threads (without it the
# log-probs differ in their last bits, which the control below requires, so the check can fail).
printf '{"prompt_ids": [%s]}\n' "9, 8, 7" "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11" "42" "100, 200, 300" > "$work/inv_in.jsonl"
inv() {  # inv OUTPUT --batch-size N [--threads T]
  local out=$1
  shift
  "$VERLPP" generate --model "$work/ckpt" --device cpu --input "$work/inv_in.jsonl" --n 2 \
    --response-length 24 --seed 1 --output "$out" "$@" 2>/dev/null
}
for bs in 8 3 1; do
  VLLM_BATCH_INVARIANT=1 inv "$work/inv$bs.jsonl" --batch-size $bs --threads 1 ||
    fail "VLLM_BATCH_INVARIANT=1 --batch-size $bs"
done
VLLM_BATCH_INVARIANT=1 inv "$work/inv_t2.jsonl" --batch-size 2 --threads 2 || fail "VLLM_BATCH_INVARIANT=1 --threads 2"
for f in inv3 inv1 inv_t2; do
  cmp -s "$work/inv8.jsonl" "$work/$f.jsonl" || fail "VLLM_BATCH_INVARIANT=1: $f differs from --batch-size 8"
done
[ "$(wc -l < "$work/inv8.jsonl")" -eq 8 ] || fail "VLLM_BATCH_INVARIANT=1: not 8 rows"
# `verlpp model score` in the mode gives the generated tokens the log-probs generate reported.
python3 - "$work/inv_in.jsonl" "$work/inv8.jsonl" > "$work/inv_pairs.jsonl" <<'PY'
import json, sys
prompts = [json.loads(l)["prompt_ids"] for l in open(sys.argv[1])]
for row in map(json.loads, open(sys.argv[2])):
    print(json.dumps({"prompt_ids": prompts[row["index"]], "response_ids": row["response_ids"]}))
PY
VLLM_BATCH_INVARIANT=1 "$VERLPP" model score --model "$work/ckpt" --device cpu --input "$work/inv_pairs.jsonl" \
  > "$work/inv_scores.jsonl" 2>/dev/null || fail "VLLM_BATCH_INVARIANT=1 model score"
python3 - "$work/inv8.jsonl" "$work/inv_scores.jsonl" <<'PY' || fail "VLLM_BATCH_INVARIANT=1: model score differs from generate's log-probs"
import json, sys
gen = [json.loads(l)["response_log_probs"] for l in open(sys.argv[1])]
scored = [json.loads(l)["logprobs"] for l in open(sys.argv[2])]
assert len(gen) == len(scored) == 8 and gen == scored, (gen[:1], scored[:1])
PY
inv "$work/usual8.jsonl" --batch-size 8 --threads 1 && inv "$work/usual1.jsonl" --batch-size 1 --threads 1 ||
  fail "generate --input without the mode"
cmp -s "$work/usual8.jsonl" "$work/usual1.jsonl" && fail "control: --batch-size 1 and 8 agree without the mode"

# --ignore-eos: every response is --response-length tokens.
gen --data "$data" --max-samples 2 --response-length 5 --ignore-eos > "$work/d.jsonl" 2>/dev/null ||
  fail "generate --ignore-eos"
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if len(r)==2 and all(x["response_tokens"]==5 for x in r) else 1)' \
  "$work/d.jsonl" || fail "--ignore-eos lengths: $(cat "$work/d.jsonl")"

# --prompt texts, greedy: chat-templated, no score, all --n samples equal.
gen --prompt "Hello" --prompt "What is 2+2?" --greedy --n 3 --response-length 6 > "$work/e.jsonl" 2>/dev/null ||
  fail "generate --prompt"
python3 - "$work/e.jsonl" <<'PY' || fail "generate --prompt output: $(cat "$work/e.jsonl")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 6
assert rows[0]["prompt"] == "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n", rows[0]["prompt"]
assert all("score" not in r for r in rows)
assert rows[3]["response"] == rows[4]["response"] == rows[5]["response"]
PY

# --input: token ids in, token ids out, no tokenizer; transformers' greedy tokens
# (tests/fixtures/rollout/<model>.response_ids.jsonl, from greedy.json) with and without the cache.
for model in qwen3_moe qwen3_moe_sparse qwen3_5 qwen3_5_moe; do
  fixture="$SRC/tests/fixtures/rollout/$model"
  for cache in "" --no-kv-cache; do
    "$VERLPP" generate --model "$SRC/tests/fixtures/model/$model" --input "$fixture.prompt_ids.jsonl"       --greedy --ignore-eos --response-length 12 --dtype float32 --device cpu --threads 1 $cache       > "$work/ids.jsonl" 2> "$work/ids.err" || fail "generate --input $model $cache: $(cat "$work/ids.err")"
    python3 - "$work/ids.jsonl" "$fixture.response_ids.jsonl" <<'PY' || fail "generate --input $model $cache (above)"
import json, sys
got = [json.loads(l) for l in open(sys.argv[1])]
want = [json.loads(l)["response_ids"] for l in open(sys.argv[2])]
assert [g["response_ids"] for g in got] == want, (got, want)
assert [(g["index"], g["sample"]) for g in got] == [(i, 0) for i in range(len(want))]
assert all(len(g["response_log_probs"]) == 12 and all(x <= 0 for x in g["response_log_probs"]) for g in got)
PY
  done
done
printf '{"prompt_ids": [1, 2]}\n{"prompt_ids": [3, 999999]}\n' > "$work/bad_ids.jsonl"
out=$("$VERLPP" generate --model "$SRC/tests/fixtures/model/qwen3_moe" --input "$work/bad_ids.jsonl" --device cpu 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "bad_ids.jsonl:2: 'prompt_ids' holds id 999999 outside the vocabulary [0, 288)" <<<"$out" ||
  fail "out-of-vocabulary prompt id (exit $rc): $out"

# Errors: one line, exit 1.
out=$(gen --response-length 4 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "give one of --data FILE, --prompt TEXT or --input IDS.jsonl" <<<"$out" || fail "no input (exit $rc): $out"
out=$(gen --prompt hi --top-p 0 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "top_p: expected a value in (0, 1], got 0" <<<"$out" || fail "top_p 0 (exit $rc): $out"
out=$(gen --prompt hi --top-k -5 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "top_k: expected -1 (off) or a count >= 1, got -5" <<<"$out" || fail "top_k -5 (exit $rc): $out"
# --input honours --max-prompt-length (an error naming the line) and --max-samples.
printf '{"prompt_ids": [1, 2]}\n{"prompt_ids": [3, 4, 5]}\n' > "$work/two.jsonl"
out=$(gen --input "$work/two.jsonl" --max-prompt-length 2 --response-length 2 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "two.jsonl:2: 'prompt_ids' holds 3 ids, more than --max-prompt-length 2" <<<"$out" ||
  fail "--input longer than --max-prompt-length (exit $rc): $out"
out=$(gen --input "$work/two.jsonl" --max-samples 1 --response-length 2 2>/dev/null); rc=$?
[ "$rc" -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] || fail "--input --max-samples 1 (exit $rc): $out"
out=$(gen --prompt hi --prompt "$(printf 'caf\xe9')" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF -- "--prompt (the 2. one): invalid UTF-8 at byte 3" <<<"$out" || fail "invalid UTF-8 --prompt (exit $rc): $out"
out=$(gen --prompt hi --seed -1 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF -- "--seed must be >= 0" <<<"$out" || fail "--seed -1 (exit $rc): $out"
# --threads 0 was taken as "all cores": the count is 1 or more (left out: all cores).
out=$("$VERLPP" generate --model "$work/ckpt" --device cpu --prompt hi --threads 0 2>&1); rc=$?
[ "$rc" -ne 0 ] && grep -qF -- "--threads: Value 0 not in range 1 to 4096" <<<"$out" || fail "--threads 0 (exit $rc): $out"
out=$("$VERLPP" model score --model "$work/ckpt" --input "$data" --threads 0 2>&1); rc=$?
[ "$rc" -ne 0 ] && grep -qF -- "--threads: Value 0 not in range 1 to 4096" <<<"$out" || fail "model score --threads 0 (exit $rc): $out"
# More rows than memory holds: an error before anything is allocated.
out=$(gen --prompt hi --n 1000000000 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF -- "--batch-size 64 × --n 1000000000 rows of up to" <<<"$out" || fail "--n 10^9 (exit $rc): $out"
# An empty --input and a device in its place: one-line errors, not an empty run or an endless read.
: > "$work/empty.jsonl"
out=$(gen --input "$work/empty.jsonl" --response-length 2 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "empty.jsonl: no prompts (the file is empty)" <<<"$out" || fail "empty --input (exit $rc): $out"
ln -sf /dev/zero "$work/zero.jsonl"
out=$(gen --input "$work/zero.jsonl" --response-length 2 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "zero.jsonl: --input is not a regular file (a device, pipe or socket)" <<<"$out" ||
  fail "--input /dev/zero (exit $rc): $out"
# A run that fails part-way (data row 2 is longer than --max-prompt-length; batches of one row)
# leaves an existing --output as it was, and no temporary file.
long=$(printf 'seven %.0s' $(seq 1 80))
printf '{"prompt": [{"role": "user", "content": "hi"}]}\n{"prompt": [{"role": "user", "content": "%s"}]}\n' \
  "$long" > "$work/rows.jsonl"
echo "keep me" > "$work/kept.jsonl"
out=$(gen --data "$work/rows.jsonl" --max-prompt-length 40 --batch-size 1 --response-length 2 \
      --output "$work/kept.jsonl" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "longer than --max-prompt-length=40 (verlpp generate): raise it" <<<"$out" &&
  [ "$(cat "$work/kept.jsonl")" = "keep me" ] &&
  [ -z "$(ls -A "$work" | grep 'kept.jsonl.tmp')" ] ||
  fail "failed generate touched --output (exit $rc): $out / $(cat "$work/kept.jsonl")"
# --output naming the --data file would replace the prompts with the generations: refused first.
cp "$data" "$work/same.jsonl"
before=$(sha256sum < "$work/same.jsonl")
out=$(gen --data "$work/same.jsonl" --max-samples 1 --response-length 2 --output "$work/same.jsonl" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "$work/same.jsonl: --output is --data $work/same.jsonl (it would be overwritten)" <<<"$out" &&
  [ "$(sha256sum < "$work/same.jsonl")" = "$before" ] || fail "--output over --data (exit $rc): $out"
out=$("$VERLPP" generate --model "$work/none" --prompt hi --device cpu 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "$work/none" <<<"$out" || fail "missing model (exit $rc): $out"
exit $((failures > 0))
