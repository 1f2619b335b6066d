# Sourced by the ppo e2e scripts after `cd "$SRC"`: a failure counter with fail(), a temporary
# work folder removed at exit (after $E2E_CLEANUP, when a script sets it), and prepare_gsm8k.
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'eval "${E2E_CLEANUP:-}"; rm -rf "$work"' EXIT

# $work/gsm8k from `verlpp data gsm8k` over the shared GSM8K, else the 8-row fixture.
prepare_gsm8k() {
  local raw=/work/shared/data/gsm8k out
  [ -f "$raw/train.jsonl" ] || raw="$SRC/tests/fixtures/data/gsm8k_raw"
  out=$("$VERLPP" data gsm8k --input "$raw" --output "$work/gsm8k" 2>&1) || fail "data gsm8k: $out"
}
