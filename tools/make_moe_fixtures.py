#!/usr/bin/env python3
"""Makes the Qwen3-MoE fixtures of tests/fixtures/model: tiny random-init Qwen3MoeForCausalLM
checkpoints and transformers' outputs on them.

Run on a machine with torch + transformers (the GPU machine, through `REGEN_FIXTURES=1 tools/gpu/moe.sh`):
    python3 tools/make_moe_fixtures.py tests/fixtures/model

Models (odd shapes on purpose: experts not a power of two, top-k 3, a dense layer, untied):
  qwen3_moe        3 layers, 6 experts, top-k 3, norm_topk_prob, mlp_only_layers [1], fp32,
                   saved by save_pretrained (per-expert tensors, the hub layout)
  qwen3_moe_fused  the same weights written in transformers 5's in-memory layout
                   (mlp.experts.gate_up_proj [E, 2I, h], mlp.experts.down_proj [E, h, I])
  qwen3_moe_sparse 4 layers, 5 experts, top-k 2, decoder_sparse_step 2 (layers 1 and 3 sparse),
                   norm_topk_prob false, bf16, saved by save_pretrained

For each (qwen3_moe_fused shares qwen3_moe's reference) <out>/<name>.reference.safetensors holds, for
three sequences (7, 12, 5 tokens) packed back to back:
  input_ids, position_ids, cu_seqlens, targets, loss_mask (as tools/make_model_fixtures.py),
  logits [T, V], logprobs [T], entropy [T] (softmax(logits / temperature)),
  router_logits.<layer> [T, E] of every sparse layer,
  grad.<parameter> of loss = -mean(logprobs) - entropy_coeff * mean(entropy) + AUX_COEF * aux,
where aux is transformers' load_balancing_loss_func over all real tokens of the three sequences,
taken from a right-padded batch forward with its attention mask and output_router_logits=True
(MoeCausalLMOutputWithPast.aux_loss). Every value is fp32 on the CPU with eager attention.
<out>/reference_moe.json: constants, losses, aux, the smallest gap between the k-th and (k+1)-th
router logit of any token (at least MIN_TOPK_LOGIT_GAP, else the next seed is tried: routing must
not sit on a tie that bf16 rounding could flip), versions, and on a GPU the
largest |logits_bf16 - logits_fp32| transformers itself shows (eager and sdpa).
"""
import json
import os
import shutil
import sys

import torch
import transformers
from safetensors.torch import save_file
from transformers import AutoModelForCausalLM, Qwen3MoeConfig
from transformers.models.qwen3_moe import modeling_qwen3_moe

from make_model_fixtures import (ENTROPY_COEFF, INIT_STD, SEQ_LENS, TEMPERATURE, load,
                                 logprob_entropy, make_inputs)

AUX_COEF = 0.1
# The least gap between any token's k-th and (k+1)-th router logit: bf16 rounds logits by about
# 0.4 % of their size, so a smaller gap could flip the routing between fp32 and bf16 runs.
MIN_TOPK_LOGIT_GAP = 1e-2
COMMON = dict(hidden_size=64, intermediate_size=96, num_attention_heads=4, num_key_value_heads=2,
              head_dim=16, max_position_embeddings=256, rms_norm_eps=1e-6,
              initializer_range=INIT_STD, hidden_act="silu", tie_word_embeddings=False,
              attention_bias=False, use_sliding_window=False,
              rope_parameters={"rope_type": "default", "rope_theta": 1e6})

MODELS = [
    ("qwen3_moe", dict(vocab_size=288, num_hidden_layers=3, num_experts=6, num_experts_per_tok=3,
                       moe_intermediate_size=48, norm_topk_prob=True, mlp_only_layers=[1],
                       decoder_sparse_step=1), torch.float32),
    ("qwen3_moe_sparse", dict(vocab_size=272, num_hidden_layers=4, num_experts=5,
                              num_experts_per_tok=2, moe_intermediate_size=32,
                              norm_topk_prob=False, mlp_only_layers=[], decoder_sparse_step=2),
     torch.bfloat16),
]


def sparse_layers(config):
    return [i for i in range(config.num_hidden_layers)
            if i not in (config.mlp_only_layers or []) and config.num_experts > 0
            and (i + 1) % config.decoder_sparse_step == 0]


def init_parameters(model, gen):
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if "norm" in name:
                p.copy_(1.0 + 0.2 * noise)
            elif name.endswith("mlp.gate.weight"):
                p.copy_(0.1 * noise)  # routers spread over the experts
            else:
                p.copy_(INIT_STD * noise)


def padded_batch(ids, cu):
    rows = len(SEQ_LENS)
    width = max(SEQ_LENS)
    x = torch.zeros(rows, width, dtype=torch.long)
    m = torch.zeros(rows, width, dtype=torch.long)
    for s in range(rows):
        a, b = int(cu[s]), int(cu[s + 1])
        x[s, :b - a] = ids[a:b]
        m[s, :b - a] = 1
    return x, m


def unpad(t, m):
    """[rows, width, ...] -> [T, ...] of the real tokens, row by row."""
    return t[m.bool()]


def per_sequence_logits(model, ids, cu, device):
    out = []
    for s in range(len(SEQ_LENS)):
        a, b = int(cu[s]), int(cu[s + 1])
        x = ids[a:b][None].to(device)
        pos = torch.arange(b - a, device=device)[None]
        out.append(model(input_ids=x, position_ids=pos, use_cache=False).logits[0].float().cpu())
    return torch.cat(out)


def own_aux(router_logits, num_experts, top_k):
    """aux = E * sum_e (c_e / R) * (P_e / R) over every sparse layer's rows (models.md §1)."""
    cat = torch.cat(router_logits, 0)
    p = torch.softmax(cat, -1)
    idx = torch.topk(p, top_k, -1).indices
    counts = torch.nn.functional.one_hot(idx, num_experts).sum((0, 1)).float()
    rows = cat.shape[0]
    return num_experts * ((counts / rows) * (p.sum(0) / rows)).sum()


def fused_copy(src, dst, model):
    """The same weights under transformers 5's in-memory (fused) names."""
    os.makedirs(dst, exist_ok=True)
    for f in ("config.json", "generation_config.json"):
        if os.path.exists(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), os.path.join(dst, f))
    state = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    if not any(".experts.gate_up_proj" in k for k in state):
        raise SystemExit("transformers kept per-expert modules in memory; no fused layout to write")
    save_file(state, os.path.join(dst, "model.safetensors"), metadata={"format": "pt"})
    return sorted(state)


def make_one(out, name, extra, dtype, seed, meta):
    """Writes one model and its reference; (None, None) when its routing has a near tie."""
    gen = torch.Generator().manual_seed(seed)
    config = Qwen3MoeConfig(**{**COMMON, **extra})
    model = AutoModelForCausalLM.from_config(config)
    init_parameters(model, gen)
    path = os.path.join(out, name)
    model.to(dtype).save_pretrained(path)
    saved_keys = []
    with open(os.path.join(path, "model.safetensors"), "rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
        saved_keys = sorted(k for k in header if k != "__metadata__")
    if not any(".experts.0.gate_proj.weight" in k for k in saved_keys):
        raise SystemExit(f"{name}: save_pretrained did not write per-expert tensors: {saved_keys}")

    ref = load(path, "eager").float()
    entry = {"saved_dtype": str(dtype).replace("torch.", ""), "seed": seed,
             "experts_implementation": getattr(ref.config, "_experts_implementation", None),
             "sparse_layers": sparse_layers(ref.config), "files": sorted(os.listdir(path))}
    ids, pos, cu, targets, mask = make_inputs(config.vocab_size, gen)

    with torch.no_grad():
        logits_seq = per_sequence_logits(ref, ids, cu, "cpu")
    x, m = padded_batch(ids, cu)
    ref.zero_grad()
    out_pad = ref(input_ids=x, attention_mask=m, use_cache=False, output_router_logits=True)
    logits = unpad(out_pad.logits.float(), m)
    entry["padded_vs_sequence_logits_max_abs"] = (logits - logits_seq).abs().max().item()
    if entry["padded_vs_sequence_logits_max_abs"] > 1e-5:
        raise SystemExit(f"{name}: padded batch logits differ from per-sequence ones {entry}")
    width = x.shape[1]
    router = [unpad(r.float().view(len(SEQ_LENS), width, -1), m) for r in out_pad.router_logits]
    if len(router) != len(entry["sparse_layers"]):
        raise SystemExit(f"{name}: {len(router)} router outputs for sparse layers "
                         f"{entry['sparse_layers']}")
    aux = out_pad.aux_loss
    mine = own_aux(router, config.num_experts, config.num_experts_per_tok)
    entry["aux_loss"] = aux.item()
    entry["own_aux_loss"] = mine.item()
    if abs(aux.item() - mine.item()) > 1e-5:
        raise SystemExit(f"{name}: transformers aux {aux.item()} != formula {mine.item()}")
    ordered = torch.cat(router, 0).sort(-1, descending=True).values
    k = config.num_experts_per_tok
    entry["min_topk_logit_gap"] = (ordered[:, k - 1] - ordered[:, k]).min().item()
    if entry["min_topk_logit_gap"] < MIN_TOPK_LOGIT_GAP:
        return None, None  # a token's routing sits on a near tie: the caller tries another seed

    lp, ent = logprob_entropy(logits, targets)
    loss = (-(lp * mask).sum() / mask.sum() - ENTROPY_COEFF * (ent * mask).sum() / mask.sum()
            + AUX_COEF * aux)
    loss.backward()
    entry["loss"] = loss.item()
    tensors = {"input_ids": ids, "position_ids": pos, "cu_seqlens": cu, "targets": targets,
               "loss_mask": mask, "logits": logits.detach(), "logprobs": lp.detach(),
               "entropy": ent.detach()}
    for layer, r in zip(entry["sparse_layers"], router):
        tensors[f"router_logits.{layer}"] = r.detach()
    names = []
    for pname, p in ref.named_parameters():
        if p.grad is None:
            raise SystemExit(f"{name}: no gradient for {pname}")
        tensors["grad." + pname] = p.grad.detach().float().clone()
        names.append(pname)
    entry["grad_params"] = names
    save_file({k: v.contiguous() for k, v in tensors.items()},
              os.path.join(out, f"{name}.reference.safetensors"))

    if torch.cuda.is_available():
        diffs = {}
        for impl in ("eager", "sdpa"):
            gm = load(path, impl).to(device="cuda", dtype=torch.bfloat16)
            with torch.no_grad():
                diffs[impl] = (per_sequence_logits(gm, ids, cu, "cuda") - logits_seq).abs().max().item()
            del gm
        entry["bf16_vs_fp32_logits_max_abs"] = diffs
        entry["bf16_tolerance"] = max(diffs.values())
    return entry, ref


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/model"
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    meta = {"script": "tools/make_moe_fixtures.py", "transformers": transformers.__version__,
            "torch": torch.__version__, "cuda": torch.cuda.is_available(),
            "temperature": TEMPERATURE, "entropy_coeff": ENTROPY_COEFF, "aux_coef": AUX_COEF,
            "seq_lens": SEQ_LENS, "models": {}}
    for i, (name, extra, dtype) in enumerate(MODELS):
        for seed in range(2000 + 100 * i, 2000 + 100 * i + 100):
            entry, model = make_one(out, name, extra, dtype, seed, meta)
            if entry is not None:
                break
        if entry is None:
            raise SystemExit(f"{name}: every seed tried routes some token on a near tie")
        meta["models"][name] = entry
        print(name, json.dumps(entry), flush=True)
        if name == "qwen3_moe":
            keys = fused_copy(os.path.join(out, name), os.path.join(out, "qwen3_moe_fused"), model)
            meta["models"]["qwen3_moe_fused"] = {"same_weights_as": "qwen3_moe", "keys": keys}
    meta["load_balancing_loss_func"] = modeling_qwen3_moe.load_balancing_loss_func.__module__
    with open(os.path.join(out, "reference_moe.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
