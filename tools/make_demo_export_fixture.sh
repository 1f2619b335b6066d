#!/usr/bin/env bash
# Writes tests/fixtures/demo/exported/: a tiny Qwen3 trained by `verlpp sft` for 3 steps on addition
# rows with the demo tokenizer, exported by `verlpp model export`.
# Usage: tools/make_demo_export_fixture.sh VERLPP (from the repository root)
set -euo pipefail
VERLPP=$(realpath "$1")
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for i in 1 2 3 4 5 6 7 8; do echo "{\"prompt\": \"$i+$((9 - i))=\", \"response\": \"9\"}"; done > rows.jsonl
"$VERLPP" model init --arch qwen3 --hidden-size 32 --intermediate-size 64 --num-hidden-layers 2 \
  --num-attention-heads 4 --num-key-value-heads 2 --vocab-size 16 --dtype float32 --seed 5 \
  --initializer-range 0.2 --tokenizer "$root/tests/fixtures/demo/tokenizer" --output init
"$VERLPP" sft data.train_files=rows.jsonl data.prompt_key=prompt data.response_key=response \
  data.train_batch_size=4 data.max_length=16 model.path=init optim.lr=0.01 \
  trainer.total_training_steps=3 "trainer.logger=[]" trainer.default_local_dir=ckpt trainer.device=cpu
rm -rf "$root/tests/fixtures/demo/exported"
"$VERLPP" model export --checkpoint ckpt/global_step_3 --output "$root/tests/fixtures/demo/exported" \
  --dtype float32
