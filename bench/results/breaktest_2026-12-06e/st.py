# st.py SRC_DIR DST_DIR OP [ARGS]: copy a model folder and break its model.safetensors
import sys, json, struct, shutil, os
src, dst, op = sys.argv[1:4]; args = sys.argv[4:]
shutil.rmtree(dst, ignore_errors=True); shutil.copytree(src, dst)
p = os.path.join(dst, "model.safetensors")
raw = open(p, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]; h = json.loads(raw[8:8+n]); data = raw[8+n:]
def write(h, tensors):  # tensors: name -> bytes, in order
    off = 0; hh = {}
    if "__metadata__" in h: hh["__metadata__"] = h["__metadata__"]
    blob = b""
    for name, b in tensors:
        info = dict(h[name]); info["data_offsets"] = [off, off + len(b)]; hh[name] = info; blob += b; off += len(b)
    hb = json.dumps(hh).encode(); hb += b" " * ((8 - len(hb) % 8) % 8)
    return struct.pack("<Q", len(hb)) + hb + blob
items = [(k, data[v["data_offsets"][0]:v["data_offsets"][1]]) for k, v in sorted(h.items(), key=lambda kv: kv[1]["data_offsets"][0] if kv[0] != "__metadata__" else -1) if k != "__metadata__"]
if op == "delete":   # delete tensors whose name contains any arg
    items = [(k, b) for k, b in items if not any(a in k for a in args)]
    open(p, "wb").write(write(h, items))
elif op == "reshape":  # NAME a,b : same bytes, other shape
    h[args[0]]["shape"] = [int(x) for x in args[1].split(",")]
    open(p, "wb").write(write(h, items))
elif op == "shortdata":  # NAME: the tensor's byte range one row short (shape kept)
    items = [(k, b[: len(b) - 4 * h[k]["shape"][-1]] if k == args[0] else b) for k, b in items]
    open(p, "wb").write(write(h, items))
elif op == "dtype":  # NAME DTYPE: header dtype changed
    h[args[0]]["dtype"] = args[1]; open(p, "wb").write(write(h, items))
elif op == "truncate":  # FRACTION of the data kept (header intact)
    keep = 8 + n + int(len(data) * float(args[0])); open(p, "wb").write(raw[:keep])
elif op == "split":  # two shards + index; arg: 'missing' removes shard 2
    half = len(items) // 2; parts = [items[:half], items[half:]]; wm = {}
    os.remove(p)
    for i, part in enumerate(parts):
        fn = "model-%05d-of-00002.safetensors" % (i + 1)
        open(os.path.join(dst, fn), "wb").write(write(h, part))
        for k, _ in part: wm[k] = fn
    json.dump({"metadata": {"total_size": len(data)}, "weight_map": wm}, open(os.path.join(dst, "model.safetensors.index.json"), "w"))
    if args and args[0] == "missing": os.remove(os.path.join(dst, "model-00002-of-00002.safetensors"))
    if args and args[0] == "badmap": wm[items[0][0]] = "model-00009-of-00002.safetensors"; json.dump({"weight_map": wm}, open(os.path.join(dst, "model.safetensors.index.json"), "w"))
    if args and args[0] == "dupe":  # a tensor in both shards, index names shard 2
        pass
elif op == "garbage":  # header garbage
    open(p, "wb").write(struct.pack("<Q", 10**12) + raw[8:100])
print("made", dst, op, args)
