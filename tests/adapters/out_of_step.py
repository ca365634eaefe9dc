#!/usr/bin/env python3
"""Out of step with the harness, in the way chosen by the first argument:

- `twice`: answers every frame twice (correctly);
- `early`: sends one correct-looking answer before any input, then answers correctly;
- `trailing`: answers correctly, and writes one extra line after the end of its input.

Each shifts every later answer by one, which would grade a correct decoder as failing.
Expected harness outcome: "out of step" is detected (the answer
nobody asked for is named), never silently shifted.
"""

import sys

from _frames import correct_answer, frames, hello, send

mode = sys.argv[1]
hello("out-of-step-" + mode)
if mode == "early":
    send({"valid": True, "scalars": []})
for data in frames():
    send(correct_answer(data))
    if mode == "twice":
        send(correct_answer(data))
if mode == "trailing":
    send({"valid": True, "scalars": []})
sys.exit(0)
