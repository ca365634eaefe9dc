"""Shared frame reading and answering for the test adapters in this directory.

Each test adapter speaks protocol utf8conf/1 (a hello line, then one JSON answer
line per 4-byte-little-endian-length-prefixed frame) and misbehaves in one
documented way. The correct answers they give come from CPython's UTF-8 codec,
which follows the maximal-subpart rules, so a harness can tell a deliberate
misbehaviour from a decoding difference.
"""

import json
import os
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


class _Input:
    """Standard input read in large blocks, with the answers written so far flushed
    before every read that could wait: the harness pipelines its frames, so it has each
    answer before the adapter waits, without one write per answer."""

    def __init__(self):
        self.buffer = b""
        self.start = 0

    def take(self, length):
        """Exactly `length` bytes, or fewer at end of input."""
        while len(self.buffer) - self.start < length:
            _write_held()
            block = os.read(0, 1 << 16)
            if not block:
                break
            self.buffer = self.buffer[self.start :] + block
            self.start = 0
        data = self.buffer[self.start : self.start + length]
        self.start += len(data)
        return data


def batched_input():
    """A `read(length)` of stdin for an adapter that reads frames itself, with the
    answers `send` writes from now on held until the next read that could wait."""
    global _held
    _held = []
    return _Input().take


def frames(batched=False):
    """Yields each frame's bytes until end of input; exits 2 on a cut-off frame. With
    `batched`, the answers `send` writes reach the harness together when the adapter next
    waits for input (the harness pipelines its frames, so it has every answer before the
    adapter waits): the well-behaved adapters read so, for speed, and the misbehaving ones
    keep one flushed write per answer, so that what they leave unsent is what they did."""
    read = batched_input() if batched else sys.stdin.buffer.read
    while True:
        header = read(4)
        if not header:
            return
        if len(header) != 4:
            sys.stderr.write("test adapter: end of input inside a frame header\n")
            sys.exit(2)
        length = int.from_bytes(header, "little")
        data = read(length)
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


# Answer lines not yet written, while `frames(batched=True)` reads.
_held = None


def send(answer):
    """Writes one answer line and flushes it; while `frames(batched=True)` reads, the
    line is held and written with the others before the adapter next waits for input.
    Held here, not in `sys.stdout`'s buffer, which PYTHONUNBUFFERED makes a write per
    line."""
    line = json.dumps(answer, separators=(",", ":")) + "\n"
    if _held is None:
        sys.stdout.write(line)
        sys.stdout.flush()
    else:
        _held.append(line)


def _write_held():
    if _held:
        sys.stdout.write("".join(_held))
        sys.stdout.flush()
        _held.clear()
