#!/usr/bin/env bash
# As race_sft_open.sh, but rank 1 is held (SIGSTOP) from its start until rank 0 has opened the
# weights and the file was replaced by rename: a rank that starts later (another node) opens the
# new file. Each rank should still train one and the same model.
set -m
V=/work/main/build/verlpp; cd /tmp/bt18
sft=(data.train_files=rows.jsonl data.prompt_key=prompt data.response_key=response
     data.train_batch_size=4 data.micro_batch_size_per_gpu=1 data.max_length=16
     model.path=huge optim.lr=0.001 trainer.total_training_steps=1 trainer.save_freq=-1
     "trainer.logger=['console']" trainer.device=cpu)
cp huge.orig.safetensors huge/model.safetensors; cp huge2.safetensors tmp.st; rm -rf rs
$V launch --nproc-per-node 2 sft "${sft[@]}" trainer.default_local_dir=rs > race_stagger.out 2>&1 & pid=$!
r1=""; for k in $(seq 1 2000); do
  for p in $(pgrep -P $pid); do tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx RANK=1 && r1=$p; done
  [ -n "$r1" ] && break; sleep 0.002; done
kill -STOP $r1; echo "rank 1 = $r1 stopped"
r0=$(pgrep -P $pid | grep -v $r1); target=$(readlink -f huge/model.safetensors)
for k in $(seq 1 3000); do ls -l /proc/$r0/fd 2>/dev/null | grep -q "$target" && break; sleep 0.01; done
echo "rank 0 ($r0) has the file open"; mv tmp.st huge/model.safetensors; kill -CONT $r1
wait $pid; echo "rc=$?"; grep -E '^step:1|error|verlpp launch' race_stagger.out | cut -c1-250
# what the saved model is: compare to both sources per tensor
python3 - <<'PY'
import sys; sys.path.insert(0, '/work/main/tests/e2e'); from compare_runs import tensors_of
a = tensors_of('/tmp/bt18/huge.orig.safetensors'); b = tensors_of('/tmp/bt18/huge2.safetensors')
c = tensors_of('/tmp/bt18/rs/global_step_1/actor/huggingface/model.safetensors')
k = 'model.layers.0.mlp.down_proj.weight'; n = len(c[k]); h = n // 2
for part, sl in (('first half rows', slice(0, h)), ('second half rows', slice(h, n))):
    da = max(abs(x - y) for x, y in zip(c[k][sl], a[k][sl])); db = max(abs(x - y) for x, y in zip(c[k][sl], b[k][sl]))
    print(k, part, 'max|trained - seed0| = %.3g, max|trained - seed7| = %.3g' % (da, db))
PY
cp huge.orig.safetensors huge/model.safetensors
echo "reference: huge (seed 0) loss 2.79997 grad_norm 30.6055; huge2 (seed 7) loss 3.24389 grad_norm 31.9015"
