#!/usr/bin/env python3
"""Bad hello: prints a well-formed hello line whose protocol is "utf8conf/999",
a version the harness does not speak, then answers frames correctly.

Expected harness behaviour: refuse the adapter at start-up with a `protocol`
error naming the unsupported protocol string.
"""

import sys

from _frames import correct_answer, frames, hello, send

hello("badhello", protocol="utf8conf/999")
for data in frames():
    send(correct_answer(data))
sys.exit(0)
