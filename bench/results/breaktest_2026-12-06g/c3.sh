# c3.sh: reference 3-step run (small val) and resume of the 'int' run (stopped in validation of step 1)
source /tmp/bt19/lib.sh
small=(data.val_files="$W/long_val4.jsonl" data.val_max_samples=4 data.max_response_length=32)
ppo_bg ref "${small[@]}" trainer.total_training_steps=3 trainer.save_freq=1 trainer.test_freq=1 trainer.val_before_train=false
now; finish ref | grep -v ^step:
rm -rf $W/int_res; cp -r $W/int $W/int_res; cp $W/int.jsonl $W/int_res.jsonl
VERL_FILE_LOGGER_PATH="$W/int_res.jsonl" timeout -s KILL 600 "$B" ppo "${common[@]}" trainer.n_gpus_per_node=1 trainer.default_local_dir="$W/int_res" "${small[@]}" trainer.total_training_steps=3 trainer.save_freq=1 trainer.test_freq=1 trainer.val_before_train=false trainer.resume_mode=auto > $W/int_res.log 2>&1; echo "resume rc=$?"
grep -v ^step: $W/int_res.log | tail -5
python3 /work/main/tests/e2e/compare_runs.py 2>&1 | head -5
