#!/usr/bin/env bash
# GPU-machine job for issue 20 (sharded training): builds verlpp and the engine tests, then runs the
# same three GRPO steps (Qwen3-0.6B shape, bf16, entropy bonus so that gradients are not zero) as
# one launched rank over NCCL twice: replicated (the default on one rank) and through the sharded
# engine with fsdp_config.param_offload and optimizer_offload (a NCCL world of one: the shards,
# gradient shards and AdamW state live on the CPU, each layer is gathered to the GPU when used).
# Writes $OUT/base and $OUT/offload (ppo.sh's files) and compare.txt (metrics side by side), then
# the engine tests' GPU cases. Run from the repository root with .gpu-deps carried.
set -uo pipefail
ROOT_OUT=${OUT:?}
source tools/gpu/gpu_env.sh
common="actor_rollout_ref.actor.entropy_coeff=0.01"
offload="actor_rollout_ref.actor.fsdp_config.param_offload=true actor_rollout_ref.actor.fsdp_config.optimizer_offload=true"
for run in base offload; do
  mkdir -p "$ROOT_OUT/$run"
  extra=$common
  [ "$run" = offload ] && extra="$common $offload"
  OUT="$ROOT_OUT/$run" LAUNCH="launch --nproc-per-node 1" EXTRA_TARGETS="verlpp_engine_tests" \
    EXTRA_OVERRIDES="$extra" TRAIN_BATCH=${TRAIN_BATCH:-4} N=${N:-4} MINI_BATCH=${MINI_BATCH:-4} \
    STEPS=${STEPS:-3} bash tools/gpu/ppo.sh | grep -E "rc=|build|failed"
  grep -E "training state|error" "$ROOT_OUT/$run/ppo.log" | head -5
done
python3 - "$ROOT_OUT/base/ppo_metrics.jsonl" "$ROOT_OUT/offload/ppo_metrics.jsonl" <<'PY' | tee "$ROOT_OUT/compare.txt"
import json, sys
runs = [{json.loads(l)["step"]: json.loads(l)["data"] for l in open(p)} for p in sys.argv[1:3]]
keys = ["actor/grad_norm", "actor/entropy", "actor/pg_loss", "actor/kl_loss", "response_length/mean",
        "perf/max_memory_allocated_gb", "timing_s/update_weights", "timing_s/gen",
        "timing_s/old_log_prob", "timing_s/update_actor", "timing_s/step"]
print("%-30s %s" % ("metric (base | offload)", "  ".join("step %d" % s for s in sorted(runs[0]))))
for k in keys:
    cells = ["%.6g | %.6g" % (runs[0][s].get(k, float("nan")), runs[1].get(s, {}).get(k, float("nan")))
             for s in sorted(runs[0])]
    print("%-30s %s" % (k, "   ".join(cells)))
PY
build/tests/unit/engine/verlpp_engine_tests --gtest_filter='Optimizer*:ShardRows*' > "$ROOT_OUT/engine_tests.log" 2>&1
rc=$?
echo "engine tests rc=$rc"; tail -3 "$ROOT_OUT/engine_tests.log"
if [ "$rc" -ne 0 ] && command -v gdb >/dev/null; then
  gdb -batch -ex run -ex bt --args build/tests/unit/engine/verlpp_engine_tests \
    --gtest_filter='Optimizer*' > "$ROOT_OUT/engine_tests_gdb.log" 2>&1
  grep -A25 "SIGSEGV" "$ROOT_OUT/engine_tests_gdb.log" | head -40
fi
