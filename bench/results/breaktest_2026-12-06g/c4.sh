# c4.sh NAME TARGET(launcher|rank1) VALFILE [overrides]: 2-rank ppo, SIGTERM during validation of step 1
source /tmp/bt19/lib.sh
n=$1; tgt=$2; vf=$3; shift 3
launch_bg $n data.val_files=$vf data.val_max_samples=-1 data.max_response_length=32 trainer.total_training_steps=3 trainer.save_freq=${SF:-1} trainer.test_freq=1 trainer.val_before_train=false "$@"
waitfor $W/$n.log "${WAITRE:-saved checkpoint .*global_step_1}" 200 || echo "no marker seen"
sleep ${DELAY:-1}
now
if [ $tgt = launcher ]; then kill -TERM $(launcher_of $pid); else kill -TERM $(rank_pid 1); fi
finish $n
