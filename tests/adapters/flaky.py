#!/usr/bin/env python3
"""Crashes on every Nth frame it receives (N is the first argument, default 50),
whatever the input; answers every other frame correctly.

Expected harness outcome: each crash is retried once on a fresh
process, where it answers correctly: the adapter is reported as flaky (a count and the
first example), and no input is blamed with a departure.
"""

import sys

from _frames import correct_answer, frames, hello, send

every = int(sys.argv[1]) if len(sys.argv) > 1 else 50
hello("flaky")
for count, data in enumerate(frames(), start=1):
    if count % every == 0:
        sys.stderr.write("flaky.py: crashing on frame %d\n" % count)
        sys.exit(3)
    send(correct_answer(data))
sys.exit(0)
