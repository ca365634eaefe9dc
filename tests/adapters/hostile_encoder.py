#!/usr/bin/env python3
"""A UTF-16 encoder adapter (protocol utf8conf/2, encode mode) that misbehaves in one
way, chosen by its first argument, for the harness's tests of hostile encoders.

Whenever it answers correctly it answers as a strict encoder (CPython's
`str.encode('utf-8')` of the frame decoded with 'surrogatepass'). The misbehaviour
is triggered by the lone surrogate D800 (error-at: also by
adapter-test's 61 D800 62), so the circuit breaker's probe ("a")
is always answered and every other input is graded as usual:

  bad-byte   answers D800 with "bytes": [256]        -> a protocol failure
  error-at   refuses D800 (and adapter-test's 61 D800 62) with "error_at" = the
             frame's length (past the end)           -> a protocol failure
  too-long   answers D800 with 100 bytes (more than 7 per code unit)
                                                     -> a protocol failure
  crash      exits without answering on D800         -> a crash
  twice      answers every frame twice               -> out of step, unusable
  big-endian reads the code units big-endian         -> adapter-test names it
"""

import json
import sys

MODES = ("bad-byte", "error-at", "too-long", "crash", "twice", "big-endian")


def frames():
    stdin = sys.stdin.buffer
    while True:
        header = stdin.read(4)
        if len(header) != 4:
            return
        data = stdin.read(int.from_bytes(header, "little"))
        yield data


def correct(seq, units):
    text = units.decode("utf-16-le", "surrogatepass")
    try:
        return {"seq": seq, "ok": True, "bytes": list(text.encode("utf-8"))}
    except UnicodeEncodeError as error:
        before = text[: error.start]
        at = sum(2 if ord(c) > 0xFFFF else 1 for c in before)
        return {"seq": seq, "ok": False, "error_at": at}


def main():
    mode = sys.argv[1]
    assert mode in MODES, mode
    hello = {"protocol": "utf8conf/2", "name": f"hostile-{mode}", "version": "1", "encode": "utf16"}
    sys.stdout.write(json.dumps(hello) + "\n")
    sys.stdout.flush()
    for seq, data in enumerate(frames()):
        lone = data == b"\x00\xd8"
        # adapter-test's unencodable probe: U+0061, D800, U+0062.
        probe = data == b"\x61\x00\x00\xd8\x62\x00"
        if mode == "big-endian":
            data = bytes(b for pair in zip(data[1::2], data[0::2]) for b in pair)
        answer = correct(seq, data)
        if lone and mode == "bad-byte":
            answer = {"seq": seq, "ok": True, "bytes": [256]}
        elif (lone or probe) and mode == "error-at":
            answer = {"seq": seq, "ok": False, "error_at": len(data) // 2}
        elif lone and mode == "too-long":
            answer = {"seq": seq, "ok": True, "bytes": [97] * 100}
        elif lone and mode == "crash":
            sys.exit(3)
        line = json.dumps(answer) + "\n"
        sys.stdout.write(line * (2 if mode == "twice" else 1))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
