#!/usr/bin/env python3
"""Floods its stdout, in the way chosen by the first argument:

- `lines`: after the hello, writes answer lines as fast as it can, forever;
- `long-line`: answers each frame with one 32 MiB line (a JSON string of that size).

Expected harness outcome: the harness's memory stays bounded (a
bounded line queue and a bounded line length); `lines` is out of step, `long-line` is a
`protocol` failure per input ("answer line longer than ... bytes") and then unusable.
"""

import sys

from _frames import frames, hello

mode = sys.argv[1]
hello("flood-" + mode)
out = sys.stdout.buffer
if mode == "lines":
    line = b'{"valid":true,"scalars":[]}\n' * 1024
    while True:
        out.write(line)
else:
    filler = b"x" * (32 << 20)
    for _ in frames():
        out.write(b'{"valid":true,"error":"' + filler + b'"}\n')
        out.flush()
sys.exit(0)
