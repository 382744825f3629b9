"""Ctrl-C stops a run in progress: KeyboardInterrupt, promptly, in a child interpreter."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

# The child restores Python's own Ctrl-C handler: a shell that starts the tests in the
# background (`cmd &` without job control) hands them SIGINT ignored, and Python then leaves it
# ignored, so the run would finish and the test say nothing about nmc.
CHILD = r"""
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import nmc
print("started", flush=True)
t = time.monotonic()
try:
    nmc.run("md1", seed=1, set={"duration": "100000min"})
    print("finished", flush=True)
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - t:.1f}s", flush=True)
    sys.exit(3)
"""


def test_ctrl_c_interrupts_a_long_run():
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 3, out
    assert out.startswith("interrupted after")
