#!/usr/bin/env python3
"""No hello: never prints the hello line. It answers frames correctly, so its
first stdout line is an answer, not a hello; if the harness waits for the hello
before sending anything, it sees nothing at all until it times out.

Expected harness finding: a start-up `protocol` error (or `timeout` while waiting
for the hello), reported as the adapter failing to start rather than as a
decoding divergence.
"""

import sys

from _frames import correct_answer, frames, send

for data in frames():
    send(correct_answer(data))
sys.exit(0)
