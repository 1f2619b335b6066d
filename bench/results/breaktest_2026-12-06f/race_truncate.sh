#!/usr/bin/env bash
# Truncate / rewrite / rename model.safetensors while `verlpp model score` loads it (84 MB model).
# usage: race_truncate.sh MODE N   MODE: half|zero|minus1|loop|rename|cpover
V=/work/main/build/verlpp; cd /tmp/bt18
mode=$1; n=${2:-10}; sz=$(stat -c %s huge.orig.safetensors)
ref=$($V model score --model huge --input score.jsonl --device cpu 2>&1)
for i in $(seq 1 $n); do
  cp huge.orig.safetensors huge/model.safetensors
  $V model score --model huge --input score.jsonl --device cpu > race.out 2>&1 & pid=$!
  d=$(python3 -c "import random; print(round(random.uniform(0.05, 0.9), 3))")
  sleep $d
  case $mode in
    half) truncate -s $((sz / 2)) huge/model.safetensors ;;
    zero) truncate -s 0 huge/model.safetensors ;;
    minus1) truncate -s $((sz - 1)) huge/model.safetensors ;;
    loop) for s in 60000000 40000000 20000000 1000 0; do truncate -s $s huge/model.safetensors; sleep 0.05; done ;;
    rename) cp huge2.safetensors huge/tmp.st && mv huge/tmp.st huge/model.safetensors ;;
    cpover) cp huge2.safetensors huge/model.safetensors ;;   # in place: O_TRUNC then write
    ddover) dd if=huge2.safetensors of=huge/model.safetensors conv=notrunc bs=1M status=none ;;  # same size, in place
  esac
  wait $pid; rc=$?
  res=$(tail -1 race.out)
  tag=other; [ "$res" = "$ref" ] && tag=ORIG
  echo "$i delay=$d rc=$rc [$tag] $res"
done
