#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Validate qperf JSON output against docs/qperf-schema.json.

  json_check.py doc FILE      FILE holds exactly one --json document
  json_check.py stream FILE   FILE holds --json_stream lines: start first,
                              end last, each line valid
Prints one line naming the first problem and exits 1, or exits 0.
Uses python3-jsonschema (Debian), Draft 7.
"""
import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                      "docs", "qperf-schema.json")


def main():
    mode, path = sys.argv[1], sys.argv[2]
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    with open(path) as f:
        text = f.read()
    if mode == "doc":
        try:
            doc = json.loads(text)  # exactly one value, nothing else
        except ValueError as e:
            sys.exit("not one JSON document: %s" % e)
        err = jsonschema.exceptions.best_match(
            jsonschema.Draft7Validator(schema).iter_errors(doc))
        if err:
            sys.exit("invalid: %s at %s" % (err.message, list(err.path)))
        return
    line_schema = dict(schema["definitions"]["stream_line"])
    line_schema["definitions"] = schema["definitions"]
    v = jsonschema.Draft7Validator(line_schema)
    lines = text.split("\n")
    if lines[-1] != "":
        sys.exit("last line not terminated")
    lines = lines[:-1]
    if not lines:
        sys.exit("no lines")
    types = []
    for i, l in enumerate(lines, 1):
        try:
            o = json.loads(l)
        except ValueError as e:
            sys.exit("line %d is not JSON: %s" % (i, e))
        err = jsonschema.exceptions.best_match(v.iter_errors(o))
        if err:
            sys.exit("line %d invalid: %s at %s" % (i, err.message,
                                                    list(err.path)))
        types.append(o.get("type"))
    if types[0] != "start" or types[-1] != "end" or \
            types.count("start") != 1 or types.count("end") != 1:
        sys.exit("lines must go start ... end, got %s" % types)


if __name__ == "__main__":
    main()
