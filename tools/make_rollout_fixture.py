#!/usr/bin/env python3
"""Makes tests/fixtures/rollout/greedy.json: transformers' greedy `generate` on the random-init
checkpoints of tests/fixtures/model (made by tools/make_model_fixtures.py).

Run on a machine with torch + transformers (the GPU machine, through tools/gpu/rollout.sh; CPU torch
is enough):
    python3 tools/make_rollout_fixture.py tests/fixtures/model tests/fixtures/rollout

For each checkpoint: the model in fp32 on the CPU with eager attention, a batch of prompts of
different lengths (random ids from a seeded generator), left-padded with PAD as transformers needs
for generation, then generate(do_sample=False, max_new_tokens=MAX_NEW_TOKENS) with eos disabled so
that every row runs to MAX_NEW_TOKENS (generate without the cache must give the same tokens).
Written per model: the prompts (unpadded), the generated
tokens, and log_softmax(logits)[token] of each generated token from generate's raw logits
(output_logits=True), i.e. log-probs at temperature 1.
"""
import json
import os
import sys

import torch
import transformers
from transformers import AutoModelForCausalLM

MODELS = ["qwen2", "qwen3_tied", "qwen3_sharded", "llama3", "qwen3_moe", "qwen3_moe_sparse"]
PROMPT_LENS = [5, 11, 3, 8, 1]
MAX_NEW_TOKENS = 12
PAD = 0
SEED = 77


def load(path):
    model = AutoModelForCausalLM.from_pretrained(path, attn_implementation="eager")
    return model.float().eval()


def left_pad(prompts):
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), PAD, dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, p in enumerate(prompts):
        ids[i, width - len(p):] = torch.tensor(p)
        mask[i, width - len(p):] = 1
    return ids, mask


def make_one(model_dir, name, gen):
    model = load(os.path.join(model_dir, name))
    vocab = model.config.vocab_size
    # ids >= 1 so that no prompt token equals PAD
    prompts = [torch.randint(1, vocab, (n,), generator=gen).tolist() for n in PROMPT_LENS]
    ids, mask = left_pad(prompts)
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = PAD
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=mask, do_sample=False,
                             max_new_tokens=MAX_NEW_TOKENS, min_new_tokens=0, num_beams=1,
                             eos_token_id=None, pad_token_id=PAD, return_dict_in_generate=True,
                             output_logits=True, use_cache=True)
    tokens = out.sequences[:, ids.shape[1]:]
    if tokens.shape[1] != MAX_NEW_TOKENS:
        raise SystemExit(f"{name}: generated {tokens.shape[1]} tokens, expected {MAX_NEW_TOKENS}")
    logits = torch.stack(out.logits, dim=1).float()  # [B, new, V]
    if not torch.equal(logits.argmax(-1), tokens):
        raise SystemExit(f"{name}: generated tokens are not the argmax of the returned logits")
    logprobs = torch.log_softmax(logits, -1).gather(-1, tokens[..., None])[..., 0]
    with torch.no_grad():
        uncached = model.generate(input_ids=ids, attention_mask=mask, do_sample=False,
                                  max_new_tokens=MAX_NEW_TOKENS, min_new_tokens=0, num_beams=1,
                                  eos_token_id=None, pad_token_id=PAD, use_cache=False)
    if not torch.equal(uncached[:, ids.shape[1]:], tokens):
        raise SystemExit(f"{name}: generate without the KV cache gives other tokens")
    return {"prompts": prompts, "responses": tokens.tolist(),
            "logprobs": [[round(x, 7) for x in row] for row in logprobs.tolist()]}


def main():
    model_dir = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/model"
    out_dir = sys.argv[2] if len(sys.argv) > 2 else "tests/fixtures/rollout"
    os.makedirs(out_dir, exist_ok=True)
    gen = torch.Generator().manual_seed(SEED)
    result = {"script": "tools/make_rollout_fixture.py", "transformers": transformers.__version__,
              "torch": torch.__version__, "max_new_tokens": MAX_NEW_TOKENS, "pad_token_id": PAD,
              "prompt_lens": PROMPT_LENS, "models": {}}
    for name in MODELS:
        result["models"][name] = make_one(model_dir, name, gen)
        print(name, "ok", result["models"][name]["responses"][0], flush=True)
    with open(os.path.join(out_dir, "greedy.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
