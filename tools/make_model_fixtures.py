#!/usr/bin/env python3
"""Makes tests/fixtures/model/: tiny random-init Hugging Face checkpoints and transformers' outputs.

Run on a machine with torch + transformers (the GPU machine, through tools/gpu/model.sh):
    python3 tools/make_model_fixtures.py tests/fixtures/model

For each model below it writes <out>/<name>/ (config.json + safetensors, as save_pretrained writes
them) and <out>/<name>.reference.safetensors with, for three packed sequences:
  input_ids [T] int64, position_ids [T] int64, cu_seqlens [S+1] int32,
  targets [T] int64 (next token in the same sequence; 0 at each sequence's last token),
  loss_mask [T] f32 (0 at each sequence's last token),
  logits [T, V] f32, logprobs [T] f32, entropy [T] f32 (of softmax(logits / temperature)),
  grad.<parameter name> f32: gradients of
     loss = -sum(logprobs * mask) / sum(mask) - entropy_coeff * sum(entropy * mask) / sum(mask).
All reference values come from transformers' eager attention in fp32 on the CPU, one sequence at a
time (batch 1, positions 0..L-1), with the checkpoint re-loaded from disk by from_pretrained.
<out>/reference.json holds the constants, versions and, when a GPU is present, the largest
|logits_bf16 - logits_fp32| that transformers itself shows on the GPU (eager and sdpa attention).
"""
import inspect
import itertools
import json
import os
import sys

import torch
import transformers
from safetensors.torch import save_file
from transformers import AutoModelForCausalLM, LlamaConfig, Qwen2Config, Qwen3Config

TEMPERATURE = 0.7
ENTROPY_COEFF = 0.01
SEQ_LENS = [7, 12, 5]
INIT_STD = 0.08

COMMON = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=2, max_position_embeddings=256, rms_norm_eps=1e-6,
              initializer_range=INIT_STD, hidden_act="silu")

LLAMA3_SCALING = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                  "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}

# name, config class, extra config kwargs, rope theta, rope scaling, saved dtype, max shard size
MODELS = [
    ("qwen2", Qwen2Config, dict(vocab_size=384, tie_word_embeddings=False, use_sliding_window=False),
     1e6, None, torch.float32, None),
    ("qwen3_tied", Qwen3Config, dict(vocab_size=320, head_dim=32, tie_word_embeddings=True,
                                     attention_bias=False), 1e6, None, torch.bfloat16, None),
    ("qwen3_sharded", Qwen3Config, dict(vocab_size=352, head_dim=16, num_hidden_layers=3,
                                        tie_word_embeddings=False, attention_bias=False),
     1e6, None, torch.float32, "100KB"),
    ("llama3", LlamaConfig, dict(vocab_size=416, head_dim=16, tie_word_embeddings=False,
                                 attention_bias=False, mlp_bias=False),
     500000.0, LLAMA3_SCALING, torch.float16, None),
]


def rope_kwargs(cls, theta, scaling):
    """transformers 5 takes rope_parameters; 4.x takes rope_theta + rope_scaling."""
    if "rope_parameters" in inspect.signature(cls.__init__).parameters:
        params = {"rope_type": "default", "rope_theta": theta}
        params.update(scaling or {})
        return {"rope_parameters": params}
    kwargs = {"rope_theta": theta}
    if scaling:
        kwargs["rope_scaling"] = dict(scaling)
    return kwargs


def init_parameters(model, gen):
    """Every parameter from our own generator: norms 1 + 0.2 N(0,1), biases 0.1 N(0,1), others
    INIT_STD N(0,1), so that norm weights and biases are not at their trivial defaults."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if "norm" in name:
                p.copy_(1.0 + 0.2 * noise)
            elif name.endswith(".bias"):
                p.copy_(0.1 * noise)
            else:
                p.copy_(INIT_STD * noise)


def save_kwargs(model, shard):
    params = inspect.signature(model.save_pretrained).parameters
    kwargs = {}
    if "safe_serialization" in params:
        kwargs["safe_serialization"] = True
    if shard:
        kwargs["max_shard_size"] = shard
    return kwargs


def load(path, impl):
    model, info = AutoModelForCausalLM.from_pretrained(path, attn_implementation=impl,
                                                       output_loading_info=True)
    bad = {k: v for k, v in info.items() if v and k in ("missing_keys", "unexpected_keys",
                                                         "mismatched_keys")}
    if bad:
        raise SystemExit(f"{path}: loading info {bad}")
    return model.eval()


def seq_logits(model, ids, device):
    out, off = [], 0
    for n in SEQ_LENS:
        x = ids[off:off + n][None].to(device)
        pos = torch.arange(n, device=device)[None]
        out.append(model(input_ids=x, position_ids=pos, use_cache=False).logits[0].float().cpu())
        off += n
    return torch.cat(out)


def logprob_entropy(logits, targets):
    logp = torch.log_softmax(logits.float() / TEMPERATURE, dim=-1)
    lp = logp.gather(-1, targets[:, None])[:, 0]
    ent = -(logp.exp() * logp).sum(-1)
    return lp, ent


def grad_names(model, n_layers):
    last = n_layers - 1
    names = []
    for name, _ in model.named_parameters():
        if (".layers.0.self_attn." in name or f".layers.{last}.mlp.down_proj" in name
                or f".layers.{last}.input_layernorm" in name or name in (
                    "model.norm.weight", "lm_head.weight", "model.embed_tokens.weight")):
            names.append(name)
    return names


def make_inputs(vocab, gen):
    total = sum(SEQ_LENS)
    ids = torch.randint(0, vocab, (total,), generator=gen)
    pos = torch.cat([torch.arange(n) for n in SEQ_LENS])
    cu = torch.tensor([0] + list(itertools.accumulate(SEQ_LENS)), dtype=torch.int32)
    targets = torch.zeros(total, dtype=torch.int64)
    mask = torch.zeros(total)
    for s in range(len(SEQ_LENS)):
        a, b = int(cu[s]), int(cu[s + 1])
        targets[a:b - 1] = ids[a + 1:b]
        mask[a:b - 1] = 1.0
    return ids, pos, cu, targets, mask


def make_one(out, spec, seed, meta):
    name, cls, extra, theta, scaling, dtype, shard = spec
    gen = torch.Generator().manual_seed(seed)
    config = cls(**{**COMMON, **extra}, **rope_kwargs(cls, theta, scaling))
    model = AutoModelForCausalLM.from_config(config)
    init_parameters(model, gen)
    path = os.path.join(out, name)
    model.to(dtype).save_pretrained(path, **save_kwargs(model, shard))
    with open(os.path.join(path, "config.json")) as f:
        saved = json.load(f)
    if scaling and "llama3" not in json.dumps(saved):
        raise SystemExit(f"{name}: rope scaling missing from saved config.json")

    ref = load(path, "eager").float()
    ids, pos, cu, targets, mask = make_inputs(config.vocab_size, gen)
    logits = seq_logits(ref, ids, "cpu")
    lp, ent = logprob_entropy(logits, targets)
    loss = -(lp * mask).sum() / mask.sum() - ENTROPY_COEFF * (ent * mask).sum() / mask.sum()
    ref.zero_grad()
    loss.backward()
    names = grad_names(ref, config.num_hidden_layers)
    params = dict(ref.named_parameters())
    tensors = {"input_ids": ids, "position_ids": pos, "cu_seqlens": cu, "targets": targets,
               "loss_mask": mask, "logits": logits.detach(), "logprobs": lp.detach(),
               "entropy": ent.detach()}
    for n in names:
        tensors["grad." + n] = params[n].grad.detach().float().clone()
    save_file({k: v.contiguous() for k, v in tensors.items()},
              os.path.join(out, f"{name}.reference.safetensors"))

    entry = {"saved_dtype": str(dtype).replace("torch.", ""), "max_shard_size": shard,
             "seed": seed, "loss": loss.item(), "grad_params": names,
             "files": sorted(os.listdir(path))}
    if torch.cuda.is_available():
        diffs = {}
        for impl in ("eager", "sdpa"):
            m = load(path, impl).to(device="cuda", dtype=torch.bfloat16)
            with torch.no_grad():
                diffs[impl] = (seq_logits(m, ids, "cuda") - logits.detach()).abs().max().item()
            del m
        entry["bf16_vs_fp32_logits_max_abs"] = diffs
        entry["bf16_tolerance"] = max(diffs.values())
    meta["models"][name] = entry
    print(name, json.dumps(entry), flush=True)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/model"
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    meta = {"script": "tools/make_model_fixtures.py", "transformers": transformers.__version__,
            "torch": torch.__version__, "cuda": torch.cuda.is_available(),
            "temperature": TEMPERATURE, "entropy_coeff": ENTROPY_COEFF, "seq_lens": SEQ_LENS,
            "models": {}}
    for i, spec in enumerate(MODELS):
        make_one(out, spec, 1000 + i, meta)
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
