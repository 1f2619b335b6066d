#!/usr/bin/env python3
"""Makes the tokenizer parity fixtures under tests/fixtures/tokenizers/ with the reference
implementations (Hugging Face `tokenizers` for ids, `transformers` for chat templates).

Usage (on a machine with tokenizers + transformers):
  python3 tools/make_tokenizer_fixture.py --gsm8k GSM8K_TEST_JSONL --out tests/fixtures/tokenizers

Writes:
  qwen3_parity.jsonl  one line per string: {"text", "ids"} plus "decoded" where decode(ids) !=
                      text and "decoded_skip_special" where skipping special tokens changes it
                      (all GSM8K test questions and answers + hand-picked hard cases)
  qwen3_chat.jsonl    one line per conversation: {"template", "messages", "tools",
                      "add_generation_prompt", "kwargs", "text", "ids"} or, where the template
                      itself raises, {"...", "error": message}
  versions.json       library versions used
"""
import argparse
import json
import os

import tokenizers
import transformers
from transformers import AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOKENIZER_DIR = os.path.join(ROOT, "tests/fixtures/tokenizers/qwen3")
TEMPLATE_DIR = os.path.join(ROOT, "tests/fixtures/tokenizers/templates")


def hard_strings():
    s = [
        "", " ", "  ", "   ", "\t", "\n", "\n\n", "\n\n\n", "\r\n", "\r\n\r\n", "a\r\nb", "\r", "x\ry",
        " \n", "\n ", " \n \n ", "a  b   c    d", "    indented code", "\tTab\tseparated\t",
        "trailing spaces   ", "   leading spaces", "line1\nline2\n\nline4\n", "mixed \t\n\r\n whitespace",
        "1234567890", "12345678901234567890123456789012345678901234567890", "3.14159265358979",
        "-42", "1,000,000", "1e-10", "0x1F", "$1,234.56", "2024-11-30T22:50:00Z", "100%",
        "<<16-3-4=9>>9", "#### 18", "16 - 3 - 4 = 9", "x^2 + y^2 = z^2", "a*b/c", "(a+b)[c]{d}",
        "Hello, world!", "HELLO WORLD", "Don't", "I'm", "we'll", "they've", "you're", "it'd",
        "DON'T", "I'M", "WE'LL", "It'S", "'s", "'t", "'re", "''", "'''", "\"quoted\"",
        "don\u2019t", "caf\u00e9", "cafe\u0301", "na\u00efve r\u00e9sum\u00e9", "Se\u00f1or Pi\u00f1a",
        "\u00c5ngstr\u00f6m", "A\u030angstro\u0308m", "\u1e9b\u0323", "\ufb01 ligature", "\u2126 ohm",
        "Stra\u00dfe", "\u0130stanbul", "\u017f long s 's \u017fs", "K\u212a kelvin",
        "\u4f60\u597d\uff0c\u4e16\u754c\uff01", "\u6211\u7231\u5317\u4eac\u5929\u5b89\u95e8",
        "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3067\u3059\u3002",
        "\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8", "\u0417\u0434\u0440\u0430\u0432\u0441\u0442\u0432\u0443\u0439, \u043c\u0438\u0440",
        "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645", "\u05e9\u05dc\u05d5\u05dd",
        "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e", "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35",
        "\u039a\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1", "\u4e2d\u6587English\u6df7\u5408123",
        "\u5168\u89d2\uff11\uff12\uff13\uff41\uff42\uff43", "\u3000\u5168\u89d2\u7a7a\u683c\u3000",
        "\U0001f600", "\U0001f600\U0001f603\U0001f604", "I \u2764\ufe0f Python \U0001f40d",
        "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 family",
        "\U0001f44d\U0001f3fd thumbs", "\U0001f1fa\U0001f1f8\U0001f1ef\U0001f1f5 flags",
        "\u2705 done \u274c failed", "math \u2211 \u222b \u221a \u03c0 \u2248 \u2260 \u2264",
        "\u00a0non-breaking\u00a0space", "zero\u200bwidth", "\u2028line sep\u2029para sep",
        "\x00nul", "\x07bell\x1b[0m", "\u0085next line", "\ufeffBOM", "\ufffd replacement",
        "\U0001d400\U0001d401 math bold", "\U00020000 CJK ext B",
        "<|im_end|>", "<|im_start|>", "<|endoftext|>", "<think>", "</think>", "<tool_call>",
        "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n",
        "text<|im_end|>more text", "a <|im_end|> b", "<|im_end|><|im_end|>", "<|im_end|> ",
        " <|im_end|>", "<|im_end", "|im_end|>", "<|IM_END|>", "<|im_end|x", "<<|im_end|>>",
        "<think>\nreasoning\n</think>\n\nanswer", "<tool_call>\n{\"name\": \"f\"}\n</tool_call>",
        "<|endoftext|><|im_start|>system", "<|fim_prefix|>def f():<|fim_suffix|><|fim_middle|>",
        "<|vision_start|><|image_pad|><|vision_end|>", "<tool_response>\nok\n</tool_response>",
        "def f(x):\n    return x * 2\n", "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}",
        "#include <iostream>\nint main() { std::cout << \"hi\\n\"; }", "SELECT * FROM t WHERE id = 1;",
        "{\"key\": [1, 2.5, true, null], \"nested\": {\"a\": \"b\"}}", "https://example.com/path?q=1&r=2",
        "user@example.com", "C:\\Windows\\System32", "~/.bashrc", "!!!???...", "---===+++",
        "a" * 300, "ab" * 150, " " * 100, "\n" * 50, "\r\n" * 20, "9" * 200, "\u4f60" * 100,
        "\U0001f600" * 30, "z" * 1000 + " end", "word " * 200,
        "The quick brown fox jumps over the lazy dog. " * 5,
    ]
    return s


def parity_rows(tok, gsm8k_path):
    texts = []
    with open(gsm8k_path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            texts.append(row["question"])
            texts.append(row["answer"])
    texts.extend(hard_strings())
    rows = []
    for text in texts:
        ids = tok.encode(text, add_special_tokens=False).ids
        row = {"text": text, "ids": ids}
        decoded = tok.decode(ids, skip_special_tokens=False)
        decoded_skip = tok.decode(ids, skip_special_tokens=True)
        if decoded != text:
            row["decoded"] = decoded
        if decoded_skip != decoded:
            row["decoded_skip_special"] = decoded_skip
        rows.append(row)
    return rows


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city. Returns \u00b0C.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. \u5317\u4eac"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "default": 1},
            },
            "required": ["city"],
        },
    },
}
CALC_TOOL = {
    "type": "function",
    "function": {
        "name": "calculator",
        "description": "Evaluate an arithmetic expression.",
        "parameters": {
            "type": "object",
            "properties": {"expression": {"type": "string"}, "precision": {"type": "number"}},
            "required": ["expression"],
        },
    },
}
TOOLS = [WEATHER_TOOL, CALC_TOOL]

SYS = {"role": "system", "content": "You are a helpful assistant."}
GSM_Q = ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips "
         "in May. How many clips did Natalia sell altogether in April and May? Let's think step "
         "by step and output the final answer after \"####\".")


def call(name, args, nested=True, args_as_string=False):
    a = json.dumps(args, ensure_ascii=False) if args_as_string else args
    fn = {"name": name, "arguments": a}
    return {"type": "function", "function": fn} if nested else fn


def qwen_conversations():
    """(messages, tools) pairs exercising the Qwen templates."""
    u = lambda c: {"role": "user", "content": c}
    a = lambda c, **kw: {"role": "assistant", "content": c, **kw}
    t = lambda c: {"role": "tool", "content": c}
    return [
        ([u("Hello!")], None),
        ([SYS, u("What is 2+2?")], None),
        ([u(GSM_Q)], None),
        ([SYS, u("Hi"), a("Hello! How can I help?"), u("Tell me a joke.")], None),
        ([u("Hi"), a("<think>\nThe user greets me.\n</think>\n\nHello!"), u("What's new?")], None),
        ([u("Hi"), a("<think>\nThe user greets me.\n</think>\n\nHello!")], None),
        ([u("Solve 3*7"), a("21", reasoning_content="3 times 7 is 21.")], None),
        ([u("Q1"), a("A1", reasoning_content="R1"), u("Q2"), a("A2", reasoning_content="R2")], None),
        ([u("Q1"), a("\n\nA1 with leading newlines"), u("Q2")], None),
        ([u("Q"), a("<think>\n\n</think>\n\nA")], None),
        ([u("Weather in Paris?")], TOOLS),
        ([SYS, u("Weather in Paris?")], TOOLS),
        ([SYS, u("Weather in Paris?"),
          a("", tool_calls=[call("get_weather", {"city": "Paris", "unit": "celsius"})]),
          t("{\"temperature\": 18.5, \"sky\": \"clear\"}"),
          a("It is 18.5 \u00b0C and clear in Paris.")], TOOLS),
        ([u("Weather in Paris and 2+3?"),
          a("Let me check.", tool_calls=[call("get_weather", {"city": "Paris"}, args_as_string=True),
                                          call("calculator", {"expression": "2+3", "precision": 0.01})]),
          t("18C"), t("5")], TOOLS),
        ([u("Compute"), a("", tool_calls=[call("calculator", {"expression": "1/3", "precision": 1e-05},
                                               nested=False)]),
          t("0.33333"), a("", tool_calls=[call("calculator", {"expression": "2*0.33333"})]),
          t("0.66666")], TOOLS),
        ([u("<tool_response>\nfake\n</tool_response>")], None),
        ([u("First question"), a("First answer"),
          u("<tool_response>\nresult\n</tool_response>"), a("Done")], None),
        ([u("\u4f60\u597d\uff0c\u8bf7\u7528\u4e2d\u6587\u56de\u7b54\u3002\U0001f600"),
          a("\u597d\u7684\uff01\u6211\u4eec\u5f00\u59cb\u5427\u3002")], None),
        ([u("Start"), {"role": "system", "content": "Mid-conversation system note."}, u("Continue")], None),
        ([u("Say <|im_end|> literally"), a("Here: <|im_end|> done")], None),
        ([u("  spaces around  "), a("  answer  \n")], None),
        ([u("A"), a("B"), u("C"), a("D"), u("E"), a("F"), u("G")], None),
        ([u("Args types"), a("", tool_calls=[call("calculator", {"expression": "x", "flag": True,
                                                                 "none": None, "list": [1, 2.0, "three"],
                                                                 "nested": {"k": "v\u00e9\n\"q\""}})]),
          t("ok")], TOOLS),
    ]


def llama_conversations():
    u = lambda c: {"role": "user", "content": c}
    a = lambda c, **kw: {"role": "assistant", "content": c, **kw}
    return [
        ([u("Hello!")], None, {}),
        ([SYS, u("  What is 2+2?  \n")], None, {}),
        ([SYS, u("Hi"), a("Hello!"), u("Bye")], None, {}),
        ([u(GSM_Q)], None, {"date_string": "30 Nov 2026"}),
        ([SYS, u("Weather in Paris?")], TOOLS, {}),
        ([SYS, u("Weather in Paris?")], TOOLS, {"tools_in_user_message": False}),
        ([u("Weather?"), a(None, tool_calls=[call("get_weather", {"city": "Paris", "days": 2})]),
          {"role": "tool", "content": "sunny"}, a("It is sunny.")], TOOLS, {}),
        ([u("Weather?"), a(None, tool_calls=[call("get_weather", {"city": "Paris"})]),
          {"role": "ipython", "content": {"temp": 20, "unit": "C"}}], TOOLS,
         {"tools_in_user_message": False}),
        ([u("Search"), a(None, tool_calls=[call("brave_search", {"query": "llama 3"})])], None,
         {"builtin_tools": ["brave_search", "wolfram_alpha"]}),
        ([u("Two calls"), a(None, tool_calls=[call("a", {}), call("b", {})])], None, {}),
        ([u("\u4f60\u597d \U0001f600")], None, {}),
    ]


def render(tok, template, messages, tools, agp, kwargs):
    text = tok.apply_chat_template(messages, tools=tools, chat_template=template,
                                   add_generation_prompt=agp, tokenize=False, **kwargs)
    ids = tok.encode(text, add_special_tokens=False)
    return text, ids


def chat_rows(tok):
    with open(os.path.join(TOKENIZER_DIR, "tokenizer_config.json"), encoding="utf-8") as f:
        qwen3 = json.load(f)["chat_template"]
    templates = {"qwen3": qwen3}
    for name in ("qwen2.5-instruct", "llama3.1-instruct", "llama3-instruct"):
        with open(os.path.join(TEMPLATE_DIR, name + ".jinja"), encoding="utf-8") as f:
            templates[name] = f.read()
    cases = []
    for messages, tools in qwen_conversations():
        for agp in (False, True):
            for thinking in (None, True, False):
                kwargs = {} if thinking is None else {"enable_thinking": thinking}
                cases.append(("qwen3", messages, tools, agp, kwargs))
        for agp in (False, True):
            cases.append(("qwen2.5-instruct", messages, tools, agp, {}))
    bos = {"bos_token": "<|begin_of_text|>"}
    for messages, tools, extra in llama_conversations():
        for agp in (False, True):
            cases.append(("llama3.1-instruct", messages, tools, agp, {**bos, **extra}))
            if tools is None and not extra and all(isinstance(m.get("content"), str) for m in messages):
                cases.append(("llama3-instruct", messages, None, agp, dict(bos)))
    rows = []
    for name, messages, tools, agp, kwargs in cases:
        row = {"template": name, "messages": messages, "tools": tools,
               "add_generation_prompt": agp, "kwargs": kwargs}
        try:
            text, ids = render(tok, templates[name], messages, tools, agp, kwargs)
            row["text"], row["ids"] = text, ids
        except Exception as e:  # the template's own raise_exception
            row["error"] = f"{type(e).__name__}: {e}"
        rows.append(row)
    return rows


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gsm8k", required=True, help="GSM8K test.jsonl (question, answer)")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    raw = tokenizers.Tokenizer.from_file(os.path.join(TOKENIZER_DIR, "tokenizer.json"))
    rows = parity_rows(raw, args.gsm8k)
    write_jsonl(os.path.join(args.out, "qwen3_parity.jsonl"), rows)
    hf = AutoTokenizer.from_pretrained(TOKENIZER_DIR)
    chats = chat_rows(hf)
    # The transformers tokenizer must agree with the raw tokenizers one on every string.
    mismatch = sum(hf.encode(r["text"], add_special_tokens=False) != r["ids"] for r in rows)
    write_jsonl(os.path.join(args.out, "qwen3_chat.jsonl"), chats)
    versions = {"tokenizers": tokenizers.__version__, "transformers": transformers.__version__,
                "strings": len(rows), "conversations": len(chats),
                "conversations_raising": sum("error" in c for c in chats),
                "transformers_vs_tokenizers_mismatches": mismatch}
    with open(os.path.join(args.out, "versions.json"), "w") as f:
        json.dump(versions, f, indent=2)
    print(json.dumps(versions))


if __name__ == "__main__":
    main()
