#!/usr/bin/env bash
# The GRPO-shaped rollout benchmark's prompts (verlpp_rollout_bench --prompts-file): the first 64
# GSM8K test questions in verl's GSM8K schema (verlpp data gsm8k: the question and verl's
# "Let's think step by step ..." instruction as one user message), rendered with Qwen3's chat
# template and the assistant header, one line of token ids per prompt.
#   bench/data/make_gsm8k_prompts.sh BUILD_DIR GSM8K_DIR TOKENIZER_DIR > bench/data/gsm8k_qwen3_prompts.txt
# (as committed: build/ ../shared/data/gsm8k ../shared/data/tokenizers/qwen3)
set -euo pipefail
build=${1:?build dir}
gsm8k=${2:?raw GSM8K dir}
tokenizer=${3:?tokenizer dir}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/verlpp" data gsm8k --input "$gsm8k" --output "$work" > /dev/null
head -n 64 "$work/test.jsonl" |
  python3 -c 'import json, sys; [print(json.dumps(json.loads(l)["prompt"])) for l in sys.stdin]' |
  "$build/verlpp" tokenize --tokenizer "$tokenizer" --chat --add-generation-prompt
