# same.py SRC_MODEL_DIR SAVED.safetensors: every saved tensor equals the source's (decoded to float)
import sys, json, struct, os
def load(path):
    files = [path] if path.endswith(".safetensors") else None
    if files is None:
        idx = os.path.join(path, "model.safetensors.index.json")
        files = sorted(set(os.path.join(path, f) for f in json.load(open(idx))["weight_map"].values())) if os.path.exists(idx) else [os.path.join(path, "model.safetensors")]
    out = {}
    for f in files:
        raw = open(f, "rb").read(); n = struct.unpack("<Q", raw[:8])[0]; h = json.loads(raw[8:8+n]); d = raw[8+n:]
        for k, v in h.items():
            if k == "__metadata__": continue
            b = d[v["data_offsets"][0]:v["data_offsets"][1]]
            if v["dtype"] == "F32": out[k] = struct.unpack("<%df" % (len(b)//4), b)
            elif v["dtype"] == "F16": out[k] = struct.unpack("<%de" % (len(b)//2), b)
            elif v["dtype"] == "BF16": out[k] = struct.unpack("<%df" % (len(b)//2), b"".join(b"\0\0" + bytes(b[i:i+2]) for i in range(0, len(b), 2)))
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
missing = sorted(set(a) ^ set(b))
diff = [k for k in a if k in b and a[k] != b[k]]
print("tensors src %d saved %d, name mismatch %s, differing %d %s" % (len(a), len(b), missing[:4], len(diff), diff[:4]))
