#!/usr/bin/env python3
"""Makes two pyarrow-written Parquet fixtures for verlpp's Parquet readers (Arrow and DuckDB):

tests/fixtures/data/parquet_types/types.parquet + types.json
    Three rows over the column types verl datasets and Hugging Face exports use: int8, uint32,
    float32, bool, binary (PNG bytes with a NUL and 0xFF), dictionary-encoded strings,
    map<string, int64>, fixed_size_list<int32, 2>, list<struct<k: string, v: list<double>>>, a
    struct with a null field, plus timestamp[s] and decimal128(5, 2) (read as text/JSON forms), with
    nulls in the third row. types.json holds the values as Python wrote them (binary as hex under
    "blob_hex"; the timestamp and decimal columns as their text, which both readers' forms contain).
tests/fixtures/data/geo3k_hf/data/{train,test}-00000-of-00001.parquet
    hiyouga/geometry3k's layout on the Hugging Face hub: images list<struct<bytes: binary,
    path: string>> (the datasets Image feature's storage), problem, answer (strings); the images are
    tests/fixtures/vision/images/tiny_a.png and tiny_b.png's bytes.

Needs pyarrow (the GPU machine: tools/gpu/data.sh runs it). Usage: python3
tools/make_parquet_types_fixture.py [OUT_ROOT]   (default: tests/fixtures/data)
"""
import datetime
import decimal
import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMAGES = os.path.join(ROOT, "tests", "fixtures", "vision", "images")


def image(name):
    with open(os.path.join(IMAGES, name), "rb") as f:
        return f.read()


def types_table():
    blob = image("tiny_a.png") + b"\x00\xff"
    schema = pa.schema([
        ("i8", pa.int8()),
        ("u32", pa.uint32()),
        ("f32", pa.float32()),
        ("flag", pa.bool_()),
        ("blob", pa.binary()),
        ("cat", pa.dictionary(pa.int32(), pa.string())),
        ("tags", pa.map_(pa.string(), pa.int64())),
        ("fixed", pa.list_(pa.int32(), 2)),
        ("nested", pa.list_(pa.struct([("k", pa.string()), ("v", pa.list_(pa.float64()))]))),
        ("info", pa.struct([("a", pa.int64()), ("b", pa.string())])),
        ("ts", pa.timestamp("s")),
        ("dec", pa.decimal128(5, 2)),
    ])
    rows = [
        dict(i8=-128, u32=4294967295, f32=0.5, flag=True, blob=blob, cat="math",
             tags=[("x", 1), ("y", -2)], fixed=[7, -7],
             nested=[{"k": "a", "v": [1.5, -0.25]}, {"k": "b", "v": []}],
             info={"a": 3, "b": None}, ts=datetime.datetime(2024, 1, 2, 3, 4, 5),
             dec=decimal.Decimal("1.25")),
        dict(i8=127, u32=0, f32=-2.0, flag=False, blob=b"", cat="math", tags=[], fixed=[0, 1],
             nested=[], info={"a": None, "b": "z"}, ts=datetime.datetime(1999, 12, 31, 23, 59, 59),
             dec=decimal.Decimal("-3.50")),
        dict(i8=None, u32=None, f32=None, flag=None, blob=None, cat=None, tags=None, fixed=None,
             nested=None, info=None, ts=None, dec=None),
    ]
    table = pa.Table.from_pylist(rows, schema=schema)
    expected = []
    for row in rows:
        out = {}
        for key, value in row.items():
            if key == "blob":
                out["blob_hex"] = None if value is None else value.hex()
            elif key == "tags":
                out[key] = None if value is None else dict(value)
            elif key in ("ts", "dec"):
                out[key] = None if value is None else str(value)
            else:
                out[key] = value
        expected.append(out)
    return table, expected


def geo3k_tables():
    schema = pa.schema([
        ("images", pa.list_(pa.struct([("bytes", pa.binary()), ("path", pa.string())]))),
        ("problem", pa.string()),
        ("answer", pa.string()),
    ])
    train = [
        {"images": [{"bytes": image("tiny_a.png"), "path": None}],
         "problem": "<image>Find x.", "answer": "12"},
        {"images": [{"bytes": image("tiny_b.png"), "path": "b.png"}],
         "problem": "<image>Find the area.", "answer": "\\frac{3}{2}"},
    ]
    test = [{"images": [{"bytes": image("tiny_b.png"), "path": None}],
             "problem": "<image>Find y.", "answer": "4"}]
    return {split: pa.Table.from_pylist(rows, schema=schema)
            for split, rows in (("train", train), ("test", test))}


def main():
    out_root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "fixtures", "data")
    types_dir = os.path.join(out_root, "parquet_types")
    os.makedirs(types_dir, exist_ok=True)
    table, expected = types_table()
    pq.write_table(table, os.path.join(types_dir, "types.parquet"))
    with open(os.path.join(types_dir, "types.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    geo_dir = os.path.join(out_root, "geo3k_hf", "data")
    os.makedirs(geo_dir, exist_ok=True)
    for split, split_table in geo3k_tables().items():
        pq.write_table(split_table, os.path.join(geo_dir, f"{split}-00000-of-00001.parquet"))
    print("pyarrow", pa.__version__, "wrote", types_dir, "and", geo_dir)


if __name__ == "__main__":
    main()
