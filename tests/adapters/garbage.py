#!/usr/bin/env python3
"""Prints garbage: answers correctly, except that on a frame containing the byte
FD it prints a line that is not JSON instead of the answer (and then carries on).

Expected harness finding: `protocol` on the input with FD.
"""

import sys

from _frames import correct_answer, frames, hello, send

hello("garbage")
for data in frames():
    if b"\xfd" in data:
        sys.stdout.write("this is not JSON {\n")
        sys.stdout.flush()
        continue
    send(correct_answer(data))
sys.exit(0)
