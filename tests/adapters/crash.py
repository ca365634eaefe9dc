#!/usr/bin/env python3
"""Crashes: answers correctly until a frame contains the byte FF, then writes a
message to stderr and exits with status 3 without answering that frame.

Expected harness finding: `crash` on the input with FF; the harness restarts the
adapter and carries on with the next input.
"""

import sys

from _frames import correct_answer, frames, hello, send

hello("crash")
for data in frames():
    if b"\xff" in data:
        sys.stderr.write("crash.py: dying on an input containing FF\n")
        sys.exit(3)
    send(correct_answer(data))
sys.exit(0)
