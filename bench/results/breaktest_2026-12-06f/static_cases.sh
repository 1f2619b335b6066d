#!/usr/bin/env bash
# Static malformed-checkpoint cases against `verlpp model score` (tiny 1-layer model in /tmp/bt18/init).
V=/work/main/build/verlpp; ST=/work/main/bench/results/breaktest_2026-12-06f/st.py
cd /tmp/bt18; rm -rf cases; mkdir cases
mk() { rm -rf "cases/$1"; mkdir -p "cases/$1"; cp init/config.json init/tokenizer*.json "cases/$1/"; }
run() { local name=$1; shift; local out rc
  out=$(timeout 20 $V model score --model "cases/$name" --input score.jsonl --device cpu 2>&1); rc=$?
  echo "== $name rc=$rc"; echo "$out" | tail -3; }
ref=$($V model score --model init --input score.jsonl --device cpu); echo "== reference: $ref"
mk misalign;  python3 $ST misalign init/model.safetensors cases/misalign/model.safetensors; run misalign
mk misalign3; python3 $ST misalign init/model.safetensors cases/misalign3/model.safetensors 3; run misalign3
mk mixed; python3 $ST mixed init/model.safetensors cases/mixed/model.safetensors
mk mixedref; mv cases/mixed/model.safetensors.ref cases/mixedref/model.safetensors; run mixed; run mixedref
mk f64; python3 $ST f64 init/model.safetensors cases/f64/model.safetensors; run f64
for L in 18446744073709551615 9223372036854775807 1000000000; do
  mk huge$L; python3 $ST hugehdr init/model.safetensors cases/huge$L/model.safetensors $L; run huge$L; done
sz=$(stat -c %s init/model.safetensors)
mk hdrall; python3 $ST hugehdr init/model.safetensors cases/hdrall/model.safetensors $((sz-8)); run hdrall
mk hdr0; python3 $ST hugehdr init/model.safetensors cases/hdr0/model.safetensors 0; run hdr0
mk pastend; python3 $ST pastend init/model.safetensors cases/pastend/model.safetensors; run pastend
mk zero; python3 $ST zero init/model.safetensors cases/zero/model.safetensors extra.empty; run zero
mk drop; python3 $ST drop init/model.safetensors cases/drop/model.safetensors model.norm.weight; run drop
mk reshape; python3 $ST reshape init/model.safetensors cases/reshape/model.safetensors model.layers.0.mlp.up_proj.weight; run reshape
for n in 0 4 7 100; do mk trunc$n; head -c $n init/model.safetensors > cases/trunc$n/model.safetensors; run trunc$n; done
mk truncm; head -c $((sz-1)) init/model.safetensors > cases/truncm/model.safetensors; run truncm
mk trunch; head -c $((sz/2)) init/model.safetensors > cases/trunch/model.safetensors; run trunch
mk devzero; ln -s /dev/zero cases/devzero/model.safetensors; run devzero
mk devnull; ln -s /dev/null cases/devnull/model.safetensors; run devnull
mk dangling; ln -s /nonexistent/x.safetensors cases/dangling/model.safetensors; run dangling
mk loop; ln -s loop2 cases/loop/model.safetensors; ln -s model.safetensors cases/loop/loop2; run loop
mk dir; mkdir cases/dir/model.safetensors; run dir
mk fifo; mkfifo cases/fifo/model.safetensors; run fifo
mk perm; cp init/model.safetensors cases/perm/; chmod 000 cases/perm/model.safetensors; run perm
mk selfloop; ln -s model.safetensors cases/selfloop/model.safetensors; run selfloop
mk notjson; printf '\x04\x00\x00\x00\x00\x00\x00\x00abcd' > cases/notjson/model.safetensors; run notjson
mk arr; printf '\x02\x00\x00\x00\x00\x00\x00\x00[]' > cases/arr/model.safetensors; run arr
mk emptyobj; printf '\x02\x00\x00\x00\x00\x00\x00\x00{}' > cases/emptyobj/model.safetensors; run emptyobj
