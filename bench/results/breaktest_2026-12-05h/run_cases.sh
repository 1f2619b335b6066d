#!/usr/bin/env bash
# Break-test cases for verlpp's multi-rank features. Usage: bash run_cases.sh [NAME...]
# Logs: /tmp/bt12/logs/NAME.log (the exit code is the last line: "rc=N").
set -u
source "$(dirname "$0")/common.sh"  # V: the binary under test (copied to /tmp/bt12/verlpp)
cd /tmp/bt12
mkdir -p logs runs
CASES=()
def() { CASES+=("$1"); }
four() { local name=$1; shift; rm -rf $W/$name $W/$name.jsonl; VERL_FILE_LOGGER_PATH=$W/$name.jsonl timeout ${TO:-120} $V launch --nproc-per-node 4 ppo "${common[@]}" trainer.n_gpus_per_node=4 trainer.default_local_dir=$W/$name "$@" 2>&1; }
chk() { timeout 60 $V check --no-print-config "${common[@]}" "$@" 2>&1; }
cmp_runs() { python3 /work/main/tests/e2e/compare_runs.py "$@" 2>&1 | tail -1; }
# ref_bytes LOG: rank 0's ref and actor parameter bytes
ref_line() { grep -E "ref: parameters on rank|actor: training state on rank 0" "$1" | head -3; }

######## 1. reference policy sharded
def base_cmp;      base_cmp()      { one base1; two base2; echo "== compare 1 vs 2 ranks"; cmp_runs $W/base1.jsonl $W/base2.jsonl $W/base1 $W/base2 '*' 1e-6; }
def ref_fs_m1_2r;  ref_fs_m1_2r()  { two ref_fs_m1_2r actor_rollout_ref.ref.fsdp_config.fsdp_size=-1; }
def ref_fs0_2r;    ref_fs0_2r()    { two ref_fs0_2r actor_rollout_ref.ref.fsdp_config.fsdp_size=0; }
def ref_fs1_2r;    ref_fs1_2r()    { two ref_fs1_2r actor_rollout_ref.ref.fsdp_config.fsdp_size=1; }
def ref_fs2_2r;    ref_fs2_2r()    { two ref_fs2_2r actor_rollout_ref.ref.fsdp_config.fsdp_size=2; }
def ref_fs3_2r;    ref_fs3_2r()    { two ref_fs3_2r actor_rollout_ref.ref.fsdp_config.fsdp_size=3; }
def ref_fs_m5_2r;  ref_fs_m5_2r()  { two ref_fs_m5_2r actor_rollout_ref.ref.fsdp_config.fsdp_size=-5; }
def ref_fs_str_2r; ref_fs_str_2r() { two ref_fs_str_2r actor_rollout_ref.ref.fsdp_config.fsdp_size=two; }
def ref_fs_null_2r; ref_fs_null_2r() { two ref_fs_null_2r actor_rollout_ref.ref.fsdp_config.fsdp_size=null; }
def ref_fs_float_2r; ref_fs_float_2r() { two ref_fs_float_2r actor_rollout_ref.ref.fsdp_config.fsdp_size=2.0; }
def ref_fs0_1r;    ref_fs0_1r()    { one ref_fs0_1r actor_rollout_ref.ref.fsdp_config.fsdp_size=0; }
def ref_fs2_4r;    ref_fs2_4r()    { four ref_fs2_4r actor_rollout_ref.ref.fsdp_config.fsdp_size=2 trainer.total_training_steps=1; }
def ref_fs3_4r;    ref_fs3_4r()    { four ref_fs3_4r actor_rollout_ref.ref.fsdp_config.fsdp_size=3 trainer.total_training_steps=1; }
def ref_fs5_4r;    ref_fs5_4r()    { four ref_fs5_4r actor_rollout_ref.ref.fsdp_config.fsdp_size=5 trainer.total_training_steps=1; }
def ref_off_2r;    ref_off_2r()    { two ref_off_2r actor_rollout_ref.ref.fsdp_config.param_offload=true; echo "== compare with base1"; cmp_runs $W/base1.jsonl $W/ref_off_2r.jsonl $W/base1 $W/ref_off_2r '*' 1e-6; ref_line $W/../logs/ref_off_2r.log; }
def ref_noreshard_2r; ref_noreshard_2r() { two ref_noreshard_2r actor_rollout_ref.ref.fsdp_config.reshard_after_forward=false; echo "== compare with base1"; cmp_runs $W/base1.jsonl $W/ref_noreshard_2r.jsonl $W/base1 $W/ref_noreshard_2r '*' 1e-6; }
def ref_reshard_str; ref_reshard_str() { two ref_reshard_str actor_rollout_ref.ref.fsdp_config.reshard_after_forward=maybe; }
def ref_off_str;   ref_off_str()   { two ref_off_str actor_rollout_ref.ref.fsdp_config.param_offload=yes_please; }
def ref_fs1_cmp;   ref_fs1_cmp()   { two ref_fs1_cmp actor_rollout_ref.ref.fsdp_config.fsdp_size=1; echo "== compare with base1"; cmp_runs $W/base1.jsonl $W/ref_fs1_cmp.jsonl $W/base1 $W/ref_fs1_cmp '*' 1e-6; }
def klrew_cmp;     klrew_cmp()     { one klrew1 algorithm.use_kl_in_reward=true actor_rollout_ref.actor.use_kl_loss=false > $W/klrew1.out; tail -3 $W/klrew1.out | cut -c1-300; two klrew2 algorithm.use_kl_in_reward=true actor_rollout_ref.actor.use_kl_loss=false; echo "== compare 1 vs 2 ranks"; cmp_runs $W/klrew1.jsonl $W/klrew2.jsonl $W/klrew1 $W/klrew2 '*' 1e-6; }
def klrew_fs1_cmp; klrew_fs1_cmp() { two klrew_fs1 algorithm.use_kl_in_reward=true actor_rollout_ref.actor.use_kl_loss=false actor_rollout_ref.ref.fsdp_config.fsdp_size=1 actor_rollout_ref.ref.fsdp_config.param_offload=true; echo "== compare with klrew1"; cmp_runs $W/klrew1.jsonl $W/klrew_fs1.jsonl $W/klrew1 $W/klrew_fs1 '*' 1e-6; }
def klboth_cmp;    klboth_cmp()    { one klboth1 algorithm.use_kl_in_reward=true algorithm.kl_ctrl.type=adaptive algorithm.kl_ctrl.target_kl=0.01 algorithm.kl_ctrl.horizon=100 > $W/klboth1.out; tail -1 $W/klboth1.out | cut -c1-200; two klboth2 algorithm.use_kl_in_reward=true algorithm.kl_ctrl.type=adaptive algorithm.kl_ctrl.target_kl=0.01 algorithm.kl_ctrl.horizon=100; echo "== compare 1 vs 2 ranks"; cmp_runs $W/klboth1.jsonl $W/klboth2.jsonl $W/klboth1 $W/klboth2 '*' 1e-6; }
def kl_lowvar_cmp; kl_lowvar_cmp() { one kllv1 actor_rollout_ref.actor.kl_loss_type=low_var_kl actor_rollout_ref.ref.fsdp_config.param_offload=true >$W/kllv1.out; two kllv2 actor_rollout_ref.actor.kl_loss_type=low_var_kl actor_rollout_ref.ref.fsdp_config.reshard_after_forward=false; echo "== compare 1 vs 2 ranks"; cmp_runs $W/kllv1.jsonl $W/kllv2.jsonl $W/kllv1 $W/kllv2 '*' 1e-6; }
def ref_fs_chk_0;  ref_fs_chk_0()  { chk trainer.n_gpus_per_node=2 actor_rollout_ref.ref.fsdp_config.fsdp_size=0; }
def ref_fs_chk_3;  ref_fs_chk_3()  { chk trainer.n_gpus_per_node=4 actor_rollout_ref.ref.fsdp_config.fsdp_size=3; }
def ref_fs_chk_2_4; ref_fs_chk_2_4() { chk trainer.n_gpus_per_node=4 actor_rollout_ref.ref.fsdp_config.fsdp_size=2; }
def ref_nokl_fs0;  ref_nokl_fs0()  { two ref_nokl_fs0 actor_rollout_ref.actor.use_kl_loss=false actor_rollout_ref.ref.fsdp_config.fsdp_size=0; }

def act_fs0_2r;    act_fs0_2r()    { two act_fs0_2r actor_rollout_ref.actor.fsdp_config.fsdp_size=0; }
def act_fs3_2r;    act_fs3_2r()    { two act_fs3_2r actor_rollout_ref.actor.fsdp_config.fsdp_size=3; }
def act_fs0_chk;   act_fs0_chk()   { chk trainer.n_gpus_per_node=2 actor_rollout_ref.actor.fsdp_config.fsdp_size=0; }
def ref_fs_chk_null; ref_fs_chk_null() { chk trainer.n_gpus_per_node=2 actor_rollout_ref.ref.fsdp_config.fsdp_size=null; }
def ref_off_1r_noref; ref_off_1r_noref() { one ref_off_1r_noref actor_rollout_ref.actor.use_kl_loss=false actor_rollout_ref.ref.fsdp_config.param_offload=true actor_rollout_ref.ref.fsdp_config.fsdp_size=7; }

def klrew_nostd_cmp; klrew_nostd_cmp() { local o=(algorithm.use_kl_in_reward=true actor_rollout_ref.actor.use_kl_loss=false algorithm.norm_adv_by_std_in_grpo=false); one klrewns1 "${o[@]}" > $W/klrewns1.out; two klrewns2 "${o[@]}"; echo "== compare 1 vs 2 ranks"; cmp_runs $W/klrewns1.jsonl $W/klrewns2.jsonl $W/klrewns1 $W/klrewns2 '*' 1e-6; }

######## 2. megatron configs on the sharded engine
M=(--config-name ppo_megatron_trainer)
mtwo() { local name=$1; shift; rm -rf $W/$name $W/$name.jsonl; VERL_FILE_LOGGER_PATH=$W/$name.jsonl timeout ${TO:-120} $V launch --nproc-per-node 2 ppo "${M[@]}" "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir=$W/$name "$@" 2>&1; }
mone() { local name=$1; shift; rm -rf $W/$name $W/$name.jsonl; VERL_FILE_LOGGER_PATH=$W/$name.jsonl timeout ${TO:-120} $V ppo "${M[@]}" "${common[@]}" trainer.n_gpus_per_node=1 trainer.default_local_dir=$W/$name "$@" 2>&1; }
mchk() { timeout 60 $V check --no-print-config "${M[@]}" "${common[@]}" "$@" 2>&1; }
def meg_base_2r;   meg_base_2r()   { mone meg1 > $W/meg1.out; tail -2 $W/meg1.out | cut -c1-200; mtwo meg_base_2r; echo "== compare megatron 1 vs 2 ranks"; cmp_runs $W/meg1.jsonl $W/meg_base_2r.jsonl $W/meg1 $W/meg_base_2r '*' 1e-6; echo "== compare megatron 2r vs fsdp base1"; cmp_runs $W/base1.jsonl $W/meg_base_2r.jsonl $W/base1 $W/meg_base_2r '*' 1e-6; }
def meg_offload_2r; meg_offload_2r() { mtwo meg_offload_2r actor_rollout_ref.actor.megatron.param_offload=true actor_rollout_ref.actor.megatron.optimizer_offload=true actor_rollout_ref.actor.megatron.grad_offload=true actor_rollout_ref.ref.megatron.param_offload=true; echo "== compare with megatron 2r"; cmp_runs $W/meg_base_2r.jsonl $W/meg_offload_2r.jsonl $W/meg_base_2r $W/meg_offload_2r '*' 1e-6; }
def meg_offload_1r; meg_offload_1r() { mone meg_offload_1r actor_rollout_ref.actor.megatron.param_offload=true actor_rollout_ref.actor.megatron.optimizer_offload=true; echo "== compare with megatron 1r"; cmp_runs $W/meg1.jsonl $W/meg_offload_1r.jsonl $W/meg1 $W/meg_offload_1r '*' 1e-6; }
def meg_gradoff_chk; meg_gradoff_chk() { mchk trainer.n_gpus_per_node=2 actor_rollout_ref.actor.megatron.grad_offload=true; }
def meg_tp2_2r;    meg_tp2_2r()    { mtwo meg_tp2_2r actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2; }
def meg_tp2_chk;   meg_tp2_chk()   { mchk trainer.n_gpus_per_node=2 actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2; }
def meg_pp2_2r;    meg_pp2_2r()    { mtwo meg_pp2_2r actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2; }
def meg_pp2_chk;   meg_pp2_chk()   { mchk trainer.n_gpus_per_node=2 actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2; }
def meg_tp3_chk;   meg_tp3_chk()   { mchk trainer.n_gpus_per_node=2 actor_rollout_ref.actor.megatron.tensor_model_parallel_size=3; }
def meg_tp3_2r;    meg_tp3_2r()    { mtwo meg_tp3_2r actor_rollout_ref.actor.megatron.tensor_model_parallel_size=3; }
def meg_pp4_chk;   meg_pp4_chk()   { mchk trainer.n_gpus_per_node=2 actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=4; }
def meg_cp2_2r;    meg_cp2_2r()    { mtwo meg_cp2_2r actor_rollout_ref.actor.megatron.context_parallel_size=2; }
def meg_off_str;   meg_off_str()   { mtwo meg_off_str actor_rollout_ref.actor.megatron.param_offload=sometimes; }
def meg_key_on_fsdp; meg_key_on_fsdp() { two meg_key_on_fsdp actor_rollout_ref.actor.megatron.param_offload=true; }
def fsdp_key_on_meg; fsdp_key_on_meg() { mtwo fsdp_key_on_meg actor_rollout_ref.actor.fsdp_config.param_offload=true; }
def meg_critic_2r; meg_critic_2r() { mtwo meg_critic_2r algorithm.adv_estimator=gae critic.model.path=$B/model critic.ppo_micro_batch_size_per_gpu=2 critic.optim.lr=1e-3 actor_rollout_ref.actor.use_kl_loss=false critic.megatron.param_offload=true critic.megatron.optimizer_offload=true trainer.test_freq=-1 trainer.val_before_train=false; }
def meg_resume_on_fsdp; meg_resume_on_fsdp() { one meg_resume_on_fsdp trainer.resume_mode=resume_path trainer.resume_from_path=$W/meg_base_2r/global_step_1 trainer.val_before_train=false; }

def meg_tp2_kv2_2r; meg_tp2_kv2_2r() { mtwo meg_tp2_kv2_2r actor_rollout_ref.model.path=$B/model2kv actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2 actor_rollout_ref.ref.megatron.tensor_model_parallel_size=2 trainer.total_training_steps=1; }
def meg_pp2_layout; meg_pp2_layout() { echo "== check:"; mchk trainer.n_gpus_per_node=2 actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2 actor_rollout_ref.ref.megatron.pipeline_model_parallel_size=2 | grep -E "actor \(megatron\)|result|pipeline|not implemented"; echo "== ppo:"; mtwo meg_pp2_layout actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2 actor_rollout_ref.ref.megatron.pipeline_model_parallel_size=2 trainer.total_training_steps=1 | grep -v "^step:"; }
def act_off_label; act_off_label() { one act_off_label actor_rollout_ref.actor.fsdp_config.param_offload=true actor_rollout_ref.actor.fsdp_config.optimizer_offload=true trainer.total_training_steps=1 | grep -v "^step:"; two act_off_label2 actor_rollout_ref.actor.fsdp_config.param_offload=true actor_rollout_ref.actor.fsdp_config.optimizer_offload=true trainer.total_training_steps=1 | grep -v "^step:"; }


######## 3. launching
lraw() { local name=$1; shift; local opts=(); while [ "$1" != "--" ]; do opts+=("$1"); shift; done; shift; rm -rf $W/$name; VERL_FILE_LOGGER_PATH=$W/$name.jsonl timeout ${TO:-120} $V launch "${opts[@]}" ppo "${common[@]}" trainer.default_local_dir=$W/$name trainer.total_training_steps=1 "$@" 2>&1; }
def l_nproc2_ngpu1; l_nproc2_ngpu1() { lraw l_nproc2_ngpu1 --nproc-per-node 2 -- trainer.n_gpus_per_node=1; }
def l_nproc1_ngpu2; l_nproc1_ngpu2() { lraw l_nproc1_ngpu2 --nproc-per-node 1 -- trainer.n_gpus_per_node=2; }
def l_nproc2_nodefault; l_nproc2_nodefault() { lraw l_nproc2_nodefault --nproc-per-node 2 -- ; }
def l_nproc0;      l_nproc0()      { lraw l_nproc0 --nproc-per-node 0 -- trainer.n_gpus_per_node=1; }
def l_nproc_neg;   l_nproc_neg()   { lraw l_nproc_neg --nproc-per-node -2 -- trainer.n_gpus_per_node=2; }
def l_nproc3_b4;   l_nproc3_b4()   { lraw l_nproc3_b4 --nproc-per-node 3 -- trainer.n_gpus_per_node=3; }
def l_nnodes2_ngpu; l_nnodes2_ngpu() { lraw l_nnodes2_ngpu --nproc-per-node 2 -- trainer.n_gpus_per_node=1 trainer.nnodes=2; }
def l_noderank_bad; l_noderank_bad() { lraw l_noderank_bad --nproc-per-node 1 --nnodes 2 --node-rank 2 --master-port 29555 -- trainer.n_gpus_per_node=1 trainer.nnodes=2; }
def l_port0;       l_port0()       { lraw l_port0 --nproc-per-node 2 --master-port 0 -- trainer.n_gpus_per_node=2; }
def l_port70000;   l_port70000()   { lraw l_port70000 --nproc-per-node 2 --master-port 70000 -- trainer.n_gpus_per_node=2; }
def l_port_neg;    l_port_neg()    { lraw l_port_neg --nproc-per-node 2 --master-port -1 -- trainer.n_gpus_per_node=2; }
def l_port_str;    l_port_str()    { lraw l_port_str --nproc-per-node 2 --master-port abc -- trainer.n_gpus_per_node=2; }
def l_port_priv;   l_port_priv()   { lraw l_port_priv --nproc-per-node 2 --master-port 80 -- trainer.n_gpus_per_node=2; }
def l_port_taken;  l_port_taken()  { python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1', 29631)); s.listen(); time.sleep(20)" & local lp=$!; sleep 0.5; lraw l_port_taken --nproc-per-node 2 --master-port 29631 -- trainer.n_gpus_per_node=2; local rc=$?; kill $lp; return $rc; }
def l_port_taken_any; l_port_taken_any() { python3 -c "import socket,time; s=socket.socket(); s.bind(('0.0.0.0', 29632)); s.listen(); time.sleep(20)" & local lp=$!; sleep 0.5; lraw l_port_taken_any --nproc-per-node 2 --master-port 29632 -- trainer.n_gpus_per_node=2; local rc=$?; kill $lp; return $rc; }
def l_addr_bad;    l_addr_bad()    { TO=60 lraw l_addr_bad --nproc-per-node 2 --master-addr no.such.host.invalid -- trainer.n_gpus_per_node=2; }
def l_env_world;   l_env_world()   { local t=$SECONDS; _l_env_world; local rc=$?; echo "took $((SECONDS-t)) s"; return $rc; }
_l_env_world() { RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29633 timeout 60 $V ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.total_training_steps=1 trainer.default_local_dir=$W/l_env_world actor_rollout_ref.nccl_timeout=10 2>&1; }
def l_no_sub;      l_no_sub()      { timeout 30 $V launch --nproc-per-node 2 2>&1; }
def l_bad_sub;     l_bad_sub()     { timeout 30 $V launch --nproc-per-node 2 generate --help 2>&1 | head -5; return ${PIPESTATUS[0]}; }

def l_nproc2_nodefault_fix; l_nproc2_nodefault_fix() { lraw l_nproc2_nodefault_fix --nproc-per-node 2 -- actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1; }

# long runs in the background
launch_long() { local name=$1; shift; rm -rf $W/$name $W/$name.jsonl; VERL_FILE_LOGGER_PATH=$W/$name.jsonl timeout 120 $V launch --nproc-per-node 2 ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir=$W/$name trainer.total_training_steps=100 trainer.val_before_train=false trainer.test_freq=-1 "$@" > $W/$name.log 2>&1 & launcher=$!; for _ in $(seq 1 600); do [ -s $W/$name.jsonl ] && break; sleep 0.1; done; }
# the launcher is timeout's child
lpid() { pgrep -P $launcher -f "verlpp launch" | head -1; }
rank_pid() { local l=$(lpid); for pid in $(pgrep -P $l); do tr '\0' '\n' < /proc/$pid/environ 2>/dev/null | grep -qx "RANK=$1" && echo $pid; done; }
finish() { local name=$1; wait $launcher; local rc=$?; cat $W/$name.log | grep -v "^step:" | tail -12; echo "launcher rc=$rc"; echo "steps logged: $(grep -c '"step"' $W/$name.jsonl)"; echo "latest: $(cat $W/$name/latest_checkpointed_iteration.txt 2>&1)"; ls $W/$name; for d in $W/$name/global_step_*; do [ -d $d ] && echo "$d: $(ls $d/actor | tr '\n' ' ')"; done; return $rc; }
def sig_kill_r0;   sig_kill_r0()   { launch_long sig_kill_r0 trainer.save_freq=-1; local v=$(rank_pid 0); echo "killing rank 0 pid $v"; kill -9 $v; local t=$SECONDS; finish sig_kill_r0; echo "took $((SECONDS-t)) s"; }
def sig_kill_r1_save; sig_kill_r1_save() { launch_long sig_kill_r1_save trainer.save_freq=1; sleep 1.5; local v=$(rank_pid 1); echo "killing rank 1 pid $v"; kill -9 $v; local t=$SECONDS; finish sig_kill_r1_save; echo "took $((SECONDS-t)) s"; }
def sig_term_l;    sig_term_l()    { launch_long sig_term_l trainer.save_freq=-1; kill -TERM $(lpid); finish sig_term_l; }
def sig_int_l;     sig_int_l()     { launch_long sig_int_l trainer.save_freq=-1; kill -INT $(lpid); finish sig_int_l; }
def sig_term_twice; sig_term_twice() { launch_long sig_term_twice trainer.save_freq=-1; local l=$(lpid); kill -TERM $l; sleep 0.3; kill -TERM $l; finish sig_term_twice; }
def sig_term_save; sig_term_save() { launch_long sig_term_save trainer.save_freq=1 trainer.max_actor_ckpt_to_keep=1; sleep 2; kill -TERM $(lpid); finish sig_term_save; }
def sig_kill_launcher; sig_kill_launcher() { launch_long sig_kill_launcher trainer.save_freq=-1; local l=$(lpid); local r0=$(rank_pid 0) r1=$(rank_pid 1); kill -9 $l; sleep 15; echo "ranks alive 15 s after SIGKILL of the launcher: $(ps -o pid=,stat=,etime= -p $r0,$r1 | tr '\n' ';')"; kill -9 $r0 $r1 2>/dev/null; finish sig_kill_launcher; }
def sig_stop_rank; sig_stop_rank() { launch_long sig_stop_rank trainer.save_freq=-1 actor_rollout_ref.nccl_timeout=10; local v=$(rank_pid 1); kill -STOP $v; local t=$SECONDS; finish sig_stop_rank; echo "took $((SECONDS-t)) s"; kill -CONT $v 2>/dev/null; kill -9 $v 2>/dev/null; }


# resume
step2_cmp() { python3 - "$@" <<'PY'
import sys
sys.path.insert(0, "/work/main/tests/e2e")
from compare_runs import steps_of
a, b = steps_of(sys.argv[1])[2], steps_of(sys.argv[2])[2]
for k in ["actor/pg_loss", "actor/grad_norm", "actor/kl_loss", "actor/entropy", "critic/score/mean"]:
    d = abs(a[k] - b[k]) / max(1, abs(a[k]))
    print("%s %r vs %r %s" % (k, a[k], b[k], "ok" if d <= 1e-5 else "DIFFERS"))
PY
}
prep_ckpt() { rm -rf $W/$2; cp -r $W/$1 $W/$2; rm -rf $W/$2/global_step_2; echo 1 > $W/$2/latest_checkpointed_iteration.txt; }
def res_2to1;      res_2to1()      { prep_ckpt base2 res_2to1_ck; VERL_FILE_LOGGER_PATH=$W/res_2to1.jsonl timeout 120 $V ppo "${common[@]}" trainer.n_gpus_per_node=1 trainer.default_local_dir=$W/res_2to1_ck trainer.val_before_train=false 2>&1 | grep -v "^step:"; local rc=${PIPESTATUS[0]}; step2_cmp $W/base2.jsonl $W/res_2to1.jsonl; return $rc; }
def res_1to2;      res_1to2()      { prep_ckpt base1 res_1to2_ck; rm -f $W/res_1to2.jsonl; VERL_FILE_LOGGER_PATH=$W/res_1to2.jsonl timeout 120 $V launch --nproc-per-node 2 ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir=$W/res_1to2_ck trainer.val_before_train=false 2>&1 | grep -v "^step:"; local rc=${PIPESTATUS[0]}; step2_cmp $W/base1.jsonl $W/res_1to2.jsonl; ls $W/res_1to2_ck/global_step_2/actor; return $rc; }
def res_2to4;      res_2to4()      { prep_ckpt base2 res_2to4_ck; rm -f $W/res_2to4.jsonl; VERL_FILE_LOGGER_PATH=$W/res_2to4.jsonl timeout 120 $V launch --nproc-per-node 4 ppo "${common[@]}" trainer.n_gpus_per_node=4 trainer.default_local_dir=$W/res_2to4_ck trainer.val_before_train=false trainer.test_freq=-1 2>&1 | grep -v "^step:"; local rc=${PIPESTATUS[0]}; step2_cmp $W/base2.jsonl $W/res_2to4.jsonl; return $rc; }
def res_sigterm_2to1; res_sigterm_2to1() { rm -rf $W/res_sigterm_ck; cp -r $W/sig_term_l $W/res_sigterm_ck; TO=120 VERL_FILE_LOGGER_PATH=$W/res_sigterm_2to1.jsonl timeout 120 $V ppo "${common[@]}" trainer.n_gpus_per_node=1 trainer.default_local_dir=$W/res_sigterm_ck trainer.total_training_steps=3 trainer.val_before_train=false trainer.test_freq=-1 2>&1 | grep -v "^step:"; }
r2() { local ck=$1; shift; timeout 120 $V launch --nproc-per-node 2 ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir=$W/$ck trainer.val_before_train=false "$@" 2>&1 | grep -v "^step:"; return ${PIPESTATUS[0]}; }
r1() { local ck=$1; shift; timeout 120 $V ppo "${common[@]}" trainer.n_gpus_per_node=1 trainer.default_local_dir=$W/$ck trainer.val_before_train=false "$@" 2>&1 | grep -v "^step:"; return ${PIPESTATUS[0]}; }
def res_del_r1_2r; res_del_r1_2r() { prep_ckpt base2 res_del_r1_2r; rm $W/res_del_r1_2r/global_step_1/actor/optim_world_size_2_rank_1.safetensors; r2 res_del_r1_2r; }
def res_del_r1_1r; res_del_r1_1r() { prep_ckpt base2 res_del_r1_1r; rm $W/res_del_r1_1r/global_step_1/actor/optim_world_size_2_rank_1.safetensors; r1 res_del_r1_1r; }
def res_del_r0_2r; res_del_r0_2r() { prep_ckpt base2 res_del_r0_2r; rm $W/res_del_r0_2r/global_step_1/actor/optim_world_size_2_rank_0.safetensors; r2 res_del_r0_2r; }
def res_trunc_r1;  res_trunc_r1()  { prep_ckpt base2 res_trunc_r1; local f=$W/res_trunc_r1/global_step_1/actor/optim_world_size_2_rank_1.safetensors; truncate -s $(( $(stat -c %s $f) / 2 )) $f; r2 res_trunc_r1; }
def res_trunc_r1_hdr; res_trunc_r1_hdr() { prep_ckpt base2 res_trunc_r1_hdr; local f=$W/res_trunc_r1_hdr/global_step_1/actor/optim_world_size_2_rank_1.safetensors; truncate -s 5 $f; r2 res_trunc_r1_hdr; }
def res_trunc_r1_1r; res_trunc_r1_1r() { prep_ckpt base2 res_trunc_r1_1r; local f=$W/res_trunc_r1_1r/global_step_1/actor/optim_world_size_2_rank_1.safetensors; truncate -s $(( $(stat -c %s $f) - 100 )) $f; r1 res_trunc_r1_1r; }
def res_empty_r1;  res_empty_r1()  { prep_ckpt base2 res_empty_r1; : > $W/res_empty_r1/global_step_1/actor/optim_world_size_2_rank_1.safetensors; r2 res_empty_r1; }
def res_extra_w3;  res_extra_w3()  { prep_ckpt base2 res_extra_w3; cp $W/res_extra_w3/global_step_1/actor/optim_world_size_2_rank_1.safetensors $W/res_extra_w3/global_step_1/actor/optim_world_size_3_rank_2.safetensors; r2 res_extra_w3; }
def res_mixed_w;   res_mixed_w()   { prep_ckpt base2 res_mixed_w; cp $W/base1/global_step_1/actor/optim_world_size_1_rank_0.safetensors $W/res_mixed_w/global_step_1/actor/; r1 res_mixed_w; }
def res_no_hf;     res_no_hf()     { prep_ckpt base2 res_no_hf; rm -rf $W/res_no_hf/global_step_1/actor/huggingface; r2 res_no_hf; }
def res_no_state;  res_no_state()  { prep_ckpt base2 res_no_state; rm -f $W/res_no_state/global_step_1/trainer_state.json; ls $W/base2/global_step_1; r2 res_no_state; }
def res_latest_missing; res_latest_missing() { prep_ckpt base2 res_latest_missing; echo 7 > $W/res_latest_missing/latest_checkpointed_iteration.txt; r2 res_latest_missing; }
def res_latest_garbage; res_latest_garbage() { prep_ckpt base2 res_latest_garbage; echo abc > $W/res_latest_garbage/latest_checkpointed_iteration.txt; r2 res_latest_garbage; }
def res_path_missing; res_path_missing() { r2 res_path_missing_ck trainer.resume_mode=resume_path trainer.resume_from_path=$W/nowhere/global_step_1; }
def res_unwritable_proc; res_unwritable_proc() { timeout 120 $V launch --nproc-per-node 2 ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir=/proc/verlpp_ckpt 2>&1 | grep -v "^step:"; return ${PIPESTATUS[0]}; }
def res_unwritable_file; res_unwritable_file() { echo x > $W/afile; timeout 120 $V launch --nproc-per-node 2 ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir=$W/afile/ckpt 2>&1 | grep -v "^step:"; return ${PIPESTATUS[0]}; }
def res_unwritable_ro; res_unwritable_ro() { timeout 120 $V launch --nproc-per-node 2 ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir=/sys/verlpp_ckpt 2>&1 | grep -v "^step:"; return ${PIPESTATUS[0]}; }
def res_unwritable_chk; res_unwritable_chk() { chk trainer.n_gpus_per_node=2 trainer.default_local_dir=/proc/verlpp_ckpt; }


######## 4. SFT on 2 ranks
sft=(data.train_files=$B/sft.jsonl data.val_files=$B/sft.jsonl data.prompt_key=prompt data.response_key=response
     data.train_max_samples=8 data.val_max_samples=3 data.train_batch_size=4 data.micro_batch_size_per_gpu=1
     data.max_length=256 data.truncation=right model.path=$B/model optim.lr=1e-3
     trainer.total_training_steps=2 trainer.save_freq=2 trainer.test_freq=1 trainer.device=cpu
     'trainer.logger=[console,file]' trainer.project_name=bt trainer.experiment_name=sft)
s1() { local name=$1; shift; rm -rf $W/$name $W/$name.jsonl; VERL_FILE_LOGGER_PATH=$W/$name.jsonl timeout 120 $V sft "${sft[@]}" trainer.default_local_dir=$W/$name "$@" 2>&1; }
s2() { local name=$1; shift; rm -rf $W/$name $W/$name.jsonl; VERL_FILE_LOGGER_PATH=$W/$name.jsonl timeout 120 $V launch --nproc-per-node 2 sft "${sft[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir=$W/$name "$@" 2>&1; }
schk() { timeout 60 $V check --no-print-config --config-name sft_trainer "${sft[@]}" "$@" 2>&1; }
def sft_base_cmp;  sft_base_cmp()  { s1 sft1 > $W/sft1.out; tail -2 $W/sft1.out | cut -c1-200; s2 sft2; echo "== compare"; cmp_runs $W/sft1.jsonl $W/sft2.jsonl $W/sft1 $W/sft2 '*' 1e-6; }
def sft_bs3_2r;    sft_bs3_2r()    { s2 sft_bs3_2r data.train_batch_size=3; }
def sft_bs5_2r;    sft_bs5_2r()    { s2 sft_bs5_2r data.train_batch_size=5; }
def sft_bs1_2r;    sft_bs1_2r()    { s2 sft_bs1_2r data.train_batch_size=1; }
def sft_bs3_chk;   sft_bs3_chk()   { schk trainer.n_gpus_per_node=2 data.train_batch_size=3; }
def sft_bs6_micro2_2r; sft_bs6_micro2_2r() { s2 sft_bs6_micro2_2r data.train_batch_size=6 data.micro_batch_size_per_gpu=2 data.use_dynamic_bsz=false; }
def sft_bs6_micro2_cmp; sft_bs6_micro2_cmp() { s1 sft_b6_1 data.train_batch_size=6 data.micro_batch_size_per_gpu=2 data.use_dynamic_bsz=false >/dev/null; s2 sft_b6_2 data.train_batch_size=6 data.micro_batch_size_per_gpu=2 data.use_dynamic_bsz=false | tail -3 | cut -c1-200; echo "== compare"; cmp_runs $W/sft_b6_1.jsonl $W/sft_b6_2.jsonl $W/sft_b6_1 $W/sft_b6_2 '*' 1e-6; }
def sft_micro3_2r; sft_micro3_2r() { s2 sft_micro3_2r data.micro_batch_size_per_gpu=3 data.use_dynamic_bsz=false; }
def sft_uly2_2r;   sft_uly2_2r()   { s2 sft_uly2_2r engine.ulysses_sequence_parallel_size=2; }
def sft_uly3_2r;   sft_uly3_2r()   { s2 sft_uly3_2r engine.ulysses_sequence_parallel_size=3; }
def sft_uly2_chk;  sft_uly2_chk()  { schk trainer.n_gpus_per_node=2 engine.ulysses_sequence_parallel_size=2; }
def sft_uly0_2r;   sft_uly0_2r()   { s2 sft_uly0_2r engine.ulysses_sequence_parallel_size=0; }
def sft_offload_cmp; sft_offload_cmp() { s2 sft_offload_2r engine.param_offload=true engine.optimizer_offload=true | grep -v "^step"; echo "== compare with sft2"; cmp_runs $W/sft2.jsonl $W/sft_offload_2r.jsonl $W/sft2 $W/sft_offload_2r '*' 1e-6; }
def sft_offload_policy; sft_offload_policy() { s2 sft_offload_policy engine.offload_policy=true | grep -v "^step"; return ${PIPESTATUS[0]}; }
def sft_fs1_2r;    sft_fs1_2r()    { s2 sft_fs1_2r engine.fsdp_size=1 | grep -v "^step"; echo "== compare with sft2"; cmp_runs $W/sft2.jsonl $W/sft_fs1_2r.jsonl $W/sft2 $W/sft_fs1_2r '*' 1e-6; }
def sft_fs3_2r;    sft_fs3_2r()    { s2 sft_fs3_2r engine.fsdp_size=3; }
def sft_fs0_2r;    sft_fs0_2r()    { s2 sft_fs0_2r engine.fsdp_size=0 | grep -v "^step"; }
def sft_dyn_2r;    sft_dyn_2r()    { s1 sft_dyn1 data.use_dynamic_bsz=true data.max_length=64 data.max_token_len_per_gpu=64 > /dev/null; s2 sft_dyn2 data.use_dynamic_bsz=true data.max_length=64 data.max_token_len_per_gpu=64 | grep -v "^step"; echo "== compare"; cmp_runs $W/sft_dyn1.jsonl $W/sft_dyn2.jsonl $W/sft_dyn1 $W/sft_dyn2 '*' 1e-6; }
def sft_dyn_tiny_2r; sft_dyn_tiny_2r() { s2 sft_dyn_tiny_2r data.use_dynamic_bsz=true data.max_token_len_per_gpu=8; }
def sft_ngpu_mismatch; sft_ngpu_mismatch() { rm -rf $W/sft_ngpu_mismatch; timeout 120 $V launch --nproc-per-node 2 sft "${sft[@]}" trainer.default_local_dir=$W/sft_ngpu_mismatch 2>&1; }
def sft_resume_2to1; sft_resume_2to1() { rm -rf $W/sft_res_ck; cp -r $W/sft2 $W/sft_res_ck; timeout 120 $V sft "${sft[@]}" trainer.default_local_dir=$W/sft_res_ck trainer.total_training_steps=3 trainer.save_freq=3 2>&1 | grep -v "^step:" ; ls $W/sft_res_ck/global_step_3/actor 2>&1; }
def sft_sigterm_2r; sft_sigterm_2r() { rm -rf $W/sft_sig $W/sft_sig.jsonl; VERL_FILE_LOGGER_PATH=$W/sft_sig.jsonl timeout 120 $V launch --nproc-per-node 2 sft "${sft[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir=$W/sft_sig trainer.total_training_steps=200 data.train_max_samples=-1 trainer.save_freq=-1 trainer.test_freq=-1 > $W/sft_sig.log 2>&1 & launcher=$!; for _ in $(seq 1 600); do [ -s $W/sft_sig.jsonl ] && break; sleep 0.1; done; kill -TERM $(lpid); wait $launcher; local rc=$?; grep -v "^step:" $W/sft_sig.log; echo "launcher rc=$rc"; echo "latest: $(cat $W/sft_sig/latest_checkpointed_iteration.txt 2>&1)"; ls $W/sft_sig/global_step_*/actor 2>&1; return $rc; }


######## 5. critic (GAE) on 2 ranks
gae=(algorithm.adv_estimator=gae critic.model.path=$B/model critic.ppo_micro_batch_size_per_gpu=2
     critic.optim.lr=1e-3 actor_rollout_ref.actor.use_kl_loss=false trainer.test_freq=-1 trainer.val_before_train=false)
def gae_cmp;       gae_cmp()       { one gae1 "${gae[@]}" > $W/gae1.out; tail -1 $W/gae1.out | cut -c1-100; two gae2 "${gae[@]}" | grep -v "^step"; echo "== compare"; cmp_runs $W/gae1.jsonl $W/gae2.jsonl $W/gae1 $W/gae2 '*' 1e-6; ls $W/gae2/global_step_2/critic; }
def critic_fs1_2r; critic_fs1_2r() { two critic_fs1_2r "${gae[@]}" critic.fsdp.fsdp_size=1 | grep -v "^step"; echo "== compare"; cmp_runs $W/gae1.jsonl $W/critic_fs1_2r.jsonl $W/gae1 $W/critic_fs1_2r '*' 1e-6; ls $W/critic_fs1_2r/global_step_2/critic; }
def critic_fs0_2r; critic_fs0_2r() { two critic_fs0_2r "${gae[@]}" critic.fsdp.fsdp_size=0 | grep -v "^step"; }
def critic_fs3_2r; critic_fs3_2r() { two critic_fs3_2r "${gae[@]}" critic.fsdp.fsdp_size=3; }
def critic_fs2_4r; critic_fs2_4r() { four critic_fs2_4r "${gae[@]}" critic.fsdp.fsdp_size=2 trainer.total_training_steps=1; }
def critic_fs4_4r; critic_fs4_4r() { four critic_fs4_4r "${gae[@]}" critic.fsdp.fsdp_size=4 trainer.total_training_steps=1 | grep -v "^step"; }
def critic_fs_str; critic_fs_str() { two critic_fs_str "${gae[@]}" critic.fsdp.fsdp_size=all; }
def critic_fs3_chk; critic_fs3_chk() { chk "${gae[@]}" trainer.n_gpus_per_node=2 critic.fsdp.fsdp_size=3; }
def critic_offload_2r; critic_offload_2r() { two critic_offload_2r "${gae[@]}" critic.fsdp.param_offload=true critic.fsdp.optimizer_offload=true critic.fsdp.reshard_after_forward=false | grep -v "^step"; echo "== compare"; cmp_runs $W/gae2.jsonl $W/critic_offload_2r.jsonl $W/gae2 $W/critic_offload_2r '*' 1e-6; }
def critic_oldkey; critic_oldkey() { two critic_oldkey "${gae[@]}" critic.model.fsdp_config.fsdp_size=1; }
def critic_uly2;   critic_uly2()   { two critic_uly2 "${gae[@]}" critic.ulysses_sequence_parallel_size=2 | grep -v "^step"; }
def critic_nomicro; critic_nomicro() { two critic_nomicro algorithm.adv_estimator=gae critic.model.path=$B/model actor_rollout_ref.actor.use_kl_loss=false trainer.test_freq=-1 trainer.val_before_train=false; }
def critic_resume_2to1; critic_resume_2to1() { prep_ckpt gae2 critic_res_ck; VERL_FILE_LOGGER_PATH=$W/critic_res.jsonl timeout 120 $V ppo "${common[@]}" "${gae[@]}" trainer.n_gpus_per_node=1 trainer.default_local_dir=$W/critic_res_ck 2>&1 | grep -v "^step:"; python3 - $W/gae2.jsonl $W/critic_res.jsonl <<'PY'
import sys
sys.path.insert(0, "/work/main/tests/e2e")
from compare_runs import steps_of
a, b = steps_of(sys.argv[1])[2], steps_of(sys.argv[2])[2]
for k in ["critic/vf_loss", "critic/grad_norm", "actor/pg_loss", "actor/grad_norm", "critic/values/mean"]:
    d = abs(a[k] - b[k]) / max(1, abs(a[k]))
    print("%s %r vs %r %s" % (k, a[k], b[k], "ok" if d <= 1e-5 else "DIFFERS"))
PY
}
def critic_del_shard; critic_del_shard() { prep_ckpt gae2 critic_del_shard; rm $W/critic_del_shard/global_step_1/critic/optim_world_size_2_rank_1.safetensors; r2 critic_del_shard "${gae[@]}"; }
def critic_no_dir; critic_no_dir() { prep_ckpt gae2 critic_no_dir; rm -rf $W/critic_no_dir/global_step_1/critic; r2 critic_no_dir "${gae[@]}"; }
def critic_resume_into_grpo; critic_resume_into_grpo() { prep_ckpt base2 critic_into; r2 critic_into "${gae[@]}"; }

def critic_uly3;   critic_uly3()   { two critic_uly3 "${gae[@]}" critic.ulysses_sequence_parallel_size=3 | grep -v "^step"; }
def actor_uly2_2r; actor_uly2_2r() { two actor_uly2_2r actor_rollout_ref.actor.ulysses_sequence_parallel_size=2 trainer.total_training_steps=1 | grep -v "^step"; }

######## 6. check vs ppo; tokenizer files
T=$B/tok
tkchk() { chk trainer.n_gpus_per_node=2 "$@"; }
tkppo() { local name=$1; shift; two $name trainer.total_training_steps=1 "$@" | grep -v "^step:"; return ${PIPESTATUS[0]}; }
for t in broken empty devnull missing wordpiece wordpiece2 notjson_obj nomodel smallvocab vocab151660; do
  eval "def tk_${t}_chk; tk_${t}_chk() { tkchk actor_rollout_ref.model.path=\$T/$t; }"
  eval "def tk_${t}_ppo; tk_${t}_ppo() { tkppo tk_${t}_ppo actor_rollout_ref.model.path=\$T/$t; }"
done
def tkpath_broken_chk; tkpath_broken_chk() { tkchk actor_rollout_ref.model.tokenizer_path=$T/tokonly_broken; }
def tkpath_broken_ppo; tkpath_broken_ppo() { tkppo tkpath_broken_ppo actor_rollout_ref.model.tokenizer_path=$T/tokonly_broken; }
def tkpath_missingdir_chk; tkpath_missingdir_chk() { tkchk actor_rollout_ref.model.tokenizer_path=$T/no_such_dir; }
def tkpath_wordpiece_ppo; tkpath_wordpiece_ppo() { tkppo tkpath_wordpiece_ppo actor_rollout_ref.model.tokenizer_path=$T/wordpiece; }
def tk_critic_broken_chk; tk_critic_broken_chk() { tkchk "${gae[@]}" critic.model.path=$T/broken; }
def tk_critic_broken_ppo; tk_critic_broken_ppo() { tkppo tk_critic_broken_ppo "${gae[@]}" critic.model.path=$T/broken; }
def tk_sft_broken_chk; tk_sft_broken_chk() { schk trainer.n_gpus_per_node=2 model.path=$T/broken; }
def tk_sft_smallvocab_2r; tk_sft_smallvocab_2r() { s2 tk_sft_smallvocab_2r model.path=$T/smallvocab; }
def chk_megatron_example; chk_megatron_example() { (cd /work/main && VERLPP_COMMAND="timeout 60 $V check --no-print-config" bash examples/run_qwen3_235b_256k_megatron_npu.sh 2>&1 | tail -15); }

def tk_sft_smallvocab_chk; tk_sft_smallvocab_chk() { schk trainer.n_gpus_per_node=2 model.path=$T/smallvocab; }
def tk_sft_smallvocab_1r; tk_sft_smallvocab_1r() { s1 tk_sft_smallvocab_1r model.path=$T/smallvocab | grep -v "^frame"; return ${PIPESTATUS[0]}; }
def tk_critic_smallvocab_chk; tk_critic_smallvocab_chk() { tkchk "${gae[@]}" critic.model.path=$T/smallvocab; }
def tk_critic_smallvocab_ppo; tk_critic_smallvocab_ppo() { tkppo tk_critic_smallvocab_ppo "${gae[@]}" critic.model.path=$T/smallvocab | grep -v "^frame"; return ${PIPESTATUS[0]}; }
def tk_critic_broken_ckpt; tk_critic_broken_ckpt() { ls -la $W/tk_critic_broken_ppo/global_step_1/critic/huggingface/; head -c 200 $W/tk_critic_broken_ppo/global_step_1/critic/huggingface/tokenizer.json; echo; python3 -c "import json,sys; json.load(open(sys.argv[1])); print('critic checkpoint tokenizer.json parses')" $W/tk_critic_broken_ppo/global_step_1/critic/huggingface/tokenizer.json 2>&1 | tail -1; }
def tk_ref_path_chk; tk_ref_path_chk() { tkchk +actor_rollout_ref.ref.model.path=$T/smallvocab; }

def sig_kill_resume; sig_kill_resume() { launch_long sig_kill_resume trainer.save_freq=1; sleep 2.2; local v=$(rank_pid 0); echo "killing rank 0 pid $v"; kill -9 $v; finish sig_kill_resume; ls -a $W/sig_kill_resume; local n=$(cat $W/sig_kill_resume/latest_checkpointed_iteration.txt); echo "== resume on 2 ranks to step $((n+1))"; r2 sig_kill_resume trainer.total_training_steps=$((n+1)) trainer.test_freq=-1; local rc=$?; ls -a $W/sig_kill_resume; return $rc; }
def sig_term_resume_2r; sig_term_resume_2r() { rm -rf $W/sig_term_res; cp -r $W/sig_term_l $W/sig_term_res; r2 sig_term_res trainer.total_training_steps=3 trainer.test_freq=-1; }
def same_dir_twice; same_dir_twice() { rm -rf $W/same_dir; (VERL_FILE_LOGGER_PATH=$W/same_a.jsonl timeout 120 $V launch --nproc-per-node 2 ppo "${common[@]}" trainer.n_gpus_per_node=2 trainer.default_local_dir=$W/same_dir trainer.total_training_steps=3 trainer.test_freq=-1 > $W/same_a.log 2>&1; echo "A rc=$?" >> $W/same_a.log) & sleep 0.3; VERL_FILE_LOGGER_PATH=$W/same_b.jsonl timeout 120 $V ppo "${common[@]}" trainer.n_gpus_per_node=1 trainer.default_local_dir=$W/same_dir trainer.total_training_steps=3 trainer.test_freq=-1 2>&1 | grep -v "^step:"; echo "B rc=${PIPESTATUS[0]}"; wait; grep -v "^step:" $W/same_a.log; ls -a $W/same_dir; for d in $W/same_dir/global_step_*; do echo "$d: $(ls $d/actor | tr '\n' ' ')"; done; }

def tkpath_missingdir_ppo; tkpath_missingdir_ppo() { tkppo tkpath_missingdir_ppo actor_rollout_ref.model.tokenizer_path=$T/no_such_dir; }
def sft_dyn64_len256; sft_dyn64_len256() { s2 sft_dyn64_len256 data.use_dynamic_bsz=true data.max_token_len_per_gpu=64; }

#### runner
run_one() {
  local n=$1
  echo "### $n" >&2
  { "$n"; echo "rc=$?"; } > logs/$n.log 2>&1
  tail -1 logs/$n.log >&2
}
if [ $# -eq 0 ]; then set -- "${CASES[@]}"; fi
for n in "$@"; do run_one "$n"; done
