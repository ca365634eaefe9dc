#!/usr/bin/env python3
"""utf8conf adapter for CPython's built-in UTF-8 codec (protocol utf8conf/2, streaming).

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

Streaming mode (docs/PROTOCOL.md): an input sent as chunk frames goes through
`codecs.getincrementaldecoder('utf-8')('replace')`: each chunk is fed with
`decode(chunk, final=False)`, the end mark calls `decode(b'', final=True)`; what each
call returned is the chunk's `emitted` list and the `flush`. `valid` is whether any
call returned U+FFFD that the bytes did not encode (CPython's incremental decoder
reports errors only by substituting), i.e. whether a strict decode of the whole
input fails.

Cannot report: anything beyond the first error in strict mode (the codec stops at
the first error); error positions in replace mode.

Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
bytes) exactly one JSON line; exit 0 at end of input. A header with the top bit set is
a chunk of a streamed input, 0xFFFFFFFF its end mark. The answers are held and written
together before every read of stdin that could wait (the harness pipelines its frames):
one write per answer was most of a check's time.
"""

import codecs
import json
import os
import sys

# Streaming mode's frame headers (docs/PROTOCOL.md, "Streaming mode").
CHUNK_FLAG = 0x80000000
END_MARK = 0xFFFFFFFF

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


class Stream:
    """One streamed input: CPython's incremental decoder, fed chunk by chunk."""

    def __init__(self):
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.data = []
        self.emitted = []

    def feed(self, chunk):
        """`decode(chunk, final=False)`: what it returned is the chunk's list."""
        self.data.append(chunk)
        self.emitted.append([ord(ch) for ch in self.decoder.decode(chunk, False)])

    def finish(self):
        """`decode(b'', final=True)`, and the answer."""
        flush = [ord(ch) for ch in self.decoder.decode(b"", True)]
        try:
            b"".join(self.data).decode("utf-8", "strict")
            valid = True
        except UnicodeDecodeError:
            valid = False
        return {"valid": valid, "emitted": self.emitted, "flush": flush}


class Pipe:
    """Standard input read in blocks of up to 64 KiB, and the answer lines held until
    the next read that could wait, which writes them first."""

    def __init__(self):
        self.buffer = b""
        self.start = 0
        self.held = []

    def answer(self, reply):
        self.held.append(json.dumps(reply, separators=(",", ":")) + "\n")

    def write_held(self):
        if self.held:
            sys.stdout.write("".join(self.held))
            sys.stdout.flush()
            self.held.clear()

    def read(self, length):
        """`length` bytes, or fewer at end of input."""
        while len(self.buffer) - self.start < length:
            self.write_held()
            block = os.read(0, 1 << 16)
            if not block:
                break
            self.buffer = self.buffer[self.start :] + block
            self.start = 0
        data = self.buffer[self.start : self.start + length]
        self.start += len(data)
        return data

    def read_exactly(self, length, what):
        """Reads `length` bytes or exits 2 naming what was cut off."""
        data = self.read(length)
        if len(data) != length:
            sys.stderr.write("python.py: end of input inside a " + what + "\n")
            sys.exit(2)
        return data


def main(argv):
    mode = argv[1] if len(argv) > 1 else "both"
    if mode not in MODES or len(argv) > 2:
        sys.stderr.write("usage: python.py [strict|replace]\n")
        return 2
    name = "python" if mode == "both" else "python-" + mode
    pipe = Pipe()
    stdout = sys.stdout
    hello = {
        "protocol": "utf8conf/2",
        "name": name,
        "version": " ".join(sys.version.split()),
        "streaming": True,
    }
    stdout.write(json.dumps(hello) + "\n")
    stdout.flush()
    seq = 0
    stream = None
    while True:
        header = pipe.read(4)
        if not header:
            if stream is not None:
                sys.stderr.write("python.py: end of input inside a streamed input\n")
                return 2
            return 0
        if len(header) != 4:
            sys.stderr.write("python.py: end of input inside a frame header\n")
            return 2
        length = int.from_bytes(header, "little")
        if length == END_MARK:
            reply = (stream or Stream()).finish()
            stream = None
        elif length & CHUNK_FLAG:
            stream = stream or Stream()
            stream.feed(pipe.read_exactly(length & ~CHUNK_FLAG, "chunk frame"))
            continue
        else:
            reply = answer(mode, pipe.read_exactly(length, "frame body"))
        reply["seq"] = seq
        seq += 1
        pipe.answer(reply)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
