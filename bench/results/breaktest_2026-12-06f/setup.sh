#!/usr/bin/env bash
# Tiny tokenizer, models and data in /tmp/bt18 (from tests/e2e/sft_test.sh).
set -euo pipefail
V=/work/main/build/verlpp
cd /tmp/bt18
mkdir -p tok
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
for i in 1 2 3 4 5 6 7 8; do echo "{\"prompt\": \"$i+$i=\", \"response\": \"$((i + i))\"}"; done > rows.jsonl
python3 -c "
import random
random.seed(0)
with open('val_big.jsonl','w') as f:
    for i in range(60000):
        a=random.randint(0,9); b=random.randint(0,9)
        f.write('{\"prompt\": \"%d+%d=\", \"response\": \"%d\"}\n'%(a,b,a+b))
"
$V model init --arch qwen3 --hidden-size 32 --intermediate-size 64 --num-hidden-layers 1 \
  --num-attention-heads 2 --vocab-size 16 --dtype float32 --tokenizer tok --output init
$V model init --arch qwen3 --hidden-size 256 --intermediate-size 512 --num-hidden-layers 6 \
  --num-attention-heads 4 --vocab-size 16 --dtype float32 --tokenizer tok --output big
echo '{"prompt_ids": [13, 1, 10, 1, 11, 14], "response_ids": [2, 15]}' > score.jsonl
