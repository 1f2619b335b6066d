#!/usr/bin/env python3
"""Writes tests/fixtures/rollout/<model>.prompt_ids.jsonl and <model>.response_ids.jsonl from
tests/fixtures/rollout/greedy.json (transformers' greedy generate, tools/make_rollout_fixture.py)
for the `verlpp generate --input` end-to-end test: one {"prompt_ids": [...]} line per prompt, and
the {"response_ids": [...]} line transformers generated for it.

    python3 tools/make_generate_ids_fixture.py tests/fixtures/rollout qwen3_moe qwen3_moe_sparse
"""
import json
import os
import sys


def main():
    folder = sys.argv[1]
    with open(os.path.join(folder, "greedy.json")) as f:
        greedy = json.load(f)
    for name in sys.argv[2:]:
        entry = greedy["models"][name]
        with open(os.path.join(folder, f"{name}.prompt_ids.jsonl"), "w") as f:
            for p in entry["prompts"]:
                f.write(json.dumps({"prompt_ids": p}, separators=(",", ":")) + "\n")
        with open(os.path.join(folder, f"{name}.response_ids.jsonl"), "w") as f:
            for r in entry["responses"]:
                f.write(json.dumps({"response_ids": r}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
