"""End to end over real ptys and real processes: `ringside sim`, `monitor`, `flick`, the
LED picture, and the two kill-and-restart cases of the issue:

- the simulated board is killed mid-flick and restarted: the host reconnects and the side,
  scene, armed flick and timer come back;
- the host is killed and restarted: the board keeps its timer and scene.
"""
from __future__ import annotations

import io
import os
import signal
import struct
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import pytest

from ringside.link import Link
from ringside.sim.serve import SimServer

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "ringside.app.cli"]


def _env():
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Sim:
    """`ringside sim` in its own process."""

    def __init__(self, link: Path, *args: str):
        self.proc = subprocess.Popen(CLI + ["sim", "--link", str(link), *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env=_env(), cwd=ROOT)
        first = self.proc.stdout.readline()
        assert first.startswith("ringside sim: simulated board on /dev/"), first
        self.path = first.split()[5]
        self.link = str(link)

    def kill(self, sig=signal.SIGKILL):
        self.proc.send_signal(sig)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()


@pytest.fixture
def sims(tmp_path):
    started = []

    def start(*args, name="board"):
        s = Sim(tmp_path / name, *args)
        started.append(s)
        return s
    yield start
    for s in started:
        s.close()


def run_cli(*args, timeout=30):
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=timeout,
                          env=_env(), cwd=ROOT)


def _led(link, i):
    time.sleep(0.06)
    link.command("sim_led", i=i)
    ev = link.wait_for("led", 1.0)
    return ev.fields["r"], ev.fields["g"], ev.fields["b"]


def _led_soon(link, i, want, timeout=3.0):
    """The LED's colour once `want(rgb)` holds, or the last one seen after `timeout` s: the
    scene's restore reaches the LEDs a few frames after link_restored (later on a loaded
    machine)."""
    end = time.monotonic() + timeout
    while True:
        rgb = _led(link, i)
        if want(rgb) or time.monotonic() > end:
            return rgb
        time.sleep(0.1)


def _space_led(side, space):
    """One LED (the middle one) of a space, from the default ring.json."""
    from ringfw import geometry, ringfile
    ring = geometry.load(str(ROOT / "hardware" / "ring.json"))
    s = ringfile.side(ring, side)
    k = ringfile.space_index(s, space)
    n = ring.led_count
    leds = [i for i in range(n)
            if s.space_at((ring.led0 + ring.led_dir * i * 36000 // n) % 36000) == k]
    return leds[len(leds) // 2]


def _read_png(path):
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos = 8
    chunks = {}
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        tag = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF
        chunks.setdefault(tag, b"")
        chunks[tag] += body
        pos += 12 + n
    w, h, depth, ctype = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    raw = zlib.decompress(chunks[b"IDAT"])
    rows = [raw[y * (3 * w + 1) + 1:(y + 1) * (3 * w + 1)] for y in range(h)]
    assert all(raw[y * (3 * w + 1)] == 0 for y in range(h))
    return w, h, (depth, ctype), rows


# ----- the commands -----
def test_sim_monitor_flick_and_the_led_picture(sims, tmp_path):
    png = tmp_path / "ring.png"
    sim = sims("--speed", "3", "--png", str(png), "--place", "0")
    out = run_cli("monitor", "--port", sim.link, "--seconds", "0.6", "--hb")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "connected to %s: board firmware 0.1.0, protocol 1" % sim.link in lines[0]
    assert any(" hb " in ln and "up=" in ln for ln in lines[1:])

    with Link(sim.link) as link:
        link.paint("ff0000", space="20")
        time.sleep(0.7)  # the picture is rewritten at most twice a second
    w, h, kind, rows = _read_png(png)
    assert (w, h, kind) == (240, 240, (8, 2))
    pixels = {bytes(r[x:x + 3]) for r in rows for x in range(0, len(r), 3)}
    assert b"\xff\x00\x00" in pixels  # space 20 shown red (at full scale)

    out = run_cli("flick", "--port", sim.link, "--mm-s", "900", "--direction", "ccw")
    assert out.returncode == 0, out.stderr
    assert "flicked the marble ccw at 900 mm/s" in out.stdout
    assert "landed  sp=" in out.stdout and "landed on" in out.stdout


def test_flick_on_a_board_without_a_simulator_says_it_cannot(tmp_path):
    # the bare firmware controller on a pty, as a real board: no sim_* handler
    srv = SimServer(seed=1, out=io.StringIO(), link_path=str(tmp_path / "real"))
    srv.board.controller.sim_command = None
    srv._sim_command = None
    srv.start()
    try:
        srv.board.controller.sim_command = None
        out = run_cli("flick", "--port", srv.port, "--mm-s", "900", "--direction", "cw")
    finally:
        srv.stop()
    assert out.returncode == 2
    assert out.stderr.strip() == ("ringside: %s is a real board: it cannot flick the marble "
                                  "itself; flick it by hand" % srv.port)
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("args, msg", [
    (["flick", "--port", "/nonexistent/tty", "--mm-s", "900", "--direction", "cw"],
     "/nonexistent/tty does not exist"),
    (["flick", "--port", "/dev/null", "--mm-s", "-3", "--direction", "cw"], "--mm-s must be above 0"),
    (["monitor", "--port", "/nonexistent/tty"], "does not exist"),
])
def test_cli_errors_are_one_line(args, msg):
    out = run_cli(*args)
    assert out.returncode == 2
    assert msg in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_sim_shows_the_leds_in_the_terminal(tmp_path):
    proc = subprocess.Popen(CLI + ["sim", "--leds", "--link", str(tmp_path / "b")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_env(), cwd=ROOT)
    try:
        first = proc.stdout.readline()
        assert b"simulated board on" in first
        with Link(str(tmp_path / "b")) as link:
            link.paint("0000ff", everywhere=True)
            time.sleep(0.4)
    finally:
        proc.terminate()
        rest = proc.communicate(timeout=5)[0]
    assert b"\x1b[38;2;0;0;255m\xe2\x96\x88" * 10 in rest  # blue blocks, full scale


def test_sim_keeps_running_and_stops_cleanly_on_sigterm(sims):
    sim = sims()
    time.sleep(0.5)
    assert sim.proc.poll() is None
    assert os.path.islink(sim.link)
    sim.kill(signal.SIGTERM)
    assert sim.proc.wait(timeout=3) == 0
    assert not os.path.exists(sim.link)


# ----- kill and restart -----
def test_board_killed_mid_flick_and_restarted_host_reconnects_and_restores(sims):
    a = sims("--place", "0")
    with Link(a.link) as link:
        link.side("wildwest")
        link.paint("ff0000", label="Gold")
        link.timer_start(20, "green", show=False)
        link.arm("ccw", 30)
        # the board has found its marble (physical model: ~3-4 s at real time, ideal ~1 s)
        assert link.wait_for("placed", 8) is not None
        link.flick(900, "ccw")
        assert link.wait_for("moving", 5) is not None  # mid-flick
        t_kill = time.monotonic()
        a.kill()
        assert a.proc.wait(timeout=3) == -signal.SIGKILL
        lost = link.wait_for("link_lost", 3)
        assert lost is not None
        b = sims("--place", "90")  # the board comes back (same --link path)
        t_b = time.monotonic()
        back = link.wait_for("link_restored", 6)
        assert back is not None and back.fields["restored"] >= 4
        assert os.readlink(b.link) == b.path  # the link now leads to the new board's pty
        assert link.board["side"] == "darts"  # its boot hello...
        assert link.status()["side"] == "wildwest"  # ...and the side restored
        gold = _space_led("wildwest", "gold-1")
        rgb = _led_soon(link, gold, lambda c: c[0] > 0 and c[1] == 0)
        assert rgb[0] > 0 and rgb[1] == 0, rgb
        # the timer goes on at the time it had left (heartbeats carry it; status asks for one)
        link.status()
        left = link.last_heartbeat.get("tmr")
        elapsed = time.monotonic() - t_kill
        assert left is not None and abs(left - (link.timer_left() * 1000)) < 1100
        assert 20000 - 1000 * (elapsed + 6) < left < 20000 - 1000 * elapsed + 500
        # the armed flick came back too: the next flick gets a verdict (a fast one, off the
        # ring), once the new board has found its marble (it settles within 0.7 s of boot)
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t_b)))
        link.flick(2500, "ccw")
        assert link.wait_for("off_ring", 5) is not None
        v = link.wait_for("verdict", 1)
        assert v is not None and v.fields["ok"] == 0 and v.text == "invalid flick: left the ring"


HOST = textwrap.dedent("""
    import os, signal, sys
    from ringside.link import Link
    link = Link(sys.argv[1], command_timeout_s=3.0).open()
    link.paint("0000ff", space="20")
    link.timer_start(1.0, "green")
    print("ready", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_host_killed_and_restarted_board_keeps_timer_and_scene(sims):
    sim = sims()
    host = subprocess.run([sys.executable, "-c", HOST, sim.link], capture_output=True, text=True,
                          timeout=20, env=_env(), cwd=ROOT)
    t_started = time.monotonic()
    assert host.returncode == -signal.SIGKILL and host.stdout.strip() == "ready", host.stderr
    time.sleep(0.2)
    with Link(sim.link) as link:  # a new host that knows nothing of the first
        assert link.scene.empty()  # it has nothing to restore, and must not clear the board
        ev = link.wait_for("timer_expired", 4)
        assert ev is not None and ev.fields["total"] == 1000
        # on time: the 1 s (started just before the host's end) ran while no host was there
        assert 0.5 < ev.t - t_started < 1.1
        i = _space_led("darts", "20")
        assert _led(link, i)[0] > 0  # the expired timer is still on show
        link.timer_cancel()
        r, g, b = _led(link, i)
        assert b > 0 and r == g == 0  # and the first host's scene is there under it


def test_a_stopped_board_is_noticed_within_3_s_and_found_again(sims):
    sim = sims()
    with Link(sim.link, silence_s=1.0) as link:  # the default 2.5 s is tested in tests/host
        link.paint("00ff00", space="7")
        t0 = time.monotonic()
        sim.kill(signal.SIGSTOP)
        try:
            lost = link.wait_for("link_lost", 4)
            assert lost is not None and 0.9 <= lost.t - t0 < 1.5
        finally:
            sim.kill(signal.SIGCONT)
        assert link.wait_for("link_restored", 5) is not None
        assert _led(link, _space_led("darts", "7"))[1] > 0
