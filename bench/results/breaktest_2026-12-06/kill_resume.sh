#!/bin/bash
# kill_resume.sh: the GRPO example script, 6 steps, checkpoint every step; SIGKILL verlpp once global_step_2 exists;
# then rerun the same command (verl's default resume_mode=auto) and check that it resumes and finishes.
cd /tmp/bt13; rm -rf runs/kr; mkdir -p runs/kr
export PATH=/tmp/bt13/shim:$PATH VERL_USE_UV=0 DEVICE=gpu MODEL_PATH=/tmp/bt13/model NGPUS_PER_NODE=1 NNODES=1 TRAIN_BATCH_SIZE=2 PPO_MINI_BATCH_SIZE=2 MAX_PROMPT_LENGTH=256 MAX_RESPONSE_LENGTH=32 ROLLOUT_N=4 ROLLOUT_TP=1 PPO_MAX_TOKEN_LEN_PER_GPU=4096 TOTAL_EPOCHS=1 SAVE_FREQ=1 TEST_FREQ=2
ARGS=(data.train_files=/tmp/bt13/gsm8k/train.parquet data.val_files=/tmp/bt13/gsm8k/test.parquet data.train_max_samples=16 data.val_max_samples=2 trainer.device=cpu 'trainer.logger=[console,file]' trainer.total_training_steps=6 trainer.default_local_dir=/tmp/bt13/runs/kr/ckpt reward.custom_reward_function.path=/tmp/bt13/rw/libmyreward.so reward.custom_reward_function.name=compute_score)
VERL_FILE_LOGGER_PATH=/tmp/bt13/runs/kr/m1.jsonl bash scripts/grpo_trainer__run_qwen3_8b_fsdp.sh "${ARGS[@]}" > logs/kr1.log 2>&1 &
for i in $(seq 1 900); do [ -d runs/kr/ckpt/global_step_2 ] && break; sleep 0.1; done
pid=$(pgrep -f "^/tmp/bt13/verlpp ppo .*runs/kr/ckpt" | head -1); echo "SIGKILL verlpp pid $pid with: $(ls runs/kr/ckpt | tr '\n' ' ')"; kill -9 $pid; wait
echo "after kill: $(ls -a runs/kr/ckpt | tr '\n' ' ') tracker=$(cat runs/kr/ckpt/latest_checkpointed_iteration.txt 2>/dev/null)"
VERL_FILE_LOGGER_PATH=/tmp/bt13/runs/kr/m2.jsonl bash scripts/grpo_trainer__run_qwen3_8b_fsdp.sh "${ARGS[@]}" > logs/kr2.log 2>&1; rc=$?
grep -v "^+" logs/kr2.log | grep -E "resum|error|saved" | cut -c1-200
echo "second run rc=$rc, folders: $(ls runs/kr/ckpt | tr '\n' ' ')"
python3 -c "
import json
for f in ('m1','m2'):
    print(f, [(json.loads(l)['step'], round(json.loads(l)['data'].get('critic/score/mean',-1),4)) for l in open('/tmp/bt13/runs/kr/%s.jsonl'%f)])"
