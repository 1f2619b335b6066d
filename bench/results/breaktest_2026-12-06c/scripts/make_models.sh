# Tiny teachers and broken teacher folders used by cases3/4/9 (run once, after the demo).
set -e
cd /tmp/bt15 && mkdir -p models && V=/tmp/bt15/verlpp
TEA=$(ls -d demo/verlpp_demo/grpo/global_step_*/actor/huggingface | sort -V | tail -1)
$V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 1 --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 32 --dtype float32 --output models/vocab32
$V model init --arch qwen3_5 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 --num-attention-heads 2 --num-key-value-heads 1 --head-dim 8 --vocab-size 16 --linear-num-key-heads 1 --linear-num-value-heads 2 --linear-key-head-dim 6 --linear-value-head-dim 10 --layer-types linear_attention full_attention --dtype float32 --seed 5 --output models/q35
$V model init --arch qwen3_moe --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 16 --num-experts 4 --num-experts-per-tok 2 --moe-intermediate-size 8 --dtype bfloat16 --seed 6 --output models/moe_bf16
$V model init --arch qwen3_5_moe --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 --num-attention-heads 2 --num-key-value-heads 1 --head-dim 8 --vocab-size 16 --linear-num-key-heads 1 --linear-num-value-heads 2 --linear-key-head-dim 6 --linear-value-head-dim 10 --layer-types linear_attention full_attention --num-experts 4 --num-experts-per-tok 2 --moe-intermediate-size 8 --dtype float32 --seed 7 --max-shard-bytes 20000 --output models/q35moe_sharded
cd models
cp -r ../$TEA trunc && python3 -c "import os;p='trunc/model.safetensors';os.truncate(p,os.path.getsize(p)//2)"
cp -r ../$TEA badheader && python3 -c "p='badheader/model.safetensors';b=bytearray(open(p,'rb').read());b[8:20]=b'\x00garbage!!!!';open(p,'wb').write(b)"
cp -r ../$TEA hugelen && python3 -c "import struct;p='hugelen/model.safetensors';b=bytearray(open(p,'rb').read());b[0:8]=struct.pack('<Q',1<<60);open(p,'wb').write(b)"
mkdir -p noweights emptydir && cp ../$TEA/config.json noweights/
cp ../$TEA/model.safetensors afile.safetensors
cp -r ../$TEA badjson && echo '{"vocab_size": 16,' > badjson/config.json
cp -r ../$TEA cfgvocab_lie && python3 -c "import json;p='cfgvocab_lie/config.json';c=json.load(open(p));c['vocab_size']=32;json.dump(c,open(p,'w'))"
cp -r q35moe_sharded missingshard && rm missingshard/model-00002-of-00002.safetensors
cp -r ../$TEA zerobytes && : > zerobytes/model.safetensors
cp -r ../$TEA nanteacher && python3 - <<'PY'
import json, struct
p='nanteacher/model.safetensors'
with open(p,'r+b') as f:
    n=struct.unpack('<Q',f.read(8))[0]; h=json.loads(f.read(n)); b,e=h['model.norm.weight']['data_offsets']
    f.seek(8+n+b); f.write(struct.pack('<I',0x7FC00000)*((e-b)//4))
PY
cp -r ../$TEA missingtensor && python3 - <<'PY'
import json, struct
p='missingtensor/model.safetensors'
raw=open(p,'rb').read(); n=struct.unpack('<Q',raw[:8])[0]; h=json.loads(raw[8:8+n]); del h['model.norm.weight']
hb=json.dumps(h).encode(); open(p,'wb').write(struct.pack('<Q',len(hb))+hb+raw[8+n:])
PY
