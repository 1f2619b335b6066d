sftc=(data.train_files=/tmp/bt14/w/sft.jsonl data.val_files=/tmp/bt14/w/sft.jsonl data.prompt_key=prompt data.response_key=response
     data.train_batch_size=4 data.micro_batch_size_per_gpu=2 data.use_dynamic_bsz=false data.max_length=128 data.truncation=right
     optim.lr=0.01 trainer.total_training_steps=2 "trainer.logger=['console']" trainer.device=cpu)
run_sft(){ local n=$1; shift; rm -rf $W/runs/$n.*; ( cd $W && timeout 600 $V sft "${sftc[@]}" trainer.default_local_dir=$W/runs/$n.ckpt "$@" ) > $W/runs/$n.out 2>&1; echo rc=$?; grep -v "^step" $W/runs/$n.out | grep -v "dtype=bfloat16\|training state\|plot written" | cut -c1-300 | tail -5; grep -o "^step:[0-9]* - .*train/loss:[^ ]*" $W/runs/$n.out | grep -o "step:[0-9]*\|train/loss:[^ ]*" | tr '\n' ' '; echo; }
