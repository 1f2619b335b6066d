# Teacher path / file cases. Models made by scripts/make_models.sh.
source /tmp/bt15/scripts/lib.sh
M=/tmp/bt15/models
for t in vocab32 q35 moe_bf16 q35moe_sharded trunc badheader hugelen noweights emptydir afile.safetensors badjson cfgvocab_lie missingshard zerobytes nanteacher missingtensor; do
  c P_$t $T.model_path=$M/$t > /dev/null; tail -1 log/summary.txt
  grep -vE '^step:|^verlpp: (plot|actor_rollout|engine)|note:' log/P_$t.out | grep -iE 'error|✗|what|abort|terminat|nan|teacher' | head -3 | cut -c1-300
  m P_$t 'distillation/(loss|abs_loss)$' | tail -1
done
c P_nonexist $T.model_path=/tmp/bt15/nope > /dev/null; tail -1 log/summary.txt; grep -iE 'error|✗' log/P_nonexist.out | head -2
c P_null $T.model_path=null > /dev/null; tail -1 log/summary.txt; grep -iE 'error|✗' log/P_null.out | head -2
c P_empty "$T.model_path=" > /dev/null; tail -1 log/summary.txt; grep -iE 'error|✗' log/P_empty.out | head -2
c P_hfid $T.model_path=Qwen/Qwen3-0.6B > /dev/null; tail -1 log/summary.txt; grep -iE 'error|✗' log/P_hfid.out | head -2
c P_relative $T.model_path=demo/verlpp_demo/grpo/global_step_90/actor/huggingface > /dev/null; tail -1 log/summary.txt; grep -iE 'error|✗' log/P_relative.out | head -2
c P_trailing_slash $T.model_path=$TEA/ > /dev/null; tail -1 log/summary.txt; grep -iE 'error|✗' log/P_trailing_slash.out | head -2
