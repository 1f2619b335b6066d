#!/usr/bin/env bash
# 2-rank (sharded, deferred loading) sft of the 84 MB model while its model.safetensors is
# replaced by rename / truncated. usage: race_sft.sh MODE N [NP]
set -m
V=/work/main/build/verlpp; cd /tmp/bt18; mode=$1; n=${2:-5}; np=${3:-2}
sz=$(stat -c %s huge.orig.safetensors)
sft=(data.train_files=rows.jsonl data.prompt_key=prompt data.response_key=response
     data.train_batch_size=4 data.micro_batch_size_per_gpu=1 data.max_length=16
     model.path=huge optim.lr=0.001 trainer.total_training_steps=1 trainer.save_freq=-1
     "trainer.logger=['console']" trainer.device=cpu)
for i in $(seq 1 $n); do
  cp huge.orig.safetensors huge/model.safetensors; rm -rf rs; [ $mode = rename ] && cp huge2.safetensors tmp.st
  if [ $np = 1 ]; then $V sft "${sft[@]}" trainer.default_local_dir=rs > race_sft.out 2>&1 & 
  else $V launch --nproc-per-node $np sft "${sft[@]}" trainer.default_local_dir=rs > race_sft.out 2>&1 & fi
  pid=$!
  d=$(python3 -c "import random; print(round(random.uniform(${LO:-0.2}, ${HI:-1.5}), 3))"); sleep $d
  case $mode in
    rename) mv tmp.st huge/model.safetensors ;;
    half) truncate -s $((sz / 2)) huge/model.safetensors ;;
    zero) truncate -s 0 huge/model.safetensors ;;
  esac
  wait $pid; rc=$?
  echo "$i delay=$d rc=$rc | $(grep -E '^step:1|error|killed|signal|rank .* exit' race_sft.out | sed -E 's/ - train\/(global_tokens|lr|mfu|total_tokens\(B\)):[^ ]*//g' | tr '\n' ' ' | cut -c1-400)"
done
cp huge.orig.safetensors huge/model.safetensors
