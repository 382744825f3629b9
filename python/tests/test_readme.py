"""The package page's example (python/README.md) runs as written (issue 59: a README's code
that stops working must fail a test)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_runs_as_written():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, f"no python block in {README}"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], str(README), "exec"), {"__name__": "readme"})
    printed = out.getvalue()
    # The chain's throughput first, then the sweep's means: numbers, not an empty frame.
    lines = [line for line in printed.splitlines() if line.strip()]
    assert len(lines) >= 3, printed
    assert float(lines[0]) > 0, printed
