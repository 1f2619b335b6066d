#!/usr/bin/env bash
# Issue 23's learning proof on the CPU: a tiny random-init Qwen3.5 vision-language model learns,
# by GRPO alone, an image task it cannot solve without the image. Each prompt is an image and
# nothing else ("<image>"): a noisy picture in one of three colours (red, green, blue -> answer 1,
# 2, 3; random sizes 48-96 px). The tokenizer is the demo's character tokenizer with Qwen's four
# vision tokens and an image-aware chat template; the reward is the demo's (the last integer of the
# response equals the answer). Without the image every prompt is the same, so the best a text-only
# policy can do is the most frequent answer: its share of the validation rows is the baseline
# (printed). The test asserts that greedy validation reward rises by at least 0.3 from before
# training and ends at least 0.3 above that baseline, within 30 steps (about 2 minutes).
# Usage: images_learn_test.sh VERLPP SOURCE_DIR DEMO_DIR (DEMO_DIR: what demo_test.sh kept)
set -uo pipefail
VERLPP=$1
SRC=$2
DEMO=$3
cd "$SRC"
source "$SRC/tests/e2e/lib.sh"

tok=$DEMO/verlpp_demo/tokenizer
[ -f "$tok/tokenizer.json" ] || { fail "no demo tokenizer in $DEMO (run e2e_demo first)"; exit 1; }
python3 - "$tok" "$work/tok" "$work/data" <<'PY' || fail "tokenizer and data"
import json, os, random, shutil, struct, sys, zlib
src, tok, data = sys.argv[1:4]
shutil.copytree(src, tok)
vision = ["<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"]
t = json.load(open(f"{tok}/tokenizer.json"))
c = json.load(open(f"{tok}/tokenizer_config.json"))
first = 1 + max(a["id"] for a in t["added_tokens"])
for i, token in enumerate(vision):
    entry = {"content": token, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
    t["added_tokens"].append({"id": first + i, **entry})
    c["added_tokens_decoder"][str(first + i)] = entry
c["model_max_length"] = 512
c["chat_template"] = (
    "{%- for message in messages -%}{%- if message.role == 'user' -%}<|user|>"
    "{%- if message.content is string -%}{{ message.content }}{%- else -%}"
    "{%- for item in message.content -%}{%- if item.type == 'image' -%}"
    "<|vision_start|><|image_pad|><|vision_end|>{%- elif item.type == 'text' -%}{{ item.text }}"
    "{%- endif -%}{%- endfor -%}{%- endif -%}{%- else -%}<|assistant|>{{ message.content }}<|end|>"
    "{%- endif -%}{%- endfor -%}{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}")
json.dump(t, open(f"{tok}/tokenizer.json", "w"))
json.dump(c, open(f"{tok}/tokenizer_config.json", "w"))

def png(path, w, h, pixels):
    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in pixels)
    chunk = lambda k, d: struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

colours = {1: (220, 40, 40), 2: (40, 200, 40), 3: (40, 60, 220)}
rng = random.Random(0)
os.makedirs(f"{data}/images")
for split, n in (("train", 256), ("test", 36)):
    with open(f"{data}/{split}.jsonl", "w") as f:
        for i in range(n):
            k, w, h = rng.randint(1, 3), rng.randint(48, 96), rng.randint(48, 96)
            pixels = [[tuple(max(0, min(255, v + rng.randint(-30, 30))) for v in colours[k])
                       for _ in range(w)] for _ in range(h)]
            png(f"{data}/images/{split}_{i}.png", w, h, pixels)
            f.write(json.dumps({"data_source": "verlpp/arithmetic",
                                "prompt": [{"role": "user", "content": "<image>"}],
                                "images": [{"path": f"images/{split}_{i}.png"}],
                                "reward_model": {"style": "rule", "ground_truth": str(k)},
                                "extra_info": {"index": i}}) + "\n")
PY
out=$("$VERLPP" model init --arch qwen3_5 --hidden-size 32 --intermediate-size 64 --num-hidden-layers 2 \
      --num-attention-heads 2 --num-key-value-heads 1 --head-dim 24 --vocab-size 20 \
      --linear-num-key-heads 1 --linear-num-value-heads 2 --linear-key-head-dim 8 \
      --linear-value-head-dim 8 --layer-types linear_attention full_attention \
      --tie-word-embeddings false --dtype float32 --seed 1 --vision-depth 1 --vision-hidden-size 32 \
      --vision-num-heads 2 --vision-intermediate-size 64 --tokenizer "$work/tok" \
      --output "$work/model" 2>&1) || fail "model init: $out"

VERL_FILE_LOGGER_PATH="$work/learn.jsonl" OMP_NUM_THREADS=2 "$VERLPP" ppo \
  algorithm.adv_estimator=grpo actor_rollout_ref.rollout.name=vllm \
  actor_rollout_ref.rollout.tensor_model_parallel_size=1 data.train_files="$work/data/train.jsonl" \
  data.val_files="$work/data/test.jsonl" data.image_key=images data.train_batch_size=16 \
  data.max_prompt_length=160 data.max_response_length=2 actor_rollout_ref.model.path="$work/model" \
  actor_rollout_ref.model.enable_gradient_checkpointing=false actor_rollout_ref.rollout.n=8 \
  actor_rollout_ref.actor.ppo_mini_batch_size=16 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=64 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=128 actor_rollout_ref.actor.optim.lr=1e-2 \
  actor_rollout_ref.actor.use_kl_loss=false actor_rollout_ref.actor.entropy_coeff=0 \
  algorithm.use_kl_in_reward=false trainer.val_before_train=true trainer.test_freq=10 \
  trainer.total_training_steps=30 trainer.save_freq=-1 trainer.resume_mode=disable \
  "trainer.logger=[console,file]" trainer.device=cpu trainer.n_gpus_per_node=1 \
  trainer.default_local_dir="$work/ckpt" > "$work/learn.log" 2>&1 ||
  fail "ppo (exit $?): $(grep -v '^frame' "$work/learn.log" | tail -5)"
PYTHONPATH="$SRC/tests/e2e" python3 - "$work/learn.jsonl" "$work/data/test.jsonl" <<'PY' ||
import collections, json, sys
from compare_runs import steps_of
steps = steps_of(sys.argv[1])
key = "val-core/verlpp/arithmetic/acc/mean@1"
val = [(s, m[key]) for s, m in sorted(steps.items()) if key in m]
answers = [json.loads(l)["reward_model"]["ground_truth"] for l in open(sys.argv[2])]
baseline = max(collections.Counter(answers).values()) / len(answers)
print(f"greedy validation reward {val}; text-only baseline (most frequent answer) {baseline:.3f}")
assert val[0][0] == 0 and len(val) >= 3, val
assert val[-1][1] >= val[0][1] + 0.3, ("no rise of 0.3", val)
assert val[-1][1] >= baseline + 0.3, ("not 0.3 above what a text-only policy reaches", val, baseline)
PY
  fail "the model did not learn the image task"
exit $((failures > 0))
