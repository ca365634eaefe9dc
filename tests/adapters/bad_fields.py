#!/usr/bin/env python3
"""Answers every frame with one malformed field, chosen by the first argument:

- `negative-scalar`: `"scalars": [-1]`
- `fraction-scalar`: `"scalars": [1.5]`
- `string-scalars`: `"scalars": "a"` (a string where an array belongs)
- `zero-error-len`: `"valid": false, "error_len": 0`

Expected harness outcome: each answer is a `protocol` failure; after a
few in a row the probe input 61 fails the same way, and the check stops as "adapter
unusable", naming the malformed field.
"""

import sys

from _frames import frames, hello, send

ANSWERS = {
    "negative-scalar": {"valid": True, "scalars": [-1]},
    "fraction-scalar": {"valid": True, "scalars": [1.5]},
    "string-scalars": {"valid": True, "scalars": "a"},
    "zero-error-len": {"valid": False, "valid_up_to": 0, "error_len": 0},
}

answer = ANSWERS[sys.argv[1]]
hello("bad-" + sys.argv[1])
for _ in frames():
    send(answer)
sys.exit(0)
