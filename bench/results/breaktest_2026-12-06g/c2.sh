# c2.sh NAME SIG : signal during the validation before training (fresh run)
source /tmp/bt19/lib.sh
n=$1; s=$2
ppo_bg $n "${longval[@]}" trainer.total_training_steps=3 trainer.save_freq=1 trainer.test_freq=1 trainer.val_before_train=true trainer.validation_data_dir=$W/$n/valgen
sleep 8
now; kill -$s $(pgrep -P $pid)
finish $n
ls -la $W/$n/valgen 2>&1
