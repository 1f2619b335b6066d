# Signals mid-run, then resume.
source /tmp/bt15/scripts/lib.sh
sig() {  # sig NAME SIGNAL DELAY overrides...
  local name=$1 s=$2 d=$3; shift 3
  rm -rf $B/runs/$name; rm -f log/$name.jsonl
  ( cd $B/runs; VERL_FILE_LOGGER_PATH=$B/log/$name.jsonl OMP_NUM_THREADS=2 exec timeout 300 $V ppo "${base[@]}" trainer.default_local_dir=$B/runs/$name \
      data.train_batch_size=16 data.max_response_length=32 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16 trainer.total_training_steps=400 trainer.save_freq=100 "$@" ) > log/$name.out 2>&1 &
  local pid=$!
  sleep $d; kill -$s $pid   # the timeout process forwards it to verlpp
  wait $pid; local rc=$?
  echo "== $name rc=$rc" | tee -a log/summary.txt
  grep -iE 'signal|saved|error|terminat|abort' log/$name.out | grep -v '^step' | head -4
  ls $B/runs/$name 2>/dev/null | tr '\n' ' '; echo
}
resume() { local name=$1 dir=$2; shift 2
  ( cd $B/runs; VERL_FILE_LOGGER_PATH=$B/log/$name.jsonl OMP_NUM_THREADS=2 timeout 300 $V ppo "${base[@]}" trainer.default_local_dir=$B/runs/$dir \
      data.train_batch_size=16 data.max_response_length=32 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16 trainer.total_training_steps=${RSTEPS} trainer.save_freq=100 trainer.resume_mode=auto "$@" ) > log/$name.out 2>&1
  echo "== $name rc=$?" | tee -a log/summary.txt; grep -iE 'resumed|error' log/$name.out | head -3; m $name 'distillation/loss$|training/global_step' | head -2
}
sig G1_sigint INT 6
last=$(cat $B/runs/G1_sigint/latest_checkpointed_iteration.txt); RSTEPS=$((last+2)); resume G1b_resume G1_sigint
sig G2_sigterm TERM 6 $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=8
last=$(cat $B/runs/G2_sigterm/latest_checkpointed_iteration.txt); RSTEPS=$((last+2)); resume G2b_resume G2_sigterm $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=8
sig G3_sigkill KILL 6
ls $B/runs/G3_sigkill; 
