"""`ringside flick` against `ringside sim` (issue 15 items 6 and 12): it aims in degrees like
everything else (mm/s only with --mm-s), and a marble flicked off the ring is put back with
--place, which the refusal names."""
from __future__ import annotations

import re

import pytest

from ringside.app.cli import main
from ringside.sim.serve import SimServer


@pytest.fixture()
def server():
    # settled: the board has found the marble before the first flick (physical model: ~3-4 s)
    srv = SimServer(seed=1, speed=20.0, place_deg=90.0, out=open("/dev/null", "w")).settle().start()
    yield srv
    srv.stop()


def _flick(capsys, *args):
    rc = main(["flick", *args])
    out = capsys.readouterr()
    return rc, out.out + out.err


def test_flick_aims_in_degrees(server, capsys):
    rc, out = _flick(capsys, "--port", server.port, "--degrees", "200", "--direction", "ccw", "--timeout", "20")
    assert rc == 0, out
    assert "aiming 200 degrees" in out
    trv = int(re.search(r"trv=(-?\d+)", out).group(1)) / 100.0
    assert 170 < trv < 230, out            # counter-clockwise is +, and about what was aimed


def test_flick_refuses_no_strength_and_out_of_range_degrees(capsys):
    rc, out = _flick(capsys, "--port", "/nonexistent", "--direction", "cw")
    assert rc == 2 and "--degrees DEG" in out and "--mm-s" in out
    rc, out = _flick(capsys, "--port", "/nonexistent", "--degrees", "2000", "--direction", "cw")
    assert rc == 2 and "--degrees must be from 1 to" in out


def test_a_marble_off_the_ring_is_put_back_with_place(server, capsys):
    rc, out = _flick(capsys, "--port", server.port, "--mm-s", "2000", "--direction", "cw", "--timeout", "20")
    assert rc == 0 and "off_ring" in out, out
    rc, out = _flick(capsys, "--port", server.port, "--degrees", "100", "--direction", "cw")
    assert rc == 2 and "the marble is off the ring: put it back first with `ringside flick" in out, out
    assert "--place 7" in out
    rc, out = _flick(capsys, "--port", server.port, "--place", "7")
    assert rc == 0 and "the marble is on 7 again" in out, out
    assert server.board.marble.on_ring
    # (not to 330 deg: the uncalibrated sim board may never see a marble stop there, see cmd_ring)
    rc, out = _flick(capsys, "--port", server.port, "--degrees", "200", "--direction", "ccw", "--timeout", "20")
    assert rc == 0 and "landed" in out, out
