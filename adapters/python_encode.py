#!/usr/bin/env python3
"""utf8conf encoder adapter for CPython's UTF-8 encoder (protocol utf8conf/2, encode mode).

Encoder: `str.encode('utf-8', HANDLER)`, HANDLER the first argument:
  strict           (default) raises UnicodeEncodeError on a surrogate
  surrogatepass    writes a surrogate code point in three bytes (ED A0 80)
  surrogateescape  writes U+DC80..U+DCFF as the byte 80..FF; raises on other surrogates
  replace          writes '?' for a surrogate

Input: UTF-16 code units (`"encode": "utf16"`). A Python str holds lone surrogates
only when it is made so: the frame is decoded with `bytes.decode('utf-16-le',
'surrogatepass')`, which keeps a lone or reversed surrogate as that code point and
joins a well-formed pair into one supplementary character, as a str built from
UTF-16 text in another language would be.

Answer: `ok` and `bytes` from the encode; when it raises, `ok` false, `error_at` the
code unit at UnicodeEncodeError.start (str indices count code points, so the code
units of the characters before it are counted), `bytes` what the same handler
writes for the characters before it, `error` the exception text.

Protocol (docs/PROTOCOL.md, "Encode mode"): a hello line, then for each frame (4-byte
little-endian length N, then N bytes: N/2 code units, little-endian) one JSON line,
flushed; exit 0 at end of input.
"""

import json
import platform
import sys

HANDLERS = ("strict", "surrogatepass", "surrogateescape", "replace")


def code_units(text):
    """How many UTF-16 code units `text` takes."""
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


def answer(seq, data, handler):
    """The answer to one frame."""
    if len(data) % 2:
        return {"seq": seq, "ok": False, "error": "odd frame length for UTF-16"}
    text = data.decode("utf-16-le", "surrogatepass")
    try:
        return {"seq": seq, "ok": True, "bytes": list(text.encode("utf-8", handler))}
    except UnicodeEncodeError as error:
        before = text[: error.start]
        return {
            "seq": seq,
            "ok": False,
            "error_at": code_units(before),
            "bytes": list(before.encode("utf-8", handler)),
            "error": str(error),
        }


def read_exactly(stream, n):
    data = stream.read(n)
    return data if len(data) == n else None


def main():
    handler = sys.argv[1] if len(sys.argv) > 1 else "strict"
    if handler not in HANDLERS:
        sys.stderr.write(f"python_encode.py: handler must be one of {', '.join(HANDLERS)}\n")
        return 2
    out = sys.stdout
    hello = {
        "protocol": "utf8conf/2",
        "name": f"cpython-str.encode-{handler}",
        "version": platform.python_version(),
        "encode": "utf16",
    }
    out.write(json.dumps(hello) + "\n")
    out.flush()
    stdin = sys.stdin.buffer
    seq = 0
    while True:
        header = read_exactly(stdin, 4)
        if header is None:
            return 0
        data = read_exactly(stdin, int.from_bytes(header, "little"))
        if data is None:
            return 0
        out.write(json.dumps(answer(seq, data, handler), separators=(",", ":")) + "\n")
        out.flush()
        seq += 1


if __name__ == "__main__":
    sys.exit(main())
