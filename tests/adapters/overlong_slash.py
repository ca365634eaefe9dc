#!/usr/bin/env python3
"""A decoder with one planted security bug for the --fail-on tests: it accepts the
2-byte non-shortest forms C0 80..C1 BF and decodes them to their value (C0 AF is "/",
the RFC 3629 section 10 example). Everything else comes from CPython's codec.

Reports valid and scalars only. Expected harness finding: non-shortest-accepted
(critical), with the `2F` / `C0 AF` witness.
"""

import sys

from _frames import frames, hello, send


def decode(data):
    """(valid, scalars) with C0/C1 + continuation byte read as a 2-byte character."""
    valid = True
    scalars = []
    start = 0
    i = 0
    while i < len(data):
        if data[i] in (0xC0, 0xC1) and i + 1 < len(data) and 0x80 <= data[i + 1] <= 0xBF:
            chunk = data[start:i]
            valid = valid and strict_ok(chunk)
            scalars.extend(ord(ch) for ch in chunk.decode("utf-8", "replace"))
            scalars.append(((data[i] & 0x1F) << 6) | (data[i + 1] & 0x3F))
            i += 2
            start = i
        else:
            i += 1
    chunk = data[start:]
    valid = valid and strict_ok(chunk)
    scalars.extend(ord(ch) for ch in chunk.decode("utf-8", "replace"))
    return valid, scalars


def strict_ok(chunk):
    try:
        chunk.decode("utf-8", "strict")
        return True
    except UnicodeDecodeError:
        return False


hello("overlong-slash")
for data in frames(batched=True):
    valid, scalars = decode(data)
    send({"valid": valid, "scalars": scalars})
sys.exit(0)
