#!/usr/bin/env python3
"""Correct, in protocol utf8conf/2: every answer carries `seq`, the index of the frame
it answers (from 0). With the argument `skip`, the third answer's `seq` is one too
high (an adapter that lost count).

Expected harness outcome: correct answers; with `skip`, "out of step" naming the seq.
"""

import sys

from _frames import correct_answer, frames, hello, send

skip = len(sys.argv) > 1 and sys.argv[1] == "skip"
hello("echo-v2", protocol="utf8conf/2")
for seq, data in enumerate(frames()):
    answer = correct_answer(data)
    answer["seq"] = seq + 1 if skip and seq >= 2 else seq
    send(answer)
sys.exit(0)
