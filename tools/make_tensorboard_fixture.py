#!/usr/bin/env python3
"""Writes tests/fixtures/trainer/tensorboard_records.json: TFRecord frames of TensorBoard events
serialized by TensorBoard's own protobuf classes and record writer, for byte-exact comparison with
verlpp's native writer (src/verlpp/trainer/tensorboard.cpp).

Run where the `tensorboard` package is installed:  python3 tools/make_tensorboard_fixture.py OUT.json
"""
import io
import json
import sys

from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.summary.writer.record_writer import RecordWriter

CASES = [
    # (wall_time, step, tag, value); value None = file_version event
    (1764547200.25, 0, None, None),
    (1764547201.5, 1, "critic/score/mean", 0.25),
    (1764547202.125, 300, "actor/pg_loss", -1.5e-3),
    (1764547203.0, 123456789, "timing_s/step", 12345.678),
    (0.0, 0, "val-core/openai/gsm8k/reward/mean@1", 0.0),
]


def event_for(wall_time, step, tag, value):
    if value is None:
        return event_pb2.Event(wall_time=wall_time, step=step, file_version="brain.Event:2")
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])
    return event_pb2.Event(wall_time=wall_time, step=step, summary=summary)


def main():
    records = []
    for wall_time, step, tag, value in CASES:
        data = event_for(wall_time, step, tag, value).SerializeToString()
        buffer = io.BytesIO()
        RecordWriter(buffer).write(data)
        records.append({"wall_time": wall_time, "step": step, "tag": tag, "value": value,
                        "event_hex": data.hex(), "record_hex": buffer.getvalue().hex()})
    with open(sys.argv[1], "w") as out:
        json.dump({"made_by": "tools/make_tensorboard_fixture.py", "records": records}, out, indent=1)


if __name__ == "__main__":
    main()
