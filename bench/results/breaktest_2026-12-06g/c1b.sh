# c1.sh NAME SIGSPEC... : 1-rank ppo, signal(s) during validation of step 1
source /tmp/bt19/lib.sh
n=$1; shift
ppo_bg $n "${longval[@]}" trainer.total_training_steps=${TOT:-3} trainer.save_freq=1 trainer.test_freq=1 trainer.val_before_train=false $EXTRA
waitfor $W/$n.log "saved checkpoint .*global_step_1" 120 || echo "no step-1 ckpt seen"
sleep 1
now
for s in "$@"; do case $s in sleep*) sleep ${s#sleep};; *) kill -$s $(pgrep -P $pid) ;; esac; done
finish $n
