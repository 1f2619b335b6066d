#!/usr/bin/env bash
# The 6-layer model re-saved with an odd header length (tensor data at odd file offsets) and as
# mixed bf16/f16/f32 (with its fp32 equivalent), loaded row-sharded over 3 ranks: step-1 loss and
# grad_norm against 1 rank on the original / the fp32 equivalent.
V=/work/main/build/verlpp; ST=/work/main/bench/results/breaktest_2026-12-06f/st.py; cd /tmp/bt18
for d in big_mis big_mixed big_mixedref; do rm -rf $d; mkdir $d; cp big/config.json big/tokenizer*.json $d/; done
python3 $ST misalign big/model.safetensors big_mis/model.safetensors 0
python3 $ST mixed big/model.safetensors big_mixed/model.safetensors; mv big_mixed/model.safetensors.ref big_mixedref/model.safetensors
sft=(data.train_files=mr/train.jsonl data.prompt_key=prompt data.response_key=response
     data.train_batch_size=6 data.micro_batch_size_per_gpu=1 data.max_length=16 optim.lr=0.003
     trainer.total_training_steps=1 trainer.save_freq=-1 "trainer.logger=['console']" trainer.device=cpu)
rm -rf ms1_* ms3_*
for m in ${MODELS:-big big_mis big_mixedref big_mixed}; do
  echo "$m 1 rank : $($V sft "${sft[@]}" model.path=$m trainer.default_local_dir=ms1_$m 2>&1 | grep -oE 'grad_norm:[^ ]+ - train/loss:[^ ]+')"
  echo "$m 3 ranks: $($V launch --nproc-per-node 3 sft "${sft[@]}" model.path=$m trainer.default_local_dir=ms3_$m 2>&1 | grep -oE 'grad_norm:[^ ]+ - train/loss:[^ ]+|error.*')"
done
