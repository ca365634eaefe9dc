#!/usr/bin/env python3
"""Hangs: answers correctly, except that on a frame containing the byte FE it
never answers and blocks forever (it keeps its pipes open and reads no more).

Expected harness finding: `timeout` on the input with FE; the harness has to kill
the adapter and restart it.
"""

import sys
import threading

from _frames import correct_answer, frames, hello, send

hello("hang")
for data in frames():
    if b"\xfe" in data:
        threading.Event().wait()
    send(correct_answer(data))
sys.exit(0)
