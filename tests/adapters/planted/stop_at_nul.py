#!/usr/bin/env python3
"""Planted bug: treats U+0000 as the end of the string (a C-string decoder).

Expected: one finding, "stops decoding at U+0000", categories output-cut-short.
"""

from _planted import correct, serve

serve("planted-stop-at-nul", lambda data, answer: correct(data.split(b"\0", 1)[0]))
