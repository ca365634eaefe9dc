#!/usr/bin/env python3
"""Sleeps forever: says a correct hello, then never reads or answers anything.

Expected harness outcome: a few timeouts, then the circuit breaker's
probe input 61 times out too, and the check stops as "adapter unusable" well within
60 s instead of waiting 5 s for each of the check's inputs.
"""

import threading

from _frames import hello

hello("sleep-forever")
threading.Event().wait()
