#!/usr/bin/env bash
# Break-test round for verlpp (CPU build). Usage: run_cases.sh [VERLPP_BINARY] [CASE_NAME_REGEX]
# Recreates fixtures under /tmp/bt2/w, runs every case under nice/timeout/ulimit, and writes per case
# the command, exit status and first/last output lines to /tmp/bt2/report/results/NAME.txt plus a
# summary in /tmp/bt2/report/results/summary.tsv.
set -u
V=$(readlink -f "${1:-/tmp/bt2/verlpp}")
FILTER=${2:-.}
S=/work/main                 # read-only source: fixtures are copied from here
W=/tmp/bt2/w
R=/tmp/bt2/report/results
export V S W OMP_NUM_THREADS=1
mkdir -p "$R"
[ "$FILTER" = . ] && : > "$R/summary.tsv"

setup() {
  rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1
  cp -r "$S/tests/fixtures/tokenizers/qwen3" qtok
  "$V" data gsm8k --input "$S/tests/fixtures/data/gsm8k_raw" --output gsm8k >/dev/null 2>&1
  "$V" model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 \
    --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 --dtype float32 --seed 3 \
    --tokenizer qtok --output model >/dev/null 2>&1
  # character tokenizer (digits + = only) and a tiny model on it
  mkdir ctok
  cat > ctok/tokenizer.json <<'JSON'
{"added_tokens": [
  {"id": 12, "content": "<|pad|>", "special": true, "normalized": false},
  {"id": 13, "content": "<|user|>", "special": true, "normalized": false},
  {"id": 14, "content": "<|assistant|>", "special": true, "normalized": false},
  {"id": 15, "content": "<|end|>", "special": true, "normalized": false}],
 "decoder": {"type": "Fuse"},
 "model": {"type": "BPE", "merges": [], "vocab": {"0": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5,
           "6": 6, "7": 7, "8": 8, "9": 9, "+": 10, "=": 11}}}
JSON
  cat > ctok/tokenizer_config.json <<'JSON'
{"eos_token": "<|end|>", "pad_token": "<|pad|>",
 "chat_template": "{% for m in messages %}{% if m.role == 'user' %}<|user|>{{ m.content }}{% else %}<|assistant|>{{ m.content }}<|end|>{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"}
JSON
  for i in 1 2 3 4 5 6 7 8; do echo "{\"prompt\": \"$i+$i=\", \"response\": \"$((i + i))\"}"; done > rows.jsonl
  "$V" model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 1 \
    --num-attention-heads 2 --vocab-size 16 --dtype float32 --tokenizer ctok --output cmodel >/dev/null 2>&1
  # RL rows for the char tokenizer
  for i in 1 2 3 4; do
    echo "{\"data_source\": \"openai/gsm8k\", \"prompt\": [{\"role\": \"user\", \"content\": \"$i+$i=\"}], \"reward_model\": {\"style\": \"rule\", \"ground_truth\": \"$((i+i))\"}}"
  done > crl.jsonl
  # custom reward libraries
  cat > rw.c <<'C'
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
int verlpp_reward_abi_version(void) { return 1; }
double ok(const char* a, const char* b, const char* c, const char* d) { return 0.5; }
double nanr(const char* a, const char* b, const char* c, const char* d) { return NAN; }
double infr(const char* a, const char* b, const char* c, const char* d) { return INFINITY; }
double huge(const char* a, const char* b, const char* c, const char* d) { return 1e308; }
double denorm(const char* a, const char* b, const char* c, const char* d) { return 4.9e-324; }
double crash(const char* a, const char* b, const char* c, const char* d) { return *(volatile double*)0; }
double exits(const char* a, const char* b, const char* c, const char* d) { exit(0); }
double forever(const char* a, const char* b, const char* c, const char* d) { for (;;) pause(); }
int nv_named(const char* a, const char* b, const char* c, const char* d, const char** n, double* v, int cap) { n[0]="score"; v[0]=NAN; return 1; }
int big_named(const char* a, const char* b, const char* c, const char* d, const char** n, double* v, int cap) { return cap + 1000; }
int neg_named(const char* a, const char* b, const char* c, const char* d, const char** n, double* v, int cap) { return -1; }
int nullname_named(const char* a, const char* b, const char* c, const char* d, const char** n, double* v, int cap) { n[0]=0; v[0]=1; return 1; }
int dup_named(const char* a, const char* b, const char* c, const char* d, const char** n, double* v, int cap) { n[0]="score"; v[0]=1; n[1]="score"; v[1]=2; return 2; }
C
  gcc -shared -fPIC -O1 -o librw.so rw.c -lm
  cat > rwcpp.cpp <<'C'
#include <stdexcept>
extern "C" double throws(const char*, const char*, const char*, const char*) { throw std::runtime_error("boom from lib"); }
extern "C" double throwsint(const char*, const char*, const char*, const char*) { throw 42; }
C
  g++ -shared -fPIC -O1 -o librwcpp.so rwcpp.cpp
  printf 'int verlpp_reward_abi_version(void){return 2;}\ndouble ok(const char*a,const char*b,const char*c,const char*d){return 1;}\n' > rwv2.c
  gcc -shared -fPIC -o librwv2.so rwv2.c
  printf 'double ok(const char*a,const char*b,const char*c,const char*d){return 1;}\n' > rwnov.c
  gcc -shared -fPIC -o librwnov.so rwnov.c
  echo "not an elf" > libfake.so
  # images: geo3k stand-in + tiny Qwen3.5-MoE VL
  "$V" data geo3k --standin --train-rows 4 --test-rows 2 --output geo >/dev/null 2>&1
  "$V" model init --arch qwen3_5_moe --hidden-size 16 --intermediate-size 32 \
      --num-hidden-layers 3 --num-attention-heads 2 --num-key-value-heads 1 --head-dim 24 \
      --vocab-size 151936 --linear-num-key-heads 1 --linear-num-value-heads 2 --linear-key-head-dim 6 \
      --linear-value-head-dim 10 --layer-types linear_attention full_attention linear_attention \
      --num-experts 4 --num-experts-per-tok 2 --moe-intermediate-size 8 \
      --shared-expert-intermediate-size 12 --tie-word-embeddings false --dtype float32 --seed 3 \
      --vision-depth 2 --tokenizer qtok --output vlm >/dev/null 2>&1
  python3 - vlm/tokenizer_config.json "$S/tests/fixtures/tokenizers/templates/qwen3_5-vl-test.jinja" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["chat_template"] = open(sys.argv[2]).read(); json.dump(c, open(sys.argv[1], "w"))
PY
  cd /tmp/bt2
}

# common arg lists (strings, word-split on purpose; no spaces inside values)
PPO="data.train_files=$W/gsm8k/train.parquet data.val_files=$W/gsm8k/test.parquet data.train_max_samples=8 data.val_max_samples=2 data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=8 actor_rollout_ref.model.path=$W/model actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.ppo_mini_batch_size=2 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1 trainer.logger=[console] trainer.val_before_train=false trainer.test_freq=-1 trainer.total_training_steps=1 trainer.save_freq=-1"
SFT="data.train_files=$W/rows.jsonl data.val_files=$W/rows.jsonl data.prompt_key=prompt data.response_key=response data.train_batch_size=4 data.micro_batch_size_per_gpu=2 data.use_dynamic_bsz=false data.max_length=16 model.path=$W/cmodel optim.lr=0.01 trainer.total_training_steps=1 trainer.save_freq=-1 trainer.logger=[console] trainer.device=cpu"
CHK="actor_rollout_ref.rollout.name=vllm algorithm.adv_estimator=grpo actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 data.train_batch_size=8 actor_rollout_ref.actor.ppo_mini_batch_size=4 trainer.device=cpu trainer.n_gpus_per_node=1 actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.model.path=$W/model data.train_files=$W/gsm8k/train.parquet data.val_files=$W/gsm8k/test.parquet"
IMG="actor_rollout_ref.rollout.name=vllm data.shuffle=false data.train_files=$W/geo/train.jsonl data.val_files=$W/geo/test.jsonl data.image_key=images data.train_batch_size=2 data.max_prompt_length=400 data.max_response_length=4 actor_rollout_ref.model.path=$W/vlm actor_rollout_ref.actor.ppo_mini_batch_size=2 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1 trainer.logger=[console] trainer.val_before_train=false trainer.test_freq=-1 trainer.total_training_steps=1 trainer.save_freq=-1"
export PPO SFT CHK IMG

# c NAME 'shell command'  -- run in a fresh case folder /tmp/bt2/cases/NAME ($V, $W, $PPO... set)
c() {
  local name=$1 cmd=$2 t=${3:-120} rc d=/tmp/bt2/cases/$1 o
  [[ $name =~ $FILTER ]] || return 0
  o=$d.out
  rm -rf "$d"; mkdir -p "$d"
  (cd "$d" && ulimit -v 8000000 && exec nice -n 19 timeout -s KILL "$t" bash -c "$cmd") > "$o" 2>&1 < /dev/null; rc=$?
  if [ $rc -eq 137 ] && [ "$t" -eq 120 ]; then
    rm -rf "$d"; mkdir -p "$d"
    (cd "$d" && ulimit -v 8000000 && exec nice -n 19 timeout -s KILL 300 bash -c "$cmd") > "$o" 2>&1 < /dev/null; rc=$?
  fi
  {
    echo "CASE: $name"; echo "CMD: $cmd"; echo "RC: $rc"; echo "OUTPUT_BYTES: $(stat -c %s "$o")"; echo "--- first lines"
    head -c 4000 "$o" | head -5; echo; echo "--- last lines"; tail -c 4000 "$o" | tail -5
  } > "$R/$name.txt"
  printf '%s\t%s\t%s\n' "$name" "$rc" "$(head -c 300 "$o" | head -1)" >> "$R/summary.tsv"
  [ "$(stat -c %s "$o")" -gt 10000000 ] && : > "$o"
  return 0
}

cases_parsers() {
  # --- JSON data rows
  c json_deep_array_prompt 'python3 -c "print(\"{\\\"prompt\\\": \" + \"[\"*200000 + \"]\"*200000 + \"}\")" > d.jsonl; $V ppo $PPO data.train_files=d.jsonl data.val_files=d.jsonl'
  c json_deep_object_extra 'python3 -c "import json; r=json.loads(open(\"$W/gsm8k/train.jsonl\").readline()); s=json.dumps(r)[:-1]+\", \\\"extra_info\\\": \"+\"{\\\"a\\\":\"*200000+\"1\"+\"}\"*200000+\"}\"; open(\"d.jsonl\",\"w\").write((s+chr(10))*8)"; $V ppo $PPO data.train_files=d.jsonl data.val_files=d.jsonl'
  c json_deep_gen_data 'python3 -c "print(\"{\\\"prompt\\\": \" + \"[\"*200000 + \"]\"*200000 + \"}\")" > d.jsonl; $V generate --model $W/model --data d.jsonl --device cpu --response-length 2'
  c json_deep_sft 'python3 -c "print(\"{\\\"prompt\\\": \" + \"[\"*200000 + \"]\"*200000 + \", \\\"response\\\": \\\"2\\\"}\")" > d.jsonl; $V sft $SFT data.train_files=d.jsonl data.val_files=d.jsonl'
  c json_deep_tokenize_chat 'python3 -c "print(\"[\"*300000 + \"]\"*300000)" | $V tokenize --tokenizer $W/ctok --chat'
  c json_deep_tokenize_jsonlines 'python3 -c "print(\"[\"*300000 + \"]\"*300000)" | $V tokenize --tokenizer $W/ctok --json-lines'
  c json_deep_context 'echo "[{\"role\":\"user\",\"content\":\"1\"}]" | $V tokenize --tokenizer $W/ctok --chat --context "$(python3 -c "print(\"{\\\"a\\\":\"*20000+\"1\"+\"}\"*20000)")"'
  c json_deep_extra_info_reward 'echo "#### 2" | $V reward --data-source openai/gsm8k --ground-truth 2 --extra-info "$(python3 -c "print(\"{\\\"a\\\":\"*20000+\"1\"+\"}\"*20000)")"'
  c json_deep_tokenizer_json 'mkdir t; python3 -c "print(\"{\\\"model\\\": \" + \"[\"*300000 + \"]\"*300000 + \"}\")" > t/tokenizer.json; echo 12 | $V tokenize --tokenizer t'
  c json_deep_config_json 'cp -r $W/model m; python3 -c "print(\"{\\\"a\\\": \" + \"[\"*300000 + \"]\"*300000 + \"}\")" > m/config.json; $V generate --model m --prompt hi --device cpu --response-length 2'
  c json_deep_score_input 'python3 -c "print(\"{\\\"prompt_ids\\\": \" + \"[\"*300000 + \"]\"*300000 + \"}\")" > i.jsonl; $V model score --model $W/model --input i.jsonl --device cpu'
  c json_prompt_not_list 'echo "{\"prompt\": 7, \"data_source\": \"openai/gsm8k\", \"reward_model\": {\"ground_truth\": \"1\"}}" > d.jsonl; $V ppo $PPO data.train_files=d.jsonl data.val_files=d.jsonl data.train_batch_size=1 actor_rollout_ref.actor.ppo_mini_batch_size=1'
  c json_role_missing 'for i in 1 2; do echo "{\"prompt\": [{\"content\": \"hi\"}], \"data_source\": \"openai/gsm8k\", \"reward_model\": {\"ground_truth\": \"1\"}}"; done > d.jsonl; $V ppo $PPO data.train_files=d.jsonl data.val_files=d.jsonl'
  c json_dup_keys_row 'for i in 1 2; do echo "{\"prompt\": [{\"role\":\"user\",\"content\":\"a\"}], \"prompt\": [{\"role\":\"user\",\"content\":\"b\"}], \"data_source\": \"openai/gsm8k\", \"reward_model\": {\"ground_truth\": \"1\"}}"; done > d.jsonl; $V ppo $PPO data.train_files=d.jsonl data.val_files=d.jsonl'
  c json_huge_number_row 'for i in 1 2; do echo "{\"prompt\": [{\"role\":\"user\",\"content\":\"a\"}], \"data_source\": \"openai/gsm8k\", \"reward_model\": {\"ground_truth\": 1e400}}"; done > d.jsonl; $V ppo $PPO data.train_files=d.jsonl data.val_files=d.jsonl'
  c json_score_ids_huge 'echo "{\"prompt_ids\": [1, 99999999999999999999], \"response_ids\": [2]}" > i.jsonl; $V model score --model $W/model --input i.jsonl --device cpu'
  c json_score_ids_neg 'echo "{\"prompt_ids\": [1, -5], \"response_ids\": [2]}" > i.jsonl; $V model score --model $W/model --input i.jsonl --device cpu'
  c json_score_ids_oov 'echo "{\"prompt_ids\": [1, 151936], \"response_ids\": [2]}" > i.jsonl; $V model score --model $W/model --input i.jsonl --device cpu'
  c json_score_ids_float 'echo "{\"prompt_ids\": [1, 2.5], \"response_ids\": [2]}" > i.jsonl; $V model score --model $W/model --input i.jsonl --device cpu'
  c json_gen_input_empty_ids 'echo "{\"prompt_ids\": []}" > i.jsonl; $V generate --model $W/model --input i.jsonl --device cpu --response-length 2'
  c json_score_empty_response 'echo "{\"prompt_ids\": [1], \"response_ids\": []}" > i.jsonl; $V model score --model $W/model --input i.jsonl --device cpu'

  # --- YAML configs
  c yaml_alias_bomb 'mkdir cfg; { echo "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]"; p=a; for l in b c d e f g h i j k l m; do echo "$l: &$l [*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p]"; p=$l; done; } > cfg/bomb.yaml; $V check --config-path cfg --config-name bomb $CHK'
  c yaml_alias_bomb_in_known_key 'mkdir cfg; { echo "defaults: [ppo_trainer, _self_]"; echo "x: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]"; p=a; for l in b c d e f g h i j k l m; do echo "x$l: &$l [*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p]"; p=$l; done; echo "data: {train_files: *m}"; } > cfg/bomb.yaml; $V check --config-path cfg --config-name bomb $CHK'
  c yaml_alias_self_loop 'mkdir cfg; printf "a: &a\n  b: *a\n" > cfg/loop.yaml; $V check --config-path cfg --config-name loop $CHK'
  c yaml_merge_self 'mkdir cfg; printf "a: &a\n  <<: *a\n  x: 1\n" > cfg/loop.yaml; $V check --config-path cfg --config-name loop $CHK'
  c yaml_undefined_alias 'mkdir cfg; printf "defaults: [ppo_trainer, _self_]\ndata:\n  train_batch_size: *nope\n" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_deep_flow 'mkdir cfg; python3 -c "print(\"a: \" + \"[\"*200000 + \"]\"*200000)" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_deep_block 'mkdir cfg; python3 -c "print(\"\".join(\" \"*i+\"k:\"+chr(10) for i in range(20000)))" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_dup_key 'mkdir cfg; printf "defaults: [ppo_trainer, _self_]\ndata:\n  train_batch_size: 4\n  train_batch_size: 8\n" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_dup_toplevel 'mkdir cfg; printf "defaults: [ppo_trainer, _self_]\ndata:\n  train_batch_size: 4\ndata:\n  max_prompt_length: 8\n" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_empty_file 'mkdir cfg; : > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_binary_file 'mkdir cfg; head -c 4096 /bin/ls > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_is_folder 'mkdir -p cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_missing 'mkdir cfg; $V check --config-path cfg --config-name nope $CHK'
  c yaml_symlink_loop 'mkdir cfg; ln -s c.yaml cfg/d.yaml; ln -s d.yaml cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_defaults_self_include 'mkdir cfg; printf "defaults: [c, _self_]\n" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_defaults_cycle 'mkdir cfg; printf "defaults: [d, _self_]\n" > cfg/c.yaml; printf "defaults: [c, _self_]\n" > cfg/d.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_tab_indent 'mkdir cfg; printf "defaults: [ppo_trainer, _self_]\ndata:\n\ttrain_batch_size: 4\n" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_unknown_key 'mkdir cfg; printf "defaults: [ppo_trainer, _self_]\ndata:\n  train_bach_size: 4\n" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_list_for_int 'mkdir cfg; printf "defaults: [ppo_trainer, _self_]\ndata:\n  max_response_length: [1, 2]\n" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_invalid_utf8 'mkdir cfg; printf "defaults: [ppo_trainer, _self_]\ntrainer:\n  project_name: \"\xff\xfe\"\n" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_interp_loop_file 'mkdir cfg; printf "defaults: [ppo_trainer, _self_]\ndata:\n  max_response_length: \${data.max_prompt_length}\n  max_prompt_length: \${data.max_response_length}\n" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK'
  c yaml_tag_python 'mkdir cfg; printf "defaults: [ppo_trainer, _self_]\ndata:\n  max_response_length: !!python/object/apply:os.system [\"touch pwned\"]\n" > cfg/c.yaml; $V check --config-path cfg --config-name c $CHK; rc=$?; test -e pwned && echo PWNED; exit $rc'
  c yaml_sft_config_path_loop 'mkdir cfg; printf "a: &a\n  b: *a\n" > cfg/loop.yaml; $V sft --config-path cfg --config-name loop $SFT'

  # --- overrides
  c ovr_deep_list 'a="+trainer.x=$(python3 -c "print(\"[\"*30000 + \"]\"*30000)")"; $V check $CHK "$a"'
  c ovr_deep_map 'a="+trainer.x=$(python3 -c "print(\"{a:\"*20000 + \"1\" + \"}\"*20000)")"; $V check $CHK "$a"'
  c ovr_deep_list_noprint 'a="+trainer.x=$(python3 -c "print(\"[\"*30000 + \"]\"*30000)")"; $V check --no-print-config $CHK "$a"'
  c ovr_deep_dotted_key 'a="+$(python3 -c "print(\".\".join([\"k\"]*50000))")=1"; $V check $CHK "$a"'
  c ovr_interp_self '$V check $CHK "data.train_batch_size=\${data.train_batch_size}"'
  c ovr_interp_cycle '$V check $CHK "data.train_batch_size=\${data.max_prompt_length}" "data.max_prompt_length=\${data.train_batch_size}"'
  c ovr_interp_chain_long 'args=(); for i in $(seq 1 3000); do args+=("+trainer.k$i=\${trainer.k$((i+1))}"); done; args+=("+trainer.k3001=7" "data.train_batch_size=\${trainer.k1}"); $V check $CHK "${args[@]}"'
  c ovr_interp_missing '$V check $CHK "data.train_batch_size=\${data.nope}"'
  c ovr_interp_nested '$V check $CHK "+trainer.n=train_batch_size" "data.max_prompt_length=\${data.\${trainer.n}}"'
  c ovr_interp_unterminated '$V check $CHK "trainer.project_name=\${data.train_batch_size"'
  c ovr_interp_env_missing '$V check $CHK "trainer.project_name=\${oc.env:VERLPP_NOPE_XYZ}"'
  c ovr_interp_type_mismatch '$V check $CHK "data.train_batch_size=\${data.train_files}"'
  c ovr_interp_deep_nest '$V check $CHK "trainer.project_name=$(python3 -c "print(\"\${\"*20000 + \"x\" + \"}\"*20000)")"'
  c ovr_bad_syntax '$V check $CHK "data.train_batch_size"'
  c ovr_empty_key '$V check $CHK "=5"'
  c ovr_delete_required '$V check $CHK "~data"'
  c ovr_plus_existing '$V check $CHK "+data.train_batch_size=4"'
  c ovr_unbalanced_bracket '$V check $CHK "trainer.logger=[console"'
  c ovr_huge_list '$V check $CHK "trainer.logger=[$(python3 -c "print(\",\".join([\"console\"]*14000))")]"'

  # --- chat templates
  tpl() { echo "mkdir t; cp $W/ctok/tokenizer.json t/; [ -f tpl.txt ] || printf '%s' \"\$T\" > tpl.txt; python3 -c 'import json,sys; json.dump({\"eos_token\":\"<|end|>\",\"pad_token\":\"<|pad|>\",\"chat_template\":open(\"tpl.txt\").read()}, open(\"t/tokenizer_config.json\",\"w\"))'; echo '[{\"role\":\"user\",\"content\":\"12\"}]' | \$V tokenize --tokenizer t --chat"; }
  c tpl_recursive_macro "T='{% macro f(x) %}{{ f(x) }}{% endmacro %}{{ f(1) }}'; $(tpl)"
  c tpl_deep_if "python3 -c 'print(\"{% if true %}\"*50000 + \"1\" + \"{% endif %}\"*50000)' > tpl.txt; $(tpl)"
  c tpl_deep_parens "python3 -c 'print(\"{{ \" + \"(\"*100000 + \"1\" + \")\"*100000 + \" }}\")' > tpl.txt; $(tpl)"
  c tpl_huge_range "T='{% for i in range(1000000000000) %}1{% endfor %}'; $(tpl)"
  c tpl_huge_string_mult "T='{{ \"1\" * 100000000000 }}'; $(tpl)"
  c tpl_nested_loops_output "T='{% for a in range(100000) %}{% for b in range(100000) %}1{% endfor %}{% endfor %}'; $(tpl)"
  c tpl_raise_exception "T='{{ raise_exception(\"no system allowed\") }}'; $(tpl)"
  c tpl_syntax_error "T='{% for m in messages %}{{ m.content }'; $(tpl)"
  c tpl_undefined_filter "T='{{ messages | nosuchfilter }}'; $(tpl)"
  c tpl_include "T='{% include \"/etc/passwd\" %}'; $(tpl)"
  c tpl_deep_call_chain "T='{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(1000000) }}'; $(tpl)"
  c tpl_unknown_chars_in_output "T='hello world {{ messages[0].content }}'; $(tpl)"
  c tpl_namespace_growth "T='{% set ns = namespace(s=\"1\") %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}'; $(tpl)"
  c tpl_in_ppo_recursive 'cp -r $W/model m; python3 -c "import json; p=\"m/tokenizer_config.json\"; c=json.load(open(p)); c[\"chat_template\"]=\"{% macro f(x) %}{{ f(x) }}{% endmacro %}{{ f(1) }}\"; json.dump(c, open(p,\"w\"))"; $V ppo $PPO actor_rollout_ref.model.path=m'
  c tpl_chat_template_file_missing 'echo "[{\"role\":\"user\",\"content\":\"1\"}]" | $V tokenize --tokenizer $W/ctok --chat --chat-template nope.jinja'
  c tpl_chat_template_is_number 'cp -r $W/ctok t; python3 -c "import json; p=\"t/tokenizer_config.json\"; c=json.load(open(p)); c[\"chat_template\"]=7; json.dump(c, open(p,\"w\"))"; echo "[{\"role\":\"user\",\"content\":\"1\"}]" | $V tokenize --tokenizer t --chat'
}

cases_numbers() {
  local k v i=0
  # check-level: each bad value for a set of keys
  for kv in data.train_batch_size=1e400 data.train_batch_size=-1e400 data.train_batch_size=nan data.train_batch_size=inf \
            data.train_batch_size=0 data.train_batch_size=-2 data.train_batch_size=99999999999999999999 data.train_batch_size=2.5 \
            actor_rollout_ref.rollout.n=0 actor_rollout_ref.rollout.n=-1 actor_rollout_ref.rollout.n=1e400 \
            data.max_response_length=0 data.max_response_length=-5 data.max_response_length=9223372036854775807 \
            actor_rollout_ref.actor.ppo_mini_batch_size=0 actor_rollout_ref.actor.ppo_mini_batch_size=3 \
            actor_rollout_ref.actor.optim.lr=nan actor_rollout_ref.actor.optim.lr=inf actor_rollout_ref.actor.optim.lr=-1e-3 \
            actor_rollout_ref.actor.optim.lr=1e-400 actor_rollout_ref.actor.optim.lr=1e400 \
            actor_rollout_ref.actor.optim.weight_decay=nan actor_rollout_ref.actor.clip_ratio=nan \
            actor_rollout_ref.actor.clip_ratio_low=-1 actor_rollout_ref.actor.clip_ratio_high=inf \
            actor_rollout_ref.rollout.temperature=nan actor_rollout_ref.rollout.temperature=0 actor_rollout_ref.rollout.top_p=2 \
            algorithm.kl_ctrl.kl_coef=nan algorithm.gamma=inf actor_rollout_ref.actor.entropy_coeff=-inf \
            actor_rollout_ref.actor.optim.betas=[nan,0.9] actor_rollout_ref.actor.grad_clip=-1 trainer.total_epochs=-1 \
            data.max_prompt_length=0; do
    i=$((i+1))
    c "num_check_$(echo "$kv" | sed 's/actor_rollout_ref\.//; s/[^A-Za-z0-9]/_/g')" "\$V check \$CHK '$kv'"
  done
  # same values actually run (ppo) where check may pass them
  for kv in actor_rollout_ref.actor.optim.lr=nan actor_rollout_ref.actor.optim.weight_decay=nan actor_rollout_ref.actor.clip_ratio=nan \
            actor_rollout_ref.rollout.temperature=nan actor_rollout_ref.rollout.temperature=1e-400 algorithm.kl_ctrl.kl_coef=nan \
            actor_rollout_ref.actor.optim.lr=1e-400 data.max_response_length=9223372036854775807 actor_rollout_ref.rollout.n=100000000 \
            data.train_batch_size=100000000 actor_rollout_ref.actor.optim.betas=[nan,0.9] actor_rollout_ref.actor.grad_clip=nan \
            actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=nan actor_rollout_ref.actor.optim.lr_warmup_steps=-5; do
    c "num_ppo_$(echo "$kv" | sed 's/actor_rollout_ref\.//; s/[^A-Za-z0-9]/_/g')" "\$V ppo \$PPO '$kv'"
  done
  for kv in optim.lr=nan optim.weight_decay=inf data.max_length=0 data.max_length=-1 data.train_batch_size=0 data.micro_batch_size_per_gpu=0 optim.lr=1e400 trainer.total_training_steps=-3; do
    c "num_sft_$(echo "$kv" | sed 's/[^A-Za-z0-9]/_/g')" "\$V sft \$SFT '$kv'"
  done
  c num_sft_optim_weight_decay_nan '$V sft $SFT optim.weight_decay=nan'
  c num_sft_optim_betas_nan '$V sft $SFT "optim.betas=[nan,0.999]"'
  c num_ppo_betas_nan_2steps '$V ppo $PPO "actor_rollout_ref.actor.optim.betas=[nan,0.9]" actor_rollout_ref.actor.entropy_coeff=0.01 trainer.total_training_steps=2'
  c num_ppo_mini_batch_0 '$V ppo $PPO actor_rollout_ref.actor.ppo_mini_batch_size=0'
  c num_ppo_top_p_2 '$V ppo $PPO actor_rollout_ref.rollout.top_p=2'
  c num_ppo_temperature_0 '$V ppo $PPO actor_rollout_ref.rollout.temperature=0'
  # model init sizes
  mi() { echo "\$V model init --arch qwen3 --hidden-size ${1:-16} --intermediate-size ${2:-32} --num-hidden-layers ${3:-1} --num-attention-heads ${4:-2} --vocab-size ${5:-16} --dtype float32 --tokenizer \$W/ctok --output out"; }
  c mi_hidden_zero "$(mi 0)"
  c mi_hidden_neg "$(mi -16)"
  c mi_hidden_huge "$(mi 2000000000)"
  c mi_vocab_huge "$(mi 16 32 1 2 9223372036854775807)"
  c mi_vocab_overflow "$(mi 16 32 1 2 99999999999999999999)"
  c mi_layers_zero "$(mi 16 32 0)"
  c mi_heads_zero "$(mi 16 32 1 0)"
  c mi_heads_not_divisor "$(mi 16 32 1 3)"
  c mi_vocab_smaller_than_tokenizer "$(mi 16 32 1 2 4)"
  c mi_kv_heads_gt_heads "$(mi) --num-key-value-heads 4"
  c mi_rope_nan "$(mi) --rope-theta nan"
  c mi_eps_neg "$(mi) --rms-norm-eps -1"
  c mi_maxpos_zero "$(mi) --max-position-embeddings 0"
  c mi_headdim_huge "$(mi) --head-dim 4611686018427387904"
  c mi_product_overflow "$(mi 4294967296 4294967296 1 2 4294967296)"
  # config.json sizes of an existing model
  cj() { echo "cp -r \$W/model m; python3 -c 'import json,sys; p=\"m/config.json\"; c=json.load(open(p)); c.update(json.loads(sys.argv[1])); json.dump(c, open(p,\"w\"))' '$1'; \$V generate --model m --prompt hi --device cpu --response-length 2"; }
  c cfgjson_hidden_zero "$(cj '{"hidden_size": 0}')"
  c cfgjson_hidden_mismatch "$(cj '{"hidden_size": 32}')"
  c cfgjson_vocab_neg "$(cj '{"vocab_size": -1}')"
  c cfgjson_vocab_huge "$(cj '{"vocab_size": 1e30}')"
  c cfgjson_layers_huge "$(cj '{"num_hidden_layers": 4000000000}')"
  c cfgjson_layers_fewer "$(cj '{"num_hidden_layers": 1}')"
  c cfgjson_heads_zero "$(cj '{"num_attention_heads": 0}')"
  c cfgjson_heads_string "$(cj '{"num_attention_heads": "two"}')"
  c cfgjson_rope_nan "$(cj '{"rope_theta": NaN}')"
  c cfgjson_eps_inf "$(cj '{"rms_norm_eps": Infinity}')"
  c cfgjson_arch_unknown "$(cj '{"architectures": ["FooForCausalLM"], "model_type": "foo"}')"
  c cfgjson_headdim_mismatch "$(cj '{"head_dim": 4}')"
  c cfgjson_maxpos_tiny "$(cj '{"max_position_embeddings": 2}')"
  c gen_resp_len_neg '$V generate --model $W/model --prompt hi --device cpu --response-length -1'
  c gen_resp_len_zero '$V generate --model $W/model --prompt hi --device cpu --response-length 0'
  c gen_n_zero '$V generate --model $W/model --prompt hi --device cpu --n 0 --response-length 2'
  c gen_temp_nan '$V generate --model $W/model --prompt hi --device cpu --temperature nan --response-length 2'
  c gen_top_p_neg '$V generate --model $W/model --prompt hi --device cpu --top-p -1 --response-length 2'
  c gen_topk_zero '$V generate --model $W/model --prompt hi --device cpu --top-k 0 --response-length 2'
  c gen_batch_zero '$V generate --model $W/model --prompt hi --device cpu --batch-size 0 --response-length 2'
  c gen_resp_len_huge '$V generate --model $W/model --prompt hi --device cpu --response-length 2000000000 --ignore-eos'
  c score_temp_zero 'echo "{\"prompt_ids\": [1], \"response_ids\": [2]}" > i.jsonl; $V model score --model $W/model --input i.jsonl --device cpu --temperature 0'
  c score_batch_tokens_zero 'echo "{\"prompt_ids\": [1], \"response_ids\": [2]}" > i.jsonl; $V model score --model $W/model --input i.jsonl --device cpu --max-batch-tokens 0'
}

cases_files() {
  # model/data paths
  c f_model_missing '$V ppo $PPO actor_rollout_ref.model.path=/tmp/bt2/nope'
  c f_model_empty_dir 'mkdir m; $V ppo $PPO actor_rollout_ref.model.path=m'
  c f_data_missing '$V ppo $PPO data.train_files=/tmp/bt2/nope.parquet'
  c f_data_empty 'touch d.jsonl; $V ppo $PPO data.train_files=d.jsonl data.val_files=d.jsonl'
  c f_data_empty_parquet 'touch d.parquet; $V ppo $PPO data.train_files=d.parquet data.val_files=d.parquet'
  c f_data_folder 'mkdir d.jsonl; $V ppo $PPO data.train_files=d.jsonl'
  c f_data_devnull '$V ppo $PPO data.train_files=/dev/null'
  c f_data_devzero_gen '$V generate --model $W/model --data /dev/zero --device cpu --response-length 2'
  c f_data_symlink_loop 'ln -s a.jsonl b.jsonl; ln -s b.jsonl a.jsonl; $V ppo $PPO data.train_files=a.jsonl'
  c f_data_fifo 'mkfifo d.jsonl; $V ppo $PPO data.train_files=d.jsonl'
  c f_parquet_truncated 'head -c 300 $W/gsm8k/train.parquet > d.parquet; $V ppo $PPO data.train_files=d.parquet data.val_files=d.parquet'
  c f_parquet_corrupt_middle 'cp $W/gsm8k/train.parquet d.parquet; python3 -c "import os; f=open(\"d.parquet\",\"r+b\"); n=os.path.getsize(\"d.parquet\"); f.seek(n//2); f.write(os.urandom(200))"; $V ppo $PPO data.train_files=d.parquet data.val_files=d.parquet'
  c f_parquet_footer_lie 'cp $W/gsm8k/train.parquet d.parquet; python3 -c "import os,struct; f=open(\"d.parquet\",\"r+b\"); n=os.path.getsize(\"d.parquet\"); f.seek(n-8); f.write(struct.pack(\"<I\", 0x7fffffff))"; $V ppo $PPO data.train_files=d.parquet data.val_files=d.parquet'
  c f_parquet_magic_only 'printf "PAR1PAR1" > d.parquet; $V ppo $PPO data.train_files=d.parquet data.val_files=d.parquet'
  c f_jsonl_bad_line 'cp $W/gsm8k/train.jsonl d.jsonl; sed -i "3s/.*/{\"prompt\": [/" d.jsonl; $V ppo $PPO data.train_files=d.jsonl data.val_files=$W/gsm8k/test.jsonl'
  c f_jsonl_nul_bytes 'cp $W/gsm8k/train.jsonl d.jsonl; printf "\0\0\0\n" >> d.jsonl; $V ppo $PPO data.train_files=d.jsonl data.val_files=$W/gsm8k/test.jsonl'
  c f_json_truncated 'python3 -c "import json; rows=[json.loads(l) for l in open(\"$W/gsm8k/train.jsonl\")]; s=json.dumps(rows); open(\"d.json\",\"w\").write(s[:len(s)//2])"; $V ppo $PPO data.train_files=d.json data.val_files=$W/gsm8k/test.jsonl'
  c f_data_bad_extension 'cp $W/gsm8k/train.jsonl d.csv; $V ppo $PPO data.train_files=d.csv data.val_files=$W/gsm8k/test.jsonl'
  c f_data_invalid_utf8 'python3 -c "import json; l=open(\"$W/gsm8k/train.jsonl\",\"rb\").read().split(b\"\\n\"); l=[x.replace(b\"Natalia\", b\"Nat\\xff\\xfelia\") for x in l]; open(\"d.jsonl\",\"wb\").write(b\"\\n\".join(l))"; $V ppo $PPO data.train_files=d.jsonl data.val_files=$W/gsm8k/test.jsonl'
  c f_data_lone_surrogate 'python3 -c "print(open(\"$W/gsm8k/train.jsonl\").read().replace(\"Natalia\", \"Nat\\\\ud800lia\"), end=\"\")" > d.jsonl; $V ppo $PPO data.train_files=d.jsonl data.val_files=$W/gsm8k/test.jsonl'
  c f_prompt_invalid_utf8 '$V generate --model $W/model --prompt "$(printf "hi \xff\xfe\xc0\x80")" --device cpu --response-length 2'
  c f_prompt_empty '$V generate --model $W/model --prompt "" --device cpu --response-length 2'
  c f_tokenize_invalid_utf8 'printf "12\xff3\n" | $V tokenize --tokenizer $W/qtok'
  c f_sft_chars_not_in_tokenizer 'for i in 1 2 3 4; do echo "{\"prompt\": \"hello $i\", \"response\": \"x\"}"; done > r.jsonl; $V sft $SFT data.train_files=r.jsonl data.val_files=r.jsonl'
  c f_rl_chars_not_in_tokenizer 'for i in 1 2; do echo "{\"data_source\": \"openai/gsm8k\", \"prompt\": [{\"role\": \"user\", \"content\": \"what is $i+$i?\"}], \"reward_model\": {\"ground_truth\": \"2\"}}"; done > d.jsonl; $V ppo $PPO actor_rollout_ref.model.path=$W/cmodel data.train_files=d.jsonl data.val_files=d.jsonl'
  c f_rl_char_tokenizer_ok '$V ppo $PPO actor_rollout_ref.model.path=$W/cmodel data.train_files=$W/crl.jsonl data.val_files=$W/crl.jsonl'
  c f_tokenizer_missing_json 'cp -r $W/model m; rm m/tokenizer.json; $V generate --model m --prompt hi --device cpu --response-length 2'
  c f_tokenizer_json_empty 'cp -r $W/model m; : > m/tokenizer.json; $V generate --model m --prompt hi --device cpu --response-length 2'
  c f_config_json_missing 'cp -r $W/model m; rm m/config.json; $V generate --model m --prompt hi --device cpu --response-length 2'
  c f_config_json_is_dir 'cp -r $W/model m; rm m/config.json; mkdir m/config.json; $V generate --model m --prompt hi --device cpu --response-length 2'
  # safetensors corruption
  st() { echo "cp -r \$W/model m; python3 - <<'PY'
import json, struct
p = 'm/model.safetensors'; b = open(p, 'rb').read(); n = struct.unpack('<Q', b[:8])[0]; h = json.loads(b[8:8+n]); body = b[8+n:]
names = sorted(k for k in h if k != '__metadata__')
$1
hb = json.dumps(h).encode() if not isinstance(h, bytes) else h
open(p, 'wb').write(struct.pack('<Q', len(hb)) + hb + body if 'RAW' not in globals() else RAW)
PY
\$V generate --model m --prompt hi --device cpu --response-length 2"; }
  c st_truncated_body "$(st 'body = body[:len(body)//2]')"
  c st_empty_file "$(st 'RAW = b""')"
  c st_header_len_huge "$(st 'RAW = struct.pack("<Q", 2**64-1) + b"{}"')"
  c st_header_len_past_eof "$(st 'RAW = struct.pack("<Q", 10**6) + b"{}"')"
  c st_header_not_json "$(st 'h = b"{not json" + b" " * 20')"
  c st_offsets_overlap "$(st 'a, b2 = names[0], names[1]; h[b2]["data_offsets"] = h[a]["data_offsets"] if h[a]["shape"] == h[b2]["shape"] else h[b2]["data_offsets"]; h[names[2]]["data_offsets"] = [0, h[names[2]]["data_offsets"][1] - h[names[2]]["data_offsets"][0]]')"
  c st_offsets_overflow "$(st 'h[names[0]]["data_offsets"] = [18446744073709551600, 18446744073709551615]')"
  c st_offsets_reversed "$(st 'o = h[names[0]]["data_offsets"]; h[names[0]]["data_offsets"] = [o[1], o[0]]')"
  c st_shape_lies "$(st 'h[names[0]]["shape"] = [s * 2 for s in h[names[0]]["shape"]]')"
  c st_shape_overflow "$(st 'h[names[0]]["shape"] = [4294967296, 4294967296, 4294967296]')"
  c st_shape_negative "$(st 'h[names[0]]["shape"] = [-1] + h[names[0]]["shape"][1:]')"
  c st_dtype_unknown "$(st 'h[names[0]]["dtype"] = "F128"')"
  c st_dtype_mismatch_size "$(st 'h[names[0]]["dtype"] = "F16"')"
  c st_missing_tensor "$(st 'del h[names[-1]]')"
  c st_extra_tensor "$(st 'h["model.bogus.weight"] = dict(h[names[0]])')"
  c st_offsets_not_numbers "$(st 'h[names[0]]["data_offsets"] = ["a", "b"]')"
  c st_nan_weights "$(st 'body = bytes(len(body)).replace(b"\x00"*4, struct.pack("<f", float("nan")))')"
  c st_header_deep_json "$(st 'h = b"{\"a\":" + b"["*200000 + b"]"*200000 + b"}"')"
  c st_is_symlink_loop 'cp -r $W/model m; rm m/model.safetensors; ln -s x m/model.safetensors; ln -s model.safetensors m/x; $V generate --model m --prompt hi --device cpu --response-length 2'
  c st_index_json_lies 'cp -r $W/model m; mv m/model.safetensors m/model-00001-of-00002.safetensors; echo "{\"weight_map\": {\"model.embed_tokens.weight\": \"model-00002-of-00002.safetensors\"}}" > m/model.safetensors.index.json; $V generate --model m --prompt hi --device cpu --response-length 2'
  c st_corrupt_in_ppo "cp -r \$W/model m; python3 -c 'import os; f=open(\"m/model.safetensors\",\"r+b\"); f.truncate(os.path.getsize(\"m/model.safetensors\")-1000)'; \$V ppo \$PPO actor_rollout_ref.model.path=m"
  # images
  im() { echo "cp -r \$W/geo g; python3 - <<'PY'
import json, glob, os, struct, zlib
rows = [json.loads(l) for l in open('g/train.jsonl')]
def img_path(r):
    im = r['images'][0]
    return im if isinstance(im, str) else (im.get('image') or im.get('path'))
first = img_path(rows[0]); first = first.replace('file://', '')
if not os.path.isabs(first): first = os.path.join('g', first)
$1
PY
\$V ppo \$IMG data.train_files=g/train.jsonl data.val_files=g/test.jsonl"; }
  c img_baseline "$(im 'pass')"
  c img_corrupt_bytes "$(im 'd = bytearray(open(first,"rb").read()); d[40:200] = os.urandom(160); open(first,"wb").write(bytes(d))')"
  c img_truncated "$(im 'd = open(first,"rb").read(); open(first,"wb").write(d[:len(d)//3])')"
  c img_empty "$(im 'open(first,"wb").close()')"
  c img_missing "$(im 'os.remove(first)')"
  c img_text_file "$(im 'open(first,"w").write("hello")')"
  def_png='
def png(w, h, depth=8, ctype=2, raw=None):
    ch = {0:1, 2:3, 4:2, 6:4}[ctype]; bpp = ch * depth // 8
    if raw is None: raw = b"".join(b"\x00" + bytes(w * bpp) for _ in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0)
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
'
  c img_zero_size "$(im "$def_png"'
open(first,"wb").write(png(0, 0, raw=b""))')"
  c img_16bit "$(im "$def_png"'
open(first,"wb").write(png(64, 64, depth=16))')"
  c img_gray_alpha "$(im "$def_png"'
open(first,"wb").write(png(64, 64, ctype=4))')"
  c img_huge_dims_header "$(im "$def_png"'
open(first,"wb").write(png(1000000, 1000000, raw=b"\x00"))')"
  c img_huge_real "$(im "$def_png"'
open(first,"wb").write(png(12000, 12000, ctype=0))')"
  c img_1x1 "$(im "$def_png"'
open(first,"wb").write(png(1, 1))')"
  c img_extreme_aspect "$(im "$def_png"'
open(first,"wb").write(png(20000, 1, ctype=0))')"
  c img_cmyk_jpeg "$(im 'os.system("python3 /tmp/bt2/report/mkjpeg.py " + first)')"
  c img_cmyk_jpeg_named "$(im 'os.system("python3 /tmp/bt2/report/mkjpeg.py g/c.jpg"); rows[0]["images"] = [{"path": "c.jpg"}]; open("g/train.jsonl","w").write("".join(json.dumps(x) + "\n" for x in rows))')"
  c img_16bit_rgba "$(im "$def_png"'
open(first,"wb").write(png(300, 200, depth=16, ctype=6))')"
  c img_path_is_dir "$(im 'os.remove(first); os.mkdir(first)')"
  c img_symlink_loop "$(im 'os.remove(first); os.symlink(first + ".x", first); os.symlink(first, first + ".x")')"
  c img_count_mismatch "$(im 'r = rows[0]; r["images"] = r["images"] * 3; open("g/train.jsonl","w").write("".join(json.dumps(x) + "\n" for x in rows))')"
}

cases_keys() {
  c key_unknown '$V ppo $PPO data.train_bach_size=4'
  c key_unknown_check '$V check $CHK actor_rollout_ref.actor.optim.lrr=1e-3'
  c key_unknown_plus '$V ppo $PPO +actor_rollout_ref.actor.optim.lrr=1e-3'
  c key_unknown_plusplus '$V ppo $PPO ++trainer.foo_bar=1'
  c key_unknown_toplevel '$V check $CHK +foo=1'
  c key_case_misspelled '$V check $CHK Data.train_batch_size=4'
  c key_sft_unknown '$V sft $SFT optim.lrr=0.1'
  c key_sft_ppo_key '$V sft $SFT actor_rollout_ref.actor.optim.lr=0.1'
  c key_type_list_for_int '$V check $CHK "data.train_batch_size=[1,2]"'
  c key_type_map_for_float '$V check $CHK "actor_rollout_ref.actor.optim.lr={a:1}"'
  c key_type_string_for_bool '$V check $CHK actor_rollout_ref.actor.use_kl_loss=maybe'
  c key_type_int_for_list '$V check $CHK trainer.logger=5'
  c key_type_str_for_int '$V check $CHK data.max_prompt_length=abc'
  c key_type_null_for_int '$V check $CHK data.max_prompt_length=null'
  c key_type_scalar_for_node '$V check $CHK actor_rollout_ref.actor=3'
  c key_type_bool_for_int '$V check $CHK data.train_batch_size=true'
  c key_enum_bad_adv '$V check $CHK algorithm.adv_estimator=grpoo'
  c key_enum_bad_loss_agg '$V check $CHK actor_rollout_ref.actor.loss_agg_mode=token-means'
  c key_enum_bad_kl_type '$V check $CHK actor_rollout_ref.actor.kl_loss_type=lowvar'
  c key_enum_bad_device '$V check $CHK trainer.device=tpu'
  c key_enum_bad_truncation '$V check $CHK data.truncation=middle'
  c key_enum_bad_device_ppo '$V ppo $PPO trainer.device=tpu'
  c key_sft_lora_rank '$V sft $SFT model.lora_rank=8 trainer.save_freq=1 trainer.default_local_dir=ck; rc=$?; ls ck/global_step_1/actor/huggingface 2>&1 | tr "\n" " "; exit $rc'
  c key_dup_override '$V check --no-print-config $CHK data.train_batch_size=4 data.train_batch_size=8'
  c key_delete_then_set '$V check $CHK "~data.train_batch_size" data.train_batch_size=4'
  # verl keys that verlpp may not implement: each must act, fail, or be listed as ignored by check
  for kv in actor_rollout_ref.rollout.repetition_penalty=1.5 actor_rollout_ref.rollout.mode=async actor_rollout_ref.rollout.multi_turn.enable=true \
            actor_rollout_ref.actor.policy_loss.loss_mode=gpg actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-sum-norm \
            reward_model.enable=true trainer.balance_batch=false data.return_raw_chat=true data.filter_overlong_prompts=true \
            data.truncation=left actor_rollout_ref.model.use_remove_padding=false actor_rollout_ref.actor.fsdp_config.param_offload=true \
            actor_rollout_ref.rollout.gpu_memory_utilization=0.1 trainer.rollout_data_dir=rdir trainer.validation_data_dir=vdir \
            trainer.log_val_generations=3 data.dataloader_num_workers=4 trainer.resume_mode=resume_path \
            "actor_rollout_ref.actor.checkpoint.save_contents=[model]" trainer.del_local_ckpt_after_load=true \
            actor_rollout_ref.rollout.calculate_log_probs=true actor_rollout_ref.rollout.val_kwargs.do_sample=true \
            data.shuffle=false actor_rollout_ref.model.lora_rank=8 actor_rollout_ref.actor.use_torch_compile=true \
            algorithm.use_pf_ppo=true actor_rollout_ref.rollout.top_k=5 trainer.critic_warmup=3 \
            actor_rollout_ref.actor.ulysses_sequence_parallel_size=2 actor_rollout_ref.rollout.agent.num_workers=2 \
            data.custom_cls.path=/tmp/bt2/x.py actor_rollout_ref.model.external_lib=foo actor_rollout_ref.rollout.max_model_len=16 \
            actor_rollout_ref.rollout.prompt_length=16 trainer.esi_redundant_time=10 actor_rollout_ref.actor.use_fused_kernels=true; do
    c "vkey_$(echo "$kv" | sed 's/actor_rollout_ref\.//; s/[^A-Za-z0-9]/_/g')" "\$V check --no-print-config \$CHK '$kv' > chk.txt 2>&1; echo CHECK_RC=\$?; k='${kv%%=*}'; grep -F -- \"\${k#+}\" chk.txt | head -2; \$V ppo \$PPO trainer.default_local_dir=ck '$kv' > ppo.txt 2>&1; echo PPO_RC=\$?; grep -iE -- \"\${k##*.}|ignor|not implement\" ppo.txt | head -2 | cut -c1-200; ls | tr '\\n' ' '"
  done
}

cases_ckpt() {
  # kill a ppo run at various moments (steps take ~0.3 s, saves ~0.1 s), then re-run: must resume from a complete checkpoint
  killrun() { # $1 signal $2 delay $3 extra overrides
    echo "set -m; \$V ppo \$PPO trainer.total_training_steps=40 trainer.save_freq=1 trainer.default_local_dir=ck ${3:-} > log1 2>&1 & pid=\$!; sleep $2; kill -$1 \$pid; wait \$pid; echo KILLED_RC=\$?; tail -2 log1;
t=\$(cat ck/latest_checkpointed_iteration.txt 2>/dev/null || echo 0); echo TRACKER=\$t; ls ck | tr '\n' ' '; echo;
if [ \$t -gt 0 ]; then \$V model export --checkpoint ck/global_step_\$t --output ex >/dev/null 2>&1 || echo LOST_TRACKED_CHECKPOINT_NOT_LOADABLE; fi
\$V ppo \$PPO trainer.total_training_steps=\$((t+1)) trainer.save_freq=1 trainer.default_local_dir=ck ${3:-} > log2 2>&1; rc=\$?; grep -m1 -E 'resumed|error' log2; tail -1 log2 | cut -c1-200; exit \$rc"; }
  for sig in KILL TERM INT; do
    for d in 0.3 0.9 1.6 2.4 3.3; do c "kill_ppo_${sig}_$d" "$(killrun $sig $d)"; done
  done
  c kill_ppo_KILL_keep1_1.3 "$(killrun KILL 1.3 trainer.max_actor_ckpt_to_keep=1)"
  c kill_ppo_KILL_keep1_2.1 "$(killrun KILL 2.1 trainer.max_actor_ckpt_to_keep=1)"
  c kill_ppo_TERM_twice "set -m; \$V ppo \$PPO trainer.total_training_steps=40 trainer.save_freq=1 trainer.default_local_dir=ck > log1 2>&1 & pid=\$!; sleep 1.5; kill -TERM \$pid; sleep 0.05; kill -TERM \$pid; wait \$pid; echo RC=\$?; tail -1 log1; t=\$(cat ck/latest_checkpointed_iteration.txt); \$V model export --checkpoint ck/global_step_\$t --output ex > /dev/null 2>&1 || echo LOST; \$V ppo \$PPO trainer.total_training_steps=\$((t+1)) trainer.default_local_dir=ck 2>&1 | grep -m1 resumed"
  # sft kills
  sftkill() { echo "set -m; \$V sft \$SFT trainer.total_training_steps=200 trainer.save_freq=1 trainer.default_local_dir=ck > log1 2>&1 & pid=\$!; sleep $2; kill -$1 \$pid; wait \$pid; echo KILLED_RC=\$?; tail -1 log1;
t=\$(cat ck/latest_checkpointed_iteration.txt 2>/dev/null || echo 0); echo TRACKER=\$t; if [ \$t -gt 0 ]; then \$V model export --checkpoint ck/global_step_\$t --output ex >/dev/null 2>&1 || echo LOST_TRACKED_CHECKPOINT_NOT_LOADABLE; fi
\$V sft \$SFT trainer.total_training_steps=\$((t+1)) trainer.save_freq=1 trainer.default_local_dir=ck > log2 2>&1; rc=\$?; grep -m1 -iE 'resum|error' log2; tail -1 log2 | cut -c1-200; exit \$rc"; }
  for sig in KILL TERM INT; do for d in 0.4 1.1; do c "kill_sft_${sig}_$d" "$(sftkill $sig $d)"; done; done
  # corrupted checkpoints before resume
  prep='$V ppo $PPO trainer.total_training_steps=2 trainer.save_freq=1 trainer.default_local_dir=ck > /dev/null 2>&1'
  c ck_tracker_garbage "$prep; echo banana > ck/latest_checkpointed_iteration.txt; \$V ppo \$PPO trainer.total_training_steps=3 trainer.default_local_dir=ck"
  c ck_tracker_points_missing "$prep; echo 7 > ck/latest_checkpointed_iteration.txt; \$V ppo \$PPO trainer.total_training_steps=8 trainer.default_local_dir=ck"
  c ck_tracker_huge "$prep; echo 99999999999999999999 > ck/latest_checkpointed_iteration.txt; \$V ppo \$PPO trainer.total_training_steps=3 trainer.default_local_dir=ck"
  c ck_truncated_model "$prep; f=ck/global_step_2/actor/huggingface/model.safetensors; truncate -s 1000 \$f; \$V ppo \$PPO trainer.total_training_steps=3 trainer.default_local_dir=ck"
  c ck_truncated_optim "$prep; f=ck/global_step_2/actor/optim_world_size_1_rank_0.safetensors; truncate -s 5000 \$f; \$V ppo \$PPO trainer.total_training_steps=3 trainer.default_local_dir=ck"
  c ck_state_json_garbage "$prep; echo '{' > ck/global_step_2/trainer_state.json; \$V ppo \$PPO trainer.total_training_steps=3 trainer.default_local_dir=ck"
  c ck_state_missing "$prep; rm ck/global_step_2/trainer_state.json; \$V ppo \$PPO trainer.total_training_steps=3 trainer.default_local_dir=ck"
  c ck_resume_path_missing "\$V ppo \$PPO trainer.resume_mode=resume_path trainer.resume_from_path=/tmp/bt2/nope trainer.default_local_dir=ck"
  c ck_resume_disable_ignores "$prep; \$V ppo \$PPO trainer.resume_mode=disable trainer.total_training_steps=1 trainer.default_local_dir=ck 2>&1 | tail -2; cat ck/latest_checkpointed_iteration.txt"
  c ck_resume_mode_bad "\$V ppo \$PPO trainer.resume_mode=sometimes"
  c ck_dir_is_file 'echo precious > ck; $V ppo $PPO trainer.save_freq=1 trainer.default_local_dir=ck; rc=$?; [ "$(cat ck)" = precious ] || echo LOST_FILE; exit $rc'
  c ck_dir_under_file 'echo precious > ck; $V ppo $PPO trainer.save_freq=1 trainer.default_local_dir=ck/sub; rc=$?; [ "$(cat ck)" = precious ] || echo LOST_FILE; exit $rc'
  c ck_dir_readonly "mkdir ck; unshare -m --propagation private bash -c 'mount -t tmpfs -o ro tmpfs ck && \$V ppo \$PPO trainer.save_freq=1 trainer.default_local_dir=ck'"
  c ck_dir_full "mkdir ck; unshare -m --propagation private bash -c 'mount -t tmpfs -o size=2m tmpfs ck && \$V ppo \$PPO trainer.save_freq=1 trainer.default_local_dir=ck'"
  c ck_dir_full_after_first "mkdir ck; unshare -m --propagation private bash -c 'mount -t tmpfs -o size=75m tmpfs ck && \$V ppo \$PPO trainer.total_training_steps=4 trainer.save_freq=1 trainer.default_local_dir=ck; echo RC=\$?; cat ck/latest_checkpointed_iteration.txt; ls ck; t=\$(cat ck/latest_checkpointed_iteration.txt); \$V model export --checkpoint ck/global_step_\$t --output /tmp/bt2/cases/ck_dir_full_after_first/ex >/dev/null 2>&1 || echo LOST_TRACKED'"
  c sft_dir_full "mkdir ck; unshare -m --propagation private bash -c 'mount -t tmpfs -o size=100k tmpfs ck && \$V sft \$SFT trainer.save_freq=1 trainer.default_local_dir=ck'"
  for k in 0 -1 -5 1 nan two 1e400; do
    c "keep_${k//[^A-Za-z0-9]/_}" "\$V ppo \$PPO trainer.total_training_steps=3 trainer.save_freq=1 trainer.default_local_dir=ck trainer.max_actor_ckpt_to_keep=$k; rc=\$?; ls ck | tr '\n' ' '; exit \$rc"
  done
  c keep_trainer_key_0 "\$V ppo \$PPO trainer.total_training_steps=3 trainer.save_freq=1 trainer.default_local_dir=ck trainer.max_actor_ckpt_to_keep=0; rc=\$?; ls ck | tr '\n' ' '; exit \$rc"
  c save_freq_zero "\$V ppo \$PPO trainer.total_training_steps=2 trainer.save_freq=0 trainer.default_local_dir=ck; rc=\$?; ls ck 2>&1| tr '\n' ' '; exit \$rc"
  c save_freq_nan "\$V ppo \$PPO trainer.save_freq=nan trainer.default_local_dir=ck"
  # outputs of generate / model init / export
  c out_gen_over_file 'echo precious > o.jsonl; $V generate --model $W/model --prompt hi --device cpu --response-length 2 --output o.jsonl; cat o.jsonl | head -c 200'
  c out_gen_is_dir 'mkdir o; $V generate --model $W/model --prompt hi --device cpu --response-length 2 --output o'
  c out_gen_symlink_to_file 'echo precious > keep.txt; ln -s keep.txt o.jsonl; $V generate --model $W/model --prompt hi --device cpu --response-length 2 --output o.jsonl; rc=$?; cat keep.txt | head -c 100; exit $rc'
  c out_gen_dangling_symlink 'ln -s nodir/x o.jsonl; $V generate --model $W/model --prompt hi --device cpu --response-length 2 --output o.jsonl'
  c out_gen_same_as_data 'cp $W/gsm8k/test.jsonl d.jsonl; $V generate --model $W/model --data d.jsonl --device cpu --response-length 2 --output d.jsonl; rc=$?; head -c 150 d.jsonl; exit $rc'
  c out_init_over_existing_model 'cp -r $W/model m; md5sum m/model.safetensors > sum; $V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 1 --num-attention-heads 2 --vocab-size 16 --dtype float32 --tokenizer $W/ctok --output m; rc=$?; md5sum -c sum >/dev/null 2>&1 && echo UNCHANGED || echo OVERWRITTEN; ls m; exit $rc'
  c out_init_is_file 'echo precious > m; $V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 1 --num-attention-heads 2 --vocab-size 16 --dtype float32 --tokenizer $W/ctok --output m; rc=$?; cat m | head -c 50; exit $rc'
  c out_init_symlink_dir 'mkdir real; echo keep > real/keep; ln -s real m; $V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 1 --num-attention-heads 2 --vocab-size 16 --dtype float32 --tokenizer $W/ctok --output m; rc=$?; ls real; exit $rc'
  c out_init_same_as_tokenizer 'cp -r $W/ctok t; $V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 1 --num-attention-heads 2 --vocab-size 16 --dtype float32 --tokenizer t --output t; rc=$?; ls t; head -c 100 t/tokenizer.json; exit $rc'
  c out_export_onto_checkpoint '$V ppo $PPO trainer.save_freq=1 trainer.default_local_dir=ck > /dev/null 2>&1; $V model export --checkpoint ck/global_step_1 --output ck/global_step_1/actor/huggingface --dtype bfloat16; rc=$?; $V generate --model ck/global_step_1/actor/huggingface --prompt hi --device cpu --response-length 2 > /dev/null 2>&1 || echo LOST_CHECKPOINT_BROKEN; exit $rc'
  c out_export_missing_ckpt '$V model export --checkpoint /tmp/bt2/nope --output o'
  c out_data_over_input 'cp -r $S/tests/fixtures/data/gsm8k_raw raw; $V data gsm8k --input raw --output raw; rc=$?; head -c 100 raw/train.jsonl; exit $rc'
  c out_gen_ro_dir "mkdir o; unshare -m --propagation private bash -c 'mount -t tmpfs -o ro tmpfs o && \$V generate --model \$W/model --prompt hi --device cpu --response-length 2 --output o/x.jsonl'"
  c out_gen_full "mkdir o; unshare -m --propagation private bash -c 'mount -t tmpfs -o size=4k tmpfs o && \$V generate --model \$W/model --prompt hi --prompt ho --n 40 --device cpu --response-length 8 --ignore-eos --output o/x.jsonl'"
  c out_init_full "mkdir o; unshare -m --propagation private bash -c 'mount -t tmpfs -o size=64k tmpfs o && \$V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 --dtype float32 --tokenizer \$W/qtok --output o/m'"
  c out_log_path_dir 'mkdir lg; VERL_FILE_LOGGER_PATH=lg $V ppo $PPO trainer.logger=[console,file]'
}

cases_reward() {
  rw() { echo "\$V ppo \$PPO reward.custom_reward_function.path=$1 reward.custom_reward_function.name=$2"; }
  c rw_ok "$(rw \$W/librw.so ok)"
  c rw_nan "$(rw \$W/librw.so nanr)"
  c rw_inf "$(rw \$W/librw.so infr)"
  c rw_huge "$(rw \$W/librw.so huge)"
  c rw_denormal "$(rw \$W/librw.so denorm)"
  c rw_throw_cpp "$(rw \$W/librwcpp.so throws)"
  c rw_throw_int "$(rw \$W/librwcpp.so throwsint)"
  c rw_abi_v2 "$(rw \$W/librwv2.so ok)"
  c rw_no_abi_version "$(rw \$W/librwnov.so ok)"
  c rw_missing_symbol "$(rw \$W/librw.so nosuch)"
  c rw_missing_lib "$(rw /tmp/bt2/nolib.so ok)"
  c rw_not_elf "$(rw \$W/libfake.so ok)"
  c rw_relative_path "cp \$W/librw.so .; \$V ppo \$PPO reward.custom_reward_function.path=librw.so reward.custom_reward_function.name=ok"
  c rw_python_file "echo 'def compute_score(*a): return 1.0' > r.py; $(rw r.py compute_score)"
  c rw_dir_path "mkdir d.so; $(rw d.so ok)"
  c rw_named_nan "$(rw \$W/librw.so nv)"
  c rw_named_big_count "$(rw \$W/librw.so big)"
  c rw_named_negative "$(rw \$W/librw.so neg)"
  c rw_named_null_name "$(rw \$W/librw.so nullname)"
  c rw_named_dup "$(rw \$W/librw.so dup)"
  c rw_name_empty "$(rw \$W/librw.so '')"
  c rw_cli_nan 'echo x | $V reward --data-source openai/gsm8k --ground-truth 2 --custom-path $W/librw.so --custom-name nanr'
  c rw_cli_inf 'echo x | $V reward --data-source openai/gsm8k --ground-truth 2 --custom-path $W/librw.so --custom-name infr'
  c rw_cli_throw 'echo x | $V reward --data-source openai/gsm8k --ground-truth 2 --custom-path $W/librwcpp.so --custom-name throws'
  c rw_cli_bad_utf8 'printf "\xff\xfe #### 2" | $V reward --data-source openai/gsm8k --ground-truth 2'
  c rw_cli_unknown_source 'echo "#### 2" | $V reward --data-source nosuch/source --ground-truth 2'
  c rw_crash_documented "$(rw \$W/librw.so crash)"
  c rw_exit_documented "$(rw \$W/librw.so exits)"
  c rw_hang_documented "$(rw \$W/librw.so forever)" 20
}

setup
cases_parsers
cases_numbers
cases_files
cases_keys
cases_ckpt
cases_reward
echo "done: $(wc -l < "$R/summary.tsv") cases; results in $R"
[ -f /tmp/bt2/report/make_report.py ] && python3 /tmp/bt2/report/make_report.py > /dev/null  # report.md from results + classes.tsv
