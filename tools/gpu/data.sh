#!/usr/bin/env bash
# GPU-machine job for the data layer (run from the root of a copy of the worktree; writes to $OUT).
#  1. Makes the Parquet fixtures with pyarrow: GSM8K and its JSONL twin
#     (tools/make_parquet_fixture.py), the column-types and geo3k hub-layout files
#     (tools/make_parquet_types_fixture.py; copied into tests/fixtures/data and $OUT/fixtures).
#  2. Reports where pyarrow's Arrow/Parquet C++ headers and libraries are.
#  3. Builds verlpp with Parquet support against them, runs the data tests (the Parquet parity test
#     included), writes Parquet with `verlpp data gsm8k` and reads it back with pyarrow.
set -uo pipefail
OUT=${OUT:?}
mkdir -p "$OUT"

python3 tools/make_parquet_fixture.py "$OUT/gsm8k_verl" 2>&1 | tee "$OUT/fixture.log"
cp "$OUT"/gsm8k_verl/*.parquet tests/fixtures/data/gsm8k_verl/
# The JSONL twin made here must equal the committed one (made by the same script without pyarrow).
diff -q "$OUT/gsm8k_verl/train.jsonl" tests/fixtures/data/gsm8k_verl/train.jsonl &&
  diff -q "$OUT/gsm8k_verl/test.jsonl" tests/fixtures/data/gsm8k_verl/test.jsonl &&
  echo "jsonl twins identical"

python3 tools/make_parquet_types_fixture.py "$OUT/fixtures" 2>&1 | tee -a "$OUT/fixture.log"
cp -r "$OUT/fixtures/parquet_types" "$OUT/fixtures/geo3k_hf" tests/fixtures/data/

python3 - <<'EOF' 2>&1 | tee "$OUT/arrow_probe.log"
import glob, os, pyarrow
print("pyarrow", pyarrow.__version__)
print("include", pyarrow.get_include())
print("libdirs", pyarrow.get_library_dirs())
for d in pyarrow.get_library_dirs():
    for f in sorted(glob.glob(os.path.join(d, "lib*arrow*.so*")) + glob.glob(os.path.join(d, "libparquet*.so*"))):
        print("lib", f)
inc = pyarrow.get_include()
for h in ("arrow/api.h", "arrow/json/api.h", "parquet/arrow/reader.h", "parquet/arrow/writer.h"):
    print("header", h, os.path.exists(os.path.join(inc, h)))
EOF

PREFIX="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')${EXTRA_PREFIX_PATH:+;$EXTRA_PREFIX_PATH}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DVERLPP_WITH_PARQUET=ON >"$OUT/configure.log" 2>&1
echo "configure rc=$?"
tail -n 30 "$OUT/configure.log"
timeout 200 cmake --build build -j16 --target verlpp_data_tests verlpp_reward_tests verlpp >"$OUT/build.log" 2>&1
echo "build rc=$?"
tail -n 40 "$OUT/build.log"
ldd build/tests/unit/data/verlpp_data_tests | grep -E "arrow|parquet|not found"
./build/tests/unit/data/verlpp_data_tests 2>&1 | tail -n 60 | tee "$OUT/data_tests.log"
./build/tests/unit/reward/verlpp_reward_tests 2>&1 | tail -n 15 | tee "$OUT/reward_tests.log"
./build/verlpp data gsm8k --input tests/fixtures/data/gsm8k_raw --output "$OUT/written" 2>&1 | tee "$OUT/cli.log"
python3 - "$OUT/written" "$OUT/gsm8k_verl" <<'EOF' 2>&1 | tee "$OUT/readback.log"
import sys, pyarrow.parquet as pq
written, ref = sys.argv[1], sys.argv[2]
for split in ("train", "test"):
    a = pq.read_table(f"{written}/{split}.parquet")
    b = pq.read_table(f"{ref}/{split}.parquet")
    print(split, "schema written:", a.schema)
    print(split, "rows equal to pyarrow's:", a.to_pylist() == b.to_pylist())
EOF
