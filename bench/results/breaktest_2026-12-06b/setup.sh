#!/usr/bin/env bash
# Work folder for breaktest_2026-12-06b (run from /work/main; binary copied to /tmp/bt14/verlpp).
set -e
V=/tmp/bt14/verlpp; W=/tmp/bt14/w; mkdir -p $W
$V data gsm8k --input /work/shared/data/gsm8k --output $W/gsm8k
$V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 --num-attention-heads 2 \
  --num-key-value-heads 1 --vocab-size 151936 --dtype float32 --seed 3 --tokenizer tests/fixtures/tokenizers/qwen3 --output $W/model
$V model init --arch qwen3_5 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 --num-attention-heads 2 \
  --num-key-value-heads 1 --head-dim 8 --vocab-size 151936 --layer-types linear_attention full_attention --dtype float32 \
  --seed 3 --tokenizer tests/fixtures/tokenizers/qwen3 --output $W/q35
# hand-edited twins: rope_theta 100 (both fields), linear rope scaling x2, sliding window; a config-only folder
for d in m_theta m_lin m_sw; do mkdir -p $W/$d; cp $W/model/* $W/$d/; done
python3 - <<PY
import json
def edit(d, f):
    p = "/tmp/bt14/w/%s/config.json" % d; c = json.load(open(p)); f(c); json.dump(c, open(p, "w"), indent=2)
edit("m_theta", lambda c: (c.__setitem__("rope_theta", 100.0), c["rope_parameters"].__setitem__("rope_theta", 100.0)))
edit("m_lin", lambda c: c.__setitem__("rope_scaling", {"type": "linear", "factor": 2.0}))
edit("m_sw", lambda c: c.update(use_sliding_window=True, sliding_window=4, max_window_layers=0))
PY
mkdir -p $W/cfg_theta; cp $W/m_theta/config.json $W/cfg_theta/
mkdir -p $W/wonly; cp $W/model/config.json $W/model/model.safetensors $W/wonly/
# sft rows: question -> first 60 chars of the answer
python3 -c "
import json
rows=[json.loads(l) for l in open('/tmp/bt14/w/gsm8k/train.jsonl')][:8]
with open('/tmp/bt14/w/sft.jsonl','w') as f:
    [f.write(json.dumps({'prompt': r['extra_info']['question'], 'response': r['extra_info']['answer'][:60]})+'\n') for r in rows]"
