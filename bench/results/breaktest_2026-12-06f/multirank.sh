#!/usr/bin/env bash
# Sharded sft on 1, 2 and 3 Gloo ranks (deferred, rank-by-rank loading) and resume of the 2-rank
# step-2 checkpoint on 1 and 3 ranks: metrics and final weights against the 1-rank run.
V=/work/main/build/verlpp; C=/work/main/tests/e2e/compare_runs.py
cd /tmp/bt18; rm -rf mr; mkdir mr
python3 -c "
for i in range(24): print('{\"prompt\": \"%d+%d=\", \"response\": \"%d\"}' % (i%10, (i*7)%10, i%10 + (i*7)%10))" > mr/train.jsonl
sft=(data.train_files=mr/train.jsonl data.val_files=rows.jsonl data.prompt_key=prompt data.response_key=response
     data.train_batch_size=6 data.micro_batch_size_per_gpu=1 data.use_dynamic_bsz=false data.max_length=16
     model.path=big optim.lr=0.003 trainer.total_training_steps=4 trainer.save_freq=2 trainer.test_freq=2
     "trainer.logger=['console','file']" trainer.device=cpu trainer.project_name=p trainer.experiment_name=e)
run() { local name=$1 np=$2; shift 2
  if [ "$np" = 1 ]; then VERL_FILE_LOGGER_PATH=mr/$name.jsonl $V sft "${sft[@]}" trainer.default_local_dir=mr/$name "$@" > mr/$name.log 2>&1
  else VERL_FILE_LOGGER_PATH=mr/$name.jsonl $V launch --nproc-per-node $np sft "${sft[@]}" trainer.default_local_dir=mr/$name "$@" > mr/$name.log 2>&1; fi
  echo "== $name np=$np rc=$?"; grep -E "^step:|training state|error|resumed" mr/$name.log | cut -c1-200 | tail -8; }
run r1 1
run r2 2
run r3 3
echo "-- compare r1 r2"; python3 $C mr/r1.jsonl mr/r2.jsonl mr/r1 mr/r2 '*' 1e-5
echo "-- compare r1 r3"; python3 $C mr/r1.jsonl mr/r3.jsonl mr/r1 mr/r3 '*' 1e-5
ls mr/r2/global_step_2/actor mr/r3/global_step_2/actor
# resume the 2-rank step-2 checkpoint on 1 and on 3 ranks
for np in 1 3; do
  rm -rf mr/res$np; mkdir -p mr/res$np; cp -r mr/r2/global_step_2 mr/res$np/; echo 2 > mr/res$np/latest_checkpointed_iteration.txt
  run res$np $np
  python3 - mr/r1.jsonl mr/res$np.jsonl <<'PY'
import sys, json
sys.path.insert(0, '/work/main/tests/e2e'); from compare_runs import steps_of
a, b = steps_of(sys.argv[1]), steps_of(sys.argv[2])
for s in sorted(b):
    for k in ('train/loss', 'train/grad_norm', 'val/loss'):
        if k in b[s]: print(s, k, a[s].get(k), b[s][k], 'OK' if abs(a[s][k]-b[s][k]) <= 1e-5*max(1,abs(a[s][k])) else 'DIFF')
PY
done
python3 - <<'PY'
import sys; sys.path.insert(0, '/work/main/tests/e2e'); from compare_runs import tensors_of
a = tensors_of('/tmp/bt18/mr/r1/global_step_4/actor/huggingface/model.safetensors')
for n in ('res1', 'res3'):
    b = tensors_of('/tmp/bt18/mr/%s/global_step_4/actor/huggingface/model.safetensors' % n)
    print(n, 'max abs weight diff vs r1:', max(max(abs(x - y) for x, y in zip(a[k], b[k])) for k in a))
PY
