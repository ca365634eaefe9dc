#!/usr/bin/env python3
"""Never flushes its answers: the hello is flushed, but answers are only written to a
1 MiB buffer of its own (as a fully buffered stdout would, whatever PYTHONUNBUFFERED
says), which reaches the pipe when it fills or at exit.

Expected outcome: `adapter-test` reports "no flush" (the answer came only when stdin
was closed); under `check`, timeouts and then "adapter unusable".
"""

import json
import sys

from _frames import correct_answer, frames, hello

hello("no-flush")
buffered = open(sys.stdout.fileno(), "w", buffering=1 << 20, closefd=False)
for data in frames():
    buffered.write(json.dumps(correct_answer(data)) + "\n")
buffered.flush()
sys.exit(0)
