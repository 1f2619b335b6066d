#!/usr/bin/env python3
"""Reference outputs of Hugging Face `tokenizers`/`transformers` for the demo's files.

Usage: check_demo_hf.py FIXTURE_DIR > hf_reference.json
  FIXTURE_DIR/tokenizer/  the demo's character tokenizer (verlpp's demo/char_tokenizer.cpp output)
  FIXTURE_DIR/exported/   a `verlpp sft` checkpoint exported by `verlpp model export` (optional)
Writes, for the unit test DemoHf.* (tests/unit/demo), what HF computes: ids of texts, chat-template
renderings and ids, decodes, special token ids, and (for the exported model) per-token
log-probabilities of given sequences in float64 from transformers' float32 forward.
"""
import json
import os
import sys

from tokenizers import Tokenizer
from transformers import AutoTokenizer


def ids_of(result):
    if hasattr(result, "keys") and "input_ids" in result.keys():
        result = result["input_ids"]
    return [int(i) for i in result]


def tokenizer_reference(path):
    raw = Tokenizer.from_file(os.path.join(path, "tokenizer.json"))
    hf = AutoTokenizer.from_pretrained(path)
    out = {"encode": [], "chat": [], "decode": []}
    for text in ["37+485=", "0", "1+2=3", "<|user|>1+2=<|assistant|>3<|end|>", "99+1=100<|end|><|pad|>"]:
        out["encode"].append({
            "text": text,
            "tokenizers_ids": raw.encode(text, add_special_tokens=False).ids,
            "transformers_ids": ids_of(hf.encode(text, add_special_tokens=False)),
        })
    chats = [[{"role": "user", "content": "37+485="}],
             [{"role": "user", "content": "1+2="}, {"role": "assistant", "content": "3"}]]
    for chat in chats:
        for generation in (False, True):
            out["chat"].append({
                "messages": chat,
                "add_generation_prompt": generation,
                "text": hf.apply_chat_template(chat, tokenize=False, add_generation_prompt=generation),
                "ids": ids_of(hf.apply_chat_template(chat, tokenize=True, add_generation_prompt=generation)),
            })
    for ids in ([5, 2, 2, 15], [13, 1, 10, 2, 11, 14, 3, 15, 12]):
        for skip in (False, True):
            out["decode"].append({
                "ids": ids,
                "skip_special_tokens": skip,
                "transformers_text": hf.decode(ids, skip_special_tokens=skip),
                "tokenizers_text": raw.decode(ids, skip_special_tokens=skip),
            })
    out["eos_token_id"] = hf.eos_token_id
    out["pad_token_id"] = hf.pad_token_id
    out["length"] = len(hf)
    return out


def model_reference(path):
    import torch
    from transformers import AutoModelForCausalLM
    model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float32).eval()
    sequences = [[13, 3, 7, 10, 4, 8, 5, 11, 14, 5, 2, 2, 15], [13, 1, 10, 1, 11, 14, 2, 15]]
    out = []
    with torch.no_grad():
        for seq in sequences:
            logits = model(torch.tensor([seq])).logits[0].double()
            logp = torch.log_softmax(logits, dim=-1)
            out.append({"ids": seq, "logprobs": [float(logp[t, seq[t + 1]]) for t in range(len(seq) - 1)]})
    return {"architecture": model.config.architectures[0], "sequences": out}


def main():
    fixture = sys.argv[1]
    result = {"tokenizer": tokenizer_reference(os.path.join(fixture, "tokenizer"))}
    exported = os.path.join(fixture, "exported")
    if os.path.isdir(exported):
        result["exported"] = model_reference(exported)
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
