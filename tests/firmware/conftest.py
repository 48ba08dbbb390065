"""Fixtures the firmware tests share."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """`make firmware` into a temporary folder (ringside.app.build_firmware)."""
    out = tmp_path_factory.mktemp("fw") / "firmware"
    res = subprocess.run([sys.executable, "-m", "ringside.app.build_firmware", str(out)],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    return out
