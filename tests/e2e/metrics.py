"""Reading verl's file-logger output (VERL_FILE_LOGGER_PATH JSON lines) in the e2e tests."""
import json


def steps(path):
    """{step: {metric: value}} of every step in the file."""
    out = {}
    for line in map(json.loads, open(path)):
        out.setdefault(line["step"], {}).update(line["data"])
    return out


def first(path):
    """{metric: value} of step 1."""
    return steps(path).get(1, {})
