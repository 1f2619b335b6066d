#!/usr/bin/env bash
# Device selection when running (not checking): NPU is refused with a clear message; check still
# accepts NPU configurations; an unknown --device of a command is named as the option. Usage: device_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
cd "$2"
failures=0
ARGS=(--config-path examples --config-name grpo_gsm8k_qwen3_0.6b)

out=$("$VERLPP" ppo "${ARGS[@]}" trainer.device=npu 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "trainer.device=npu: Ascend NPU is not supported by this build" <<<"$out"; then
  echo "FAIL: trainer.device=npu (exit $rc): $out"; failures=$((failures + 1))
fi
out=$(DEVICE=npu "$VERLPP" ppo "${ARGS[@]}" 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "DEVICE=npu: Ascend NPU is not supported by this build" <<<"$out"; then
  echo "FAIL: DEVICE=npu (exit $rc): $out"; failures=$((failures + 1))
fi
out=$("$VERLPP" check --no-print-config "${ARGS[@]}" trainer.device=npu 2>&1); rc=$?
if [ "$rc" -ne 0 ]; then
  echo "FAIL: check with trainer.device=npu should pass (exit $rc): $out"; failures=$((failures + 1))
fi
# A command's own --device is named as such.
out=$("$VERLPP" generate --model tests/fixtures/model/qwen3_tied --prompt hi --device tpu 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF -- "--device=tpu: unknown device; expected cpu, cuda" <<<"$out"; then
  echo "FAIL: generate --device tpu (exit $rc): $out"; failures=$((failures + 1))
fi
# Without a visible GPU, trainer.device=cuda falls back to the CPU with a warning.
if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }; then
  out=$("$VERLPP" ppo "${ARGS[@]}" trainer.device=cuda 2>&1)
  if ! grep -qF "no CUDA device is available to this build; running on cpu" <<<"$out"; then
    echo "FAIL: device fallback (expected the cpu warning): $out"; failures=$((failures + 1))
  fi
fi
[ "$failures" -eq 0 ] && echo "all device tests passed"
exit $((failures != 0))
