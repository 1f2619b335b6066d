#!/bin/bash
# Break-test of verlpp's 2026-12-05 additions (verl's SFT data keys, stop signals, global_step_N
# folders as model paths, `model score --temperature`), as a verl user would try them.
# usage: ./run_cases.sh [CASE...]   (no argument: every case; `fixtures` only builds the inputs)
# Work folder /tmp/bt9; binary /work/main/build/verlpp; CPU only; every run under `timeout`.
set -u
W=/tmp/bt9
V=/work/main/build/verlpp
HERE=/work/main/bench/results/breaktest_2026-12-05e
Q3TOK=/work/main/tests/fixtures/tokenizers/qwen3
mkdir -p $W/fx $W/logs $W/out
cd $W

fixtures() {
  # A character tokenizer (digits, + and =; <|pad|> 12, <|user|> 13, <|assistant|> 14, <|end|> 15),
  # as tests/e2e/sft_test.sh makes it, and a tiny Qwen3 over it (fx/cm).
  mkdir -p fx/tok
  cat > fx/tok/tokenizer.json <<'JSON'
{"added_tokens": [
  {"id": 12, "content": "<|pad|>", "special": true, "normalized": false},
  {"id": 13, "content": "<|user|>", "special": true, "normalized": false},
  {"id": 14, "content": "<|assistant|>", "special": true, "normalized": false},
  {"id": 15, "content": "<|end|>", "special": true, "normalized": false}],
 "decoder": {"type": "Fuse"},
 "model": {"type": "BPE", "merges": [], "vocab": {"0": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5,
           "6": 6, "7": 7, "8": 8, "9": 9, "+": 10, "=": 11}}}
JSON
  cat > fx/tok/tokenizer_config.json <<'JSON'
{"eos_token": "<|end|>", "pad_token": "<|pad|>",
 "chat_template": "{% for m in messages %}{% if m.role == 'user' %}<|user|>{{ m.content }}{% else %}<|assistant|>{{ m.content }}<|end|>{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"}
JSON
  [ -f fx/cm/model.safetensors ] || $V model init --arch qwen3 --hidden-size 32 --intermediate-size 64 \
    --num-hidden-layers 1 --num-attention-heads 2 --vocab-size 16 --dtype float32 --tokenizer fx/tok --output fx/cm
  # A tiny Qwen3 over the real Qwen3 tokenizer (fx/qm), as tests/e2e/lib.sh makes it.
  [ -f fx/qm/model.safetensors ] || $V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 \
    --num-hidden-layers 2 --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 \
    --dtype float32 --seed 3 --tokenizer $Q3TOK --output fx/qm
  # A slower model (for signals that must land inside a step or a save): hidden 256, 4 layers.
  [ -f fx/big/model.safetensors ] || $V model init --arch qwen3 --hidden-size 256 --intermediate-size 512 \
    --num-hidden-layers 4 --num-attention-heads 4 --num-key-value-heads 2 --vocab-size 151936 \
    --dtype float32 --seed 3 --tokenizer $Q3TOK --output fx/big
  cp $HERE/sig2.py fx/sig2.py
  echo '{"prompt_ids": [13, 1, 10, 1, 11, 14], "response_ids": [2, 15]}' > fx/score.jsonl
  [ -f fx/gsm/train.parquet ] || $V data gsm8k --input /work/shared/data/gsm8k --output fx/gsm
  python3 - <<'PY'
import json
def w(name, rows):
    with open(f'fx/{name}.jsonl', 'w') as f:
        for r in rows: f.write(json.dumps(r) + '\n')
# character tokenizer rows
w('rows', [{"prompt": f"{i}+{i}=", "response": str(2 * i)} for i in range(1, 9)])
w('cmt', [{"messages": [{"role": "user", "content": f"{i}+{i}="}, {"role": "assistant", "content": str(2 * i)}]} for i in range(1, 9)])
w('asst_first', [{"messages": [{"role": "assistant", "content": "5"}, {"role": "user", "content": f"{i}+{i}="},
                               {"role": "assistant", "content": str(2 * i)}]} for i in range(1, 9)])
w('asst_only', [{"messages": [{"role": "assistant", "content": str(2 * i)}]} for i in range(1, 9)])
w('user_only', [{"messages": [{"role": "user", "content": f"{i}+{i}="}]} for i in range(1, 9)])
# 8 rows: the first 4 have a long prompt (30 chars) that max_length=16 right-truncation leaves with nothing to learn
long = [{"prompt": "1+" * 15 + "=", "response": "16"} for _ in range(4)]
short = [{"prompt": f"{i}+{i}=", "response": str(2 * i)} for i in range(1, 5)]
w('first4_unlearnable', long + short)
w('all_unlearnable', long + long)
w('one_unlearnable', [long[0]] + [{"prompt": f"{i}+{i}=", "response": str(2 * i)} for i in range(1, 8)])
# single-turn with nested columns (verl's GSM8K extra_info shape), two levels, bad shapes
w('nested', [{"extra_info": {"question": f"{i}+{i}=", "answer": str(2 * i)}} for i in range(1, 9)])
w('nested2', [{"x": {"a": {"q": f"{i}+{i}="}}, "y": {"b": {"r": str(2 * i)}}} for i in range(1, 9)])
w('nested_missing', [{"extra_info": {"question": f"{i}+{i}=", "answer": str(2 * i)}} for i in range(1, 8)]
  + [{"extra_info": {"question": "1+1="}}])
w('nested_num', [{"extra_info": {"question": f"{i}+{i}=", "answer": 2 * i}} for i in range(1, 9)])
# Qwen3 multi-turn rows: system + user + assistant; tools and enable_thinking columns
TOOLS = [{"type": "function", "function": {"name": "add", "description": "add two numbers",
          "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                         "required": ["a", "b"]}}}]
base = [{"messages": [{"role": "system", "content": "You are a calculator."},
                      {"role": "user", "content": f"What is {i} plus {i}?"},
                      {"role": "assistant", "content": f"It is {2 * i}."}]} for i in range(8)]
w('q3', base)
w('q3_tools', [dict(r, tools=TOOLS) for r in base])
w('q3_tools_str', [dict(r, tools=json.dumps(TOOLS)) for r in base])
w('q3_tools_null', [dict(r, tools=None) for r in base])
w('q3_tools_mixed', [dict(r, tools=TOOLS if i % 2 else None) for i, r in enumerate(base)])
w('q3_tools_dict', [dict(r, tools=TOOLS[0]) for r in base])
w('q3_mytools', [dict(r, functions=TOOLS) for r in base])
w('q3_think_false', [dict(r, enable_thinking=False) for r in base])
w('q3_think_true', [dict(r, enable_thinking=True) for r in base])
w('q3_think_null', [dict(r, enable_thinking=None) for r in base])
w('q3_think_str', [dict(r, enable_thinking="false") for r in base])
w('q3_think_int', [dict(r, enable_thinking=0) for r in base])
w('q3_mythink', [dict(r, think=False) for r in base])
w('q3_asst_first', [{"messages": [{"role": "assistant", "content": "Hello, ask me a sum."},
                                  {"role": "user", "content": f"What is {i} plus {i}?"},
                                  {"role": "assistant", "content": f"It is {2 * i}."}]} for i in range(8)])
w('seven_unlearnable', long[:3] + long + [{"prompt": "1+1=", "response": "2"}])
w('q3_single', [{"prompt": f"What is {i} plus {i}?", "response": f"It is {2 * i}.", "enable_thinking": False,
                 "tools": TOOLS} for i in range(8)])
w('q3_toolcall', [{"messages": [{"role": "user", "content": f"add {i} and {i}"},
                                {"role": "assistant", "content": "", "tool_calls": [{"type": "function",
                                 "function": {"name": "add", "arguments": {"a": i, "b": i}}}]},
                                {"role": "tool", "content": str(2 * i)},
                                {"role": "assistant", "content": f"It is {2 * i}."}], "tools": TOOLS} for i in range(8)])
w('q3_sys_asst', [{"messages": [{"role": "system", "content": "You are a calculator."},
                                {"role": "assistant", "content": f"I add numbers like {i}."}]} for i in range(8)])
PY
}

# r NAME TIMEOUT ARGS...: runs `verlpp ARGS` under timeout, the log in logs/NAME.log; prints the exit
# status and the lines that matter.
r() {
  local n=$1 t=$2
  shift 2
  echo "== $n: verlpp $*" | cut -c1-400
  timeout "$t" $V "$@" > logs/$n.log 2>&1
  echo "rc=$?"
  grep -v -E "bfloat16 applies|training state on rank|^\s*$" logs/$n.log | grep -E "error|Error|✗|step:|finished|stopped|resumed|note|notice|warn|verlpp|rows|fix|result" | tail -8 | cut -c1-400
}
loss1() { sed -n 's/^step:1 - .*train\/loss:\([0-9.e+-]*\).*/\1/p' logs/$1.log | head -1; }
tokens1() { sed -n 's/^step:1 - .*train\/global_tokens:\([0-9]*\).*/\1/p' logs/$1.log | head -1; }

SFT_C="data.prompt_key=prompt data.response_key=response data.train_batch_size=4 data.micro_batch_size_per_gpu=2 data.use_dynamic_bsz=false data.max_length=16 model.path=fx/cm optim.lr=0.01 trainer.total_training_steps=2 trainer.logger=[console] trainer.device=cpu trainer.resume_mode=disable"
SFT_CM="data.train_batch_size=4 data.micro_batch_size_per_gpu=2 data.use_dynamic_bsz=false data.max_length=16 model.path=fx/cm optim.lr=0.01 trainer.total_training_steps=2 trainer.logger=[console] trainer.device=cpu trainer.resume_mode=disable"
SFT_Q="data.train_batch_size=4 data.micro_batch_size_per_gpu=2 data.use_dynamic_bsz=false data.max_length=512 model.path=fx/qm optim.lr=0.01 trainer.total_training_steps=1 trainer.logger=[console] trainer.device=cpu trainer.resume_mode=disable"
PPO="data.train_files=$W/fx/gsm/train.parquet data.val_files=$W/fx/gsm/test.parquet data.val_max_samples=2 data.train_max_samples=64 data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=8 actor_rollout_ref.model.path=$W/fx/qm actor_rollout_ref.actor.ppo_mini_batch_size=2 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 algorithm.adv_estimator=grpo trainer.device=cpu trainer.logger=[console] trainer.val_before_train=false trainer.test_freq=-1 trainer.n_gpus_per_node=1"

# ---- helpers for the stop-signal cases ----
# bg NAME ARGS...: starts `verlpp ARGS` in its own session (setsid: its pid is its process group),
# output in logs/NAME.log; PID is set; a watchdog SIGKILLs the group after 150 s.
bg() {
  local n=$1
  shift
  echo "== $n: verlpp $*" | cut -c1-300
  # python3 resets SIGINT to SIG_DFL: bash starts background jobs with SIGINT ignored.
  setsid python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
    $V "$@" > logs/$n.log 2>&1 &
  PID=$!
  ( sleep 150; kill -9 -- -$PID 2>/dev/null ) > /dev/null 2>&1 &
  WD=$!
}
# wait_step NAME K: waits (up to 100 s) until logs/NAME.log has a line for step K.
wait_step() {
  for _ in $(seq 1 1000); do grep -q "^step:$2 - " logs/$1.log && return 0; sleep 0.1; done
  echo "(step $2 never came)"
  return 1
}
# finish: waits for PID and prints its status (as a shell reports it) and the log's last lines.
finish() {
  wait $PID
  RC=$?
  kill $WD 2>/dev/null
  wait $WD 2>/dev/null
  echo "rc=$RC"
  grep -v -E "bfloat16 applies|training state on rank|^\s*$|^step:" logs/$1.log | tail -6 | cut -c1-300
  echo "last step line: $(grep -E '^step:' logs/$1.log | tail -1 | cut -c1-60)"
}
# rank_pid LAUNCHER RANK: the pid of the launched rank RANK.
rank_pid() {
  local p
  for p in $(pgrep -P $1); do
    tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "RANK=$2" && { echo $p; return; }
  done
}
# ckpt_state DIR: the tracker, the global_step folders, leftovers, and whether the newest is complete.
ckpt_state() {
  echo "tracker=$(cat $1/latest_checkpointed_iteration.txt 2>/dev/null) folders=$(ls $1 2>/dev/null | grep -E 'global_step' | tr '\n' ' ') hidden=$(ls -A $1 2>/dev/null | grep '^\.' | tr '\n' ' ')"
  local t
  t=$(cat $1/latest_checkpointed_iteration.txt 2>/dev/null)
  [ -n "$t" ] && for f in actor/huggingface/model.safetensors actor/huggingface/config.json trainer_state.json; do
    [ -f $1/global_step_$t/$f ] || echo "  MISSING $1/global_step_$t/$f"
  done
}
LONG_SFT="$SFT_C data.train_files=fx/rows.jsonl trainer.total_training_steps=200000 trainer.total_epochs=100000 trainer.save_freq=-1"

T_EQ='{% for m in messages %}{% if m.role == "user" %}<|user|>{{ m.content }}={% else %}<|assistant|>{{ m.content }}<|end|>{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}'
T_NOGEN='{% for m in messages %}{% if m.role == "user" %}<|user|>{{ m.content }}{% else %}<|assistant|>{{ m.content }}<|end|>{% endif %}{% endfor %}'
T_QA='{% for m in messages %}QUESTION FOLLOWS: {{ m.content }} END OF QUESTION{% endfor %}{% if add_generation_prompt %}ANSWER:{% endif %}'
LONG_PPO="$PPO trainer.total_training_steps=2000 trainer.total_epochs=100 trainer.save_freq=-1"
LONG_PPO2="${LONG_PPO/trainer.n_gpus_per_node=1/trainer.n_gpus_per_node=2}"
BIG_SFT="$SFT_Q data.train_files=fx/q3_tools.jsonl model.path=fx/big trainer.total_epochs=1000 trainer.save_freq=2 trainer.max_ckpt_to_keep=2"
BIG_PPO="${PPO/actor_rollout_ref.model.path=$W\/fx\/qm/actor_rollout_ref.model.path=$W/fx/big} trainer.total_epochs=100 trainer.save_freq=2 trainer.max_actor_ckpt_to_keep=2"
BIG_PPO2="${BIG_PPO/trainer.n_gpus_per_node=1/trainer.n_gpus_per_node=2}"
# checkpoints the model-path cases point at
prereq() {
  [ -f out/base/global_step_2/trainer_state.json ] || r base 60 sft $SFT_C data.train_files=fx/rows.jsonl trainer.default_local_dir=out/base > /dev/null
  [ -f out/ppo_base/global_step_1/trainer_state.json ] || r ppo_base 110 ppo $PPO trainer.total_training_steps=1 trainer.save_freq=1 trainer.default_local_dir=out/ppo_base > /dev/null
  [ -f out/gae_base/global_step_1/trainer_state.json ] || r gae_base 110 ppo $PPO algorithm.adv_estimator=gae critic.model.path=$W/fx/qm critic.ppo_micro_batch_size_per_gpu=2 trainer.total_training_steps=1 trainer.save_freq=1 trainer.default_local_dir=out/gae_base > /dev/null
}

# ================= 1. verl's SFT data keys =================
case_tools_column() {  # expect: tools reach Qwen3's template (more tokens); null cells and a missing column = no tools
  for f in q3 q3_tools q3_tools_null q3_tools_mixed; do r $f 100 sft $SFT_Q data.train_files=fx/$f.jsonl trainer.default_local_dir=out/$f > /dev/null; echo "$f: step-1 tokens $(tokens1 $f)"; done
  r tools_key_custom 100 sft $SFT_Q data.train_files=fx/q3_mytools.jsonl data.tools_key=functions trainer.default_local_dir=out/tk > /dev/null; echo "tools_key=functions: tokens $(tokens1 tools_key_custom) (q3_tools: 718)"
  r tools_key_missing 100 sft $SFT_Q data.train_files=fx/q3.jsonl data.tools_key=nosuch trainer.default_local_dir=out/tm > /dev/null; echo "tools_key=nosuch: tokens $(tokens1 tools_key_missing) (no tools: 150)"
}
case_tools_bad_shape() {  # expect: a clear error naming the row (verl's transformers fails on these too)
  r tools_str 100 sft $SFT_Q data.train_files=fx/q3_tools_str.jsonl trainer.default_local_dir=out/x1
  r tools_dict 100 sft $SFT_Q data.train_files=fx/q3_tools_dict.jsonl trainer.default_local_dir=out/x1
}
case_tools_key_null() {  # verl: config.get('tools_key') is None -> no column of that name -> no tools
  r tools_key_null 100 sft $SFT_Q data.train_files=fx/q3_tools.jsonl data.tools_key=null trainer.default_local_dir=out/x2
}
case_toolcall_conversation() {  # tool call + tool turn: the prefix check fails as in verl; with ignore_input_ids_mismatch it trains
  r toolcall_strict 100 sft $SFT_Q data.train_files=fx/q3_toolcall.jsonl trainer.default_local_dir=out/x3
  r toolcall 100 sft $SFT_Q data.train_files=fx/q3_toolcall.jsonl data.ignore_input_ids_mismatch=true trainer.default_local_dir=out/x3
}
case_thinking_default_values() {  # null/true/none/None/Null: one loss; false: another; bad values: an error
  for d in null true false none None Null NONE "'null'" maybe 1 0 yes "''" "[true]"; do
    n=think_def_$(echo "$d" | sed "s/'/q/g; s/\[/L/g; s/\]/R/g" | tr -dc 'a-zA-Z0-9')
    timeout 100 $V sft $SFT_Q data.train_files=fx/q3.jsonl "data.enable_thinking_default=$d" trainer.default_local_dir=out/$n > logs/$n.log 2>&1
    echo "enable_thinking_default=$d: rc=$? loss1=$(loss1 $n) $(grep -m1 error logs/$n.log | cut -c1-150)"
  done
}
case_thinking_column() {  # the row's column wins over the default (verl: column if present, else default)
  r th_col_false 100 sft $SFT_Q data.train_files=fx/q3_think_false.jsonl data.enable_thinking_default=true trainer.default_local_dir=out/x4 > /dev/null; echo "column false, default true: loss1=$(loss1 th_col_false) (all-false run: $(loss1 think_def_false))"
  r th_col_true 100 sft $SFT_Q data.train_files=fx/q3_think_true.jsonl data.enable_thinking_default=false trainer.default_local_dir=out/x4 > /dev/null; echo "column true, default false: loss1=$(loss1 th_col_true) (null run: $(loss1 think_def_null))"
  r th_mykey 100 sft $SFT_Q data.train_files=fx/q3_mythink.jsonl data.enable_thinking_key=think trainer.default_local_dir=out/x4 > /dev/null; echo "enable_thinking_key=think (false): loss1=$(loss1 th_mykey)"
  r th_kwargs_conflict 100 sft $SFT_Q data.train_files=fx/q3_think_true.jsonl +data.apply_chat_template_kwargs.enable_thinking=false trainer.default_local_dir=out/x4 > /dev/null; echo "row true over apply_chat_template_kwargs false: loss1=$(loss1 th_kwargs_conflict) (verl: row wins)"
}
case_thinking_null_cells() {  # verl: the column exists, so a null cell passes None (no kwarg), not the default
  r th_col_null 100 sft $SFT_Q data.train_files=fx/q3_think_null.jsonl data.enable_thinking_default=false trainer.default_local_dir=out/x5 > /dev/null
  echo "null cells, default false: loss1=$(loss1 th_col_null); verl renders them as enable_thinking unset: $(loss1 think_def_null); verlpp used the default: $(loss1 think_def_false)"
}
case_thinking_column_bad() {  # a string / integer in the column: verl passes it (Jinja 'is false' fails -> thinking on); verlpp refuses
  r th_col_str 100 sft $SFT_Q data.train_files=fx/q3_think_str.jsonl trainer.default_local_dir=out/x6
  r th_col_int 100 sft $SFT_Q data.train_files=fx/q3_think_int.jsonl trainer.default_local_dir=out/x6
}
case_thinking_ignored_single_turn() {  # enable_thinking_default (and the row's enable_thinking/tools) with prompt/response rows
  for d in null false; do r st_think_$d 100 sft $SFT_Q data.train_files=fx/q3_single.jsonl data.prompt_key=prompt data.response_key=response data.enable_thinking_default=$d trainer.default_local_dir=out/x7 > /dev/null; echo "single-turn, enable_thinking_default=$d: rc ok, loss1=$(loss1 st_think_$d) tokens=$(tokens1 st_think_$d)"; done
  r st_kwargs_false 100 sft $SFT_Q data.train_files=fx/q3_single.jsonl data.prompt_key=prompt data.response_key=response +data.apply_chat_template_kwargs.enable_thinking=false trainer.default_local_dir=out/x7 > /dev/null; echo "single-turn, apply_chat_template_kwargs.enable_thinking=false: loss1=$(loss1 st_kwargs_false) tokens=$(tokens1 st_kwargs_false) (so the template does react)"
}
case_dict_keys() {  # verl's gsm8k SFT recipe shape; same loss as the flat rows
  r dk_rows 60 sft $SFT_C data.train_files=fx/rows.jsonl trainer.default_local_dir=out/x8 > /dev/null
  r dk_nested 60 sft $SFT_CM data.train_files=fx/nested.jsonl data.prompt_key=extra_info data.response_key=extra_info '+data.prompt_dict_keys=[question]' '+data.response_dict_keys=[answer]' trainer.default_local_dir=out/x8 > /dev/null
  r dk_nested2 60 sft $SFT_CM data.train_files=fx/nested2.jsonl data.prompt_key=x data.response_key=y '+data.prompt_dict_keys=[a,q]' '+data.response_dict_keys=[b,r]' trainer.default_local_dir=out/x8 > /dev/null
  r dk_str 60 sft $SFT_CM data.train_files=fx/nested.jsonl data.prompt_key=extra_info data.response_key=extra_info '+data.prompt_dict_keys=question' '+data.response_dict_keys=answer' trainer.default_local_dir=out/x8 > /dev/null
  echo "loss1: flat $(loss1 dk_rows), [question]/[answer] $(loss1 dk_nested), two levels $(loss1 dk_nested2), bare string $(loss1 dk_str)"
}
case_dict_keys_gsm8k_parquet() {
  r dk_gsm8k_parquet 110 sft data.train_files=fx/gsm/train.parquet data.val_files=fx/gsm/test.parquet data.train_max_samples=16 data.val_max_samples=4 data.prompt_key=extra_info data.response_key=extra_info '+data.prompt_dict_keys=[question]' '+data.response_dict_keys=[answer]' data.micro_batch_size_per_gpu=4 data.train_batch_size=8 data.max_length=1024 model.path=fx/qm optim.lr=1e-4 trainer.total_training_steps=2 trainer.logger=[console] trainer.device=cpu trainer.default_local_dir=out/gsm_sft trainer.resume_mode=disable
}
case_dict_keys_bad() {  # expect clear errors naming the row and the key
  r dk_missing 60 sft $SFT_CM data.train_files=fx/nested_missing.jsonl data.prompt_key=extra_info data.response_key=extra_info '+data.prompt_dict_keys=[question]' '+data.response_dict_keys=[answer]' trainer.default_local_dir=out/x9
  r dk_num 60 sft $SFT_CM data.train_files=fx/nested_num.jsonl data.prompt_key=extra_info data.response_key=extra_info '+data.prompt_dict_keys=[question]' '+data.response_dict_keys=[answer]' trainer.default_local_dir=out/x9
  r dk_on_string 60 sft $SFT_C data.train_files=fx/rows.jsonl '+data.prompt_dict_keys=[question]' trainer.default_local_dir=out/x9
  r dk_noplus 60 sft $SFT_CM data.train_files=fx/nested.jsonl data.prompt_key=extra_info data.response_key=extra_info 'data.prompt_dict_keys=[question]' 'data.response_dict_keys=[answer]' trainer.default_local_dir=out/x9
}
case_dict_keys_ignored_multiturn() {  # +data.prompt_dict_keys with messages rows (no prompt_key): nothing reads it
  r dk_with_messages 60 sft $SFT_CM data.train_files=fx/cmt.jsonl '+data.prompt_dict_keys=[question]' '+data.response_dict_keys=[answer]' trainer.default_local_dir=out/x10
}
case_custom_template_used() {  # rendering changes (35 -> 39 tokens) and the checkpoint holds the template
  r ct_used 60 sft $SFT_CM data.train_files=fx/cmt.jsonl "model.custom_chat_template='$T_EQ'" trainer.default_local_dir=out/ct_used > /dev/null
  r ct_used_single 60 sft $SFT_C data.train_files=fx/rows.jsonl "model.custom_chat_template='$T_EQ'" trainer.default_local_dir=out/ct_used1 > /dev/null
  echo "tokens: messages $(tokens1 ct_used), prompt/response $(tokens1 ct_used_single) (tokenizer's template: 35)"
  python3 -c "import json,sys; print('saved in tokenizer_config.json:', json.load(open('out/ct_used/global_step_2/actor/huggingface/tokenizer_config.json')).get('chat_template') == sys.argv[1])" "$T_EQ"
}
case_custom_template_jinja_file() {  # model folder with chat_template.jinja (newer HF layout): the checkpoint must not keep it beside the custom one
  rm -rf fx/cmj && cp -r fx/cm fx/cmj && python3 -c "
import json; p='fx/cmj/tokenizer_config.json'; c=json.load(open(p)); open('fx/cmj/chat_template.jinja','w').write(c.pop('chat_template')); json.dump(c, open(p,'w'))"
  r ct_jinja_custom 60 sft $SFT_CM data.train_files=fx/cmt.jsonl model.path=fx/cmj "model.custom_chat_template='$T_EQ'" trainer.default_local_dir=out/ct_jinja2 > /dev/null
  echo "tokens $(tokens1 ct_jinja_custom) (39 = custom used); checkpoint tokenizer files: $(ls out/ct_jinja2/global_step_2/actor/huggingface | tr '\n' ' ')"
}
case_custom_template_launch() {
  r launch_ct 100 launch --nproc-per-node 2 sft $SFT_CM data.train_files=fx/cmt.jsonl "model.custom_chat_template='$T_EQ'" trainer.n_gpus_per_node=2 trainer.default_local_dir=out/lct > /dev/null
  echo "tokens $(tokens1 launch_ct) (39 expected)"
}
case_custom_template_ppo() {  # ppo: the rollout's prompts use it (trainer.rollout_data_dir shows the text) and it is saved
  r ppo_ct 110 ppo $PPO trainer.total_training_steps=1 trainer.save_freq=1 "actor_rollout_ref.model.custom_chat_template='$T_QA'" trainer.rollout_data_dir=out/ppo_ct_gen trainer.default_local_dir=out/ppo_ct > /dev/null
  head -c 200 out/ppo_ct_gen/1.jsonl; echo
  python3 -c "import json,sys; print('saved:', json.load(open('out/ppo_ct/global_step_1/actor/huggingface/tokenizer_config.json')).get('chat_template') == sys.argv[1])" "$T_QA"
}
case_custom_template_noparse() {  # expect: an error at line:col naming the key, before anything is written
  r ct_noparse 60 sft $SFT_CM data.train_files=fx/cmt.jsonl "model.custom_chat_template='{% for m in messages %}{{ m.content }}'" trainer.default_local_dir=out/ct_noparse; ls out/ct_noparse 2>&1 | head -1
  r ct_noparse_if 60 sft $SFT_CM data.train_files=fx/cmt.jsonl "model.custom_chat_template='{% if messages %}x'" trainer.default_local_dir=out/ct_noparse
  r ct_noparse2 60 sft $SFT_CM data.train_files=fx/cmt.jsonl "model.custom_chat_template='{{ m.content '" trainer.default_local_dir=out/ct_noparse
  r ppo_ct_noparse 60 ppo $PPO trainer.total_training_steps=1 "actor_rollout_ref.model.custom_chat_template='{% if x %}oops'" trainer.default_local_dir=out/ppo_ct_bad
}
case_custom_template_runtime() {
  r ct_runtime 60 sft $SFT_CM data.train_files=fx/cmt.jsonl "model.custom_chat_template='{{ raise_exception(\"bad role\") }}'" trainer.default_local_dir=out/x11
  r ct_int 30 sft $SFT_CM data.train_files=fx/cmt.jsonl model.custom_chat_template=5 trainer.default_local_dir=out/x11
}
case_check_misses_bad_template() {  # check claims to run the start-up checks
  r ct_check_noparse 60 check --config-name sft_trainer $SFT_CM data.train_files=fx/cmt.jsonl "model.custom_chat_template='{% for m in messages %}{{ m.content }}'"
  r ppo_ct_check_noparse 60 check $PPO "actor_rollout_ref.model.custom_chat_template='{% if x %}oops'"
}
case_custom_template_empty() {  # '' (e.g. an unset shell variable)
  r ct_empty 60 sft $SFT_CM data.train_files=fx/cmt.jsonl "model.custom_chat_template=''" trainer.default_local_dir=out/ct_empty
}
case_custom_template_path() {  # a file path instead of the template text (verl takes the text literally too)
  r ct_path_multi 60 sft $SFT_Q data.train_files=fx/q3.jsonl model.custom_chat_template=/work/main/tests/fixtures/tokenizers/templates/qwen2.5-instruct.jinja trainer.default_local_dir=out/x12
  r ct_path_single 60 sft $SFT_Q data.train_files=fx/q3_single.jsonl data.prompt_key=prompt data.response_key=response model.custom_chat_template=/work/main/tests/fixtures/tokenizers/templates/qwen2.5-instruct.jinja trainer.default_local_dir=out/x12
}
case_ulysses() {
  r sp1 60 sft $SFT_C data.train_files=fx/rows.jsonl engine.ulysses_sequence_parallel_size=1 trainer.default_local_dir=out/x13 > /dev/null; echo "sp=1: loss1 $(loss1 sp1)"
  r sp2_2rank 100 launch --nproc-per-node 2 sft $SFT_C data.train_files=fx/rows.jsonl engine.ulysses_sequence_parallel_size=2 trainer.n_gpus_per_node=2 trainer.default_local_dir=out/sp2; echo "sp=2 on 2 ranks: loss1 $(loss1 sp2_2rank)"
  r sp2_1rank 60 sft $SFT_C data.train_files=fx/rows.jsonl engine.ulysses_sequence_parallel_size=2 trainer.default_local_dir=out/x13
  r sp3_2rank 60 launch --nproc-per-node 2 sft $SFT_C data.train_files=fx/rows.jsonl engine.ulysses_sequence_parallel_size=3 trainer.n_gpus_per_node=2 trainer.default_local_dir=out/x13
  r sp0 60 sft $SFT_C data.train_files=fx/rows.jsonl engine.ulysses_sequence_parallel_size=0 trainer.default_local_dir=out/x13
  r spneg 60 sft $SFT_C data.train_files=fx/rows.jsonl engine.ulysses_sequence_parallel_size=-2 trainer.default_local_dir=out/x13
  r spstr 60 sft $SFT_C data.train_files=fx/rows.jsonl engine.ulysses_sequence_parallel_size=two trainer.default_local_dir=out/x13
  r sp2_check 60 check --config-name sft_trainer --no-print-config $SFT_C data.train_files=fx/rows.jsonl engine.ulysses_sequence_parallel_size=2 trainer.n_gpus_per_node=4
}
case_ulysses_batch_split() {  # verl: dp = world / sp = 1 here, so 3 rows a step are fine
  r sp2_bs3_2rank 60 launch --nproc-per-node 2 sft $SFT_C data.train_files=fx/rows.jsonl engine.ulysses_sequence_parallel_size=2 trainer.n_gpus_per_node=2 data.train_batch_size=3 data.micro_batch_size_per_gpu=1 trainer.default_local_dir=out/x14
}
case_unlearnable_rows() {  # kept and counted; batches with nothing to learn give loss 0 / grad 0, finite weights
  r tr_one_right 60 sft $SFT_C data.train_files=fx/one_unlearnable.jsonl data.truncation=right trainer.default_local_dir=out/x15
  rm -rf out/tr7; r tr_batch_all_unlearnable 60 sft $SFT_C data.train_files=fx/seven_unlearnable.jsonl data.truncation=right data.train_batch_size=1 data.micro_batch_size_per_gpu=1 trainer.total_training_steps=8 trainer.default_local_dir=out/tr7 > /dev/null
  grep -E "^step" logs/tr_batch_all_unlearnable.log | sed 's/ - train\/lr.*//'
  python3 - <<'PY'
import array, json, math, struct
b = open('out/tr7/global_step_8/actor/huggingface/model.safetensors', 'rb').read()
n = struct.unpack('<Q', b[:8])[0]; h = json.loads(b[8:8 + n]); bad = 0
for k, v in h.items():
    if k == '__metadata__': continue
    s, e = v['data_offsets']; a = array.array('f'); a.frombytes(b[8 + n + s:8 + n + e]); bad += sum(not math.isfinite(x) for x in a)
print('non-finite weights after 8 steps:', bad)
PY
}
case_all_unlearnable() {  # a file where every row has nothing to learn: an error before anything is written
  r tr_all_right 60 sft $SFT_C data.train_files=fx/all_unlearnable.jsonl data.truncation=right trainer.default_local_dir=out/tr_all; ls out/tr_all 2>&1 | head -1
  r tr_val_unlearnable 60 sft $SFT_C data.train_files=fx/rows.jsonl data.val_files=fx/all_unlearnable.jsonl data.truncation=right trainer.default_local_dir=out/x16
  r tr_val_some 60 sft $SFT_C data.train_files=fx/rows.jsonl data.val_files=fx/one_unlearnable.jsonl data.truncation=right trainer.default_local_dir=out/x16
}
case_truncation_left_error() {
  r tr_all_left 60 sft $SFT_C data.train_files=fx/all_unlearnable.jsonl data.truncation=left trainer.default_local_dir=out/x17
  r tr_left_len1 60 sft $SFT_C data.train_files=fx/rows.jsonl data.truncation=left data.max_length=1 trainer.default_local_dir=out/x17
  r tr_left_len2 60 sft $SFT_C data.train_files=fx/rows.jsonl data.truncation=left data.max_length=2 trainer.default_local_dir=out/x17
  r tr_error 60 sft $SFT_C data.train_files=fx/one_unlearnable.jsonl trainer.default_local_dir=out/x17
}
case_user_only_rows() {  # rows without any assistant message: the error blames data.max_length
  r user_only 60 sft $SFT_CM data.train_files=fx/user_only.jsonl trainer.default_local_dir=out/x18
}
case_assistant_first() {
  r af_char 60 sft $SFT_CM data.train_files=fx/asst_first.jsonl trainer.default_local_dir=out/x19
  r af_only 60 sft $SFT_CM data.train_files=fx/asst_only.jsonl trainer.default_local_dir=out/x19
  r af_q3 100 sft $SFT_Q data.train_files=fx/q3_asst_first.jsonl trainer.default_local_dir=out/x19
  r af_q3_sys 100 sft $SFT_Q data.train_files=fx/q3_sys_asst.jsonl trainer.default_local_dir=out/x19
}
case_assistant_first_no_generation_prompt() {  # a template without add_generation_prompt: user-first rows train, assistant-first rows are refused
  r nogen_user_first 60 sft $SFT_CM data.train_files=fx/cmt.jsonl "model.custom_chat_template='$T_NOGEN'" trainer.default_local_dir=out/x20
  r nogen_asst_first 60 sft $SFT_CM data.train_files=fx/asst_first.jsonl "model.custom_chat_template='$T_NOGEN'" trainer.default_local_dir=out/x20
}

# ================= 2. stop signals =================
case_sft_sigint_once() {  # expect 130, checkpoint of the step, resume (auto) = the straight run
  rm -rf out/s1 out/s1_straight
  bg s1_sft_int sft $LONG_SFT trainer.default_local_dir=out/s1; wait_step s1_sft_int 20; kill -INT $PID; finish s1_sft_int; ckpt_state out/s1
  local K; K=$(cat out/s1/latest_checkpointed_iteration.txt)
  r s1_resume 60 sft $LONG_SFT trainer.default_local_dir=out/s1 trainer.resume_mode=auto trainer.total_training_steps=$((K + 3)) > /dev/null
  r s1_straight 60 sft $LONG_SFT trainer.default_local_dir=out/s1_straight trainer.total_training_steps=$((K + 3)) > /dev/null
  diff <(grep -E "^step:($((K + 1))|$((K + 2))|$((K + 3))) " logs/s1_resume.log | sed 's/ - train\/total_tokens.*//') \
       <(grep -E "^step:($((K + 1))|$((K + 2))|$((K + 3))) " logs/s1_straight.log | sed 's/ - train\/total_tokens.*//') &&
    echo "resumed steps $((K + 1))-$((K + 3)) equal the straight run's ($(grep -c resumed logs/s1_resume.log) resume note)"
}
case_sft_sigterm_twice_quick() {
  rm -rf out/s2; bg s2_sft_term2 sft $LONG_SFT trainer.default_local_dir=out/s2; wait_step s2_sft_term2 20; kill -TERM $PID; kill -TERM $PID; finish s2_sft_term2; ckpt_state out/s2
}
case_sft_sigint_twice_2s() {  # slow steps (41M-parameter model): the 2nd signal lands in the save; expect an immediate end, and a clean resume
  rm -rf out/s3; bg s3_sft_int_2s sft $BIG_SFT trainer.total_training_steps=1000 trainer.default_local_dir=out/s3
  wait_step s3_sft_int_2s 2; sleep 0.3; kill -INT $PID; local T0; T0=$(date +%s.%N); sleep 2; kill -INT $PID; finish s3_sft_int_2s
  echo "ended $(echo "$(date +%s.%N) - $T0" | bc) s after the first signal"; ckpt_state out/s3
  r s3_resume 110 sft $BIG_SFT trainer.total_training_steps=3 trainer.resume_mode=auto trainer.default_local_dir=out/s3; ckpt_state out/s3; rm -rf out/s3
}
case_ppo_sigint_once() {
  rm -rf out/p1; bg p1_ppo_int ppo $LONG_PPO trainer.default_local_dir=out/p1; wait_step p1_ppo_int 5; kill -INT $PID; finish p1_ppo_int; ckpt_state out/p1
  local K; K=$(cat out/p1/latest_checkpointed_iteration.txt)
  r p1_resume 100 ppo $LONG_PPO trainer.default_local_dir=out/p1 trainer.total_training_steps=$((K + 2)) > /dev/null; grep -E "resumed|^step" logs/p1_resume.log | cut -c1-40
}
case_ppo_sigterm_twice_quick() {
  rm -rf out/p2; bg p2_ppo_term2 ppo $LONG_PPO trainer.default_local_dir=out/p2; wait_step p2_ppo_term2 5; kill -TERM $PID; kill -TERM $PID; finish p2_ppo_term2; ckpt_state out/p2
}
case_ppo_sigint_twice_2s() {
  rm -rf out/p3; bg p3_ppo_int_2s ppo $BIG_PPO trainer.total_training_steps=2000 trainer.default_local_dir=out/p3
  wait_step p3_ppo_int_2s 2; sleep 0.3; kill -INT $PID; local T0; T0=$(date +%s.%N); sleep 2; kill -INT $PID; finish p3_ppo_int_2s
  echo "ended $(echo "$(date +%s.%N) - $T0" | bc) s after the first signal"; ckpt_state out/p3
  r p3_resume 110 ppo $BIG_PPO trainer.total_training_steps=3 trainer.default_local_dir=out/p3; ckpt_state out/p3; rm -rf out/p3
}
case_repeat_after_loop() {  # the same signal twice within 1 s should count once; a copy that lands after the loop ended kills
  echo "== repeat_after_loop: sft, SIGINT then the 2nd copy after various delays (Python returncode -2 = died of SIGINT)"
  for d in 0.002 0.01 0.03 0.2; do rm -rf out/s5; python3 fx/sig2.py $d SIGINT s5_sft_int_$d sft $LONG_SFT trainer.default_local_dir=out/s5; ckpt_state out/s5; done
  echo "== repeat_after_loop: 2nd copy right after the 'stopped by signal' line (sft SIGTERM, ppo SIGINT with the file logger)"
  rm -rf out/s6; python3 fx/sig2.py -1 SIGTERM s6_sft_term_after sft $LONG_SFT trainer.default_local_dir=out/s6; ckpt_state out/s6
  rm -rf out/p6 out/p6.jsonl; STEP=5 VERL_FILE_LOGGER_PATH=out/p6.jsonl python3 fx/sig2.py -1 SIGINT p6_ppo_int_after ppo $LONG_PPO 'trainer.logger=[console,file]' trainer.default_local_dir=out/p6
  ckpt_state out/p6; echo "plot: $(ls out/p6/*.png 2>/dev/null || echo none); metrics lines: $(wc -l < out/p6.jsonl)"
}
case_launch_sft_sigint_launcher() {
  rm -rf out/l1; bg l1_launch_sft_int launch --nproc-per-node 2 sft $LONG_SFT trainer.n_gpus_per_node=2 trainer.default_local_dir=out/l1
  wait_step l1_launch_sft_int 10; kill -INT $PID; finish l1_launch_sft_int; ckpt_state out/l1; ls out/l1/global_step_*/actor | tr '\n' ' '; echo
}
case_launch_signal_one_rank() {  # SIGTERM to rank 1 only, then to rank 0 only
  rm -rf out/l2 out/l6
  bg l2_launch_sft_rank1 launch --nproc-per-node 2 sft $LONG_SFT trainer.n_gpus_per_node=2 trainer.default_local_dir=out/l2
  wait_step l2_launch_sft_rank1 10; kill -TERM $(rank_pid $PID 1); finish l2_launch_sft_rank1; ckpt_state out/l2
  bg l6_launch_sft_rank0 launch --nproc-per-node 2 sft $LONG_SFT trainer.n_gpus_per_node=2 trainer.default_local_dir=out/l6
  wait_step l6_launch_sft_rank0 10; kill -TERM $(rank_pid $PID 0); finish l6_launch_sft_rank0; ckpt_state out/l6
}
case_launch_sft_sigint_group() {  # Ctrl-C in a terminal: the launcher and both ranks get it, then the launcher forwards it
  rm -rf out/l3; bg l3_launch_sft_pgrp launch --nproc-per-node 2 sft $LONG_SFT trainer.n_gpus_per_node=2 trainer.default_local_dir=out/l3
  wait_step l3_launch_sft_pgrp 10; kill -INT -- -$PID; finish l3_launch_sft_pgrp; ckpt_state out/l3
  echo "final 'stopped by a signal at step' line printed: $(grep -c 'stopped by a signal at step' logs/l3_launch_sft_pgrp.log)"
}
case_launch_sft_sigterm_twice_quick() {
  rm -rf out/l7; bg l7_launch_sft_term2 launch --nproc-per-node 2 sft $LONG_SFT trainer.n_gpus_per_node=2 trainer.default_local_dir=out/l7
  wait_step l7_launch_sft_term2 10; kill -TERM $PID; kill -TERM $PID; finish l7_launch_sft_term2; ckpt_state out/l7
}
case_launch_ppo_sigterm_launcher() {  # and resume on 2 ranks
  rm -rf out/l4; bg l4_launch_ppo_term launch --nproc-per-node 2 ppo $LONG_PPO2 trainer.default_local_dir=out/l4
  wait_step l4_launch_ppo_term 3; kill -TERM $PID; finish l4_launch_ppo_term; ckpt_state out/l4; ls out/l4/global_step_*/actor | tr '\n' ' '; echo
  local K; K=$(cat out/l4/latest_checkpointed_iteration.txt)
  r l4_resume 110 launch --nproc-per-node 2 ppo $LONG_PPO2 trainer.total_training_steps=$((K + 1)) trainer.default_local_dir=out/l4
}
case_launch_ppo_sigint_group_2s() {
  rm -rf out/l5; bg l5_launch_ppo_pgrp_2s launch --nproc-per-node 2 ppo $BIG_PPO2 trainer.total_training_steps=2000 trainer.default_local_dir=out/l5
  wait_step l5_launch_ppo_pgrp_2s 2; sleep 0.3; kill -INT -- -$PID; sleep 2; kill -INT -- -$PID; finish l5_launch_ppo_pgrp_2s; ckpt_state out/l5
  pgrep -f "out/l5" > /dev/null && echo "ranks left running!" || echo "no rank left running"; rm -rf out/l5
}
case_signal_at_startup() {  # before the first step: nothing to save; expect a prompt exit 130/143
  rm -rf out/e1 out/e2 out/e3
  bg e1_sft_int_startup sft $SFT_Q data.train_files=fx/q3_tools.jsonl model.path=fx/big trainer.total_training_steps=5 trainer.default_local_dir=out/e1; sleep 0.3; kill -INT $PID; finish e1_sft_int_startup; ls -A out/e1 2>&1
  bg e2_launch_int_startup launch --nproc-per-node 2 sft $SFT_Q data.train_files=fx/q3_tools.jsonl model.path=fx/big trainer.total_training_steps=5 trainer.n_gpus_per_node=2 trainer.default_local_dir=out/e2; sleep 0.5; kill -INT $PID; finish e2_launch_int_startup; ls -A out/e2 2>&1
  bg e3_ppo_term_val ppo ${PPO/trainer.val_before_train=false/trainer.val_before_train=true} data.val_max_samples=1319 trainer.total_training_steps=5 trainer.default_local_dir=out/e3; sleep 4; kill -TERM $PID; finish e3_ppo_term_val; ls -A out/e3 2>&1
}
case_sigterm_save_freq1() {
  rm -rf out/s7; bg s7_sft_term_savefreq1 sft ${LONG_SFT/trainer.save_freq=-1/trainer.save_freq=1} trainer.max_ckpt_to_keep=1 trainer.default_local_dir=out/s7
  wait_step s7_sft_term_savefreq1 20; kill -TERM $PID; finish s7_sft_term_savefreq1; ckpt_state out/s7
}
case_gnu_timeout() {
  rm -rf out/t1 out/t2
  echo "== timeout --preserve-status -s INT 3 verlpp sft"; timeout --preserve-status -s INT 3 $V sft $LONG_SFT trainer.default_local_dir=out/t1 > logs/timeout_int.log 2>&1; echo "rc=$?"; tail -1 logs/timeout_int.log | cut -c1-120; ckpt_state out/t1
  echo "== timeout --preserve-status 4 verlpp launch --nproc-per-node 2 sft"; timeout --preserve-status 4 $V launch --nproc-per-node 2 sft $LONG_SFT trainer.n_gpus_per_node=2 trainer.default_local_dir=out/t2 > logs/timeout_term_launch.log 2>&1; echo "rc=$?"; tail -1 logs/timeout_term_launch.log | cut -c1-120; ckpt_state out/t2
}
case_ignored_signal_inherited() {  # a parent that ignores SIGINT/SIGTERM (trap '' / a bash & job): a Python process keeps SIG_IGN
  rm -rf out/ig; echo "== ignored_signal_inherited: bash -c \"trap '' INT TERM; exec verlpp sft ...\", then kill -TERM"
  bash -c "trap '' INT TERM; exec $V sft $LONG_SFT trainer.default_local_dir=out/ig" > logs/ign_inherited.log 2>&1 &
  local P=$!
  wait_step ign_inherited 20; kill -TERM $P; sleep 2
  if kill -0 $P 2>/dev/null; then echo "still running (the signal stayed ignored)"; kill -KILL $P; wait $P; else wait $P; echo "rc=$? (stopped although its parent ignored the signal)"; fi
  tail -1 logs/ign_inherited.log | cut -c1-100
  python3 -c "
import signal, subprocess, sys
ign = lambda: (signal.signal(signal.SIGINT, signal.SIG_IGN), signal.signal(signal.SIGTERM, signal.SIG_IGN))
subprocess.run([sys.executable, '-c', 'import signal; print(\"a Python child of that parent: SIGINT\", signal.getsignal(signal.SIGINT), \"SIGTERM\", signal.getsignal(signal.SIGTERM))'], preexec_fn=ign)"
}

# ================= 3. a global_step_N folder as a model path =================
case_step_dir_as_model() {  # expect: an error naming global_step_N/actor/huggingface
  prereq
  r mp_ppo_actor 60 ppo ${PPO/actor_rollout_ref.model.path=$W\/fx\/qm/actor_rollout_ref.model.path=$W/out/ppo_base/global_step_1} trainer.total_training_steps=1 trainer.default_local_dir=out/x21
  r mp_ppo_actor_slash 60 ppo ${PPO/actor_rollout_ref.model.path=$W\/fx\/qm/actor_rollout_ref.model.path=$W/out/ppo_base/global_step_1/} trainer.total_training_steps=1 trainer.default_local_dir=out/x21
  r mp_ppo_critic 60 ppo $PPO algorithm.adv_estimator=gae critic.model.path=out/ppo_base/global_step_1 critic.ppo_micro_batch_size_per_gpu=2 trainer.total_training_steps=1 trainer.default_local_dir=out/x21
  r mp_check_actor 60 check --no-print-config ${PPO/actor_rollout_ref.model.path=$W\/fx\/qm/actor_rollout_ref.model.path=$W/out/ppo_base/global_step_1}
  r mp_sft 60 sft $SFT_C data.train_files=fx/rows.jsonl model.path=out/base/global_step_2 trainer.default_local_dir=out/x21
  r mp_sft_check 60 check --config-name sft_trainer --no-print-config $SFT_C data.train_files=fx/rows.jsonl model.path=out/base/global_step_2
  r mp_sft_home 60 sft $SFT_C data.train_files=fx/rows.jsonl model.path=~/../../tmp/bt9/out/base/global_step_2 trainer.default_local_dir=out/x21
}
case_critic_step_dir_hint() {  # a GAE checkpoint has critic/huggingface; the hint names the actor's model
  prereq
  ls out/gae_base/global_step_1/critic
  r mp_critic_from_gae 60 check --no-print-config $PPO algorithm.adv_estimator=gae critic.model.path=out/gae_base/global_step_1 critic.ppo_micro_batch_size_per_gpu=2
  rm -rf out/mp_critic_hf; r mp_critic_hf 110 ppo $PPO algorithm.adv_estimator=gae critic.model.path=out/gae_base/global_step_1/critic/huggingface critic.ppo_micro_batch_size_per_gpu=2 trainer.total_training_steps=1 trainer.default_local_dir=out/mp_critic_hf > /dev/null; echo "critic.model.path=.../critic/huggingface trains: $(grep -c '^step:1 ' logs/mp_critic_hf.log)"
}
case_near_step_dir() {  # one level short, the checkpoint root, tokenizer_path: generic 'cannot open' errors
  prereq
  r mp_actor_subdir 60 ppo ${PPO/actor_rollout_ref.model.path=$W\/fx\/qm/actor_rollout_ref.model.path=$W/out/ppo_base/global_step_1/actor} trainer.total_training_steps=1 trainer.default_local_dir=out/x22
  r mp_ckpt_root 60 ppo ${PPO/actor_rollout_ref.model.path=$W\/fx\/qm/actor_rollout_ref.model.path=$W/out/ppo_base} trainer.total_training_steps=1 trainer.default_local_dir=out/x22
  r mp_tokpath 60 ppo $PPO actor_rollout_ref.model.tokenizer_path=$W/out/ppo_base/global_step_1 trainer.total_training_steps=1 trainer.default_local_dir=out/x22
  r mp_sft_tokpath 60 sft $SFT_C data.train_files=fx/rows.jsonl model.tokenizer_path=out/base/global_step_2 trainer.default_local_dir=out/x22
}

# ================= 4. temperatures =================
case_score_temperature() {
  for t in 1 0 0.0 -0 1e-9 1e-30 1e300 nan inf -1 -1e-9; do
    echo "--- model score --temperature $t"; timeout 30 $V model score --model fx/cm --input fx/score.jsonl --device cpu --temperature "$t" 2>&1 | head -2 | cut -c1-160
  done
}
case_generate_temperature_negative() {
  r gen_temp_neg 60 generate --model fx/cm --prompt 1+1= --temperature -1 --device cpu
}
case_ppo_temperature_negative() {
  r ppo_temp_neg 60 check --no-print-config $PPO actor_rollout_ref.rollout.temperature=-0.5
  r ppo_valtemp_neg_check 60 check --no-print-config $PPO actor_rollout_ref.rollout.val_kwargs.temperature=-1
  r ppo_valtemp_neg 110 ppo $PPO actor_rollout_ref.rollout.val_kwargs.temperature=-1 actor_rollout_ref.rollout.val_kwargs.do_sample=true trainer.val_before_train=true trainer.total_training_steps=1 trainer.default_local_dir=out/x23
}

ALL="tools_column tools_bad_shape tools_key_null toolcall_conversation thinking_default_values thinking_column
thinking_null_cells thinking_column_bad thinking_ignored_single_turn dict_keys dict_keys_gsm8k_parquet dict_keys_bad
dict_keys_ignored_multiturn custom_template_used custom_template_jinja_file custom_template_launch custom_template_ppo
custom_template_noparse custom_template_runtime check_misses_bad_template custom_template_empty custom_template_path
ulysses ulysses_batch_split unlearnable_rows all_unlearnable truncation_left_error user_only_rows assistant_first
assistant_first_no_generation_prompt
sft_sigint_once sft_sigterm_twice_quick sft_sigint_twice_2s ppo_sigint_once ppo_sigterm_twice_quick ppo_sigint_twice_2s
repeat_after_loop launch_sft_sigint_launcher launch_signal_one_rank launch_sft_sigint_group launch_sft_sigterm_twice_quick
launch_ppo_sigterm_launcher launch_ppo_sigint_group_2s signal_at_startup sigterm_save_freq1 gnu_timeout ignored_signal_inherited
step_dir_as_model critic_step_dir_hint near_step_dir
score_temperature generate_temperature_negative ppo_temperature_negative"
# run only when executed (the functions can also be sourced)
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  fixtures > logs/fixtures.log 2>&1
  [ "${1:-}" = fixtures ] && exit 0
  for c in ${@:-$ALL}; do echo; echo "######## $c"; case_$c; done
fi
