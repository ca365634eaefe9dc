#!/usr/bin/env python3
"""A deliberately non-maximal-subpart decoder for the harness's policy tests: strict
fields from CPython's codec (correct), but the lossy decode emits one U+FFFD per
ill-formed byte instead of one per maximal subpart (an error handler that replaces
the codec's error unit [start, end) by end - start replacement characters).

Expected harness finding: U+FFFD policy `per-byte`, no category failure.
"""

import codecs
import sys

from _frames import correct_answer, frames, hello, send


def per_byte(error):
    return ("\ufffd" * (error.end - error.start), error.end)


codecs.register_error("per-byte", per_byte)

hello("per-byte")
for data in frames(batched=True):
    answer = correct_answer(data)
    answer["scalars"] = [ord(ch) for ch in data.decode("utf-8", "per-byte")]
    send(answer)
sys.exit(0)
