# race.sh RANKS MODE(truncate|cpover|mv): sft with a big val file; when a rank maps the weights, break the file
source /tmp/bt17/lib.sh
R=$1; MODE=$2; D=$W/race_$MODE$R; rm -rf $D $W/race_ck; mkdir -p $D; cp $W/model/* $D/
sft=(data.train_files=$W/sft.jsonl data.val_files=$W/bigval.jsonl data.prompt_key=prompt data.response_key=response data.train_max_samples=8 data.val_max_samples=-1 data.train_batch_size=4 data.micro_batch_size_per_gpu=1 data.max_length=256 data.truncation=right optim.lr=1e-3 trainer.total_training_steps=1 trainer.save_freq=-1 trainer.test_freq=-1 trainer.device=cpu 'trainer.logger=[console]' model.path=$D trainer.default_local_dir=$W/race_ck)
if [ $R = 1 ]; then timeout 300 $V sft "${sft[@]}" > $D.log 2>&1 & else timeout 300 $V launch --nproc-per-node $R sft "${sft[@]}" > $D.log 2>&1 & fi
bg=$!; t0=$(date +%s.%N); hit=""
for i in $(seq 1 3000); do
  for p in $(pgrep -f "model.path=$D" ); do grep -q "$D/model.safetensors" /proc/$p/maps 2>/dev/null && hit=$p && break; done
  [ -n "$hit" ] && break; sleep 0.01; done
echo "mapped by pid $hit after $(echo "$(date +%s.%N) - $t0" | bc) s"
sleep 0.3
case $MODE in
  truncate) truncate -s 4000000 $D/model.safetensors ;;
  cpover) cp $W/bad/trunc50/model.safetensors $D/model.safetensors ;;
  mv) cp $W/bad/trunc50/model.safetensors $D/new.tmp && mv $D/new.tmp $D/model.safetensors ;;
esac
echo "broke the file ($MODE) at $(echo "$(date +%s.%N) - $t0" | bc) s"
wait $bg; rc=$?; echo "exit $rc after $(echo "$(date +%s.%N) - $t0" | bc) s"; grep -v '^\s*$' $D.log | tail -4 | cut -c1-300
