import sys, json, struct, shutil, os
src, dst = sys.argv[1:3]
shutil.rmtree(dst, ignore_errors=True); shutil.copytree(src, dst)
p = os.path.join(dst, "model.safetensors"); raw = open(p, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]; h = json.loads(raw[8:8+n]); data = raw[8+n:]
out = {}; blob = bytearray(); off = 0
for k, v in sorted(((k, v) for k, v in h.items() if k != "__metadata__"), key=lambda kv: kv[1]["data_offsets"][0]):
    b = data[v["data_offsets"][0]:v["data_offsets"][1]]
    info = dict(v)
    if "experts.1." in k:   # F16
        fl = struct.unpack("<%df" % (len(b)//4), b); b = struct.pack("<%de" % len(fl), *fl); info["dtype"] = "F16"
    elif "embed" in k or "experts.3." in k or "lm_head" in k:  # BF16: the high halves
        mv = memoryview(b); b = b"".join(bytes(mv[i+2:i+4]) for i in range(0, len(b), 4)); info["dtype"] = "BF16"
    info["data_offsets"] = [off, off + len(b)]; off += len(b); blob += b; out[k] = info
hb = json.dumps(out).encode(); hb += b" " * ((8 - len(hb) % 8) % 8)
open(p, "wb").write(struct.pack("<Q", len(hb)) + hb + bytes(blob)); print("mixed", dst)
