#!/usr/bin/env bash
# GRPO on the 6-layer hidden-256 model: 1 rank vs 3 ranks (sharded, deferred loading, uneven rows),
# and the 3-rank step-1 checkpoint resumed on 2 ranks (optimizer rows re-split) vs the 1-rank step 2.
V=/work/main/build/verlpp; cd /tmp/bt18; rm -rf pp; mkdir pp
for i in 1 2 3 4 5 6 7 8; do
  echo "{\"data_source\": \"verlpp/arithmetic\", \"prompt\": [{\"role\": \"user\", \"content\": \"$i+$i=\"}], \"reward_model\": {\"ground_truth\": \"$((i+i))\"}}"
done > pp/rl.jsonl
common=(data.train_files=pp/rl.jsonl data.val_files=pp/rl.jsonl data.train_batch_size=4 data.val_max_samples=3
  data.max_prompt_length=16 data.max_response_length=4 actor_rollout_ref.model.path=big
  actor_rollout_ref.actor.optim.lr=3e-4 actor_rollout_ref.actor.ppo_mini_batch_size=4
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 actor_rollout_ref.actor.ppo_epochs=2
  actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=3
  actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1 algorithm.adv_estimator=grpo trainer.device=cpu
  trainer.balance_batch=false trainer.total_training_steps=2 trainer.save_freq=1 trainer.test_freq=2
  trainer.val_before_train=false 'trainer.logger=[console,file]' trainer.project_name=p trainer.experiment_name=e)
run() { local name=$1 np=$2; shift 2
  if [ $np = 1 ]; then VERL_FILE_LOGGER_PATH=pp/$name.jsonl $V ppo "${common[@]}" trainer.n_gpus_per_node=1 trainer.default_local_dir=pp/$name "$@" > pp/$name.log 2>&1
  else VERL_FILE_LOGGER_PATH=pp/$name.jsonl $V launch --nproc-per-node $np ppo "${common[@]}" trainer.n_gpus_per_node=$np trainer.default_local_dir=pp/$name "$@" > pp/$name.log 2>&1; fi
  echo "== $name np=$np rc=$?"; grep -E "error|resumed|training state" pp/$name.log | cut -c1-200 | head -4; }
run g1 1; run g3 3
rm -rf pp/res2; mkdir pp/res2; cp -r pp/g3/global_step_1 pp/res2/; echo 1 > pp/res2/latest_checkpointed_iteration.txt
run res2 2
python3 - <<'PY'
import sys; sys.path.insert(0, '/work/main/tests/e2e'); from compare_runs import steps_of, skipped
a = steps_of('/tmp/bt18/pp/g1.jsonl')
for other in ('g3', 'res2'):
    b = steps_of('/tmp/bt18/pp/%s.jsonl' % other); worst = (0, None)
    for s in b:
        for k, y in b[s].items():
            x = a[s].get(k)
            if skipped(k) or not isinstance(y, (int, float)) or not isinstance(x, (int, float)): continue
            d = abs(x - y) / max(1, abs(x)); worst = max(worst, (d, '%d %s %r %r' % (s, k, x, y)))
    print(other, 'steps', sorted(b), 'worst metric diff vs g1:', worst)
PY
