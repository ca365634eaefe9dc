#!/usr/bin/env python3
"""Answers N frames correctly (N is the first argument, default 1000), then stalls
forever without exiting; every process does the same, whatever the inputs.

Expected harness outcome: each stall is a timeout that passes when the input is
retried on a fresh process, so no input is blamed; after a few processes that all
stalled after N + 1 frames the adapter is unusable: "fails after about N+1 calls in
every process".
"""

import sys
import threading

from _frames import correct_answer, frames, hello, send

every = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
hello("stall_every")
for count, data in enumerate(frames(), start=1):
    if count > every:
        threading.Event().wait()
    send(correct_answer(data))
sys.exit(0)
