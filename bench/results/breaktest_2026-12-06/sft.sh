#!/bin/bash
# sft.sh NAME SCRIPT NPROC [extra overrides]: run a verl SFT example script through the torchrun shim
NAME=$1; SCRIPT=$2; NP=$3; shift 3; B=/tmp/bt13
rm -rf $B/runs/$NAME; mkdir -p $B/runs/$NAME
export PATH=$B/shim:$PATH MODEL_PATH=${MODEL_PATH:-$B/model} MICRO_BATCH_SIZE_PER_GPU=${MICRO_BATCH_SIZE_PER_GPU:-2} VERL_FILE_LOGGER_PATH=$B/runs/$NAME/metrics.jsonl
COMMON=(data.train_files=$B/sftdata/train.jsonl data.val_files=$B/sftdata/test.jsonl trainer.device=cpu 'trainer.logger=[console,file]' trainer.total_training_steps=${STEPS:-2} data.train_batch_size=${TBS:-4} data.max_length=${MAXLEN:-512})
bash $B/scripts/$SCRIPT $NP $B/runs/$NAME/ckpt "${COMMON[@]}" "$@" > $B/logs/$NAME.log 2>&1; rc=$?
echo "$NAME rc=$rc"; grep -v "^+" $B/logs/$NAME.log | tail -${TAILN:-4} | cut -c1-${CUT:-400}
