#!/usr/bin/env python3
"""utf8conf adapter for CPython's built-in UTF-8 codec (protocol utf8conf/1).

Decoder: CPython's `utf-8` codec, reached through `bytes.decode`.

Modes (first argument):
  strict   `data.decode('utf-8', 'strict')`
             valid        decode returned instead of raising UnicodeDecodeError
             valid_up_to  UnicodeDecodeError.start (the offset of the first error)
             error_len    UnicodeDecodeError.end - .start, except null when the
                          codec's reason is "unexpected end of data": that is the
                          codec saying the input ended inside a sequence that could
                          still be completed (it reports "invalid continuation byte"
                          or "invalid start byte" for prefixes that can never
                          complete, such as E0 80 or ED A0 at the end)
             scalars      only when valid: the code points of the decoded str
             error        str(UnicodeDecodeError)
  replace  `data.decode('utf-8', 'replace')`
             valid        whether the replace decode substituted anything is not
                          something the codec reports, so validity comes from a
                          strict decode of the same bytes (no positions reported)
             scalars      the code points of the decoded str (U+FFFD where the
                          codec substituted)
  (none)   both in one answer: valid, valid_up_to, error_len and error from the
           strict decode, scalars from the replace decode.

Cannot report: anything beyond the first error in strict mode (the codec stops at
the first error); error positions in replace mode.

Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
bytes) exactly one JSON line, flushed; exit 0 at end of input.
"""

import json
import sys

# CPython's utf-8 codec reason for a truncated, still-completable sequence at the
# end of the input (Objects/stringlib/codecs.h, "unexpected end of data").
INCOMPLETE_REASON = "unexpected end of data"

MODES = ("both", "strict", "replace")


def strict_fields(data):
    """Fields from `data.decode('utf-8', 'strict')`."""
    try:
        text = data.decode("utf-8", "strict")
    except UnicodeDecodeError as failure:
        return {
            "valid": False,
            "valid_up_to": failure.start,
            "error_len": (
                None
                if failure.reason == INCOMPLETE_REASON
                else failure.end - failure.start
            ),
            "error": str(failure),
        }
    return {"valid": True, "scalars": [ord(ch) for ch in text]}


def replace_scalars(data):
    """Code points of `data.decode('utf-8', 'replace')`."""
    return [ord(ch) for ch in data.decode("utf-8", "replace")]


def answer(mode, data):
    """One protocol answer for `data` in `mode`."""
    if mode == "strict":
        return strict_fields(data)
    if mode == "replace":
        try:
            data.decode("utf-8", "strict")
            valid = True
        except UnicodeDecodeError:
            valid = False
        return {"valid": valid, "scalars": replace_scalars(data)}
    fields = strict_fields(data)
    if not fields["valid"]:
        fields["scalars"] = replace_scalars(data)
    return fields


def main(argv):
    mode = argv[1] if len(argv) > 1 else "both"
    if mode not in MODES or len(argv) > 2:
        sys.stderr.write("usage: python.py [strict|replace]\n")
        return 2
    name = "python" if mode == "both" else "python-" + mode
    stdin = sys.stdin.buffer
    stdout = sys.stdout
    hello = {
        "protocol": "utf8conf/1",
        "name": name,
        "version": " ".join(sys.version.split()),
    }
    stdout.write(json.dumps(hello) + "\n")
    stdout.flush()
    while True:
        header = stdin.read(4)
        if not header:
            return 0
        if len(header) != 4:
            sys.stderr.write("python.py: end of input inside a frame header\n")
            return 2
        length = int.from_bytes(header, "little")
        data = stdin.read(length)
        if len(data) != length:
            sys.stderr.write("python.py: end of input inside a frame body\n")
            return 2
        stdout.write(json.dumps(answer(mode, data), separators=(",", ":")) + "\n")
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
