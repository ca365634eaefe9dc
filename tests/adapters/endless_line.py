#!/usr/bin/env python3
"""Answers every frame with 20 MiB of JSON-looking bytes and no newline, then waits
forever with its stdout open.

Expected harness outcome: the answer is a `protocol` failure ("answer line longer
than 16777216 bytes") as soon as it passes the line bound, not a `timeout`.
"""

import sys
import threading

from _frames import frames, hello

hello("endless_line")
for data in frames():
    chunk = b"1," * (1 << 19)
    for _ in range(20):
        sys.stdout.buffer.write(chunk)
    sys.stdout.flush()
    threading.Event().wait()
