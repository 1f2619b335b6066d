# c5.sh NAME DYN WAITRE DELAY [overrides]: 2-rank sft, SIGTERM to rank 1 alone
source /tmp/bt19/lib.sh
n=$1; dyn=$2; re=$3; d=$4; shift 4
sft=(data.train_files="$W/sft.jsonl" data.val_files="$W/sft_long_val.jsonl" data.prompt_key=prompt data.response_key=response
     data.train_max_samples=8 data.val_max_samples=-1 data.train_batch_size=4 data.micro_batch_size_per_gpu=1
     data.max_length=1024 data.truncation=right model.path="$W/model" optim.lr=1e-3 data.use_dynamic_bsz=$dyn
     trainer.total_training_steps=4 trainer.test_freq=2 trainer.device=cpu
     'trainer.logger=[console,file]' trainer.project_name=bt19 trainer.experiment_name=sft)
rm -rf $W/$n $W/$n.jsonl
VERL_FILE_LOGGER_PATH="$W/$n.jsonl" timeout -s KILL 300 "$B" launch --nproc-per-node 2 sft "${sft[@]}" trainer.default_local_dir="$W/$n" "$@" > $W/$n.log 2>&1 &
pid=$!
waitfor $W/$n.log "$re" 120 || echo "marker not seen"
sleep $d; now; kill -TERM $(rank_pid 1)
finish $n
