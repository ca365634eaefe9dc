#!/usr/bin/env python3
"""Slow: answers every frame correctly, but sleeps before each answer (50 ms by
default; the first argument overrides it, in milliseconds).

Expected harness behaviour: no finding as long as its timeout is longer than the
delay; it exercises timeout handling that must not fire on a merely slow adapter,
and throughput accounting.
"""

import sys
import time

from _frames import correct_answer, frames, hello, send

delay_seconds = (float(sys.argv[1]) if len(sys.argv) > 1 else 50.0) / 1000.0
hello("slow")
for data in frames():
    time.sleep(delay_seconds)
    send(correct_answer(data))
sys.exit(0)
