#!/usr/bin/env python3
"""Planted bug: emits a UTF-16 surrogate pair for each supplementary character.

Expected: one finding, "decodes well-formed 4-byte characters to other scalars",
categories valid-misdecoded.
"""

from _planted import serve


def pairs(data, answer):
    scalars = []
    for scalar in answer["scalars"]:
        if scalar >= 0x10000:
            value = scalar - 0x10000
            scalars += [0xD800 + (value >> 10), 0xDC00 + (value & 0x3FF)]
        else:
            scalars.append(scalar)
    answer["scalars"] = scalars
    return answer


serve("planted-utf16-pairs", pairs)
