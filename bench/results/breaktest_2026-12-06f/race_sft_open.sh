#!/usr/bin/env bash
# 2-rank sft of the 84 MB model: as soon as the first rank has huge/model.safetensors open,
# replace it by rename (mv) with another model (seed 7). Each rank should train the same model.
set -m
V=/work/main/build/verlpp; cd /tmp/bt18; n=${1:-4}
sft=(data.train_files=rows.jsonl data.prompt_key=prompt data.response_key=response
     data.train_batch_size=4 data.micro_batch_size_per_gpu=1 data.max_length=16
     model.path=huge optim.lr=0.001 trainer.total_training_steps=1 trainer.save_freq=-1
     "trainer.logger=['console']" trainer.device=cpu)
for i in $(seq 1 $n); do
  cp huge.orig.safetensors huge/model.safetensors; cp huge2.safetensors tmp.st; rm -rf rs
  $V launch --nproc-per-node 2 sft "${sft[@]}" trainer.default_local_dir=rs > race_sft.out 2>&1 & pid=$!
  target=$(readlink -f huge/model.safetensors); seen=""
  for k in $(seq 1 3000); do
    for p in $(pgrep -P $pid); do
      ls -l /proc/$p/fd 2>/dev/null | grep -q "$target" && seen="$p"
    done
    [ -n "$seen" ] && break; sleep 0.005
  done
  mv tmp.st huge/model.safetensors
  opened=$(for p in $(pgrep -P $pid); do ls -l /proc/$p/fd 2>/dev/null | grep -c "model.safetensors"; done | tr '\n' ',')
  wait $pid; rc=$?
  echo "$i first-opened-by=$seen fds-after-mv=$opened rc=$rc | $(grep -E '^step:1|error' race_sft.out | sed -E 's/ - train\/(global_tokens|lr|mfu|total_tokens\(B\)):[^ ]*//g' | tr '\n' ' ' | cut -c1-300)"
done
cp huge.orig.safetensors huge/model.safetensors
echo "reference: huge (seed 0) loss 2.79997 grad_norm 30.6055; huge2 (seed 7) loss 3.24389 grad_norm 31.9015"
