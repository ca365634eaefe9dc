"""Shared decoding for the planted-bug adapters in this directory.

Each adapter is CPython's UTF-8 codec (maximal subparts, Unicode 3.9) with one or two
planted bugs, and `.ci/planted.sh` checks that `utf8conf check` reports exactly one
finding per bug, with the categories named in the adapter's docstring. The protocol
helpers come from the parent directory's `_frames.py`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _frames import frames, hello, send  # noqa: E402


def correct(data):
    """The correct answer: valid, valid_up_to, error_len and scalars."""
    try:
        text = data.decode("utf-8")
        return {"valid": True, "scalars": [ord(c) for c in text]}
    except UnicodeDecodeError as error:
        incomplete = error.end == len(data) and error.reason == "unexpected end of data"
        answer = {
            "valid": False,
            "valid_up_to": error.start,
            "error_len": None if incomplete else error.end - error.start,
        }
    answer["scalars"] = [ord(c) for c in data.decode("utf-8", "replace")]
    return answer


def serve(name, transform):
    """Answers every frame with `transform(data, correct(data))`."""
    hello(name)
    for data in frames(batched=True):
        send(transform(data, correct(data)))
    sys.exit(0)
