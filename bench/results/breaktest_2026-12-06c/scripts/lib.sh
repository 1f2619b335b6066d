# Harness for the distillation break-test. Source it; then `c NAME overrides...` runs one case.
V=/tmp/bt15/verlpp
B=/tmp/bt15
D=$B/demo/verlpp_demo
STU=$(ls -d $D/sft/global_step_*/actor/huggingface 2>/dev/null | sort -V | tail -1)
TEA=$(ls -d $D/grpo/global_step_*/actor/huggingface 2>/dev/null | sort -V | tail -1)
T=distillation.teacher_models.teacher_model
L=distillation.distillation_loss
base=(
  algorithm.adv_estimator=grpo actor_rollout_ref.rollout.name=vllm
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  data.train_files="$D/data/train.jsonl" data.val_files="$D/data/val.jsonl" data.train_batch_size=8
  data.max_prompt_length=16 data.max_response_length=8 actor_rollout_ref.model.path="$STU"
  actor_rollout_ref.model.enable_gradient_checkpointing=false actor_rollout_ref.rollout.n=1
  actor_rollout_ref.actor.ppo_mini_batch_size=4 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 actor_rollout_ref.actor.optim.lr=8e-5
  actor_rollout_ref.actor.use_kl_loss=false actor_rollout_ref.actor.entropy_coeff=0
  algorithm.use_kl_in_reward=false trainer.val_before_train=false trainer.test_freq=-1
  trainer.total_training_steps=2 trainer.save_freq=-1 trainer.resume_mode=disable data.val_max_samples=8
  "trainer.logger=[console,file]" trainer.device=cpu trainer.n_gpus_per_node=1
  distillation.enabled=true distillation.n_gpus_per_node=1 distillation.nnodes=1
  $T.model_path="$TEA" $T.inference.tensor_model_parallel_size=1
  $L.use_task_rewards=false $L.loss_max_clamp=10 $L.loss_mode=k1 $L.use_policy_gradient=true
)
# c NAME overrides... : ppo with the base config plus overrides; output in log/NAME.out, metrics in log/NAME.jsonl
c() {
  local name=$1; shift
  rm -f $B/log/$name.jsonl
  local t0=$(date +%s.%N)
  ( cd $B/runs && VERL_FILE_LOGGER_PATH=$B/log/$name.jsonl OMP_NUM_THREADS=2 timeout 300 $V ${CMD:-ppo} "${base[@]}" \
      trainer.default_local_dir=$B/runs/$name "$@" ) > $B/log/$name.out 2>&1
  local rc=$?
  local dt=$(python3 -c "import time;print(round(time.time()-$t0,1))")
  echo "== $name rc=$rc ${dt}s" | tee -a $B/log/summary.txt
  echo "$*" > $B/log/$name.cmd
  grep -iE 'error|verlpp: .*(must|not|refus|unknown|invalid|cannot|expected)|terminate|abort|Segmentation|what\(\)|nan|warn' $B/log/$name.out | grep -v '^step:' | head -6
  tail -2 $B/log/$name.out | cut -c1-400
}
# m NAME KEY-REGEX: print matching metrics per step from the jsonl
m() { python3 - $B/log/$1.jsonl "$2" <<'PY'
import json,sys,re
try: lines=[json.loads(l) for l in open(sys.argv[1])]
except FileNotFoundError: print("no jsonl"); sys.exit()
for d in lines:
    s=d.get("step"); dd=d.get("data",d)
    print(s, {k:(round(v,6) if isinstance(v,float) else v) for k,v in dd.items() if re.search(sys.argv[2],k)})
PY
}
