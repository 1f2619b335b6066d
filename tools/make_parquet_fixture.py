#!/usr/bin/env python3
"""Makes tests/fixtures/data/gsm8k_verl/: verl-schema GSM8K rows as JSONL and (where pyarrow is
installed) as Parquet, from the raw GSM8K sample in tests/fixtures/data/gsm8k_raw/.

The row construction follows verl's examples/data_preprocess/gsm8k.py (verl @1dda039b9):
  prompt content = question + " " + instruction_following
  ground_truth   = re.search("#### (\\-?[0-9\\.\\,]+)", answer).group(0).split("#### ")[1].replace(",", "")
  data_source "openai/gsm8k", ability "math", reward_model {style: rule, ground_truth},
  extra_info {split, index, answer (raw), question (raw)}.
The Parquet file is written with pyarrow from the same Python rows (pa.Table.from_pylist), as verl's
preprocessing writes Parquet through Arrow; the JSONL twin is json.dumps of each row.

Usage: python3 tools/make_parquet_fixture.py [OUT_DIR]   (default tests/fixtures/data/gsm8k_verl)
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAW = os.path.join(ROOT, "tests", "fixtures", "data", "gsm8k_raw")
INSTRUCTION = 'Let\'s think step by step and output the final answer after "####".'


def extract_solution(answer):
    match = re.search("#### (\\-?[0-9\\.\\,]+)", answer)
    return match.group(0).split("#### ")[1].replace(",", "")


def make_rows(split):
    rows = []
    with open(os.path.join(RAW, split + ".jsonl"), encoding="utf-8") as f:
        for idx, line in enumerate(f):
            example = json.loads(line)
            question_raw = example["question"]
            answer_raw = example["answer"]
            rows.append({
                "data_source": "openai/gsm8k",
                "prompt": [{"role": "user", "content": question_raw + " " + INSTRUCTION}],
                "ability": "math",
                "reward_model": {"style": "rule", "ground_truth": extract_solution(answer_raw)},
                "extra_info": {"split": split, "index": idx, "answer": answer_raw, "question": question_raw},
            })
    return rows


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "fixtures", "data", "gsm8k_verl")
    os.makedirs(out, exist_ok=True)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        pa = None
        print("pyarrow not installed: writing JSONL only")
    for split in ("train", "test"):
        rows = make_rows(split)
        with open(os.path.join(out, split + ".jsonl"), "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        if pa is not None:
            table = pa.Table.from_pylist(rows)
            pq.write_table(table, os.path.join(out, split + ".parquet"))
            print(split, table.schema)
    if pa is not None:
        print("pyarrow", pa.__version__)


if __name__ == "__main__":
    main()
