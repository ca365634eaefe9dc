#!/usr/bin/env python3
"""Stalls once: the first process to reach frame N (the first argument) while the
marker file (the second argument) does not exist creates it and never answers that
frame; every other frame, in every process, is answered correctly.

Expected harness outcome: one timeout, retried on a fresh process where it answers:
a flaky timeout, not a `timeout` departure on an innocent input.
"""

import os
import sys
import threading

from _frames import correct_answer, frames, hello, send

stall_at = int(sys.argv[1])
marker = sys.argv[2]
hello("stall_once")
for count, data in enumerate(frames(), start=1):
    if count == stall_at and not os.path.exists(marker):
        open(marker, "w").close()
        threading.Event().wait()
    send(correct_answer(data))
sys.exit(0)
