#!/usr/bin/env bash
# Issue 23's H200 measurement (from the repository root with $OUT set; carry .gpu-deps): builds
# `verlpp` (Release), draws the geo3k-schema stand-in (`verlpp data geo3k --standin`: 96-320 x
# 64-256 pixel diagrams, about 64-100 image tokens each after the processor's upscaling), makes a
# random-init Qwen3.5-2B-shape vision-language model (`--preset qwen3.5-2b` plus Qwen3.5's default
# vision tower: 27 blocks, width 1152, 16 heads, MLP 4304, 48 x 48 position table; the Qwen3
# tokenizer's image tokens and the test chat template) and runs GRPO steps in bf16 on one GPU with
# the Qwen3.5 recipe's shape: 64 image prompts x n 5, responses up to RESPONSE_LENGTH (512),
# mini-batch 16, low_var_kl loss against the reference. Writes $OUT/vl_metrics.jsonl (verl's file
# logger), vl.log, build.log. That machine has no libpng/libjpeg headers: put Debian's debs in
# .gpu-deps/debs beside PCRE2's (`apt-get download libpng-dev libpng16-16 libjpeg62-turbo-dev
# libjpeg62-turbo zlib1g-dev`; gpu_env.sh unpacks them), else images cannot be decoded there.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
if ! { cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" &&
       timeout 330 cmake --build build -j 16 --target verlpp; } > "$OUT/build.log" 2>&1; then
  echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; exit 0
fi
echo "build took $((SECONDS - start)) s"
grep -E "image decoding|Parquet support" "$OUT/build.log"
work=/tmp/verlpp_vl_gpu
rm -rf "$work" && mkdir -p "$work"
# The stand-in comes drawn ($GEO_DIR, e.g. carried in .gpu-deps/vl_geo by `verlpp data geo3k
# --standin --train-rows 128 --test-rows 16 --seed 1`) where that machine has no cairo.
if [ -n "${GEO_DIR:-}" ]; then
  cp -r "$GEO_DIR" "$work/geo"
else
  build/verlpp data geo3k --standin --train-rows 128 --test-rows 16 --seed 1 --output "$work/geo" \
    > "$OUT/data.txt" 2>&1 || { echo "data failed"; cat "$OUT/data.txt"; exit 0; }
fi
build/verlpp model init --preset qwen3.5-2b --dtype bfloat16 --seed 1 --vision-depth 27 \
  --vision-hidden-size 1152 --vision-num-heads 16 --vision-intermediate-size 4304 \
  --vision-num-position-embeddings 2304 --tokenizer tests/fixtures/tokenizers/qwen3 \
  --output "$work/model" >> "$OUT/data.txt" 2>&1 || { echo "model init failed"; cat "$OUT/data.txt"; exit 0; }
python3 - "$work/model/tokenizer_config.json" tests/fixtures/tokenizers/templates/qwen3_5-vl-test.jinja <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config["chat_template"] = open(sys.argv[2]).read()
json.dump(config, open(sys.argv[1], "w"))
PY
STEPS=${STEPS:-2}
cmd=(build/verlpp ppo
  data.train_files="$work/geo/train.jsonl" data.val_files="$work/geo/test.jsonl"
  data.image_key=images data.train_batch_size=64 data.max_prompt_length=1024
  data.max_response_length="${RESPONSE_LENGTH:-512}" data.filter_overlong_prompts=true
  data.truncation=error data.shuffle=false actor_rollout_ref.model.path="$work/model"
  actor_rollout_ref.actor.optim.lr=1e-6 actor_rollout_ref.actor.ppo_mini_batch_size=16
  actor_rollout_ref.actor.use_dynamic_bsz=true actor_rollout_ref.actor.ppo_max_token_len_per_gpu=16384
  actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=true
  actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=32768
  actor_rollout_ref.ref.log_prob_use_dynamic_bsz=true actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=32768
  actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.actor.kl_loss_coef=0.01
  actor_rollout_ref.actor.kl_loss_type=low_var_kl actor_rollout_ref.actor.entropy_coeff=0
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=5
  actor_rollout_ref.rollout.tensor_model_parallel_size=1 algorithm.adv_estimator=grpo
  algorithm.use_kl_in_reward=false trainer.device=cuda trainer.n_gpus_per_node=1
  'trainer.logger=[console,file]' trainer.project_name=verlpp_gpu trainer.experiment_name=vl_2b
  trainer.total_training_steps="$STEPS" trainer.val_before_train=false trainer.test_freq=-1
  trainer.save_freq=-1 trainer.default_local_dir="$work/ckpt")
printf '%q ' "${cmd[@]}" > "$OUT/command.txt"
VERL_FILE_LOGGER_PATH="$OUT/vl_metrics.jsonl" timeout "${RUN_TIMEOUT:-420}" "${cmd[@]}" > "$OUT/vl.log" 2>&1
echo "ppo rc=$? at $((SECONDS - start)) s"
grep -v "^frame" "$OUT/vl.log" | tail -5 | cut -c 1-3000
