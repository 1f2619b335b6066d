#!/bin/bash
# case.sh NAME SCRIPT OVERRIDES... : run one case through rs.sh (env REWARD=1 ROLLOUT_N=4 by default), record the last lines
cd /tmp/bt13
export REWARD=${REWARD-1} ROLLOUT_N=${ROLLOUT_N:-4}
name=$1
out=$(TAILN=${TAILN:-3} ./rs.sh "$@" 2>&1)
rc=$(head -1 <<<"$out" | sed 's/.* rc=//')
last=$(tail -n +2 <<<"$out" | cut -c1-400 | tr '\n' ' ' )
printf '%s\t%s\t%s\n' "$name" "$rc" "$last" >> /tmp/bt13/results.tsv
printf '%s rc=%s | %s\n' "$name" "$rc" "${last:0:500}"
