#!/usr/bin/env python3
"""Craft odd safetensors files from a good one (no numpy/torch needed).
usage: st.py MODE SRC DST [args]"""
import json, struct, sys, os

def load(p):
    b = open(p, 'rb').read()
    n = struct.unpack('<Q', b[:8])[0]
    h = json.loads(b[8:8 + n])
    return h, b[8 + n:]

def tensors(h, data):
    out = {}
    for k, v in h.items():
        if k == '__metadata__': continue
        s, e = v['data_offsets']
        out[k] = (v['dtype'], v['shape'], data[s:e])
    return out

def write(p, ts, meta={'format': 'pt'}, pad_to=8, extra_pad=0, raw_header=None):
    h = {'__metadata__': meta} if meta is not None else {}
    off = 0; blobs = []
    for k in sorted(ts):
        dt, shape, blob = ts[k]
        h[k] = {'dtype': dt, 'shape': shape, 'data_offsets': [off, off + len(blob)]}
        off += len(blob); blobs.append(blob)
    text = json.dumps(h).encode() if raw_header is None else raw_header
    if pad_to > 1: text += b' ' * ((pad_to - len(text) % pad_to) % pad_to)
    text += b' ' * extra_pad
    with open(p, 'wb') as f:
        f.write(struct.pack('<Q', len(text))); f.write(text); f.write(b''.join(blobs))
    return h

def f32_to_bf16(blob):  # round to nearest even
    out = bytearray()
    for (x,) in struct.iter_unpack('<I', blob):
        r = ((x >> 16) & 1) + 0x7fff
        out += struct.pack('<H', ((x + r) >> 16) & 0xffff)
    return bytes(out)

def bf16_to_f32(blob):
    return b''.join(struct.pack('<I', x << 16) for (x,) in struct.iter_unpack('<H', blob))

def f32_to_f16(blob):
    return b''.join(struct.pack('<e', x) for (x,) in struct.iter_unpack('<f', blob))

def f16_to_f32(blob):
    return b''.join(struct.pack('<f', x) for (x,) in struct.iter_unpack('<e', blob))

mode, src, dst = sys.argv[1:4]
h, data = load(src)
ts = tensors(h, data)
if mode == 'misalign':      # header length odd -> data starts at odd offset
    write(dst, ts, pad_to=1, extra_pad=int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    n = struct.unpack('<Q', open(dst, 'rb').read(8))[0]
    print('header length', n, 'data starts at', 8 + n)
elif mode == 'mixed':       # dst gets mixed bf16/f16/f32; dst + '.ref' the fp32 equivalent
    ref = {}
    for i, k in enumerate(sorted(ts)):
        dt, shape, blob = ts[k]
        if i % 3 == 0:
            b = f32_to_bf16(blob); ts[k] = ('BF16', shape, b); ref[k] = ('F32', shape, bf16_to_f32(b))
        elif i % 3 == 1:
            b = f32_to_f16(blob); ts[k] = ('F16', shape, b); ref[k] = ('F32', shape, f16_to_f32(b))
        else:
            ref[k] = (dt, shape, blob)
    write(dst, ts); write(dst + '.ref', ref)
elif mode == 'f64':
    ts = {k: ('F64', s, b''.join(struct.pack('<d', x) for (x,) in struct.iter_unpack('<f', b))) for k, (d, s, b) in ts.items()}
    write(dst, ts)
elif mode == 'hugehdr':     # header length field set to a value
    b = open(src, 'rb').read(); open(dst, 'wb').write(struct.pack('<Q', int(sys.argv[4])) + b[8:])
elif mode == 'pastend':     # last tensor's end offset beyond the data
    write(dst, ts)
    hh, dd = load(dst); last = max((v['data_offsets'][1], k) for k, v in hh.items() if k != '__metadata__')[1]
    hh[last]['data_offsets'][1] += 4; hh[last]['shape'][-1] += 1
    t = json.dumps(hh).encode(); t += b' ' * ((8 - len(t) % 8) % 8)
    open(dst, 'wb').write(struct.pack('<Q', len(t)) + t + dd)
elif mode == 'zero':        # add a zero-size tensor (extra, with name given) 
    ts[sys.argv[4]] = ('F32', [0, 32], b''); write(dst, ts)
elif mode == 'shard':       # split into N shards + index in dir dst
    n = int(sys.argv[4]); os.makedirs(dst, exist_ok=True)
    names = sorted(ts); wm = {}
    for i in range(n):
        part = {k: ts[k] for k in names[i::n]}
        fn = f'model-{i+1:05d}-of-{n:05d}.safetensors'
        write(os.path.join(dst, fn), part)
        for k in part: wm[k] = fn
    json.dump({'metadata': {}, 'weight_map': wm}, open(os.path.join(dst, 'model.safetensors.index.json'), 'w'), indent=1)
elif mode == 'drop':        # drop a tensor
    del ts[sys.argv[4]]; write(dst, ts)
elif mode == 'reshape':     # change a tensor shape (transpose dims) keeping bytes
    dt, s, b = ts[sys.argv[4]]; ts[sys.argv[4]] = (dt, list(reversed(s)), b); write(dst, ts)
else:
    sys.exit('unknown mode')
