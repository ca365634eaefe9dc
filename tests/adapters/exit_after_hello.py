#!/usr/bin/env python3
"""Exits right after a correct hello, with status 0, before answering anything.

Expected harness outcome: every input is a crash (retried once), the
circuit breaker's probe input 61 crashes too, and the check stops as "adapter unusable"
instead of restarting the adapter for every input.
"""

from _frames import hello

hello("exit-after-hello")
