#!/usr/bin/env python3
"""Baseline for bench/tokenizer_encode_bench: Hugging Face `tokenizers` encode throughput on the
same strings (each GSM8K question and answer is one string) and the same tokenizer.json.

  python3 bench/baselines/tokenizer_encode_hf.py --tokenizer DIR --data train.jsonl --out hf.json

Times (best of --repeats, after one warm-up pass; the BPE cache is warm in both libraries):
  single: a Python loop of Tokenizer.encode(text) (one thread, includes Python call overhead)
  batch:  Tokenizer.encode_batch(texts) (rayon threads: all cores, or RAYON_NUM_THREADS)
Writes bytes, strings, tokens, an id checksum (sum of ids) and the times as JSON.
"""
import argparse
import json
import os
import time

import tokenizers


def load_texts(path):
    texts = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            texts.append(row["question"])
            texts.append(row["answer"])
    return texts


def best_time(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tokenizer", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    tok = tokenizers.Tokenizer.from_file(os.path.join(args.tokenizer, "tokenizer.json"))
    texts = load_texts(args.data)
    encodings = tok.encode_batch(texts, add_special_tokens=False)
    tokens = sum(len(e.ids) for e in encodings)
    checksum = sum(sum(e.ids) for e in encodings)
    single = best_time(lambda: [tok.encode(t, add_special_tokens=False) for t in texts], args.repeats)
    batch = best_time(lambda: tok.encode_batch(texts, add_special_tokens=False), args.repeats)
    result = {
        "library": "tokenizers " + tokenizers.__version__,
        "strings": len(texts),
        "bytes": sum(len(t.encode("utf-8")) for t in texts),
        "tokens": tokens,
        "checksum": checksum,
        "single_s": single,
        "batch_s": batch,
        "batch_threads": os.environ.get("RAYON_NUM_THREADS", str(os.cpu_count())),
    }
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
