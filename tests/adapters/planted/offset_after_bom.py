#!/usr/bin/env python3
"""Planted bug: counts valid_up_to after a leading byte order mark, as CPython's
`utf-8-sig` codec does.

Expected: one finding, "reports valid_up_to off by -3", categories offset-miscounted.
"""

from _planted import serve


def after_bom(data, answer):
    if data.startswith(b"\xef\xbb\xbf") and not answer["valid"]:
        answer["valid_up_to"] -= 3
    return answer


serve("planted-offset-after-bom", after_bom)
