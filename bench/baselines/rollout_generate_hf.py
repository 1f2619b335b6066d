#!/usr/bin/env python3
"""transformers `generate` baseline for bench/rollout_generate_bench.cpp (verlpp_rollout_bench).

--preset qwen3-0.6b (the default; unchanged): the Qwen3-0.6B shape (Qwen/Qwen3-0.6B config.json,
as verlpp's model::presets). --preset qwen3.5-2b (or any other preset of
bench/baselines/train_step_hf.py): that script's config, every field as
src/verlpp/model/presets.cpp sets it; Qwen3.5's Gated DeltaNet runs transformers' torch fallback
on the GPU machine (no fla / causal_conv1d there: chunked delta rule for the prefill, the
token-by-token recurrent rule and torch conv update per decode step; stderr names what ran, and the
result's "delta_rule"). Random weights (initializer_range 0.02), bf16 on one CUDA GPU, SDPA
attention, default (dynamic) cache. Every prompt is prompt-length random ids (no padding); every
response is response-length tokens (no eos), sampled at temperature 1 with top_k/top_p off. One
warm-up call on 8 prompts first.

    python3 bench/baselines/rollout_generate_hf.py [--preset qwen3-0.6b] [--prompts 256]
        [--prompt-length 512] [--response-length 1024] [--output hf.json]

Prints and writes one JSON object: output tokens/s (responses only, prefill included), peak CUDA
memory allocated (torch.cuda.max_memory_allocated, GiB) and "mfu": verl's FLOPs formula
(train_step_hf.training_flops) over prompt + response tokens per sequence, divided by 3 (forward
only), over the measured seconds, against the H200's 989 TFLOP/s; verlpp's rollout bench does the
same work, so its MFU on the same shape is this one times its speedup.
"""
import argparse
import inspect
import json
import sys
import time

import torch
import transformers
from transformers import AutoModelForCausalLM, Qwen3Config

from train_step_hf import config_for, delta_rule_implementation, is_torch_fallback, training_flops

SHAPE = dict(vocab_size=151936, hidden_size=1024, intermediate_size=3072, num_hidden_layers=28,
             num_attention_heads=16, num_key_value_heads=8, head_dim=128,
             max_position_embeddings=40960, rms_norm_eps=1e-6, tie_word_embeddings=True,
             attention_bias=False, initializer_range=0.02, use_cache=True)
THETA = 1000000.0


def config():
    if "rope_parameters" in inspect.signature(Qwen3Config.__init__).parameters:
        return Qwen3Config(**SHAPE, rope_parameters={"rope_type": "default", "rope_theta": THETA})
    return Qwen3Config(**SHAPE, rope_theta=THETA)


def generate(model, batch, prompt_len, new_tokens, seed):
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, SHAPE["vocab_size"], (batch, prompt_len), generator=gen).cuda()
    mask = torch.ones_like(ids)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=mask, do_sample=True, temperature=1.0,
                             top_k=0, top_p=1.0, max_new_tokens=new_tokens, eos_token_id=None,
                             pad_token_id=0)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    generated = out.shape[1] - prompt_len
    if generated != new_tokens:
        raise SystemExit(f"generated {generated} tokens per row, expected {new_tokens}")
    return batch * generated, seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prompts", type=int, default=256)
    ap.add_argument("--prompt-length", type=int, default=512)
    ap.add_argument("--response-length", type=int, default=1024)
    ap.add_argument("--output")
    ap.add_argument("--preset", default="qwen3-0.6b")
    args = ap.parse_args()
    torch.manual_seed(0)
    cfg = config()
    if args.preset != "qwen3-0.6b":
        cfg = config_for(args.preset, 0)
        SHAPE["vocab_size"] = cfg.vocab_size
    # Presets other than the default are drawn in bf16 (a 30B MoE drawn in fp32 would not fit one
    # GPU); the default keeps its fp32 draw, then the cast.
    dtype = {} if args.preset == "qwen3-0.6b" else {"dtype": torch.bfloat16}
    with torch.device("cuda"):
        model = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa", **dtype)
    model = model.to(torch.bfloat16).eval()
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    implementations = delta_rule_implementation(model)
    if implementations is not None:
        print(f"rollout_generate_hf: delta rule implementations {implementations}", file=sys.stderr)
    generate(model, 8, 64, 16, 1)
    torch.cuda.reset_peak_memory_stats()
    tokens, seconds = generate(model, args.prompts, args.prompt_length, args.response_length, 2)
    flops = training_flops(cfg, [args.prompt_length + args.response_length] * args.prompts) / 3
    result = {"impl": "transformers", "preset": args.preset, "transformers": transformers.__version__,
              "torch": torch.__version__, "gpu": torch.cuda.get_device_name(0),
              "attn_implementation": "sdpa", "prompts": args.prompts,
              "prompt_length": args.prompt_length, "response_length": args.response_length,
              "output_tokens": tokens, "seconds": seconds, "tokens_per_s": tokens / seconds,
              "mfu": flops / seconds / 989e12,
              "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30,
              "delta_rule": implementations,
              "delta_rule_torch_fallback": is_torch_fallback(implementations)}
    print(json.dumps(result), flush=True)
    if args.output:
        with open(args.output, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
