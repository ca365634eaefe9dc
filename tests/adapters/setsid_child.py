#!/usr/bin/env python3
"""Starts a grandchild that leaves the adapter's process group and session (setsid)
and keeps the adapter's stdout open; the first process to reach frame N (the first
argument) while the marker file (the second argument) does not exist creates it and
exits without answering.

Expected harness outcome: the adapter's exit is seen when the adapter exits, though
its stdout stays open in the grandchild: a crash, retried on a fresh process where it
answers (a flaky crash, not a `timeout` departure), and no grandchild outlives the
check.
"""

import os
import sys
import time

from _frames import correct_answer, frames, hello, send

exit_at = int(sys.argv[1])
marker = sys.argv[2]
if os.fork() == 0:
    os.setsid()
    time.sleep(300)
    os._exit(0)
hello("setsid_child")
for count, data in enumerate(frames(), start=1):
    if count == exit_at and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(3)
    send(correct_answer(data))
sys.exit(0)
