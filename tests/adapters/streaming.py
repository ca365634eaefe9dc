#!/usr/bin/env python3
"""A streaming adapter (protocol utf8conf/2 with "streaming": true), correct or
misbehaving in one documented way, chosen by the first argument:

  prompt     (default) correct and prompt: after each chunk it emits the lossy decode
             of everything fed except a trailing prefix of a UTF-8 sequence that more
             bytes could complete (CPython's one-shot strict decode of that tail fails
             with "unexpected end of data" at offset 0). Expected: streaming clean.
  late       emits nothing until the end mark, then everything in the flush: not
             prompt. Expected: promptness departures, no split-point departures.
  stateless  decodes each chunk on its own (forgets a sequence cut by a chunk
             boundary): expected split-point departures (E4 | BD A0 gives three
             U+FFFD instead of U+4F60).
  no-emitted answers a chunked input without "emitted" and "flush": expected
             protocol failures.

Plain frames get CPython's one-shot answer (strict fields, replace scalars).
"""

import sys

from _frames import batched_input, correct_answer, hello, send

CHUNK_FLAG = 0x80000000
END_MARK = 0xFFFFFFFF


def open_tail(data):
    """Length of the trailing bytes that more bytes could complete (0 to 3)."""
    for size in (3, 2, 1):
        tail = data[-size:]
        if len(tail) < size:
            continue
        try:
            tail.decode("utf-8", "strict")
        except UnicodeDecodeError as failure:
            if failure.start == 0 and failure.reason == "unexpected end of data":
                return size
    return 0


def codes(data):
    return [ord(ch) for ch in data.decode("utf-8", "replace")]


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "prompt"
    hello("streaming-" + mode, protocol="utf8conf/2", streaming=True)
    read = batched_input()
    seq = 0
    pending = b""
    whole = b""
    emitted = []
    while True:
        header = read(4)
        if len(header) < 4:
            return 0
        length = int.from_bytes(header, "little")
        if length != END_MARK and length & CHUNK_FLAG:
            chunk = read(length & ~CHUNK_FLAG)
            whole += chunk
            if mode == "stateless":
                emitted.append(codes(chunk))
            elif mode in ("late", "no-emitted"):
                emitted.append([])
            else:
                pending += chunk
                keep = open_tail(pending)
                ready, pending = pending[: len(pending) - keep], pending[len(pending) - keep :]
                emitted.append(codes(ready))
            continue
        if length == END_MARK:
            flush = codes(whole) if mode == "late" else codes(pending)
            answer = {"valid": correct_answer(whole)["valid"]}
            if mode != "no-emitted":
                answer["emitted"] = emitted
                answer["flush"] = flush
            pending, whole, emitted = b"", b"", []
        else:
            answer = correct_answer(read(length))
        answer["seq"] = seq
        seq += 1
        send(answer)


if __name__ == "__main__":
    sys.exit(main())
