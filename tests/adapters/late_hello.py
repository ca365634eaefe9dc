#!/usr/bin/env python3
"""Prints its hello only after reading the first frame (then answers correctly).

Expected outcome: `adapter-test` reports "late hello"; `check` fails to start ("said no
hello line within ...").
"""

import sys

from _frames import correct_answer, frames, hello, send

said_hello = False
for data in frames():
    if not said_hello:
        hello("late-hello")
        said_hello = True
    send(correct_answer(data))
sys.exit(0)
