#!/usr/bin/env python3
"""Correct minimal adapter: answers every frame with CPython's UTF-8 codec.

Its answers follow maximal subparts (valid, valid_up_to, error_len, scalars), so a
harness check of it should pass every category; the protocol tests use it as the
well-behaved baseline.
"""

import sys

from _frames import correct_answer, frames, hello, send

hello("echo-std")
for data in frames(batched=True):
    send(correct_answer(data))
sys.exit(0)
