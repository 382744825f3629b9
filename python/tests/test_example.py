"""The example script runs and writes its figure (small settings)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sweep_message_numbers.py"


def test_example_sweep_writes_a_plot(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "t.png"
    r = subprocess.run(
        [sys.executable, str(EXAMPLE), "--hops", "1", "3", "--seeds", "2", "--duration", "30s", "--out", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stat().st_size > 1000
    assert "wrote" in r.stdout
