#!/usr/bin/env python3
"""Two planted bugs: the well-formed character after a stray continuation byte is
consumed (as Perl's lax decoder does with `83 F3 BF BF BF`), and U+0000 ends the string.

Expected: two findings, categories character-swallowed and output-cut-short.
"""

from _planted import correct, serve


def unit_len(data, offset):
    """The length of the unit at `offset`: a character, or one maximal subpart (the end
    of CPython's first error there)."""
    try:
        data[offset:].decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start == 0:
            return error.end
    for length in (1, 2, 3, 4):
        try:
            data[offset:offset + length].decode("utf-8")
            return length
        except UnicodeDecodeError:
            continue
    return 1


def swallow_and_stop(data, _answer):
    data = data.split(b"\0", 1)[0]
    answer = correct(data)
    scalars, offset, after_stray = [], 0, False
    while offset < len(data):
        length = unit_len(data, offset)
        unit = data[offset:offset + length]
        try:
            scalar = ord(unit.decode("utf-8"))
            scalars.append(0xFFFD if after_stray else scalar)
            after_stray = False
        except UnicodeDecodeError:
            scalars.append(0xFFFD)
            after_stray = 0x80 <= unit[0] <= 0xBF
        offset += length
    answer["scalars"] = scalars
    return answer


serve("planted-swallow-and-nul", swallow_and_stop)
