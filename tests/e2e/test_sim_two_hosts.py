"""`ringside monitor` beside `ringside flick` on one simulated board (issue 15 item 5).

Two hosts on one pty each get only part of the board's bytes, and each takes the other's
hello for a board reset; `ringside sim` gives each host its own pty (--ports), sends every
event to all, and a command's reply only to the host that sent it."""
from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ringside.link import Link
from ringside.sim.serve import SimServer


@pytest.fixture()
def server(tmp_path):
    srv = SimServer(seed=1, speed=3.0, place_deg=90.0, ports=2, out=io.StringIO(),
                    link_path=str(tmp_path / "ring")).settle().start()   # the marble found first
    yield srv
    srv.stop()


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ringside.app.cli", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_a_monitor_and_a_flicking_host_share_the_board(tmp_path):
    """As README shows it: `ringside sim` in one terminal, `monitor` beside it, `flick` run twice,
    each a program of its own."""
    path = tmp_path / "ring"
    sim = subprocess.Popen([sys.executable, "-m", "ringside.app.cli", "sim", "--link", str(path), "--seed", "1",
                            "--speed", "3", "--place", "90"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 30
        while not (path.exists() and Path(str(path) + "-2").exists()) and time.monotonic() < end:
            time.sleep(0.1)
        assert path.exists() and Path(str(path) + "-2").exists(), "ringside sim gave no two ports"
        with Link(str(path) + "-2", heartbeats=True) as monitor:
            for _ in range(2):   # two whole flicks, each with its own connection and hello
                r = _cli("flick", "--port", str(path), "--degrees", "200", "--direction", "ccw", "--timeout", "60")
                assert r.returncode == 0, r.stderr
                assert "landed" in r.stdout
            time.sleep(0.3)
            seen = []
            while True:
                ev = monitor.next_event(0)
                if ev is None:
                    break
                seen.append(ev.kind)
        assert seen.count("landed") == 2 and "moving" in seen and "hb" in seen
        assert "board_reset" not in seen and "link_lost" not in seen, seen
    finally:
        sim.terminate()
        sim.wait(timeout=10)


def test_each_host_gets_its_own_replies(server):
    with Link(server.ports[0]) as a, Link(server.ports[1]) as b:
        for _ in range(20):              # both count their commands from 1: replies must not mix
            a.command("ping")
            b.command("ping")
            a.command("status")
        assert a.stats["resets"] == 0 and b.stats["resets"] == 0
        reply = b.command("sim_led", i=3)
        assert reply is not None


def test_one_port_still_serves_one_host_as_before(tmp_path):
    srv = SimServer(seed=1, speed=3.0, out=io.StringIO(), link_path=str(tmp_path / "one")).start()
    try:
        assert srv.ports == [str(tmp_path / "one")]
        with Link(srv.port) as link:
            link.command("ping")
    finally:
        srv.stop()
