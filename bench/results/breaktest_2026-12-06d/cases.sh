#!/usr/bin/env bash
# The bt16 checkpoint break-test cases as run on 2026-12-06 (CPU, 2 cores), one at a time.
# Needs /tmp/bt16/verlpp, the demo's SFT model copied to /tmp/bt16/model and 64/16-row slices of the
# demo data in /tmp/bt16/data (see NOTES.md). Run from /tmp/bt16/w. Logs: /tmp/bt16/logs/ID.log.
source "$(dirname "$0")/lib.sh"
mk()  { rm -rf "$1"; cp -r $B/tmpl5 "$1"; }    # an earlier ppo run's global_step_1..5, tracker 5
smk() { rm -rf "$1"; cp -r $B/stmpl5 "$1"; }   # an earlier sft run's global_step_1..5, tracker 5
W=$PWD
GAE=(algorithm.adv_estimator=gae critic.model.path=$M critic.ppo_micro_batch_size_per_gpu=4
     critic.ppo_mini_batch_size=4 actor_rollout_ref.rollout.n=1 critic.optim.lr=1e-5)
DIS=(distillation.enabled=true distillation.n_gpus_per_node=1 distillation.nnodes=1
     distillation.teacher_models.teacher_model.inference.tensor_model_parallel_size=1
     distillation.distillation_loss.use_task_rewards=false)
DIS_OFF=(trainer.resume_mode=disable trainer.total_training_steps=3)
run_case tmpl ppo trainer.default_local_dir=$B/tmpl5 trainer.total_training_steps=5
run_case stmpl sft trainer.default_local_dir=$B/stmpl5 trainer.total_training_steps=5
# --- rotation, fresh folder
run_case c01 ppo trainer.default_local_dir=$W/c01 trainer.max_actor_ckpt_to_keep=1
run_case c02 ppo trainer.default_local_dir=$W/c02 trainer.max_actor_ckpt_to_keep=2 trainer.total_training_steps=5
for k in 0 -1 null 99999999999999; do run_case c03_$k ppo trainer.default_local_dir=$W/c03_$k trainer.max_actor_ckpt_to_keep=$k; done
for k in 1.5 abc true; do run_case c04_$k ppo trainer.default_local_dir=$W/c04_$k trainer.max_actor_ckpt_to_keep=$k; done
run_case c05 ppo trainer.default_local_dir=$W/c05 trainer.max_actor_ckpt_to_keep=1 trainer.save_freq=2 trainer.total_training_steps=5
run_case c06 ppo trainer.default_local_dir=$W/c06 trainer.max_actor_ckpt_to_keep=1 trainer.save_freq=-1
run_case c07 ppo trainer.default_local_dir=$W/c07 trainer.max_actor_ckpt_to_keep=99999999999999999999
# --- rotation with an earlier run's checkpoints
D=$W/c08; run_case c08a ppo trainer.default_local_dir=$D; snap $D > $B/logs/c08.before
run_case c08 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=5
D=$W/c09; run_case c09a ppo trainer.default_local_dir=$D
run_case c09 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=5 trainer.resume_mode=disable
D=$W/c10; run_case c10a ppo trainer.default_local_dir=$D trainer.total_training_steps=5; snap $D > $B/logs/c10.before
run_case c10 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=4 trainer.resume_mode=resume_path trainer.resume_from_path=$D/global_step_2
D=$W/c11; run_case c11a ppo trainer.default_local_dir=$D; echo notes > $D/global_step_2/eval_results.json
mkdir -p $D/global_step_2/actor/exported && cp $M/config.json $D/global_step_2/actor/exported/
run_case c11 ppo trainer.default_local_dir=$D trainer.resume_mode=disable trainer.total_training_steps=2
# --- leftovers
D=$W/c12; run_case c12a ppo trainer.default_local_dir=$D; cp -r $D/global_step_2 $D/global_step_2.old; echo precious > $D/global_step_2.old/NOTE
run_case c12 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=4
D=$W/c13; run_case c13a ppo trainer.default_local_dir=$D; mv $D/global_step_3 $D/global_step_3.old
run_case c13 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=4
D=$W/c14; run_case c14a ppo trainer.default_local_dir=$D; cp -r $D/global_step_3 $D/.tmp_global_step_4_12345
mkdir $D/.tmp_global_step_notes $D/.tmp_other; echo mine > $D/.tmp_global_step_notes/x
run_case c14 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=4
# --- tracker
D=$W/c15; run_case c15a ppo trainer.default_local_dir=$D; rm $D/latest_checkpointed_iteration.txt
run_case c15 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=5
D=$W/c16; run_case c16a ppo trainer.default_local_dir=$D; echo 7 > $D/latest_checkpointed_iteration.txt
run_case c16 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=5
D=$W/c17; run_case c17a ppo trainer.default_local_dir=$D; echo 1 > $D/latest_checkpointed_iteration.txt
run_case c17 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=3
D=$W/c18; run_case c18a ppo trainer.default_local_dir=$D; echo " -3" > $D/latest_checkpointed_iteration.txt
run_case c18 ppo trainer.default_local_dir=$D
D=$W/c19; run_case c19a ppo trainer.default_local_dir=$D; mv $D/global_step_3 $D/global_step_03
rm -r $D/latest_checkpointed_iteration.txt $D/global_step_1 $D/global_step_2
run_case c19 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=5
# --- start-up refusal: N below / equal / start+1 / last / above last (resume_path from 2, last 4)
for n in 1 2 3 4 5; do D=$W/c20_$n; mk $D
  run_case c20_$n ppo trainer.default_local_dir=$D trainer.total_training_steps=4 trainer.max_actor_ckpt_to_keep=1 trainer.resume_mode=resume_path trainer.resume_from_path=$D/global_step_2 actor_rollout_ref.model.path=$D/global_step_$n/actor/huggingface; done
D=$W/c21; mk $D; run_case c21 ppo trainer.default_local_dir=$D trainer.total_training_steps=7 trainer.max_actor_ckpt_to_keep=1 actor_rollout_ref.model.path=$D/global_step_5/actor/huggingface actor_rollout_ref.model.tokenizer_path=$D/global_step_3/actor/huggingface
D=$W/c22; mk $D; run_case c22 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" actor_rollout_ref.model.tokenizer_path=$D/global_step_2/actor/huggingface
D=$W/c23; mk $D; run_case c23 ppo "${GAE[@]}" trainer.default_local_dir=$D "${DIS_OFF[@]}" critic.model.path=$D/global_step_3/actor/huggingface
D=$W/c24; mk $D; run_case c24 ppo trainer.default_local_dir=$D trainer.resume_mode=disable trainer.total_training_steps=1 critic.model.path=$D/global_step_1/actor/huggingface
# --- paths
D=$W/c25; mk $D; ln -sfn $D/global_step_2/actor/huggingface $W/c25_link
run_case c25 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" actor_rollout_ref.model.path=$W/c25_link
D=$W/c26; mk $D; ln -sfn $D $W/c26_dirlink
run_case c26 ppo trainer.default_local_dir=$W/c26_dirlink "${DIS_OFF[@]}" actor_rollout_ref.model.path=$D/global_step_2/actor/huggingface
D=$W/c27; mk $D; run_case c27 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" actor_rollout_ref.model.path=$D/global_step_9/../global_step_2/actor/huggingface
D=$W/c27b; mk $D; run_case c27b ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" actor_rollout_ref.model.path=$D/global_step_1/../global_step_2/actor/huggingface
mk c28; run_case c28 ppo trainer.default_local_dir=c28 "${DIS_OFF[@]}" actor_rollout_ref.model.path=c28/global_step_2/actor/huggingface
mk c29; run_case c29 ppo trainer.default_local_dir=c29/ "${DIS_OFF[@]}" actor_rollout_ref.model.path=c29/global_step_2/actor/huggingface
mk c30; run_case c30 ppo trainer.default_local_dir=./c30//. "${DIS_OFF[@]}" actor_rollout_ref.model.path=$W/c30/global_step_2/actor/huggingface/
mkdir -p $B/home; rm -rf $B/home/ck ./~; mk $B/home/ck
HOME=$B/home run_case c31 ppo trainer.default_local_dir='~/ck' "${DIS_OFF[@]}" trainer.max_actor_ckpt_to_keep=1 actor_rollout_ref.model.path='~/ck/global_step_2/actor/huggingface'
rm -rf $B/home/ck2 ./~; HOME=$B/home run_case c32 ppo trainer.default_local_dir='~/ck2' "${DIS_OFF[@]}" trainer.max_actor_ckpt_to_keep=1
rm -rf ./~; mkdir -p ./~; mk ./~/ck3
HOME=$B/home run_case c33 ppo trainer.default_local_dir='~/ck3' "${DIS_OFF[@]}" trainer.max_actor_ckpt_to_keep=1 actor_rollout_ref.model.path=$W/~/ck3/global_step_2/actor/huggingface
rm -rf $B/home/sck; HOME=$B/home run_case c34 sft trainer.default_local_dir='~/sck' trainer.max_ckpt_to_keep=1
# --- sft
run_case c35 sft trainer.default_local_dir=$W/c35 trainer.max_ckpt_to_keep=1 trainer.total_training_steps=4
for k in 0 -1 null; do run_case c36_$k sft trainer.default_local_dir=$W/c36_$k trainer.max_ckpt_to_keep=$k; done
D=$W/c37; smk $D; run_case c37 sft trainer.default_local_dir=$D trainer.max_ckpt_to_keep=1 trainer.total_training_steps=8
D=$W/c38; smk $D; run_case c38 sft trainer.default_local_dir=$D trainer.max_ckpt_to_keep=1 trainer.resume_mode=resume_path trainer.resume_from_path=$D/global_step_2 trainer.total_training_steps=4
for n in 2 3 4 5; do D=$W/c39_$n; smk $D
  run_case c39_$n sft trainer.default_local_dir=$D trainer.resume_mode=resume_path trainer.resume_from_path=$D/global_step_2 trainer.total_training_steps=4 model.path=$D/global_step_$n/actor/huggingface; done
D=$W/c40; smk $D; run_case c40 sft trainer.default_local_dir=$D trainer.resume_mode=disable model.tokenizer_path=$D/global_step_3/actor/huggingface
D=$W/c41; smk $D; cp -r $D/global_step_2 $D/global_step_2.old
run_case c41 sft trainer.default_local_dir=$D trainer.total_training_steps=6 model.path=$D/global_step_2.old/actor/huggingface
D=$W/c42; mk $D; mkdir $D/.tmp_global_step_9_1; cp -r $D/global_step_1/actor $D/.tmp_global_step_9_1/
run_case c42 ppo trainer.default_local_dir=$D trainer.total_training_steps=6 actor_rollout_ref.model.path=$D/.tmp_global_step_9_1/actor/huggingface
# --- signals (SIGTERM after 4 s / 2 s; SIGINT after 1.5 s), then resume
sig() {  # sig ID SIGNAL SECONDS kind overrides...
  local id=$1 s=$2 t=$3 kind=$4; shift 4
  case $kind in
    ppo) timeout 300 "$V" ppo "${PPO_BASE[@]}" "$@" > $B/logs/$id.log 2>&1 & ;;
    sft) timeout 300 "$V" sft "${SFT_BASE[@]}" "$@" > $B/logs/$id.log 2>&1 & ;;
    l2ppo) timeout 300 "$V" launch --nproc-per-node 2 ppo "${PPO_BASE[@]}" trainer.n_gpus_per_node=2 "$@" > $B/logs/$id.log 2>&1 & ;;
  esac
  local pid=$!; sleep "$t"; kill -"$s" $pid; wait $pid; echo "[$id] rc=$?"; keyl $B/logs/$id.log | tail -4
}
D=$W/c43; mk $D; sig c43 TERM 4 ppo trainer.default_local_dir=$D trainer.total_training_steps=200 trainer.save_freq=7 trainer.max_actor_ckpt_to_keep=1
D=$W/c44; mk $D; sig c44 TERM 2 ppo trainer.default_local_dir=$D trainer.total_training_steps=5000 trainer.save_freq=7 trainer.max_actor_ckpt_to_keep=1
run_case c44r ppo trainer.default_local_dir=$D trainer.total_training_steps=$(( $(cat $D/latest_checkpointed_iteration.txt) + 3 )) trainer.save_freq=7 trainer.max_actor_ckpt_to_keep=1
D=$W/c45; smk $D; sig c45 INT 3 sft trainer.default_local_dir=$D trainer.total_training_steps=5000 trainer.save_freq=7 trainer.max_ckpt_to_keep=1
D=$W/c46; smk $D; sig c46 INT 1.5 sft trainer.default_local_dir=$D trainer.total_training_steps=5000 trainer.total_epochs=1000 trainer.save_freq=7 trainer.max_ckpt_to_keep=1
run_case c46r sft trainer.default_local_dir=$D trainer.total_training_steps=$(( $(cat $D/latest_checkpointed_iteration.txt) + 2 )) trainer.total_epochs=1000 trainer.save_freq=7 trainer.max_ckpt_to_keep=1
# --- total_epochs before total_training_steps
D=$W/c47; mk $D; run_case c47 ppo trainer.default_local_dir=$D trainer.resume_mode=disable data.train_max_samples=8 trainer.total_epochs=1 trainer.total_training_steps=5 trainer.max_actor_ckpt_to_keep=1 actor_rollout_ref.model.path=$D/global_step_4/actor/huggingface
D=$W/c48; mk $D; run_case c48 ppo trainer.default_local_dir=$D trainer.resume_mode=disable data.train_max_samples=8 trainer.total_epochs=1 trainer.total_training_steps=5 actor_rollout_ref.model.path=$D/global_step_2/actor/huggingface
D=$W/c49; smk $D; mv $D/global_step_5 $D/global_step_50
run_case c49 sft trainer.default_local_dir=$D trainer.resume_mode=disable trainer.total_epochs=1 trainer.total_training_steps=100 trainer.save_freq=-1 model.path=$D/global_step_50/actor/huggingface
# --- 2 Gloo ranks
D=$W/c50; run_case c50a l2ppo trainer.default_local_dir=$D trainer.total_training_steps=3
run_case c50 l2ppo trainer.default_local_dir=$D trainer.total_training_steps=6 trainer.max_actor_ckpt_to_keep=1
run_case c51 l2ppo trainer.default_local_dir=$D trainer.resume_mode=resume_path trainer.resume_from_path=$D/global_step_1 trainer.total_training_steps=3 actor_rollout_ref.model.path=$D/global_step_3/actor/huggingface
sig c52 TERM 6 l2ppo trainer.default_local_dir=$D trainer.total_training_steps=5000 trainer.save_freq=5 trainer.max_actor_ckpt_to_keep=1
D=$W/c53; smk $D; run_case c53 l2sft trainer.default_local_dir=$D trainer.total_training_steps=8 trainer.max_ckpt_to_keep=1
# --- critic
run_case c54 ppo "${GAE[@]}" trainer.default_local_dir=$W/c54 trainer.max_actor_ckpt_to_keep=1
run_case c55 ppo "${GAE[@]}" trainer.default_local_dir=$W/c55 trainer.max_critic_ckpt_to_keep=1
# --- distillation teachers
D=$W/c56; mk $D; run_case c56 ppo "${DIS[@]}" trainer.default_local_dir=$D trainer.resume_mode=resume_path trainer.resume_from_path=$D/global_step_1 trainer.total_training_steps=3 distillation.teacher_models.teacher_model.model_path=$D/global_step_2/actor/huggingface
D=$W/c57; mk $D; ln -sfn $D/global_step_3 $W/c57_t
run_case c57 ppo "${DIS[@]}" trainer.default_local_dir=$D "${DIS_OFF[@]}" '~distillation.teacher_models.teacher_model' +distillation.teacher_models.t1.key=verlpp/arithmetic +distillation.teacher_models.t1.model_path=$W/c57_t/actor/huggingface +distillation.teacher_models.t1.num_replicas=1
D=$W/c58; mk $D; run_case c58 ppo "${DIS[@]}" trainer.default_local_dir=$D "${DIS_OFF[@]}" trainer.max_actor_ckpt_to_keep=1 distillation.teacher_models.teacher_model.model_path=$D/global_step_5/actor/huggingface
# --- more inputs inside checkpoint folders
D=$W/c59; mk $D; cp $B/data/train.jsonl $D/global_step_2/train.jsonl
run_case c59 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" data.train_files=$D/global_step_2/train.jsonl
D=$W/c60; mk $D; rm -rf $W/c60_out; mv $D/global_step_2 $W/c60_out; ln -s $W/c60_out $D/global_step_2
run_case c60 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" trainer.max_actor_ckpt_to_keep=1 actor_rollout_ref.model.path=$W/c60_out/actor/huggingface
D=$W/c61; mk $D; mv $D/global_step_2 $D/global_step_02
run_case c61 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" actor_rollout_ref.model.path=$D/global_step_02/actor/huggingface
D=$W/c62; mk $D; run_case c62 ppo "${GAE[@]}" trainer.default_local_dir=$D "${DIS_OFF[@]}" critic.model.tokenizer_path=$D/global_step_2/actor/huggingface
D=$W/c63; mk $D; run_case c63 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" +actor_rollout_ref.model.hf_config_path=$D/global_step_2/actor/huggingface
