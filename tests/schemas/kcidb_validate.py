#!/usr/bin/env python3
# kcidb_validate.py - validate a KCIDB JSON file (hugebench nightly's
# kcidb.json) against the vendored kcidb.v5.3.json with python3-jsonschema
# (draft-07, formats checked; "uri" by the check below, because
# python3-jsonschema checks it only with the rfc3987 package, absent here).
# Exit 0 valid, 1 invalid (one line per error), 2 usage.
import json
import os
import sys
import urllib.parse

import jsonschema

if len(sys.argv) not in (2, 3):
    print("usage: kcidb_validate.py FILE [SCHEMA]", file=sys.stderr)
    sys.exit(2)
schema_path = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "kcidb.v5.3.json")
with open(schema_path) as f:
    schema = json.load(f)
with open(sys.argv[1]) as f:
    doc = json.load(f)
fc = jsonschema.FormatChecker()


@fc.checks("uri", raises=ValueError)
def is_uri(s):
    # RFC 3986 absolute URI: a scheme, then no blanks or control characters
    if not isinstance(s, str):
        return True
    u = urllib.parse.urlsplit(s)
    if not u.scheme or not (u.netloc or u.path) or any(c <= " " or c == "\x7f" for c in s):
        raise ValueError("%r is not an absolute URI" % s)
    return True


v = jsonschema.Draft7Validator(schema, format_checker=fc)
errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
for e in errors[:20]:
    print("%s: %s: %s" % (sys.argv[1], "/".join(str(p) for p in e.path), e.message),
          file=sys.stderr)
sys.exit(1 if errors else 0)
