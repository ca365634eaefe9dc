#!/usr/bin/env python3
"""Prints a debug line on stdout before each answer (a common mistake: the debug output
belongs on stderr). The hello and the answers are otherwise correct.

Expected outcome: `adapter-test` reports "debug output on stdout"; under `check`, each
input is a `protocol` failure, and the adapter is unusable.
"""

import sys

from _frames import correct_answer, frames, hello, send

hello("debug-stdout")
for data in frames():
    sys.stdout.write("DEBUG: got %d bytes\n" % len(data))
    send(correct_answer(data))
sys.exit(0)
