#!/bin/bash
# rr.sh NAME SCRIPT: run a recipe script (no "$@") through the shim; tiny settings go in via $TAIL (appended by the shim) and env.
NAME=$1; SCRIPT=$2; B=/tmp/bt13
rm -rf $B/runs/$NAME; mkdir -p $B/runs/$NAME
export PATH=$B/shim:$PATH VERL_USE_UV=0 MODEL_PATH=$B/model NNODES=1 NGPUS_PER_NODE=${NPROC:-1} TRAIN_FILE=$B/gsm8k/train.parquet TEST_FILE=$B/gsm8k/test.parquet CKPTS_DIR=$B/runs/$NAME/ckpt
export VERL_FILE_LOGGER_PATH=$B/runs/$NAME/metrics.jsonl
export TAIL="data.train_max_samples=16 data.val_max_samples=2 trainer.device=cpu trainer.logger=[console,file] trainer.total_training_steps=2 trainer.test_freq=2 trainer.save_freq=1 trainer.n_gpus_per_node=${NPROC:-1} reward.custom_reward_function.path=$B/rw/libmyreward.so reward.custom_reward_function.name=compute_score trainer.rollout_data_dir=$B/runs/$NAME/gen $TAIL"
bash $B/scripts/$SCRIPT > $B/logs/$NAME.log 2>&1; rc=$?
echo "$NAME rc=$rc"; grep -v "^+" $B/logs/$NAME.log | tail -${TAILN:-4} | cut -c1-${CUT:-400}
