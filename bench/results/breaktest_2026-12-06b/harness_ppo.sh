# harness: source me. run_ppo NAME [overrides...] -> logs in $W/runs/NAME.{out,jsonl}, ckpt $W/runs/NAME.ckpt
V=/tmp/bt14/verlpp; W=/tmp/bt14/w; mkdir -p $W/runs
common=(
  data.train_files=$W/gsm8k/train.parquet data.val_files=$W/gsm8k/test.parquet
  data.train_max_samples=4 data.val_max_samples=2 data.train_batch_size=2
  data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1
  'trainer.logger=[console,file]' trainer.project_name=bt trainer.experiment_name=bt
  trainer.val_before_train=false trainer.test_freq=-1 trainer.save_freq=-1 trainer.total_training_steps=1 actor_rollout_ref.actor.entropy_coeff=0.01
)
run_ppo() { local n=$1; shift; rm -rf $W/runs/$n.*; ( cd $W && VERL_FILE_LOGGER_PATH=$W/runs/$n.jsonl timeout 600 $V ppo "${common[@]}" trainer.default_local_dir=$W/runs/$n.ckpt "$@" ) > $W/runs/$n.out 2>&1; local rc=$?; echo "rc=$rc"; grep -v '^step:' $W/runs/$n.out | grep -iE "error|warn|notice|override|abort|terminate|exception|segm|core" | head -10; grep -v '^step:' $W/runs/$n.out | tail -3 | cut -c1-400; grep -o '^step:[0-9]* - actor/entropy:[^ ]*' $W/runs/$n.out | sort -u | tr '\n' ' '; echo; }
run_chk() { ( cd $W && timeout 600 $V check --no-print-config "${common[@]}" "$@" ) > $W/runs/chk.out 2>&1; local rc=$?; echo "rc=$rc"; tail -12 $W/runs/chk.out; }
