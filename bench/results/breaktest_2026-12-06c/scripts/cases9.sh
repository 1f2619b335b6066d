# Two Gloo ranks via verlpp launch.
source /tmp/bt15/scripts/lib.sh
M=/tmp/bt15/models; DD=/tmp/bt15/data; TM=distillation.teacher_models
k() { echo "+$TM.$1.key=$2" "+$TM.$1.model_path=${3:-$TEA}" "+$TM.$1.num_replicas=${4:-1}"; }
l() { local name=$1; shift; rm -rf $B/runs/$name; rm -f log/$name.jsonl
  ( cd $B/runs; VERL_FILE_LOGGER_PATH=$B/log/$name.jsonl timeout 300 $V launch --nproc-per-node 2 ppo "${base[@]}" trainer.n_gpus_per_node=2 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 trainer.default_local_dir=$B/runs/$name "$@" ) > log/$name.out 2>&1
  echo "== $name rc=$?" | tee -a log/summary.txt
  grep -vE '^step:|note:' log/$name.out | grep -iE 'error|✗|what|abort|terminat|sharded|teacher .*rank|rank [0-9] ' | head -5 | cut -c1-300; m $name 'distillation/loss$|reverse_kl' | tail -2; }
l D1_two_ranks_k1
l D2_two_ranks_topk $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=4 trainer.val_before_train=true data.val_max_samples=8
l D3_two_ranks_keyed data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk distillation.n_gpus_per_node=2 $(k a A) $(k b B $M/q35)
l D4_two_ranks_keyed_missing data.train_files=$DD/keyed_missing.jsonl distillation.teacher_key=tk distillation.n_gpus_per_node=2 $(k a A) $(k b B $M/q35)
l D5_two_ranks_badteacher $T.model_path=$M/trunc
l D8_two_ranks_sigint_like_save trainer.save_freq=2
l D6_two_ranks_nprocmismatch trainer.n_gpus_per_node=1
l D7_two_ranks_batch_odd data.train_batch_size=6 actor_rollout_ref.actor.ppo_mini_batch_size=6 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=3
