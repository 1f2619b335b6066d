import sys
sys.path.insert(0, "/work/main/tests/e2e")
from compare_runs import steps_of, skipped, tensors_of
a, b = steps_of(sys.argv[1]), steps_of(sys.argv[2])
steps = [int(s) for s in sys.argv[3].split(",")]
bad = 0
for s in steps:
    A, B = a.get(s, {}), b.get(s, {})
    keys = sorted(k for k in set(A) | set(B) if not skipped(k))
    for k in keys:
        if k not in A or k not in B:
            print(f"step {s}: {k} only in {'A' if k in A else 'B'}"); bad += 1
        elif abs(A[k] - B[k]) > 1e-6 * max(1, abs(A[k])):
            print(f"step {s}: {k} {A[k]} vs {B[k]}"); bad += 1
    print(f"step {s}: {len(keys)} keys compared")
if len(sys.argv) > 5:
    ta, tb = tensors_of(sys.argv[4]), tensors_of(sys.argv[5])
    d = max(max(abs(x - y) for x, y in zip(ta[n], tb[n])) for n in ta)
    print("max weight diff", d)
print("differences:", bad)
