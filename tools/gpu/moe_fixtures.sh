#!/usr/bin/env bash
# GPU-machine job for the Qwen3-MoE fixtures (run from the root of a copy of the worktree; writes
# $OUT): tools/make_moe_fixtures.py and tools/make_rollout_fixture.py with transformers, a probe of
# LibTorch's grouped GEMM (at::_grouped_mm) and, with BASELINES=1, the transformers MoE baselines of
# bench/baselines/train_step_hf.py.
set -uo pipefail
OUT=${OUT:?}
python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__, "cuda", torch.cuda.is_available())' 2>&1 | tee "$OUT/versions.txt"
timeout 240 python3 tools/make_moe_fixtures.py tests/fixtures/model > "$OUT/moe_fixtures.log" 2>&1
echo "moe fixtures rc=$?"; tail -c 3000 "$OUT/moe_fixtures.log"
timeout 120 python3 tools/make_rollout_fixture.py tests/fixtures/model tests/fixtures/rollout > "$OUT/rollout_fixture.log" 2>&1
echo "rollout fixture rc=$?"; tail -8 "$OUT/rollout_fixture.log"
tar czf "$OUT/moe_fixtures.tgz" tests/fixtures/model/qwen3_moe* tests/fixtures/model/reference_moe.json tests/fixtures/rollout/greedy.json 2>/dev/null
inc=$(python3 -c 'import torch,os;print(os.path.join(os.path.dirname(torch.__file__),"include"))')
grep -h "_grouped_mm(" "$inc/ATen/ops/_grouped_mm.h" "$inc/ATen/ops/_grouped_mm_native.h" 2>&1 | head -8
timeout 60 python3 - <<'PY' 2>&1 | tail -20
import torch
for dev, dt in (("cuda", torch.bfloat16), ("cuda", torch.float32), ("cpu", torch.float32), ("cpu", torch.bfloat16)):
    try:
        x = torch.randn(40, 32, device=dev, dtype=dt, requires_grad=True)
        w = torch.randn(3, 32, 48, device=dev, dtype=dt, requires_grad=True)
        offs = torch.tensor([16, 16, 40], device=dev, dtype=torch.int32)
        y = torch._grouped_mm(x, w, offs=offs)
        y.backward(torch.randn_like(y))
        ref = torch.cat([x[:16] @ w[0], x[16:16] @ w[1], x[16:] @ w[2]])
        print(dev, dt, "ok", tuple(y.shape), "max diff", (y - ref).abs().max().item(), "grad", w.grad is not None)
    except Exception as e:
        print(dev, dt, "fails:", str(e).splitlines()[0][:200])
PY
if [ "${BASELINES:-0}" = 1 ]; then
  i=0
  for args in "--preset qwen3-30b-a3b --logprob-only 1 --param-dtype bfloat16 --steps 4 --warmup 2" \
              "--preset qwen3-30b-a3b --layers 6 --steps 4 --warmup 2"; do
    timeout 200 python3 bench/baselines/train_step_hf.py $args > "$OUT/hf_moe$i.log" 2>&1
    echo "hf $args rc=$?"; tail -3 "$OUT/hf_moe$i.log"; i=$((i+1))
  done
fi
