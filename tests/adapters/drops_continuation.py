#!/usr/bin/env python3
"""A decoder with one planted security bug for the --fail-on tests: a stray
continuation byte (80..BF that no lead byte announced) is silently dropped, with no
U+FFFD and no error, so `3C 73 63 72 80 69 70 74 3E` decodes to "<script>". Other
ill-formed bytes get CPython's maximal-subpart U+FFFD.

Reports valid and scalars only. Expected harness finding: bytes-deleted (high).
"""

import codecs
import sys

from _frames import frames, hello, send


def drop_stray_continuation(error):
    unit = error.object[error.start:error.end]
    if all(0x80 <= byte <= 0xBF for byte in unit):
        return ("", error.end)
    return ("\ufffd", error.end)


codecs.register_error("drop-stray-continuation", drop_stray_continuation)

hello("drops-continuation")
for data in frames(batched=True):
    text = data.decode("utf-8", "drop-stray-continuation")
    # Silent: an input whose only errors were stray continuation bytes counts as valid.
    valid = text == data.decode("utf-8", "ignore")
    send({"valid": valid, "scalars": [ord(ch) for ch in text]})
sys.exit(0)
