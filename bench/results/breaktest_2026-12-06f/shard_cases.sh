#!/usr/bin/env bash
# Sharded-checkpoint (index) cases against `verlpp model score`.
V=/work/main/build/verlpp; ST=/work/main/bench/results/breaktest_2026-12-06f/st.py
cd /tmp/bt18; rm -rf sc; mkdir sc
mk() { rm -rf "sc/$1"; python3 $ST shard init/model.safetensors "sc/$1" 3; cp init/config.json init/tokenizer*.json "sc/$1/"; }
run() { local name=$1; shift; local out rc
  out=$(timeout 15 $V model score --model "sc/$name" --input score.jsonl --device cpu 2>&1); rc=$?
  echo "== $name rc=$rc"; echo "$out" | tail -3; }
S2=model-00002-of-00003.safetensors; IDX=model.safetensors.index.json
mk ok; run ok
mk missing; rm sc/missing/$S2; run missing
mk extra; cp sc/extra/$S2 sc/extra/model-00004-of-00003.safetensors; run extra
# a tensor in two shards (duplicate), index points to one
mk dup; python3 - sc/dup <<'PY'
import json,sys,subprocess,os
d=sys.argv[1]; idx=json.load(open(d+'/model.safetensors.index.json'))
# copy shard 1 content also into shard 2 via index pointing one tensor to shard 2 that lacks it
k=sorted(idx['weight_map'])[0]; idx['weight_map'][k]='model-00002-of-00003.safetensors'
json.dump(idx,open(d+'/model.safetensors.index.json','w'))
PY
run dup
mk idxmissingtensor; python3 - sc/idxmissingtensor <<'PY'
import json,sys
d=sys.argv[1]; idx=json.load(open(d+'/model.safetensors.index.json'))
del idx['weight_map']['model.norm.weight']; json.dump(idx,open(d+'/model.safetensors.index.json','w'))
PY
run idxmissingtensor
mk sharddir; rm sc/sharddir/$S2; mkdir sc/sharddir/$S2; run sharddir
mk shardfifo; rm sc/shardfifo/$S2; mkfifo sc/shardfifo/$S2; run shardfifo
mk sharddevzero; rm sc/sharddevzero/$S2; ln -s /dev/zero sc/sharddevzero/$S2; run sharddevzero
mk shardurandom; rm sc/shardurandom/$S2; ln -s /dev/urandom sc/shardurandom/$S2; run shardurandom
mk sharddangling; rm sc/sharddangling/$S2; ln -s /nope/x sc/sharddangling/$S2; run sharddangling
mk shardloop; rm sc/shardloop/$S2; ln -s $S2 sc/shardloop/$S2; run shardloop
mk shardtrunc; truncate -s -10 sc/shardtrunc/$S2; run shardtrunc
mk shardabs; python3 - sc/shardabs <<'PY'
import json,sys
d=sys.argv[1]; idx=json.load(open(d+'/model.safetensors.index.json'))
for k,v in idx['weight_map'].items():
    if v=='model-00002-of-00003.safetensors': idx['weight_map'][k]='/etc/passwd'
json.dump(idx,open(d+'/model.safetensors.index.json','w'))
PY
run shardabs
mk idxbad; echo '{"weight_map": [1,2]}' > sc/idxbad/$IDX; run idxbad
mk idxnotjson; echo '{"weight_map": ' > sc/idxnotjson/$IDX; run idxnotjson
mk idxdir; rm sc/idxdir/$IDX; mkdir sc/idxdir/$IDX; run idxdir
mk idxfifo; rm sc/idxfifo/$IDX; mkfifo sc/idxfifo/$IDX; run idxfifo
mk idxdangling; rm sc/idxdangling/$IDX; ln -s /nope/idx.json sc/idxdangling/$IDX; run idxdangling
mk idxempty; echo '{"weight_map": {}}' > sc/idxempty/$IDX; run idxempty
