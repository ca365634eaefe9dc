"""Shared frame reading and answering for the test adapters in this directory.

Each test adapter speaks protocol utf8conf/1 (a hello line, then one JSON answer
line per 4-byte-little-endian-length-prefixed frame) and misbehaves in one
documented way. The correct answers they give come from CPython's UTF-8 codec,
which follows the maximal-subpart rules, so a harness can tell a deliberate
misbehaviour from a decoding difference.
"""

import json
import sys

PROTOCOL = "utf8conf/1"


def hello(name, protocol=PROTOCOL, streaming=False):
    """Prints the hello line (with `protocol` overridable for the bad-hello test, and
    `"streaming": true` when asked)."""
    line = {"protocol": protocol, "name": name, "version": " ".join(sys.version.split())}
    if streaming:
        line["streaming"] = True
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def frames():
    """Yields each frame's bytes until end of input; exits 2 on a cut-off frame."""
    stdin = sys.stdin.buffer
    while True:
        header = stdin.read(4)
        if not header:
            return
        if len(header) != 4:
            sys.stderr.write("test adapter: end of input inside a frame header\n")
            sys.exit(2)
        length = int.from_bytes(header, "little")
        data = stdin.read(length)
        if len(data) != length:
            sys.stderr.write("test adapter: end of input inside a frame body\n")
            sys.exit(2)
        yield data


def correct_answer(data):
    """The answer CPython's codec gives: strict fields plus replace scalars."""
    try:
        text = data.decode("utf-8", "strict")
    except UnicodeDecodeError as failure:
        return {
            "valid": False,
            "valid_up_to": failure.start,
            "error_len": (
                None
                if failure.reason == "unexpected end of data"
                else failure.end - failure.start
            ),
            "scalars": [ord(ch) for ch in data.decode("utf-8", "replace")],
        }
    return {"valid": True, "scalars": [ord(ch) for ch in text]}


def send(answer):
    """Writes one answer line and flushes it."""
    sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
    sys.stdout.flush()
