#!/usr/bin/env python3
"""Reads the frame length big-endian instead of little-endian (a plausible porting bug).

The empty input (length 0 either way) is answered; any other length N is read as a
huge number, so the adapter waits for bytes that never come. Expected harness outcome:
timeouts, then the probe input 61 (read as length 16,777,216) times
out too, and the check stops as "adapter unusable" within 60 s.
"""

import sys

from _frames import correct_answer, hello, send

hello("big-endian")
stdin = sys.stdin.buffer
while True:
    header = stdin.read(4)
    if len(header) != 4:
        sys.exit(0)
    data = stdin.read(int.from_bytes(header, "big"))
    send(correct_answer(data))
