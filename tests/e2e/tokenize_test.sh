#!/usr/bin/env bash
# `verlpp tokenize` on the real Qwen3 tokenizer. Expected ids are those of HF tokenizers /
# transformers in tests/fixtures/tokenizers/qwen3_{parity,chat}.jsonl.
# Usage: tokenize_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
cd "$2"
TOK=tests/fixtures/tokenizers/qwen3
failures=0
expect() {  # expect NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL: $1: expected [$2], got [$3]"; failures=$((failures + 1)); fi
}

out=$(printf 'Hello, world!\n' | "$VERLPP" tokenize --tokenizer "$TOK")
expect "plain text" "[9707,11,1879,0]" "$out"

out=$(printf '"<|im_start|>user\\nHello<|im_end|>\\n<|im_start|>assistant\\n"\n' |
      "$VERLPP" tokenize --tokenizer "$TOK" --json-lines)
expect "JSON line with special tokens" "[151644,872,198,9707,151645,198,151644,77091,198]" "$out"

out=$(printf '[{"role": "user", "content": "Hello!"}]\n{"messages": [{"role": "user", "content": "Hello!"}]}\n' |
      "$VERLPP" tokenize --tokenizer "$TOK" --chat --add-generation-prompt)
expect "chat" "[151644,872,198,9707,0,151645,198,151644,77091,198]
[151644,872,198,9707,0,151645,198,151644,77091,198]" "$out"

out=$(printf '[{"role": "user", "content": "Hello!"}]\n' |
      "$VERLPP" tokenize --tokenizer "$TOK" --chat --add-generation-prompt \
        --context '{"enable_thinking": false}' --show-text)
expect "chat without thinking" '"<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
[151644,872,198,9707,0,151645,198,151644,77091,198,151667,271,151668,271]' "$out"

out=$(printf '[{"role": "user", "content": "a"}]\n[{"role": oops}]\n' |
      "$VERLPP" tokenize --tokenizer "$TOK" --chat 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "standard input line 2: expected a JSON array of messages" <<<"$out"; then
  echo "FAIL: bad chat line (exit $rc): $out"; failures=$((failures + 1))
fi
out=$(printf 'x\n' | "$VERLPP" tokenize --tokenizer /nonexistent/tok 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "/nonexistent/tok: tokenizer directory does not exist" <<<"$out"; then
  echo "FAIL: missing tokenizer (exit $rc): $out"; failures=$((failures + 1))
fi
out=$(printf 'ok\n\xff\n' | "$VERLPP" tokenize --tokenizer "$TOK" 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "standard input line 2: encode: invalid UTF-8 at byte 0" <<<"$out"; then
  echo "FAIL: invalid UTF-8 (exit $rc): $out"; failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] && echo "tokenize e2e: all passed"
exit "$failures"
