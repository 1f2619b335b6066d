#!/usr/bin/env bash
# Break-test round 2026-12-05g: the one reader of user JSON files (config.json, generation_config.json,
# tokenizer.json, tokenizer_config.json, model.safetensors.index.json, trainer_state.json, a
# checkpoint's tokenizer_config.json) through every command, and the rollout engine on the CPU
# (n > 1, max_num_seqs below the batch). Usage: bash run_cases.sh [CASE_NAME...]  (no args: all)
# Works in /tmp/bt11. Each case: logs/NAME.log and one line "NAME rc=.. t=..s :: last lines" in raw.txt.
# Classification of each case: classes.txt beside this script; summary.txt = raw.txt + classes.
set -u
V=/work/main/build/verlpp
SRC=/work/main
W=/tmp/bt11
HERE=$(cd "$(dirname "$0")" && pwd)
TOK=$SRC/tests/fixtures/tokenizers/qwen3
SHARDED=$SRC/tests/fixtures/model/qwen3_sharded
mkdir -p $W/logs; cd $W
SELECTED=" $* "
sel() { [ -z "${SELECTED// /}" ] || [[ "$SELECTED" == *" $1 "* ]]; }
run() {  # run NAME TIMEOUT cmd...   (functions get TMO)
  local name=$1 t=$2; shift 2
  local start=$(date +%s)
  TMO=$t
  if [ "$(type -t "$1")" = function ]; then "$@" > logs/$name.log 2>&1; else timeout -k 5 "$t" "$@" > logs/$name.log 2>&1; fi
  local rc=$?
  sed -i "/^$name rc=/d" raw.txt 2>/dev/null
  echo "$name rc=$rc t=$(( $(date +%s) - start ))s :: $(grep -av '^\s*$' logs/$name.log | grep -aiv '^verlpp: actor_rollout_ref.actor.fsdp_config.dtype\|training state on rank\|^step:' | grep -ai 'error\|abort\|terminate\|fault\|FAIL\|DIFF\|what()' | head -1 | cut -c1-300) || last: $(grep -av '^\s*$' logs/$name.log | tail -1 | cut -c1-200)" | tee -a raw.txt
  return 0
}
TMO=60
common=(data.train_files=$W/gsm8k/train.jsonl data.val_files=$W/gsm8k/test.jsonl
  data.train_max_samples=8 data.val_max_samples=2 data.train_batch_size=2
  data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.actor.entropy_coeff=0.01
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1 trainer.val_before_train=false
  'trainer.logger=[console]' trainer.project_name=bt trainer.experiment_name=x)
ppo() { local m=$1; shift; timeout -k 5 $TMO $V ppo "${common[@]}" actor_rollout_ref.model.path=$m trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_scratch "$@"; }
chk() { local m=$1; shift; timeout -k 5 $TMO $V check --no-print-config "${common[@]}" actor_rollout_ref.model.path=$m "$@"; }
distchk() { local t=$1; shift; chk $W/model distillation.enabled=true distillation.n_gpus_per_node=1 distillation.nnodes=1 \
  distillation.teacher_models.teacher_model.model_path=$t distillation.teacher_models.teacher_model.inference.tensor_model_parallel_size=1 "$@"; }
distppo() { local t=$1; shift; ppo $W/model distillation.enabled=true distillation.n_gpus_per_node=1 distillation.nnodes=1 \
  distillation.teacher_models.teacher_model.model_path=$t distillation.teacher_models.teacher_model.inference.tensor_model_parallel_size=1 \
  distillation.distillation_loss.use_task_rewards=false "$@"; }
sft() { local m=$1; shift; timeout -k 5 $TMO $V sft data.train_files=$W/sft.jsonl data.val_files=$W/sft.jsonl data.prompt_key=prompt \
  data.response_key=response data.train_batch_size=2 data.micro_batch_size_per_gpu=2 data.max_length=64 \
  model.path=$m optim.lr=1e-2 "trainer.logger=['console']" trainer.device=cpu trainer.total_training_steps=1 \
  trainer.default_local_dir=$W/sft_scratch "$@"; }
gen() { local m=$1; shift; timeout -k 5 $TMO $V generate --model $m --device cpu --data $W/gsm8k/test.jsonl --max-samples 2 --response-length 4 "$@"; }
genids() { local m=$1; shift; timeout -k 5 $TMO $V generate --model $m --device cpu --input $W/gen_ids.jsonl --greedy --response-length 5 "$@"; }
score() { local m=$1; shift; timeout -k 5 $TMO $V model score --model $m --device cpu --input $W/ids.jsonl "$@"; }
tokz() { local t=$1; shift; echo "hello world" | timeout -k 5 $TMO $V tokenize --tokenizer $t "$@"; }
tokchat() { local t=$1; shift; echo '[{"role":"user","content":"hi"}]' | timeout -k 5 $TMO $V tokenize --tokenizer $t --chat --add-generation-prompt "$@"; }
# mk NAME [SRC]: a copy of the tiny model (hard links; a file is always removed before it is replaced)
mk() { rm -rf $W/m/$1; mkdir -p $W/m; cp -al ${2:-$W/model} $W/m/$1; echo $W/m/$1; }
put() { rm -f "$1"; printf '%s' "$2" > "$1"; }     # put FILE CONTENT
jmut() { python3 - "$1" "$2" <<'PY'               # jmut FILE PYTHON-ON-c (rewrites as a new inode)
import json,os,sys
p=sys.argv[1]; c=json.load(open(p)); exec(sys.argv[2]); os.remove(p); json.dump(c,open(p,"w"),indent=1)
PY
}
trunc() { local c; c=$(head -c "$2" "$1"); rm -f "$1"; printf '%s' "$c" > "$1"; }   # trunc FILE BYTES
deep() { rm -f "$1"; python3 -c "import sys; sys.stdout.write('['*100000)" > "$1"; }
# snapshot of a checkpoint folder (names + md5), to compare before/after a resume
snap() { (cd "$1" && find . -type f -o -type l -o -type p | sort | while read f; do if [ -f "$f" ] && [ ! -p "$f" ]; then echo "$f $(md5sum < "$f" | cut -c1-12)"; else echo "$f (special)"; fi; done); }
resume_case() {  # resume_case DIR MUTATION_CMD... : copy the base checkpoint, mutate, resume, diff
  local d=$1; shift
  rm -rf $d; cp -a $W/ckbase $d
  "$@"
  snap $d > $d.before
  timeout -k 5 $TMO $V ppo "${common[@]}" actor_rollout_ref.model.path=$W/model trainer.total_training_steps=2 trainer.save_freq=1 \
    trainer.default_local_dir=$d trainer.resume_mode=auto; local rc=$?
  snap $d > $d.after
  if diff $d.before $d.after > /dev/null; then echo "CKPT: unchanged"; else echo "CKPT DIFF:"; diff $d.before $d.after; fi
  return $rc
}
sft_resume_case() {
  local d=$1; shift
  rm -rf $d; cp -a $W/sftbase $d
  "$@"
  snap $d > $d.before
  timeout -k 5 $TMO $V sft data.train_files=$W/sft.jsonl data.val_files=$W/sft.jsonl data.prompt_key=prompt \
    data.response_key=response data.train_batch_size=2 data.micro_batch_size_per_gpu=2 data.max_length=64 \
    model.path=$W/model optim.lr=1e-2 "trainer.logger=['console']" trainer.device=cpu trainer.total_training_steps=2 \
    trainer.save_freq=1 trainer.default_local_dir=$d trainer.resume_mode=auto; local rc=$?
  snap $d > $d.after
  if diff $d.before $d.after > /dev/null; then echo "CKPT: unchanged"; else echo "CKPT DIFF:"; diff $d.before $d.after; fi
  return $rc
}

if sel setup; then
  rm -rf gsm8k model m raw.txt ckbase sftbase
  $V data gsm8k --input /work/shared/data/gsm8k --output gsm8k >/dev/null 2>&1 || echo "setup: data failed"
  $V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 --num-attention-heads 2 \
    --num-key-value-heads 1 --vocab-size 151936 --dtype float32 --seed 3 --tokenizer $TOK --output model >/dev/null 2>&1 || echo "setup: init failed"
  for i in 1 2 3 4 5 6; do echo "{\"prompt\": \"$i+$i=\", \"response\": \"$((i+i))\"}"; done > sft.jsonl
  echo '{"prompt_ids": [1, 2, 3], "response_ids": [4, 5]}' > ids.jsonl
  echo '{"prompt_ids": [9, 10, 11]}' > gen_ids.jsonl
  timeout 120 $V ppo "${common[@]}" actor_rollout_ref.model.path=$W/model trainer.total_training_steps=1 trainer.save_freq=1 \
    trainer.default_local_dir=$W/ckbase > logs/setup_ckbase.log 2>&1 || echo "setup: ckbase failed"
  timeout 120 $V sft data.train_files=$W/sft.jsonl data.val_files=$W/sft.jsonl data.prompt_key=prompt \
    data.response_key=response data.train_batch_size=2 data.micro_batch_size_per_gpu=2 data.max_length=64 \
    model.path=$W/model optim.lr=1e-2 "trainer.logger=['console']" trainer.device=cpu trainer.total_training_steps=1 \
    trainer.save_freq=1 trainer.default_local_dir=$W/sftbase > logs/setup_sftbase.log 2>&1 || echo "setup: sftbase failed"
fi

# ---------------- A. a model's config.json ----------------
sel cfg_missing_check   && { m=$(mk a1); rm $m/config.json; run cfg_missing_check 60 chk $m; }
sel cfg_missing_ppo     && { m=$(mk a1); rm $m/config.json; run cfg_missing_ppo 60 ppo $m; }
sel cfg_folder_ppo      && { m=$(mk a2); rm $m/config.json; mkdir $m/config.json; run cfg_folder_ppo 60 ppo $m; }
sel cfg_folder_check    && { m=$(mk a2); rm $m/config.json; mkdir $m/config.json; run cfg_folder_check 60 chk $m; }
sel cfg_devnull_generate && { m=$(mk a3); rm $m/config.json; ln -s /dev/null $m/config.json; run cfg_devnull_generate 60 gen $m; }
sel cfg_fifo_ppo        && { m=$(mk a4); rm $m/config.json; mkfifo $m/config.json; run cfg_fifo_ppo 60 ppo $m; }
sel cfg_fifo_check      && { m=$(mk a4); rm $m/config.json; mkfifo $m/config.json; run cfg_fifo_check 60 chk $m; }
sel cfg_fifo_score      && { m=$(mk a4); rm $m/config.json; mkfifo $m/config.json; run cfg_fifo_score 60 score $m; }
sel cfg_empty_sft       && { m=$(mk a5); put $m/config.json ""; run cfg_empty_sft 60 sft $m; }
sel cfg_truncated_score && { m=$(mk a6); trunc $m/config.json 200; run cfg_truncated_score 60 score $m; }
sel cfg_truncated_check && { m=$(mk a6); trunc $m/config.json 200; run cfg_truncated_check 60 chk $m; }
sel cfg_array_check     && { m=$(mk a7); put $m/config.json "[1,2]"; run cfg_array_check 60 chk $m; }
sel cfg_array_ppo       && { m=$(mk a7); put $m/config.json "[1,2]"; run cfg_array_ppo 60 ppo $m; }
sel cfg_number_generate && { m=$(mk a8); put $m/config.json "42"; run cfg_number_generate 60 gen $m; }
sel cfg_string_sft      && { m=$(mk a9); put $m/config.json '"hello"'; run cfg_string_sft 60 sft $m; }
sel cfg_deep_check      && { m=$(mk a10); deep $m/config.json; run cfg_deep_check 60 chk $m; }
sel cfg_deep_generate   && { m=$(mk a10); deep $m/config.json; run cfg_deep_generate 60 gen $m; }
sel cfg_deep_obj_ppo    && { m=$(mk a11); rm $m/config.json; python3 -c "import sys; sys.stdout.write('{\"a\":'*100000)" > $m/config.json; run cfg_deep_obj_ppo 60 ppo $m; }
sel cfg_1e400_generate  && { m=$(mk a12); jmut $m/config.json "pass"; sed -i 's/"rms_norm_eps": 1e-06/"rms_norm_eps": 1e400/' $m/config.json; grep -c 1e400 $m/config.json >/dev/null; run cfg_1e400_generate 60 gen $m; }
sel cfg_1e400_hidden_check && { m=$(mk a13); jmut $m/config.json "pass"; sed -i 's/"hidden_size": 16/"hidden_size": 1e400/' $m/config.json; run cfg_1e400_hidden_check 60 chk $m; }
sel cfg_bad_utf8_check  && { m=$(mk a14); jmut $m/config.json "pass"; python3 - $m/config.json <<'PY'
import sys; p=sys.argv[1]; b=open(p,'rb').read().replace(b'"silu"', b'"si\xff\xfelu"'); open(p,'wb').write(b)
PY
  run cfg_bad_utf8_check 60 chk $m; }
sel cfg_bad_utf8_key_ppo && { m=$(mk a15); jmut $m/config.json "pass"; python3 - $m/config.json <<'PY'
import sys; p=sys.argv[1]; b=open(p,'rb').read().replace(b'"use_cache"', b'"use_\xc3cache"'); open(p,'wb').write(b)
PY
  run cfg_bad_utf8_key_ppo 60 ppo $m; }
sel cfg_symlink_loop_generate && { m=$(mk a16); rm $m/config.json; ln -s config.json $m/config.json; run cfg_symlink_loop_generate 60 gen $m; }
sel cfg_symlink_loop_check && { m=$(mk a16); rm $m/config.json; ln -s config.json $m/config.json; run cfg_symlink_loop_check 60 chk $m; }
sel cfg_dangling_symlink_ppo && { m=$(mk a17); rm $m/config.json; ln -s /nonexistent/xx.json $m/config.json; run cfg_dangling_symlink_ppo 60 ppo $m; }
sel cfg_noperm_generate && { m=$(mk a18); jmut $m/config.json "pass"; chmod 000 $m/config.json; run cfg_noperm_generate 60 gen $m; }
sel cfg_trailing_garbage_generate && { m=$(mk a19); jmut $m/config.json "pass"; echo "} trailing" >> $m/config.json; run cfg_trailing_garbage_generate 60 gen $m; }
sel cfg_nan_literal_generate && { m=$(mk a20); jmut $m/config.json "pass"; sed -i 's/"rms_norm_eps": 1e-06/"rms_norm_eps": NaN/' $m/config.json; run cfg_nan_literal_generate 60 gen $m; }
sel cfg_dup_key_generate && { m=$(mk a21); jmut $m/config.json "pass"; sed -i 's/"hidden_size": 16,/"hidden_size": 16, "hidden_size": 999,/' $m/config.json; run cfg_dup_key_generate 60 gen $m; }
sel cfg_eos_string_generate && { m=$(mk a22); jmut $m/config.json "c['eos_token_id']='abc'"; run cfg_eos_string_generate 60 gen $m; }
sel cfg_eos_liststr_ppo && { m=$(mk a23); jmut $m/config.json "c['eos_token_id']=['a','b']"; run cfg_eos_liststr_ppo 60 ppo $m; }
sel cfg_eos_negative_generate && { m=$(mk a24); jmut $m/config.json "c['eos_token_id']=-5"; run cfg_eos_negative_generate 60 gen $m; }
sel cfg_eos_oob_generate && { m=$(mk a25); jmut $m/config.json "c['eos_token_id']=99999999999"; run cfg_eos_oob_generate 60 gen $m; }
sel cfg_eos_wrap_generate && { m=$(mk a29); jmut $m/config.json "c['eos_token_id']=4294967307"; run cfg_eos_wrap_generate 60 genids $m; }
sel cfg_rmseps_string_generate && { m=$(mk a28); jmut $m/config.json "c['rms_norm_eps']='1e-6'"; run cfg_rmseps_string_generate 60 gen $m; }
sel cfg_hidden_string_check && { m=$(mk a26); jmut $m/config.json "c['hidden_size']='16'"; run cfg_hidden_string_check 60 chk $m; }
sel cfg_bom_generate && { m=$(mk a27); jmut $m/config.json "pass"; python3 - $m/config.json <<'PY'
import sys; p=sys.argv[1]; b=open(p,'rb').read(); open(p,'wb').write(b'\xef\xbb\xbf'+b)
PY
  run cfg_bom_generate 60 gen $m; }
sel cfg_export_ckpt_truncated && { rm -rf ex1 exo1; cp -a ckbase ex1; f=ex1/global_step_1/actor/huggingface/config.json; trunc $f 100; run cfg_export_ckpt_truncated 60 $V model export --checkpoint ex1/global_step_1 --output exo1; }
sel cfg_export_ckpt_fifo && { rm -rf ex2 exo2; cp -a ckbase ex2; f=ex2/global_step_1/actor/huggingface/config.json; rm $f; mkfifo $f; run cfg_export_ckpt_fifo 60 $V model export --checkpoint ex2/global_step_1 --output exo2; }
# distillation teacher's config.json
sel teacher_cfg_fifo_check && { m=$(mk t1); rm $m/config.json; mkfifo $m/config.json; run teacher_cfg_fifo_check 60 distchk $m; }
sel teacher_cfg_truncated_check && { m=$(mk t2); trunc $m/config.json 120; run teacher_cfg_truncated_check 60 distchk $m; }
sel teacher_cfg_array_ppo && { m=$(mk t3); put $m/config.json "[]"; run teacher_cfg_array_ppo 60 distppo $m; }
sel teacher_cfg_folder_ppo && { m=$(mk t4); rm $m/config.json; mkdir $m/config.json; run teacher_cfg_folder_ppo 60 distppo $m; }

# ---------------- B. generation_config.json (config.json valid) ----------------
sel gen_truncated_generate && { m=$(mk b1); put $m/generation_config.json '{"eos_token_id": [151645, 1516'; run gen_truncated_generate 60 gen $m; }
sel gen_truncated_ppo && { m=$(mk b1); put $m/generation_config.json '{"eos_token_id": [151645, 1516'; run gen_truncated_ppo 60 ppo $m; }
sel gen_array_generate && { m=$(mk b2); put $m/generation_config.json '[151645]'; run gen_array_generate 60 gen $m; }
sel gen_eos_string_generate && { m=$(mk b3); put $m/generation_config.json '{"eos_token_id": "151645"}'; run gen_eos_string_generate 60 gen $m; }
sel gen_eos_liststr_generate && { m=$(mk b4); put $m/generation_config.json '{"eos_token_id": ["a", "b"]}'; run gen_eos_liststr_generate 60 gen $m; }
sel gen_eos_negative_generate && { m=$(mk b5); put $m/generation_config.json '{"eos_token_id": [-7]}'; run gen_eos_negative_generate 60 gen $m; }
# greedy from gen_ids.jsonl emits token 11 every step; an eos id of 2^32 + 11 must not stop it at 11 (int32 wrap)
sel gen_eos_wrap_generate && { m=$(mk b6); put $m/generation_config.json '{"eos_token_id": 4294967307}'; run gen_eos_wrap_generate 60 genids $m; }
sel gen_eos_float_generate && { m=$(mk b7); put $m/generation_config.json '{"eos_token_id": 151645.5}'; run gen_eos_float_generate 60 gen $m; }
sel gen_fifo_ppo && { m=$(mk b8); mkfifo $m/generation_config.json; run gen_fifo_ppo 60 ppo $m; }
sel gen_fifo_generate && { m=$(mk b8); mkfifo $m/generation_config.json; run gen_fifo_generate 60 gen $m; }
sel gen_folder_generate && { m=$(mk b9); mkdir $m/generation_config.json; run gen_folder_generate 60 gen $m; }
sel gen_symlink_loop_generate && { m=$(mk b10); ln -s generation_config.json $m/generation_config.json; run gen_symlink_loop_generate 60 gen $m; }
sel gen_deep_sft && { m=$(mk b11); deep $m/generation_config.json; run gen_deep_sft 60 sft $m; }
sel gen_devnull_score && { m=$(mk b12); ln -s /dev/null $m/generation_config.json; run gen_devnull_score 60 score $m; }
sel gen_sampling_keys_generate && { m=$(mk b13); put $m/generation_config.json '{"temperature": "hot", "top_k": -3, "max_new_tokens": "x"}'; run gen_sampling_keys_generate 60 gen $m; }

# ---------------- C. tokenizer.json ----------------
sel tok_missing_generate && { m=$(mk c1); rm $m/tokenizer.json; run tok_missing_generate 60 gen $m; }
sel tok_fifo_tokenize && { m=$(mk c2); rm $m/tokenizer.json; mkfifo $m/tokenizer.json; run tok_fifo_tokenize 60 tokz $m; }
sel tok_fifo_ppo && { m=$(mk c2); rm $m/tokenizer.json; mkfifo $m/tokenizer.json; run tok_fifo_ppo 60 ppo $m; }
sel tok_empty_tokenize && { m=$(mk c3); put $m/tokenizer.json ""; run tok_empty_tokenize 60 tokz $m; }
sel tok_truncated_ppo && { m=$(mk c4); trunc $m/tokenizer.json 5000; run tok_truncated_ppo 60 ppo $m; }
sel tok_array_tokenize && { m=$(mk c5); put $m/tokenizer.json '[]'; run tok_array_tokenize 60 tokz $m; }
sel tok_deep_tokenize && { m=$(mk c6); deep $m/tokenizer.json; run tok_deep_tokenize 60 tokz $m; }
sel tok_folder_sft && { m=$(mk c7); rm $m/tokenizer.json; mkdir $m/tokenizer.json; run tok_folder_sft 60 sft $m; }
sel tok_model_number_tokenize && { m=$(mk c8); put $m/tokenizer.json '{"model": 5, "added_tokens": "x"}'; run tok_model_number_tokenize 60 tokz $m; }
sel tok_symlink_loop_generate && { m=$(mk c9); rm $m/tokenizer.json; ln -s tokenizer.json $m/tokenizer.json; run tok_symlink_loop_generate 60 gen $m; }
sel tok_devnull_check && { m=$(mk c10); rm $m/tokenizer.json; ln -s /dev/null $m/tokenizer.json; run tok_devnull_check 60 chk $m; }
sel tok_added_id_string_tokenize && { m=$(mk c11); jmut $m/tokenizer.json "c['added_tokens'][0]['id']='x'"; run tok_added_id_string_tokenize 60 tokz $m; }
sel tok_added_id_negative_tokenize && { m=$(mk c12); jmut $m/tokenizer.json "c['added_tokens'][0]['id']=-3"; run tok_added_id_negative_tokenize 60 tokz $m --show-text; }

# ---------------- D. tokenizer_config.json ----------------
sel tcfg_template_number_tokenize && { m=$(mk d1); jmut $m/tokenizer_config.json "c['chat_template']=5"; run tcfg_template_number_tokenize 60 tokchat $m; }
sel tcfg_template_number_ppo && { m=$(mk d1); jmut $m/tokenizer_config.json "c['chat_template']=5"; run tcfg_template_number_ppo 60 ppo $m; }
sel tcfg_template_list_bad_tokenize && { m=$(mk d2); jmut $m/tokenizer_config.json "c['chat_template']=[1,2]"; run tcfg_template_list_bad_tokenize 60 tokchat $m; }
sel tcfg_template_null_generate && { m=$(mk d3); jmut $m/tokenizer_config.json "c['chat_template']=None"; run tcfg_template_null_generate 60 gen $m; }
sel tcfg_fifo_generate && { m=$(mk d4); rm $m/tokenizer_config.json; mkfifo $m/tokenizer_config.json; run tcfg_fifo_generate 60 gen $m; }
sel tcfg_truncated_ppo && { m=$(mk d5); trunc $m/tokenizer_config.json 300; run tcfg_truncated_ppo 60 ppo $m; }
sel tcfg_array_tokenize && { m=$(mk d6); put $m/tokenizer_config.json '["x"]'; run tcfg_array_tokenize 60 tokz $m; }
sel tcfg_eos_number_generate && { m=$(mk d7); jmut $m/tokenizer_config.json "c['eos_token']=5"; run tcfg_eos_number_generate 60 gen $m; }
sel tcfg_eos_unknown_generate && { m=$(mk d8); jmut $m/tokenizer_config.json "c['eos_token']='<no_such_token>'"; run tcfg_eos_unknown_generate 60 gen $m; }
sel tcfg_missing_tokenize && { m=$(mk d9); rm $m/tokenizer_config.json; run tcfg_missing_tokenize 60 tokz $m; }
sel tcfg_missing_chat_tokenize && { m=$(mk d9); rm $m/tokenizer_config.json; run tcfg_missing_chat_tokenize 60 tokchat $m; }
sel tcfg_deep_sft && { m=$(mk d10); deep $m/tokenizer_config.json; run tcfg_deep_sft 60 sft $m; }
sel tcfg_symlink_loop_generate && { m=$(mk d13); rm $m/tokenizer_config.json; ln -s tokenizer_config.json $m/tokenizer_config.json; run tcfg_symlink_loop_generate 60 gen $m; }
sel tcfg_bad_utf8_tokenize && { m=$(mk d11); python3 - $m/tokenizer_config.json <<'PY'
import sys,os; p=sys.argv[1]; b=open(p,'rb').read().replace(b'{%- if tools %}', b'{%- if tools \xff%}', 1); os.remove(p); open(p,'wb').write(b)
PY
  run tcfg_bad_utf8_tokenize 60 tokchat $m; }
# an invalid byte near the end of the ~9 KB chat template: how long is the error line?
sel tcfg_bad_utf8_long_tokenize && { m=$(mk d12); python3 - $m/tokenizer_config.json <<'PY'
import sys,os; p=sys.argv[1]; b=open(p,'rb').read(); i=b.rfind(b'{%- endif %}'); b=b[:i]+b'\xff'+b[i:]; os.remove(p); open(p,'wb').write(b)
PY
  run tcfg_bad_utf8_long_tokenize 60 tokchat $m; wc -c logs/tcfg_bad_utf8_long_tokenize.log; }

# ---------------- E. model.safetensors.index.json (fixture qwen3_sharded, vocab 352, no tokenizer) ----------------
idx() { rm -rf $W/m/$1; mkdir -p $W/m; cp -a $SHARDED $W/m/$1; echo $W/m/$1; }
scoresh() { local m=$1; shift; timeout -k 5 $TMO $V model score --model $m --device cpu --input $W/ids.jsonl "$@"; }
sel idx_truncated_score && { m=$(idx e1); trunc $m/model.safetensors.index.json 300; run idx_truncated_score 60 scoresh $m; }
sel idx_array_score && { m=$(idx e2); put $m/model.safetensors.index.json '[]'; run idx_array_score 60 scoresh $m; }
sel idx_fifo_score && { m=$(idx e3); rm $m/model.safetensors.index.json; mkfifo $m/model.safetensors.index.json; run idx_fifo_score 60 scoresh $m; }
sel idx_weight_map_number_score && { m=$(idx e4); jmut $m/model.safetensors.index.json "c['weight_map']=5"; run idx_weight_map_number_score 60 scoresh $m; }
sel idx_value_number_score && { m=$(idx e5); jmut $m/model.safetensors.index.json "c['weight_map']['lm_head.weight']=7"; run idx_value_number_score 60 scoresh $m; }
sel idx_path_escape_score && { m=$(idx e6); jmut $m/model.safetensors.index.json "c['weight_map']['lm_head.weight']='../../../../etc/passwd'"; run idx_path_escape_score 60 scoresh $m; }
sel idx_deep_generate && { m=$(idx e7); deep $m/model.safetensors.index.json; run idx_deep_generate 60 timeout 60 $V generate --model $m --device cpu --input $W/gen_ids.jsonl --response-length 3; }
sel idx_folder_score && { m=$(idx e8); rm $m/model.safetensors.index.json; mkdir $m/model.safetensors.index.json; run idx_folder_score 60 scoresh $m; }

# ---------------- F. training checkpoints (resume) ----------------
ST=global_step_1/trainer_state.json
sel ck_state_truncated && run ck_state_truncated 90 resume_case $W/ck1 trunc $W/ck1/$ST 500
sel ck_state_empty && run ck_state_empty 90 resume_case $W/ck2 put $W/ck2/$ST ""
sel ck_state_array && run ck_state_array 90 resume_case $W/ck3 put $W/ck3/$ST "[1]"
sel ck_state_fifo && run ck_state_fifo 90 resume_case $W/ck4 eval "rm $W/ck4/$ST; mkfifo $W/ck4/$ST"
sel ck_state_folder && run ck_state_folder 90 resume_case $W/ck5 eval "rm $W/ck5/$ST; mkdir $W/ck5/$ST"
sel ck_state_deep && run ck_state_deep 90 resume_case $W/ck6 deep $W/ck6/$ST
sel ck_state_missing && run ck_state_missing 90 resume_case $W/ck7 rm $W/ck7/$ST
sel ck_state_step_string && run ck_state_step_string 90 resume_case $W/ck8 jmut $W/ck8/$ST "c['global_step']='one'"
sel ck_state_no_dataloader && run ck_state_no_dataloader 90 resume_case $W/ck9 jmut $W/ck9/$ST "c.pop('dataloader',None)"
sel ck_state_genstate_bad && run ck_state_genstate_bad 90 resume_case $W/ck10 jmut $W/ck10/$ST "c['dataloader']['generator_state']='zz'"
sel ck_state_symlink_loop && run ck_state_symlink_loop 90 resume_case $W/ck11 eval "rm $W/ck11/$ST; ln -s trainer_state.json $W/ck11/$ST"
sel ck_state_1e400 && run ck_state_1e400 90 resume_case $W/ck12 eval "sed -i 's/\"batch_size\": 2/\"batch_size\": 1e400/' $W/ck12/$ST"
sel ck_hf_config_truncated && run ck_hf_config_truncated 90 resume_case $W/ck13 trunc $W/ck13/global_step_1/actor/huggingface/config.json 100
sel ck_saved_tcfg_truncated && run ck_saved_tcfg_truncated 90 resume_case $W/ck14 trunc $W/ck14/global_step_1/actor/huggingface/tokenizer_config.json 100
sel ck_resume_path_truncated && { rm -rf ck15; cp -a ckbase ck15; trunc ck15/$ST 50; snap ck15 > ck15.before
  run ck_resume_path_truncated 90 ppo $W/model trainer.total_training_steps=2 trainer.resume_mode=resume_path trainer.resume_from_path=$W/ck15/global_step_1 trainer.default_local_dir=$W/ck15
  snap ck15 > ck15.after; diff -q ck15.before ck15.after >/dev/null && echo "   ck15 unchanged" || echo "   ck15 CHANGED"; }
sel ck_state_truncated_sft && run ck_state_truncated_sft 90 sft_resume_case $W/sk1 trunc $W/sk1/$ST 40
sel ck_state_fifo_sft && run ck_state_fifo_sft 90 sft_resume_case $W/sk2 eval "rm $W/sk2/$ST; mkfifo $W/sk2/$ST"
# the saved tokenizer_config.json of a checkpoint read by the tools
sel ck_tcfg_truncated_export && { rm -rf ex3 exo3; cp -a ckbase ex3; trunc ex3/global_step_1/actor/huggingface/tokenizer_config.json 100; run ck_tcfg_truncated_export 60 $V model export --checkpoint ex3/global_step_1 --output exo3; python3 -c "import json; json.load(open(\"exo3/tokenizer_config.json\"))" 2>/dev/null && echo "   exo3 tokenizer_config.json valid" || echo "   exo3 tokenizer_config.json NOT valid JSON (copied as is)"; }
sel ck_tcfg_truncated_generate && { rm -rf ex4; cp -a ckbase ex4; trunc ex4/global_step_1/actor/huggingface/tokenizer_config.json 100; run ck_tcfg_truncated_generate 60 gen $W/ex4/global_step_1/actor/huggingface; }
sel ck_state_truncated_export && { rm -rf ex5 exo5; cp -a ckbase ex5; trunc ex5/$ST 30; run ck_state_truncated_export 60 $V model export --checkpoint ex5/global_step_1 --output exo5; }
# custom chat template + a saved tokenizer_config.json that is a FIFO when the checkpoint is written (save path reads it)
sel ck_save_over_fifo_tcfg && { m=$(mk f1); rm $m/tokenizer_config.json; mkfifo $m/tokenizer_config.json; rm -rf ck16
  run ck_save_over_fifo_tcfg 90 ppo $m trainer.save_freq=1 trainer.default_local_dir=$W/ck16 "actor_rollout_ref.model.custom_chat_template='{{ messages[0].content }}'"; }

# ---------------- G. rollout engine on the CPU ----------------
sel roll_grpo_n4_seqs1 && { rm -rf rg1; run roll_grpo_n4_seqs1 110 ppo $W/model actor_rollout_ref.rollout.n=4 actor_rollout_ref.rollout.max_num_seqs=1 \
  actor_rollout_ref.rollout.gpu_memory_utilization=0.01 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 trainer.total_training_steps=2 trainer.default_local_dir=$W/rg1; }
sel roll_grpo_n3_seqs2_tokens && { rm -rf rg2; run roll_grpo_n3_seqs2_tokens 110 ppo $W/model actor_rollout_ref.rollout.n=3 actor_rollout_ref.rollout.max_num_seqs=2 \
  actor_rollout_ref.rollout.max_num_batched_tokens=64 actor_rollout_ref.rollout.enable_chunked_prefill=true data.max_response_length=16 trainer.total_training_steps=2 trainer.default_local_dir=$W/rg2 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=6; }
sel roll_gpu_mem_zero && run roll_gpu_mem_zero 60 chk $W/model actor_rollout_ref.rollout.gpu_memory_utilization=0
sel roll_seqs_zero && run roll_seqs_zero 60 chk $W/model actor_rollout_ref.rollout.max_num_seqs=0
gencmp() {  # greedy: batch 1 / n 3 vs batch 64 / n 3, and --no-kv-cache; responses must agree
  timeout -k 5 50 $V generate --model $W/model --device cpu --data $W/gsm8k/test.jsonl --max-samples 3 --response-length 6 --greedy --n 3 --batch-size 1 --output $W/g1.jsonl || return $?
  timeout -k 5 50 $V generate --model $W/model --device cpu --data $W/gsm8k/test.jsonl --max-samples 3 --response-length 6 --greedy --n 3 --batch-size 64 --output $W/g2.jsonl || return $?
  timeout -k 5 50 $V generate --model $W/model --device cpu --data $W/gsm8k/test.jsonl --max-samples 3 --response-length 6 --greedy --n 3 --no-kv-cache --output $W/g3.jsonl || return $?
  python3 - $W/g1.jsonl $W/g2.jsonl $W/g3.jsonl <<'PY'
import json,sys
rs=[[json.loads(l) for l in open(f)] for f in sys.argv[1:]]
print("rows", [len(r) for r in rs])
assert all(len(r)==9 for r in rs), "expected 9 rows (3 prompts x n 3)"
for a,b,c in zip(*rs):
    assert a["response"]==b["response"]==c["response"], ("DIFF", a["response"], b["response"], c["response"])
print("OK greedy equal over batch sizes and kv cache")
PY
}
sel roll_generate_greedy_batches && run roll_generate_greedy_batches 160 gencmp
gensample() {
  timeout -k 5 50 $V generate --model $W/model --device cpu --data $W/gsm8k/test.jsonl --max-samples 2 --response-length 8 --n 4 --batch-size 1 --seed 5 --output $W/g4.jsonl || return $?
  timeout -k 5 50 $V generate --model $W/model --device cpu --data $W/gsm8k/test.jsonl --max-samples 2 --response-length 8 --n 4 --batch-size 64 --seed 5 --output $W/g5.jsonl || return $?
  python3 - $W/g4.jsonl $W/g5.jsonl <<'PY'
import json,sys
a=[json.loads(l) for l in open(sys.argv[1])]; b=[json.loads(l) for l in open(sys.argv[2])]
print("rows", len(a), len(b)); assert len(a)==len(b)==8
print("distinct responses per prompt (batch 1):", [len(set(x["response"] for x in a[i*4:(i+1)*4])) for i in range(2)])
print("same across batch sizes:", sum(x["response"]==y["response"] for x,y in zip(a,b)), "of 8")
PY
}
sel roll_generate_sample_n4 && run roll_generate_sample_n4 110 gensample
sel roll_generate_ids_n3 && run roll_generate_ids_n3 60 timeout 60 $V generate --model $W/model --device cpu --input $W/gen_ids.jsonl --n 3 --batch-size 1 --response-length 5 --seed 1

# ---------------- H. other readers of the same files ----------------
# a critic's model folder (GAE) with a truncated config.json
sel critic_cfg_truncated_ppo && { m=$(mk h1); trunc $m/config.json 150; run critic_cfg_truncated_ppo 60 ppo $W/model algorithm.adv_estimator=gae \
  critic.model.path=$m critic.ppo_micro_batch_size_per_gpu=2 critic.optim.lr=1e-3; }
# actor_rollout_ref.model.tokenizer_path naming a folder whose tokenizer.json is a FIFO
sel tokpath_fifo_ppo && { m=$(mk h2); rm $m/tokenizer.json; mkfifo $m/tokenizer.json; run tokpath_fifo_ppo 60 ppo $W/model actor_rollout_ref.model.tokenizer_path=$m; }
# generate --tokenizer DIR whose tokenizer_config.json is /dev/null
sel gen_tokdir_devnull_generate && { m=$(mk h3); rm $m/tokenizer_config.json; ln -s /dev/null $m/tokenizer_config.json; run gen_tokdir_devnull_generate 60 gen $W/model --tokenizer $m; }
# resume: latest_checkpointed_iteration.txt is a FIFO (not JSON, but the checkpoint's other state file)
sel ck_tracker_fifo && run ck_tracker_fifo 90 resume_case $W/ck17 eval "rm $W/ck17/latest_checkpointed_iteration.txt; mkfifo $W/ck17/latest_checkpointed_iteration.txt"
sel ck_tracker_folder && run ck_tracker_folder 90 resume_case $W/ck18 eval "rm $W/ck18/latest_checkpointed_iteration.txt; mkdir $W/ck18/latest_checkpointed_iteration.txt"
# the tools given a run's root folder read its tracker to name the model: a FIFO there
sel gen_runroot_tracker_fifo && { rm -rf ck19; cp -a ckbase ck19; rm ck19/latest_checkpointed_iteration.txt; mkfifo ck19/latest_checkpointed_iteration.txt; run gen_runroot_tracker_fifo 30 gen $W/ck19; }
# tokenize --chat-template naming a FIFO (a user file read beside the JSON ones)
sel tok_chat_template_fifo && { rm -f $W/tpl.fifo; mkfifo $W/tpl.fifo; run tok_chat_template_fifo 30 tokchat $W/model --chat-template $W/tpl.fifo; }
# verl's vLLM engine_kwargs to shrink the KV cache (to force preemption on the CPU)
sel roll_num_gpu_blocks_override && { rm -rf rg3; run roll_num_gpu_blocks_override 90 ppo $W/model +actor_rollout_ref.rollout.engine_kwargs.vllm.num_gpu_blocks_override=2 \
  actor_rollout_ref.rollout.n=4 actor_rollout_ref.rollout.max_num_seqs=2 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 trainer.default_local_dir=$W/rg3; }
# gpu_memory_utilization tiny on the CPU: the CUDA-only cap, must not change the CPU run
sel roll_gpu_mem_tiny_cpu && { rm -rf rg4; run roll_gpu_mem_tiny_cpu 90 ppo $W/model actor_rollout_ref.rollout.gpu_memory_utilization=0.0001 trainer.default_local_dir=$W/rg4; }

# ---------------- summary ----------------
if [ -f "$HERE/classes.txt" ] && [ -f raw.txt ]; then
  python3 - raw.txt "$HERE/classes.txt" > "$HERE/summary.txt" <<'PY'
import sys,re
cls={}
for l in open(sys.argv[2]):
    p=l.rstrip("\n").split("\t")
    if len(p)>=2: cls[p[0]]=p[1:]
for l in open(sys.argv[1]):
    m=re.match(r"(\S+) rc=(\S+) t=\S+ :: (.*)",l.rstrip("\n"))
    if not m: continue
    n,rc,msg=m.groups()
    c=cls.get(n,["?",""])
    first=c[1] if len(c)>1 and c[1] else msg
    print(f"{n}\t{c[0]}\trc={rc}\t{first}")
PY
fi
