#!/usr/bin/env bash
# Damaged optimizer shards of the 2-rank step-2 sft checkpoint (multirank.sh) resumed on 1 and 3 ranks.
V=/work/main/build/verlpp; cd /tmp/bt18
sft=(data.train_files=mr/train.jsonl data.val_files=rows.jsonl data.prompt_key=prompt data.response_key=response
     data.train_batch_size=6 data.micro_batch_size_per_gpu=1 data.use_dynamic_bsz=false data.max_length=16
     model.path=big optim.lr=0.003 trainer.total_training_steps=3 trainer.save_freq=-1 trainer.test_freq=-1
     "trainer.logger=['console']" trainer.device=cpu)
O=optim_world_size_2_rank_1.safetensors
case_() { local name=$1 np=$2 damage=$3; rm -rf oc/$name; mkdir -p oc/$name; cp -r mr/r2/global_step_2 oc/$name/; echo 2 > oc/$name/latest_checkpointed_iteration.txt
  (cd oc/$name/global_step_2/actor && eval "$damage")
  if [ $np = 1 ]; then out=$($V sft "${sft[@]}" trainer.default_local_dir=oc/$name 2>&1); rc=$?
  else out=$($V launch --nproc-per-node $np sft "${sft[@]}" trainer.default_local_dir=oc/$name 2>&1); rc=$?; fi
  echo "== $name np=$np rc=$rc  [$damage]"; grep -E "error|^step|resumed|launch" <<<"$out" | cut -c1-300 | head -4; }
case_ trunc_np1 1 "truncate -s -100 $O"
case_ trunc_np3 3 "truncate -s -100 $O"
case_ trunchalf_np1 1 "truncate -s \$((\$(stat -c %s $O)/2)) $O"
case_ missing_np1 1 "rm $O"
case_ missing_np3 3 "rm $O"
case_ dir_np1 1 "rm $O; mkdir $O"
case_ fifo_np1 1 "rm $O; mkfifo $O"
case_ dangling_np1 1 "rm $O; ln -s /nope/x $O"
case_ extra_np1 1 "cp $O optim_world_size_2_rank_2.safetensors"
case_ swapped_np1 1 "mv $O x; mv optim_world_size_2_rank_0.safetensors $O; mv x optim_world_size_2_rank_0.safetensors"
