"""`ringside monitor` beside `ringside flick` on one simulated board (issue 15 item 5).

Two hosts on one pty each get only part of the board's bytes, and each takes the other's
hello for a board reset; `ringside sim` gives each host its own pty (--ports), sends every
event to all, and a command's reply only to the host that sent it."""
from __future__ import annotations

import io
import time

import pytest

from ringside.app.cli import main
from ringside.link import Link
from ringside.sim.serve import SimServer


@pytest.fixture()
def server(tmp_path):
    srv = SimServer(seed=1, speed=3.0, place_deg=90.0, ports=2, out=io.StringIO(),
                    link_path=str(tmp_path / "ring")).start()
    yield srv
    srv.stop()


def test_a_monitor_and_a_flicking_host_share_the_board(server, tmp_path, capsys):
    assert server.ports == [str(tmp_path / "ring"), str(tmp_path / "ring-2")]
    with Link(server.ports[1], heartbeats=True) as monitor:
        for _ in range(2):   # two whole flicks, each with its own connection and hello
            rc = main(["flick", "--port", server.ports[0], "--degrees", "200", "--direction", "ccw",
                       "--timeout", "60"])
            out = capsys.readouterr()
            assert rc == 0, out.err
            assert "landed" in out.out
        time.sleep(0.3)
        seen = []
        while True:
            ev = monitor.next_event(0)
            if ev is None:
                break
            seen.append(ev.kind)
    assert seen.count("landed") == 2 and "moving" in seen and "hb" in seen
    assert "board_reset" not in seen and "link_lost" not in seen, seen


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
