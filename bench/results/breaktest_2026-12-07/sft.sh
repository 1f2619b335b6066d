SFT=(data.train_files=/tmp/bt20/gsm8k/train.parquet data.val_files=/tmp/bt20/gsm8k/test.parquet
 data.prompt_key=extra_info data.response_key=extra_info "+data.prompt_dict_keys=['question']" "+data.response_dict_keys=['answer']"
 data.micro_batch_size_per_gpu=4 data.train_batch_size=8 data.max_length=256
 model.path=/tmp/bt20/tiny trainer.n_gpus_per_node=1 'trainer.logger=[console,file]')
