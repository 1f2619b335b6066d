#!/usr/bin/env bash
# 84 MB model: SIGTERM during step 2's validation, a second SIGTERM GAP s later (during the save of
# step 2, which then dies at once), then resume; and a single SIGTERM then resume. Both resumed runs'
# losses against an uninterrupted run.
set -m
V=/work/main/build/verlpp; cd /tmp/bt18; mkdir -p sg; cp huge.orig.safetensors huge/model.safetensors
sft=(data.train_files=rows.jsonl data.prompt_key=prompt data.response_key=response
     data.train_batch_size=4 data.micro_batch_size_per_gpu=1 data.use_dynamic_bsz=false data.max_length=16
     model.path=huge optim.lr=0.001 trainer.total_training_steps=3 trainer.save_freq=1 trainer.test_freq=2
     "trainer.logger=['console','file']" trainer.device=cpu trainer.project_name=p trainer.experiment_name=e)
steps() { python3 -c "
import sys; sys.path.insert(0, '/work/main/tests/e2e'); from compare_runs import steps_of
for s, d in sorted(steps_of('$1').items()): print(s, d.get('train/loss'), d.get('train/grad_norm'), d.get('val/loss'))"; }
rm -rf sg/ref3 sg/ref3.jsonl
VERL_FILE_LOGGER_PATH=sg/ref3.jsonl $V sft "${sft[@]}" data.val_files=rows.jsonl trainer.default_local_dir=sg/ref3 > sg/ref3.log 2>&1
echo "== reference rc=$?"; steps sg/ref3.jsonl
for gap in 1.2 none; do
  name=stop_$gap; rm -rf sg/$name sg/$name.jsonl
  VERL_FILE_LOGGER_PATH=sg/$name.jsonl $V sft "${sft[@]}" data.val_files=val_big.jsonl trainer.default_local_dir=sg/$name > sg/$name.log 2>&1 & pid=$!
  for i in $(seq 1 600); do grep -q "^step:1 " sg/$name.log && break; sleep 0.1; done; sleep 3
  kill -TERM $pid; [ $gap != none ] && { sleep $gap; kill -TERM $pid; }
  wait $pid; echo "== $name rc=$?"; tail -3 sg/$name.log | cut -c1-200
  echo "   contents: $(ls -A sg/$name | tr '\n' ' ') tracker=$(cat sg/$name/latest_checkpointed_iteration.txt)"
  VERL_FILE_LOGGER_PATH=sg/$name.resumed.jsonl $V sft "${sft[@]}" data.val_files=rows.jsonl trainer.default_local_dir=sg/$name > sg/$name.resumed.log 2>&1
  echo "== $name resumed rc=$?"; grep -E "resumed|error|^step" sg/$name.resumed.log | cut -c1-200; steps sg/$name.resumed.jsonl
  echo "   contents after resume: $(ls -A sg/$name | tr '\n' ' ')"
done
