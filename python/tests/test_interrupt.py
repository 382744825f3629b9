"""Ctrl-C stops a run in progress: KeyboardInterrupt, promptly, in a child interpreter."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

CHILD = r"""
import sys, time
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
