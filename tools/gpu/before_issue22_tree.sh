#!/usr/bin/env bash
# Makes .ab/before (here, from the repository root; needs git): the sources of commit af9638b, the
# last before issue 22's rollout engine (static batches: a KV slot per row, every sample of a
# prompt prefilled again, finished rows dropped every 8 steps on CUDA), with its rollout benchmark
# given today's GRPO-shape flags (bench/baselines/before_issue22_rollout_bench.patch: --n,
# --prompts-file, --eos-tokens, --max-num-seqs; --static-batches accepted, the only mode it has).
# tools/gpu/ab_rollout.sh with BASE=.ab/before (carry .ab) then measures issue 22's "today's static
# batching" in the same call as the engine.
set -euo pipefail
rm -rf .ab/before
mkdir -p .ab/before
git archive af9638b CMakeLists.txt cmake config src apps bench | tar x -C .ab/before
patch -d .ab/before -p1 --quiet < bench/baselines/before_issue22_rollout_bench.patch
grep -qx '/.ab/' .git/info/exclude || echo /.ab/ >> .git/info/exclude
echo "made .ab/before ($(du -sh .ab/before | cut -f1))"
