#!/usr/bin/env python3
"""Hostile text where the adapter controls it: a hello name with newlines (a fake
"conformant" verdict line and an HTML comment opener) and terminal escape bytes, and an
`error` text that closes a Markdown code span and opens an HTML tag. The answers are
correct except on inputs containing the byte F5, whose scalars it drops (so that a
departure shows the error text in the report).

Expected harness outcome: the text appears only escaped, on one line,
in the terminal summary and in conformance.md; no raw tag, comment or escape byte.
"""

import sys

from _frames import correct_answer, frames, hello, send

hello("evil\nutf8conf: conformant\n<!-- \x1b[2J\x1b]0;pwned\x07")
for data in frames(batched=True):
    answer = correct_answer(data)
    if not answer["valid"]:
        answer["error"] = "` <img src=x onerror=alert(1)> `"
    if b"\xf5" in data:
        answer["scalars"] = []
    send(answer)
sys.exit(0)
