#!/bin/bash
# rs.sh NAME SCRIPT [extra overrides...]: run a verl example script through the python3 shim with tiny CPU settings.
# env: VMODE=check to run `verlpp check` instead; NPROC=2 for 2 Gloo ranks.
NAME=$1; SCRIPT=$2; shift 2
B=/tmp/bt13
rm -rf $B/runs/$NAME; mkdir -p $B/runs/$NAME $B/logs
export PATH=$B/shim:$PATH VERL_USE_UV=0 DEVICE=${DEVICE:-gpu}
export NDEVICES_PER_NODE=${NDEVICES_PER_NODE:-${NPROC:-1}} MODEL_PATH=${MODEL_PATH:-$B/model} NGPUS_PER_NODE=${NGPUS_PER_NODE:-${NPROC:-1}} NNODES=1
export TRAIN_BATCH_SIZE=${TRAIN_BATCH_SIZE:-2} PPO_MINI_BATCH_SIZE=${PPO_MINI_BATCH_SIZE:-2} MAX_PROMPT_LENGTH=256 MAX_RESPONSE_LENGTH=${MAX_RESPONSE_LENGTH:-16}
export ROLLOUT_N=${ROLLOUT_N:-2} ROLLOUT_TP=1 PPO_MAX_TOKEN_LEN_PER_GPU=4096 TOTAL_EPOCHS=1 SAVE_FREQ=${SAVE_FREQ:-1} TEST_FREQ=${TEST_FREQ:-2}
export VERL_FILE_LOGGER_PATH=$B/runs/$NAME/metrics.jsonl
COMMON=(data.train_files=$B/gsm8k/train.parquet data.val_files=$B/gsm8k/test.parquet data.train_max_samples=${TMS:-8} data.val_max_samples=2
  trainer.device=cpu 'trainer.logger=[console,file]' trainer.total_training_steps=${STEPS:-2} trainer.default_local_dir=$B/runs/$NAME/ckpt)
[ -n "$REWARD" ] && COMMON+=(reward.custom_reward_function.path=$B/rw/libmyreward.so reward.custom_reward_function.name=compute_score trainer.rollout_data_dir=$B/runs/$NAME/gen)
[ -n "$NOCOMMON" ] && COMMON=()
bash $B/scripts/$SCRIPT "${COMMON[@]}" "$@" > $B/logs/$NAME.log 2>&1
rc=$?
echo "$NAME rc=$rc"; grep -v "^+" $B/logs/$NAME.log | tail -${TAILN:-6}
