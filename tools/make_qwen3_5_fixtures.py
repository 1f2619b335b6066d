#!/usr/bin/env python3
"""Makes the Qwen3.5 fixtures of tests/fixtures/model and tests/fixtures/rollout: tiny random-init
Qwen3.5 (dense and MoE) checkpoints, in both the text-only and the hub vision-language layouts, and
transformers' outputs on them.

Run on a machine with torch + transformers (the GPU machine, through tools/gpu/qwen3_5_fixtures.sh;
CPU torch is enough apart from the bf16 gaps):
    python3 tools/make_qwen3_5_fixtures.py tests/fixtures/model tests/fixtures/rollout

Models (odd shapes on purpose: rotary dim 6 of head_dim 24, Gated DeltaNet key/value head dims 40
and 24, three value heads per key head, layer types not every fourth, experts not a power of two):
  qwen3_5         Qwen3_5ForCausalLM (qwen3_5_text), 4 layers [linear, full, linear, linear],
                  untied, fp32, saved by save_pretrained
  qwen3_5_vl      the same weights as Qwen3_5ForConditionalGeneration (qwen3_5) stores them:
                  model.language_model.*, lm_head.weight, a tiny random model.visual.*, and a few
                  mtp.* tensors that transformers ignores
  qwen3_5_moe     Qwen3_5MoeForCausalLM (qwen3_5_moe_text), 3 layers [linear, linear, full], 5
                  experts, top-k 2, shared expert, tied embeddings (no lm_head.weight), fp32, saved
                  by save_pretrained (per-expert tensors)
  qwen3_5_moe_vl  the same weights in the hub layout of Qwen3_5MoeForConditionalGeneration
                  (qwen3_5_moe): experts fused (mlp.experts.gate_up_proj [E, 2Im, h], gate rows
                  first, and mlp.experts.down_proj [E, h, Im]), top-level tie_word_embeddings true
                  and none in text_config, no lm_head.weight, model.visual.* and mtp.*

Every parameter is drawn from a seeded torch.Generator: the zero-centred RMSNorm offsets (the model
uses 1 + w) 0.2 N(0,1), linear_attn.norm.weight (a plain gated norm) and dt_bias 1 + 0.2 N(0,1),
A_log log U(0.01, 1) (a decay that keeps a memory: with log U(1, 16) most heads forget within a
token or two, the gated norm then amplifies near-zero outputs and bf16 flips their signs:
transformers' own bf16 logits were 1.35 from fp32), conv1d.weight 0.3 N(0,1), routers ROUTER_STD N(0,1), shared_expert_gate
0.1 N(0,1), every other weight 0.08 N(0,1); the vision tower's LayerNorms 1 + 0.2 N(0,1) and its
biases 0.1 N(0,1).

For qwen3_5 and qwen3_5_moe, <out>/<name>.reference.safetensors holds, for four sequences of
SEQ_LENS tokens packed back to back (chunk boundaries of the 64-token delta-rule chunks and a
single-token sequence):
  input_ids [T] int64, position_ids [T] int64, cu_seqlens [S+1] int32,
  targets [T] int64 (next token of the same sequence; 0 at each sequence's last token),
  loss_mask [T] f32 (0 at each sequence's last token),
  logits [T, V] f32, logprobs [T] f32, entropy [T] f32 (of softmax(logits / temperature)),
  router_logits.<layer> [T, E] f32 of every layer (MoE only),
  grad.<parameter> f32 of every parameter, of
     loss = -mean(logprobs) - entropy_coeff * mean(entropy) (+ AUX_COEF * aux for the MoE model)
  over loss_mask, aux being transformers' load-balancing loss over the real tokens
  (MoeCausalLMOutputWithPast.aux_loss of a right-padded batch forward with its attention mask and
  output_router_logits=True), checked against our own formula.
Each sequence's reference is that sequence run alone (batch 1, positions 0..L-1): transformers'
packed path leaks the delta-rule state and the conv window from one sequence into the next
(models.md §3.3). The right-padded batch's real-token logits are checked against the per-sequence
ones (PAD_TOLERANCE) before its backward gives the gradients; if they differ, the gradients come
from the per-sequence forwards instead (and the json says so). Every reference value is computed in
float64 on the CPU with eager attention (the fp32 checkpoint re-loaded from disk by from_pretrained,
then .double()) and stored as fp32: the chunked delta rule in fp32 is itself about 1e-5 (logits)
from its float64 value on these models, in transformers as in verlpp. transformers' own fp32
distance from it is recorded per model (fp32_vs_float64_logits_max_abs, and
fp32_vs_float64_grad_max_rel over the parameters' gradients). A MoE seed is kept only when
the smallest gap between any token's k-th and (k+1)-th router logit is at least MIN_TOPK_LOGIT_GAP;
router scales from ROUTER_STDS are tried in order, the first that gives such a seed within
SEEDS_PER_STD seeds is used.

<out>/reference_qwen3_5.json: constants, sequence lengths, losses, aux losses, the smallest top-k
gap, layer types, versions, the keys save_pretrained wrote, the results of loading the VL folders
with Qwen3_5(Moe)ForConditionalGeneration and AutoModelForCausalLM (missing/unexpected keys, logits
difference to the text-only model), and on a GPU the largest |logits_bf16 - logits_fp32|
transformers itself shows (eager and sdpa), and the gradient parameter names.

<rollout>/greedy_qwen3_5.json: for qwen3_5 and qwen3_5_moe, fp32 CPU eager, prompts of PROMPT_LENS
tokens (random ids >= 1 from a seeded generator), left-padded with PAD and an attention mask,
generate(do_sample=False, max_new_tokens=MAX_NEW_TOKENS, eos disabled) as
tools/make_rollout_fixture.py does; each prompt is also generated alone (batch 1, no padding) and
must give the same tokens (if not, the per-prompt results are written and the json says so).
Written per model: prompts, responses, and log_softmax(logits)[token] of each generated token
(generate's output_logits, temperature 1); <rollout>/<name>.prompt_ids.jsonl and
<name>.response_ids.jsonl as tools/make_generate_ids_fixture.py writes them.
"""
import copy
import inspect
import itertools
import json
import math
import os
import re
import shutil
import sys

import torch
import transformers
from safetensors import safe_open
from safetensors.torch import save_file
from transformers import AutoModelForCausalLM

from make_model_fixtures import ENTROPY_COEFF, INIT_STD, TEMPERATURE, load, logprob_entropy
from make_moe_fixtures import AUX_COEF, MIN_TOPK_LOGIT_GAP, own_aux, unpad

SEQ_LENS = [7, 70, 1, 131]
PAD_TOLERANCE = 1e-5
VL_TOLERANCE = 1e-6
NORM_STD = 0.2
CONV_STD = 0.3
SHARED_GATE_STD = 0.1
# 0.1 (as in tools/make_moe_fixtures.py) leaves 12-17 of the 627 (token, layer) rows below a 1e-2
# top-k gap on every seed (router_std_probe in the json), so larger scales are tried after
# SEEDS_PER_STD seeds; the json records the scale and seed used.
ROUTER_STDS = [0.1, 0.3, 0.5, 1.0]
SEEDS_PER_STD = 40
MAX_FILE_BYTES = 2 * 1024 * 1024

PROMPT_LENS = [5, 70, 1, 9, 130]
MAX_NEW_TOKENS = 12
PAD = 0
GREEDY_SEED = 78

ROPE = {"rope_type": "default", "rope_theta": 1e6, "partial_rotary_factor": 0.25,
        "mrope_section": [1, 1, 1], "mrope_interleaved": True}
LINEAR = dict(linear_num_key_heads=2, linear_key_head_dim=40, linear_value_head_dim=24,
              linear_conv_kernel_dim=4)
TEXT_COMMON = dict(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=24,
                   max_position_embeddings=512, rms_norm_eps=1e-6, initializer_range=INIT_STD,
                   hidden_act="silu", attention_bias=False, rope_parameters=ROPE, **LINEAR)
DENSE = dict(TEXT_COMMON, vocab_size=304, intermediate_size=96, num_hidden_layers=4,
             layer_types=["linear_attention", "full_attention", "linear_attention",
                          "linear_attention"],
             linear_num_value_heads=6, tie_word_embeddings=False)
MOE = dict(TEXT_COMMON, vocab_size=288, num_hidden_layers=3,
           layer_types=["linear_attention", "linear_attention", "full_attention"],
           linear_num_value_heads=4, num_experts=5, num_experts_per_tok=2,
           moe_intermediate_size=32, shared_expert_intermediate_size=40, tie_word_embeddings=True)
VISION = dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, in_channels=3,
              patch_size=4, temporal_patch_size=2, spatial_merge_size=2, out_hidden_size=64,
              num_position_embeddings=16)
# Hub text_config keys that transformers does not define; the VL folders carry them as the hub does.
HUB_TEXT_EXTRAS = {"mtp_num_hidden_layers": 1, "mtp_use_dedicated_embeddings": False,
                   "mamba_ssm_dtype": "float32"}
FAILED = []  # checks that failed; the script still writes everything, then exits 1


def fail(msg):
    print("CHECK FAILED:", msg, flush=True)
    FAILED.append(msg)


def describe_api():
    """The class and config field names of the installed transformers, printed and returned."""
    names = ["Qwen3_5TextConfig", "Qwen3_5MoeTextConfig", "Qwen3_5Config", "Qwen3_5MoeConfig",
             "Qwen3_5VisionConfig", "Qwen3_5MoeVisionConfig", "Qwen3_5ForCausalLM",
             "Qwen3_5MoeForCausalLM", "Qwen3_5ForConditionalGeneration",
             "Qwen3_5MoeForConditionalGeneration"]
    api = {}
    for n in names:
        cls = getattr(transformers, n, None)
        if cls is None:
            api[n] = None
            continue
        entry = {"module": cls.__module__}
        fields = getattr(cls, "__dataclass_fields__", None)
        if fields:
            entry["fields"] = sorted(fields)
        for attr in ("model_type", "_tied_weights_keys", "_keys_to_ignore_on_load_unexpected",
                     "_checkpoint_conversion_mapping"):
            if hasattr(cls, attr):
                entry[attr] = repr(getattr(cls, attr))
        api[n] = entry
    try:
        from transformers.models.auto import modeling_auto
        api["causal_lm_mapping"] = {t: modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(t)
                                    for t in ("qwen3_5", "qwen3_5_text", "qwen3_5_moe",
                                              "qwen3_5_moe_text")}
    except (ImportError, AttributeError) as err:
        api["causal_lm_mapping"] = str(err)
    for n in ("Qwen3_5TextConfig", "Qwen3_5Config"):
        cls = getattr(transformers, n, None)
        post = getattr(cls, "__post_init__", None)
        if post is not None:
            try:
                print(f"--- {n}.__post_init__ ---\n{inspect.getsource(post)}", flush=True)
            except Exception:  # noqa: BLE001 - printing the source is only a courtesy
                pass
    print("transformers api:", json.dumps(api, indent=1), flush=True)
    return api


def init_text(model, gen, router_std):
    """Every text parameter from our own generator (see the module docstring)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if name.endswith("linear_attn.norm.weight") or name.endswith("dt_bias"):
                p.copy_(1.0 + NORM_STD * noise)
            elif name.endswith("A_log"):
                p.copy_(torch.log(0.01 + 0.99 * torch.rand(p.shape, generator=gen)))
            elif name.endswith("conv1d.weight"):
                p.copy_(CONV_STD * noise)
            elif "norm" in name:
                p.copy_(NORM_STD * noise)  # zero-centred: the model multiplies by 1 + w
            elif name.endswith("mlp.gate.weight"):
                p.copy_(router_std * noise)
            elif name.endswith("shared_expert_gate.weight"):
                p.copy_(SHARED_GATE_STD * noise)
            else:
                p.copy_(INIT_STD * noise)


def init_vision(visual, gen):
    with torch.no_grad():
        for name, p in visual.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if name.endswith(".bias"):
                p.copy_(0.1 * noise)
            elif "norm" in name:
                p.copy_(1.0 + NORM_STD * noise)
            else:
                p.copy_(INIT_STD * noise)


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


def padded_batch(ids, cu):
    """Right-padded [S, max_len] ids (pad 0) and attention mask."""
    rows, width = len(SEQ_LENS), max(SEQ_LENS)
    x = torch.zeros(rows, width, dtype=torch.long)
    m = torch.zeros(rows, width, dtype=torch.long)
    for s in range(rows):
        a, b = int(cu[s]), int(cu[s + 1])
        x[s, :b - a] = ids[a:b]
        m[s, :b - a] = 1
    return x, m


def per_sequence(model, ids, cu, device="cpu", router=False):
    """Logits [T, V] (and router logits per layer [T, E]) of each sequence run alone."""
    logits, routers = [], []
    for s in range(len(SEQ_LENS)):
        a, b = int(cu[s]), int(cu[s + 1])
        x = ids[a:b][None].to(device)
        pos = torch.arange(b - a, device=device)[None]
        kw = {"output_router_logits": True} if router else {}
        out = model(input_ids=x, position_ids=pos, use_cache=False, **kw)
        logits.append(out.logits[0].float().cpu())
        if router:
            routers.append([r.float().cpu() for r in out.router_logits])
    logits = torch.cat(logits)
    if not router:
        return logits
    return logits, [torch.cat([seq[layer] for seq in routers]) for layer in range(len(routers[0]))]


def topk_gap(router, k):
    ordered = torch.cat(router, 0).sort(-1, descending=True).values
    return (ordered[:, k - 1] - ordered[:, k]).min().item()


def header_keys(path):
    with safe_open(path, "pt") as f:
        return sorted(f.keys())


def weight_keys(folder):
    keys = []
    for f in sorted(os.listdir(folder)):
        if f.endswith(".safetensors"):
            keys += header_keys(os.path.join(folder, f))
    return sorted(keys)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def loading_info(info):
    return {k: sorted(str(x) for x in v) if isinstance(v, (list, set, tuple)) else str(v)
            for k, v in info.items()}


def check_sizes(folder, entry):
    sizes = {f: os.path.getsize(os.path.join(folder, f)) for f in sorted(os.listdir(folder))}
    entry["file_bytes"] = sizes
    for f, n in sizes.items():
        if f.endswith(".safetensors") and n > MAX_FILE_BYTES:
            raise SystemExit(f"{folder}/{f}: {n} bytes, over {MAX_FILE_BYTES}")


def build_text(spec, seed, router_std=None):
    gen = torch.Generator().manual_seed(seed)
    spec = copy.deepcopy(spec)
    if "num_experts" in spec:
        config = transformers.Qwen3_5MoeTextConfig(**spec)
        model = transformers.Qwen3_5MoeForCausalLM(config)
    else:
        config = transformers.Qwen3_5TextConfig(**spec)
        model = transformers.Qwen3_5ForCausalLM(config)
    init_text(model, gen, router_std or 0.0)
    return config, model.eval(), gen


def reference(out, name, spec, seed, router_std, entry):
    """Saves <name>/ and its reference; None when a MoE routing has a near tie."""
    moe = "num_experts" in spec
    config, model, gen = build_text(spec, seed, router_std)
    ids, pos, cu, targets, mask = make_inputs(config.vocab_size, gen)
    x, m = padded_batch(ids, cu)
    if moe:  # cheap look at the routing before anything is written
        with torch.no_grad():
            quick = model(input_ids=x, attention_mask=m, use_cache=False, output_router_logits=True)
        width = x.shape[1]
        router = [unpad(r.float().view(len(SEQ_LENS), width, -1), m) for r in quick.router_logits]
        if topk_gap(router, config.num_experts_per_tok) < MIN_TOPK_LOGIT_GAP:
            return None
    path = os.path.join(out, name)
    if os.path.isdir(path):
        shutil.rmtree(path)
    model.save_pretrained(path)
    saved = read_json(os.path.join(path, "config.json"))
    keys = weight_keys(path)
    entry.update({"seed": seed, "class": type(model).__name__, "saved_dtype": "float32",
                  "layer_types": list(config.layer_types),
                  "rope_parameters": dict(config.rope_parameters),
                  "partial_rotary_factor_attr": getattr(config, "partial_rotary_factor", None),
                  "rotary_dim": int(config.head_dim * config.rope_parameters.get(
                      "partial_rotary_factor", 1.0)),
                  "config_json": saved, "saved_keys_count": len(keys),
                  "has_lm_head_weight": "lm_head.weight" in keys,
                  "files": sorted(os.listdir(path))})
    if saved.get("layer_types") != list(spec["layer_types"]):
        raise SystemExit(f"{name}: layer_types not saved as given: {saved.get('layer_types')}")
    if moe:
        entry["router_init_std"] = router_std
        if not any(".experts.0.gate_proj.weight" in k for k in keys):
            entry["note_expert_layout"] = "save_pretrained did not write per-expert tensors"
        entry["per_expert_keys_written"] = sum(".experts." in k for k in keys)
        if "lm_head.weight" in keys:
            raise SystemExit(f"{name}: tied model saved lm_head.weight")
    elif "lm_head.weight" not in keys:
        raise SystemExit(f"{name}: untied model saved no lm_head.weight")
    check_sizes(path, entry)

    # float64: the delta rule's chunked form in fp32 is about 1e-5 (logits) from its own float64
    # value on these models, transformers' and verlpp's alike; the reference is the exact one.
    ref = load(path, "eager").double()
    if moe:  # grouped_mm has no float64 kernel; in float64 the eager expert loop is exact as well
        if hasattr(ref, "set_experts_implementation"):
            ref.set_experts_implementation("eager")
        else:
            ref.config._experts_implementation = "eager"
    entry["experts_implementation"] = getattr(ref.config, "_experts_implementation", None)
    with torch.no_grad():
        if moe:
            logits_seq, router_seq = per_sequence(ref, ids, cu, router=True)
        else:
            logits_seq = per_sequence(ref, ids, cu)
    ref.zero_grad()
    kw = {"output_router_logits": True} if moe else {}
    out_pad = ref(input_ids=x, attention_mask=m, use_cache=False, **kw)
    logits_pad = unpad(out_pad.logits.float(), m)
    diff = (logits_pad - logits_seq).abs().max().item()
    entry["padded_vs_sequence_logits_max_abs"] = diff
    if diff <= PAD_TOLERANCE:
        entry["gradients_from"] = "right-padded batch forward (attention_mask)"
        logits = logits_pad
        router = ([unpad(r.float().view(len(SEQ_LENS), x.shape[1], -1), m)
                   for r in out_pad.router_logits] if moe else None)
        aux = out_pad.aux_loss if moe else None
    else:  # the padded batch is not the per-sequence reference: use the per-sequence forwards
        print(f"{name}: padded batch differs from per-sequence logits by {diff}; "
              "gradients from per-sequence forwards", flush=True)
        entry["gradients_from"] = "per-sequence forwards (padded batch differed)"
        del out_pad
        ref.zero_grad()
        if moe:
            logits, router = per_sequence(ref, ids, cu, router=True)
            aux = own_aux(router, config.num_experts, config.num_experts_per_tok)
        else:
            logits, router, aux = per_sequence(ref, ids, cu), None, None
    if moe:
        mine = own_aux(router, config.num_experts, config.num_experts_per_tok)
        entry["aux_loss"] = aux.item()
        entry["own_aux_loss"] = mine.item()
        if abs(aux.item() - mine.item()) > 1e-5:
            fail(f"{name}: transformers aux {aux.item()} != formula {mine.item()}")
        entry["router_vs_sequence_max_abs"] = max(
            (a.detach() - b).abs().max().item() for a, b in zip(router, router_seq))
        entry["min_topk_logit_gap"] = topk_gap([r.detach() for r in router],
                                               config.num_experts_per_tok)
        if entry["min_topk_logit_gap"] < MIN_TOPK_LOGIT_GAP:
            return None

    lp, ent = logprob_entropy(logits, targets)
    loss = -(lp * mask).sum() / mask.sum() - ENTROPY_COEFF * (ent * mask).sum() / mask.sum()
    if moe:
        loss = loss + AUX_COEF * aux
    loss.backward()
    entry["loss"] = loss.item()
    # stored values are those of the sequences run alone (the gradients' forward matches them)
    lp, ent = logprob_entropy(logits_seq, targets)
    entry["loss_from_stored_logits"] = (
        -(lp * mask).sum() / mask.sum() - ENTROPY_COEFF * (ent * mask).sum() / mask.sum()
        + (AUX_COEF * aux.item() if moe else 0.0)).item()
    tensors = {"input_ids": ids, "position_ids": pos, "cu_seqlens": cu, "targets": targets,
               "loss_mask": mask, "logits": logits_seq, "logprobs": lp, "entropy": ent}
    if moe:
        for layer, r in enumerate(router_seq):
            tensors[f"router_logits.{layer}"] = r
    names = []
    for pname, p in ref.named_parameters():
        if p.grad is None:
            raise SystemExit(f"{name}: no gradient for {pname}")
        tensors["grad." + pname] = p.grad.detach().float().clone()
        names.append(pname)
    entry["grad_params"] = names
    fp32_gap(path, ids, cu, targets, mask, logits_seq, tensors, moe, entry)
    ref_path = os.path.join(out, f"{name}.reference.safetensors")
    save_file({k: v.contiguous() for k, v in tensors.items()}, ref_path)
    entry["reference_bytes"] = os.path.getsize(ref_path)
    if entry["reference_bytes"] > MAX_FILE_BYTES:
        raise SystemExit(f"{ref_path}: {entry['reference_bytes']} bytes")

    if torch.cuda.is_available():
        diffs = {}
        for impl in ("eager", "sdpa"):
            gm = load(path, impl).to(device="cuda", dtype=torch.bfloat16)
            with torch.no_grad():
                diffs[impl] = (per_sequence(gm, ids, cu, "cuda") - logits_seq).abs().max().item()
            del gm
        entry["bf16_vs_fp32_logits_max_abs"] = diffs
        entry["bf16_tolerance"] = max(diffs.values())
    return {"model": ref, "ids": ids, "cu": cu, "logits": logits_seq}


def fp32_gap(path, ids, cu, targets, mask, logits64, tensors, moe, entry):
    """transformers' own fp32 distance from the float64 reference (the precision floor of the
    model's fp32 computation): the logits of each sequence alone, and the gradients of the same
    loss from the same right-padded batch."""
    m = load(path, "eager").float()
    with torch.no_grad():
        entry["fp32_vs_float64_logits_max_abs"] = (per_sequence(m, ids, cu) - logits64).abs().max().item()
    x, pm = padded_batch(ids, cu)
    kw = {"output_router_logits": True} if moe else {}
    out = m(input_ids=x, attention_mask=pm, use_cache=False, **kw)
    lp, ent = logprob_entropy(unpad(out.logits.float(), pm), targets)
    loss = -(lp * mask).sum() / mask.sum() - ENTROPY_COEFF * (ent * mask).sum() / mask.sum()
    if moe:
        loss = loss + AUX_COEF * out.aux_loss
    loss.backward()
    worst = 0.0
    for n, p in m.named_parameters():
        g64 = tensors["grad." + n].double()
        worst = max(worst, ((p.grad.double() - g64).norm() / g64.norm()).item())
    entry["fp32_vs_float64_grad_max_rel"] = worst
    print(os.path.basename(path), "transformers fp32 vs float64: logits",
          entry["fp32_vs_float64_logits_max_abs"], "gradients (relative)", worst, flush=True)


def mtp_tensors(h, gen):
    """A few hub-style MTP tensors (transformers ignores every mtp.* key)."""
    return {"mtp.fc.weight": INIT_STD * torch.randn(h, 2 * h, generator=gen),
            "mtp.pre_fc_norm_embedding.weight": NORM_STD * torch.randn(h, generator=gen),
            "mtp.pre_fc_norm_hidden.weight": NORM_STD * torch.randn(h, generator=gen),
            "mtp.norm.weight": NORM_STD * torch.randn(h, generator=gen),
            "mtp.layers.0.input_layernorm.weight": NORM_STD * torch.randn(h, generator=gen)}


def vl_copy(out, name, text_name, spec, text_model, seed, entry):
    """Writes <name>/: text_model's weights in the hub vision-language layout."""
    moe = "num_experts" in spec
    text_spec = {k: copy.deepcopy(v) for k, v in spec.items() if k != "tie_word_embeddings"}
    if moe:
        config = transformers.Qwen3_5MoeConfig(
            text_config=text_spec, vision_config=dict(VISION), tie_word_embeddings=True)
        vl = transformers.Qwen3_5MoeForConditionalGeneration(config)
    else:
        config = transformers.Qwen3_5Config(
            text_config=dict(text_spec, tie_word_embeddings=False), vision_config=dict(VISION),
            tie_word_embeddings=False)
        vl = transformers.Qwen3_5ForConditionalGeneration(config)
    gen = torch.Generator().manual_seed(seed)
    init_vision(vl.model.visual, gen)
    text_state = {k[len("model."):]: v for k, v in text_model.state_dict().items()
                  if k.startswith("model.")}
    vl.model.language_model.load_state_dict(text_state, strict=True)
    emb = vl.model.language_model.embed_tokens.weight
    entry["lm_head_tied_in_memory"] = vl.lm_head.weight.data_ptr() == emb.data_ptr()
    with torch.no_grad():
        if not moe:
            vl.lm_head.weight.copy_(text_model.lm_head.weight)
        elif not entry["lm_head_tied_in_memory"]:
            vl.lm_head.weight.copy_(emb)
    vl.eval()
    path = os.path.join(out, name)
    if os.path.isdir(path):
        shutil.rmtree(path)
    vl.save_pretrained(path)
    saved_keys = weight_keys(path)
    entry["save_pretrained_config_json"] = read_json(os.path.join(path, "config.json"))
    entry["save_pretrained_keys_count"] = len(saved_keys)
    entry["save_pretrained_per_expert_keys"] = sum(".experts." in k and k.endswith("_proj.weight")
                                                   for k in saved_keys)
    entry["save_pretrained_has_lm_head"] = "lm_head.weight" in saved_keys
    for f in os.listdir(path):
        if f.endswith(".safetensors") or f.endswith(".safetensors.index.json"):
            os.remove(os.path.join(path, f))

    state = {k: v.detach().clone().contiguous() for k, v in vl.state_dict().items()}
    if moe:
        state.pop("lm_head.weight", None)
        if not any(k.endswith("mlp.experts.gate_up_proj") for k in state):
            raise SystemExit(f"{name}: no fused experts in memory: {sorted(state)[:20]}")
    else:
        entry["own_keys_equal_save_pretrained_keys"] = sorted(state) == saved_keys
    visual = sum(v.numel() for k, v in state.items() if k.startswith("model.visual."))
    entry["visual_parameters"] = visual
    state.update(mtp_tensors(spec["hidden_size"], gen))
    save_file(state, os.path.join(path, "model.safetensors"), metadata={"format": "pt"})

    cfg = read_json(os.path.join(path, "config.json"))
    cfg["architectures"] = [type(vl).__name__]
    if moe:
        cfg["tie_word_embeddings"] = True
        entry["text_config_had_tie_key"] = "tie_word_embeddings" in cfg["text_config"]
        cfg["text_config"].pop("tie_word_embeddings", None)
    cfg["text_config"].update(HUB_TEXT_EXTRAS)
    write_json(os.path.join(path, "config.json"), cfg)
    try:
        transformers.AutoConfig.from_pretrained(path)
        entry["hub_text_extras"] = sorted(HUB_TEXT_EXTRAS)
    except Exception as err:  # keep the folder loadable: drop the extras again
        entry["hub_text_extras_rejected"] = f"{type(err).__name__}: {err}"
        for k in HUB_TEXT_EXTRAS:
            cfg["text_config"].pop(k, None)
        write_json(os.path.join(path, "config.json"), cfg)
    entry["config_json"] = cfg
    entry.update({"class": type(vl).__name__, "same_text_weights_as": text_name,
                  "keys": sorted(state), "files": sorted(os.listdir(path)), "seed": seed})
    if moe:
        check_fused(os.path.join(out, text_name), path, spec, entry)
    check_sizes(path, entry)
    return path


def check_fused(text_path, vl_path, spec, entry):
    """The fused tensors hold the per-expert ones of save_pretrained: gate rows, then up rows."""
    im = spec["moe_intermediate_size"]
    per = {}
    for f in os.listdir(text_path):
        if f.endswith(".safetensors"):
            with safe_open(os.path.join(text_path, f), "pt") as sf:
                per.update({k: sf.get_tensor(k) for k in sf.keys()
                            if re.search(r"\.experts\.\d+\.", k)})
    if not per:
        entry["fused_matches_per_expert"] = "no per-expert tensors to compare"
        return
    worst = 0.0
    with safe_open(os.path.join(vl_path, "model.safetensors"), "pt") as sf:
        for layer in range(spec["num_hidden_layers"]):
            gu = sf.get_tensor(f"model.language_model.layers.{layer}.mlp.experts.gate_up_proj")
            dn = sf.get_tensor(f"model.language_model.layers.{layer}.mlp.experts.down_proj")
            for e in range(spec["num_experts"]):
                p = f"model.layers.{layer}.mlp.experts.{e}."
                worst = max(worst, (gu[e, :im] - per[p + "gate_proj.weight"]).abs().max().item(),
                            (gu[e, im:] - per[p + "up_proj.weight"]).abs().max().item(),
                            (dn[e] - per[p + "down_proj.weight"]).abs().max().item())
    entry["fused_vs_per_expert_max_abs"] = worst
    if worst != 0.0:
        fail(f"{vl_path}: fused experts differ from the per-expert ones by {worst}")


def load_check(path, cls, ids, cu, logits, label, entry, must_match):
    """Loads path with cls, records its loading info and its text logits' gap to logits."""
    try:
        model, info = cls.from_pretrained(path, attn_implementation="eager",
                                          output_loading_info=True)
        model = model.double().eval()
        if hasattr(model, "set_experts_implementation") and "Moe" in type(model).__name__:
            model.set_experts_implementation("eager")
        elif "Moe" in type(model).__name__:
            model.config._experts_implementation = "eager"
        with torch.no_grad():
            got = per_sequence(model, ids, cu)
        res = {"class": type(model).__name__, "loading_info": loading_info(info),
               "logits_max_abs_vs_text_model": (got - logits).abs().max().item()}
        cfg = getattr(model, "config", None)
        res["config_class"] = type(cfg).__name__
        res["config_tie_word_embeddings"] = getattr(cfg, "tie_word_embeddings", None)
        emb = model.get_input_embeddings().weight.data_ptr()
        res["lm_head_is_embedding"] = model.get_output_embeddings().weight.data_ptr() == emb
    except Exception as err:  # recorded, and a failed check only where must_match
        res = {"error": f"{type(err).__name__}: {err}"}
    entry[label] = res
    print(f"{os.path.basename(path)} via {label}:", json.dumps(res), flush=True)
    if must_match and res.get("logits_max_abs_vs_text_model", math.inf) > VL_TOLERANCE:
        fail(f"{path}: {label} does not reproduce the text model: {res}")


def router_probe(spec, seeds):
    """How far the first router scale (0.1) is from the top-k gap, on a few seeds."""
    probe = []
    for seed in seeds:
        config, model, gen = build_text(spec, seed, ROUTER_STDS[0])
        ids, _, cu, _, _ = make_inputs(config.vocab_size, gen)
        x, m = padded_batch(ids, cu)
        with torch.no_grad():
            o = model(input_ids=x, attention_mask=m, use_cache=False, output_router_logits=True)
        r = torch.cat([unpad(t.float().view(len(SEQ_LENS), x.shape[1], -1), m)
                       for t in o.router_logits])
        ordered = r.sort(-1, descending=True).values
        k = config.num_experts_per_tok
        gaps = ordered[:, k - 1] - ordered[:, k]
        probe.append({"seed": seed, "rows": gaps.numel(), "min_gap": gaps.min().item(),
                      "rows_below_gap": int((gaps < MIN_TOPK_LOGIT_GAP).sum()),
                      "router_logit_std": r.std().item()})
    return probe


def make_models(out, meta):
    models = meta["models"]
    entry = {}
    res = reference(out, "qwen3_5", DENSE, 3000, None, entry)
    models["qwen3_5"] = entry
    print("qwen3_5", json.dumps({k: v for k, v in entry.items() if k != "config_json"}), flush=True)
    vl = {}
    path = vl_copy(out, "qwen3_5_vl", "qwen3_5", DENSE, res["model"], 3001, vl)
    for cls in (transformers.Qwen3_5ForConditionalGeneration, AutoModelForCausalLM):
        load_check(path, cls, res["ids"], res["cu"], res["logits"], cls.__name__, vl, True)
    models["qwen3_5_vl"] = vl

    meta["router_std_probe"] = router_probe(MOE, [3100, 3101, 3102])
    print("router probe at std", ROUTER_STDS[0], json.dumps(meta["router_std_probe"]), flush=True)
    res, tried = None, []
    for i, std in enumerate(ROUTER_STDS):
        for seed in range(3100 + 1000 * i, 3100 + 1000 * i + SEEDS_PER_STD):
            entry = {}
            res = reference(out, "qwen3_5_moe", MOE, seed, std, entry)
            if res is not None:
                break
        tried.append({"router_std": std, "seeds_tried": seed - (3100 + 1000 * i) + 1,
                      "found": res is not None})
        if res is not None:
            break
    meta["router_search"] = tried
    if res is None:
        raise SystemExit(f"qwen3_5_moe: no seed with a top-k gap >= {MIN_TOPK_LOGIT_GAP}: {tried}")
    models["qwen3_5_moe"] = entry
    print("qwen3_5_moe", json.dumps({k: v for k, v in entry.items() if k != "config_json"}),
          flush=True)
    vl = {}
    path = vl_copy(out, "qwen3_5_moe_vl", "qwen3_5_moe", MOE, res["model"], entry["seed"] + 1, vl)
    load_check(path, transformers.Qwen3_5MoeForConditionalGeneration, res["ids"], res["cu"],
               res["logits"], "Qwen3_5MoeForConditionalGeneration", vl, False)
    load_check(path, AutoModelForCausalLM, res["ids"], res["cu"], res["logits"],
               "AutoModelForCausalLM", vl, False)
    cg = vl["Qwen3_5MoeForConditionalGeneration"]
    vl["transformers_loads_fused_layout"] = (
        cg.get("logits_max_abs_vs_text_model", math.inf) <= VL_TOLERANCE)
    if not vl["transformers_loads_fused_layout"]:
        print("qwen3_5_moe_vl: transformers does not reproduce the text model from the fused "
              "layout", flush=True)
        if "error" not in cg and not cg["loading_info"].get("missing_keys"):
            fail(f"qwen3_5_moe_vl: loads with no missing keys but other logits: {cg}")
    models["qwen3_5_moe_vl"] = vl


def left_pad(prompts):
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), PAD, dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, p in enumerate(prompts):
        ids[i, width - len(p):] = torch.tensor(p)
        mask[i, width - len(p):] = 1
    return ids, mask


def greedy(model, ids, mask, use_cache=True):
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=mask, do_sample=False,
                             max_new_tokens=MAX_NEW_TOKENS, min_new_tokens=0, num_beams=1,
                             eos_token_id=None, pad_token_id=PAD, return_dict_in_generate=True,
                             output_logits=True, use_cache=use_cache)
    tokens = out.sequences[:, ids.shape[1]:]
    if tokens.shape[1] != MAX_NEW_TOKENS:
        raise SystemExit(f"generated {tokens.shape[1]} tokens, expected {MAX_NEW_TOKENS}")
    logits = torch.stack(out.logits, dim=1).float()
    if not torch.equal(logits.argmax(-1), tokens):
        raise SystemExit("generated tokens are not the argmax of the returned logits")
    return tokens, torch.log_softmax(logits, -1).gather(-1, tokens[..., None])[..., 0]


def make_greedy(model_dir, rollout_dir):
    gen = torch.Generator().manual_seed(GREEDY_SEED)
    result = {"script": "tools/make_qwen3_5_fixtures.py", "transformers": transformers.__version__,
              "torch": torch.__version__, "max_new_tokens": MAX_NEW_TOKENS, "pad_token_id": PAD,
              "prompt_lens": PROMPT_LENS, "models": {}}
    for name in ("qwen3_5", "qwen3_5_moe"):
        model = AutoModelForCausalLM.from_pretrained(os.path.join(model_dir, name),
                                                     attn_implementation="eager").float().eval()
        model.generation_config.eos_token_id = None
        model.generation_config.pad_token_id = PAD
        vocab = model.config.vocab_size
        prompts = [torch.randint(1, vocab, (n,), generator=gen).tolist() for n in PROMPT_LENS]
        ids, mask = left_pad(prompts)
        tokens, lp = greedy(model, ids, mask)
        alone_t, alone_lp = [], []
        for p in prompts:
            t, l = greedy(model, torch.tensor([p]), torch.ones(1, len(p), dtype=torch.long))
            alone_t.append(t[0])
            alone_lp.append(l[0])
        alone_t, alone_lp = torch.stack(alone_t), torch.stack(alone_lp)
        same = [bool(torch.equal(tokens[i], alone_t[i])) for i in range(len(prompts))]
        entry = {"left_padded_matches_alone": all(same), "rows_matching_alone": same}
        if all(same):
            entry["logprobs_max_abs_padded_vs_alone"] = (lp - alone_lp).abs().max().item()
        else:
            print(f"{name}: left padding changed the greedy tokens {same}; using per-prompt "
                  "results", flush=True)
            entry["padded_responses"] = tokens.tolist()
            tokens, lp = alone_t, alone_lp
        entry["responses_from"] = "left-padded batch" if all(same) else "each prompt alone"
        try:
            uncached, _ = greedy(model, ids, mask, use_cache=False)
            entry["uncached_padded_matches"] = bool(torch.equal(uncached, tokens))
        except (Exception, SystemExit) as err:  # recorded only
            entry["uncached_padded_matches"] = f"{type(err).__name__}: {err}"
        result["models"][name] = dict(
            prompts=prompts, responses=tokens.tolist(),
            logprobs=[[round(x, 7) for x in row] for row in lp.tolist()], **entry)
        print(name, "greedy", json.dumps(entry), tokens[0].tolist(), flush=True)
        with open(os.path.join(rollout_dir, f"{name}.prompt_ids.jsonl"), "w") as f:
            for p in prompts:
                f.write(json.dumps({"prompt_ids": p}, separators=(",", ":")) + "\n")
        with open(os.path.join(rollout_dir, f"{name}.response_ids.jsonl"), "w") as f:
            for r in tokens.tolist():
                f.write(json.dumps({"response_ids": r}, separators=(",", ":")) + "\n")
    write_json(os.path.join(rollout_dir, "greedy_qwen3_5.json"), result)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/model"
    rollout = sys.argv[2] if len(sys.argv) > 2 else "tests/fixtures/rollout"
    os.makedirs(out, exist_ok=True)
    os.makedirs(rollout, exist_ok=True)
    torch.manual_seed(0)
    meta = {"script": "tools/make_qwen3_5_fixtures.py", "transformers": transformers.__version__,
            "torch": torch.__version__, "cuda": torch.cuda.is_available(),
            "temperature": TEMPERATURE, "entropy_coeff": ENTROPY_COEFF, "aux_coef": AUX_COEF,
            "seq_lens": SEQ_LENS, "min_topk_logit_gap_required": MIN_TOPK_LOGIT_GAP,
            "pad_tolerance": PAD_TOLERANCE, "vl_tolerance": VL_TOLERANCE,
            "init": {"other_std": INIT_STD, "zero_centred_norm_std": NORM_STD,
                     "gated_norm_and_dt_bias": f"1 + {NORM_STD} N", "A_log": "log U(0.01, 1)",
                     "conv_std": CONV_STD, "router_stds_tried": ROUTER_STDS,
                     "shared_expert_gate_std": SHARED_GATE_STD},
            "fla_available": _has("fla"), "causal_conv1d_available": _has("causal_conv1d"),
            "api": describe_api(), "models": {}}
    try:
        make_models(out, meta)
        make_greedy(out, rollout)
    finally:
        meta["failed_checks"] = FAILED
        write_json(os.path.join(out, "reference_qwen3_5.json"), meta)
    if FAILED:
        raise SystemExit(f"{len(FAILED)} checks failed: {FAILED}")


def _has(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None


if __name__ == "__main__":
    main()
