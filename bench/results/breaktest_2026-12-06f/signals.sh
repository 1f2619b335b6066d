#!/usr/bin/env bash
# SIGINT/SIGTERM during sft validation (60,000-row val file, micro-batch 1), 1 and 2 ranks.
# usage: signals.sh CASE...
set -m  # background jobs must not inherit SIGINT ignored (non-interactive bash does that)
V=/work/main/build/verlpp; cd /tmp/bt18; mkdir -p sg
sft=(data.train_files=rows.jsonl data.val_files=val_big.jsonl data.prompt_key=prompt data.response_key=response
     data.train_batch_size=4 data.micro_batch_size_per_gpu=1 data.use_dynamic_bsz=false data.max_length=16
     model.path=init optim.lr=0.01 trainer.total_training_steps=4 trainer.save_freq=-1 trainer.test_freq=2
     "trainer.logger=['console','file']" trainer.device=cpu trainer.project_name=p trainer.experiment_name=e)
# start NAME NP extra...: background run, sets $pid
start() { local name=$1 np=$2; shift 2; rm -rf sg/$name sg/$name.jsonl
  if [ "$np" = 1 ]; then VERL_FILE_LOGGER_PATH=sg/$name.jsonl $V sft "${sft[@]}" trainer.default_local_dir=sg/$name "$@" > sg/$name.log 2>&1 &
  else VERL_FILE_LOGGER_PATH=sg/$name.jsonl $V launch --nproc-per-node $np sft "${sft[@]}" trainer.default_local_dir=sg/$name "$@" > sg/$name.log 2>&1 & fi
  pid=$!; t0=$(date +%s.%N); }
# wait until validation runs: step 1 logged (step 2 validates) -> sleep a bit more
wait_val() { local name=$1; for i in $(seq 1 200); do grep -q "^step:1 " sg/$name.log && break; sleep 0.1; done; sleep ${2:-2}; }
rank_pid() { for p in $(pgrep -P $pid); do tr '\0' ' ' < /proc/$p/cmdline | grep -q -- "--rank $1\b\|VERLPP_RANK=$1" && echo $p; done; }
finish() { local name=$1; ts=$(date +%s.%N); wait $pid; rc=$?; te=$(date +%s.%N)
  echo "== $name rc=$rc, $(python3 -c "print(round($te-$ts,1))") s from signal to exit"
  grep -vE "^\s*$" sg/$name.log | tail -4 | cut -c1-220
  echo "   checkpoints: $(ls sg/$name 2>/dev/null | tr '\n' ' ') tracker=$(cat sg/$name/latest_checkpointed_iteration.txt 2>/dev/null)"; }
for c in "$@"; do case $c in
  term1) start term1 1; wait_val term1; kill -TERM $pid; finish term1 ;;
  int1) start int1 1; wait_val int1; kill -INT $pid; finish int1 ;;
  term2) start term2 2; wait_val term2 3; kill -TERM $pid; finish term2 ;;
  int2pg) start int2pg 2; wait_val int2pg 3; kill -INT -- -$(ps -o pgid= $pid | tr -d ' ') 2>/dev/null || kill -INT $pid; finish int2pg ;;
  rank1) start rank1 2; wait_val rank1 3; pgrep -P $pid -a | cut -c1-150; r=$(pgrep -P $pid | sort -n | tail -1); echo "signal to child $r ($(tr "\0" "\n" < /proc/$r/environ | grep -E "^(RANK|LOCAL_RANK)=" | tr "\n" " "))"; kill -TERM $r; finish rank1 ;;
  rank1big) start rank1big 2 data.val_files=sg/val180k.jsonl; wait_val rank1big 1; r=$(pgrep -P $pid | sort -n | tail -1); echo "signal to child $r ($(tr "\0" "\n" < /proc/$r/environ | grep -E "^RANK=" ))"; kill -TERM $r; finish rank1big ;;
  term2big) start term2big 2 data.val_files=sg/val180k.jsonl; wait_val term2big 1; kill -TERM $pid; finish term2big ;;
  twicesave) start twicesave 1 model.path=huge trainer.test_freq=1; for i in $(seq 1 300); do grep -q "training state" sg/twicesave.log && break; sleep 0.1; done; sleep ${DELAY:-3}; kill -TERM $pid; t1=$(date +%s.%N); sleep ${GAP:-1.2}; kill -TERM $pid; echo "second signal sent $(python3 -c "print(round($(date +%s.%N)-$t1,2))") s after first"; finish twicesave; ls -la sg/twicesave/* ;;
  rank0) start rank0 2; wait_val rank0 3; r=$(pgrep -P $pid | sort -n | head -1); echo "signal to child $r ($(tr "\0" "\n" < /proc/$r/environ | grep -E "^(RANK|LOCAL_RANK)=" | tr "\n" " "))"; kill -TERM $r; finish rank0 ;;
  twice) start twice 1; wait_val twice; kill -TERM $pid; sleep 1.5; kill -TERM $pid; finish twice ;;
  twicefast) start twicefast 1; wait_val twicefast; kill -TERM $pid; sleep 0.3; kill -TERM $pid; finish twicefast ;;
  first) start first 1 trainer.test_freq=1; for i in $(seq 1 100); do grep -q "training state" sg/first.log && break; sleep 0.1; done; sleep 2; kill -TERM $pid; finish first ;;
  last) start last 1 trainer.total_training_steps=2; wait_val last; kill -TERM $pid; finish last ;;
esac; done
