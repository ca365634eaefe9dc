#!/usr/bin/env python3
"""Crashes on the empty input (a frame of length 0): an adapter that treats a zero
length as "no more input" or indexes data[0]. Other inputs are answered correctly.

Expected outcome: `adapter-test` reports "crash on the empty input"; under `check`, a
`crash` finding for the empty input.
"""

import sys

from _frames import correct_answer, frames, hello, send

hello("crash-empty")
for data in frames():
    first = data[0]  # IndexError on the empty input
    send(correct_answer(data))
sys.exit(0)
