#!/usr/bin/env python3
"""Planted bug: inputs over 200 bytes go to a second path that passes encoded surrogates.

Short inputs are decoded by CPython's strict codec; longer ones with its
`surrogatepass` handler (the shape of a library that hands long strings to another
decoder). Expected: one finding, the surrogates accepted "only in inputs longer than
200 bytes", categories surrogate.
"""

import codecs

from _planted import serve

THRESHOLD = 200


def pass_or_replace(error):
    """`surrogatepass` where the bytes are an encoded surrogate, else U+FFFD."""
    try:
        return codecs.lookup_error("surrogatepass")(error)
    except UnicodeDecodeError:
        return codecs.lookup_error("replace")(error)


codecs.register_error("planted-pass-or-replace", pass_or_replace)


def long_path(data, answer):
    if len(data) <= THRESHOLD:
        return answer
    scalars = [ord(c) for c in data.decode("utf-8", "planted-pass-or-replace")]
    try:
        data.decode("utf-8", "surrogatepass")
        return {"valid": True, "scalars": scalars}
    except UnicodeDecodeError as error:
        incomplete = error.end == len(data) and error.reason == "unexpected end of data"
        return {
            "valid": False,
            "valid_up_to": error.start,
            "error_len": None if incomplete else error.end - error.start,
            "scalars": scalars,
        }


serve("planted-long-path-surrogates", long_path)
