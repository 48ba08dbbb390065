"""`ringside screenshots DIR` (README's pictures of the table page): the real server, a
simulated ring, a seeded game, one PNG per game page."""
from __future__ import annotations

import struct
import subprocess
import sys

import pytest

pytest.importorskip("uvicorn")


def ringside(*args):
    """The command as a user runs it (its own process: one Playwright per thread)."""
    return subprocess.run([sys.executable, "-m", "ringside.app.cli", *args], capture_output=True, text=True,
                          timeout=120)


def test_screenshots_saves_a_png_of_a_game_page(browser, tmp_path):
    r = ringside("screenshots", str(tmp_path), "--only", "darts", "--width", "800", "--height", "600")
    png = tmp_path / "darts.png"
    assert r.returncode == 0, r.stderr
    assert str(png) in r.stdout and "1 screenshots" in r.stdout
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", head[16:24])
    assert width == 800 and height >= 600            # the whole page, at the width asked


def test_an_unknown_sample_is_one_line(tmp_path):
    r = ringside("screenshots", str(tmp_path), "--only", "chess")
    assert r.returncode == 2 and "no sample called chess" in r.stderr and len(r.stderr.strip().splitlines()) == 1
