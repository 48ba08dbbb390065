"""`ringside bench link`: the serial link measured over real ptys, with the simulated board
in its own process (`ringside sim`), as a host sees a real board.

    ping_rtt_ms_p50, ping_rtt_ms_p95   round trip of `ping` -> `ack` (board loop: 4 ms)
    event_latency_ms_p95               from the firmware writing a `landed` frame (stamped by
                                       the simulated board's serial port, time.monotonic, the
                                       same clock in both processes) to the host application
                                       getting it from Link.next_event
    frames_per_second                  sustained: `sim_burst` frames the host link receives,
                                       checks and hands to the application per second
    reset_recovery_s                   worst time from a board reset (the port disappears, the
                                       board is back after its boot time, under a new pty
                                       name) to the link being up with the scene and timer
                                       restored; the simulated boot takes `boot_ms`

The landings are flicked on a simulated board that has first been calibrated over the
link (the marble set on every space with sim_place, the fit sent with `cal`), as every
ring is before play (`ringside calibrate`, and `play --sim`, `play-ring` and `bench ring`
all do it). Uncalibrated, the simulated sensors keep their drawn offsets (up to 10 mm), and
where two sensors see the marble at once they disagree by up to ~5 degrees: the firmware's
tracker then never finds the marble still there, and that landing is never reported (the
one landing in 30 that the issue 17 run missed: seed 1's first flick stopped at 177.6 deg,
between sensors 4 and 5). `calibrate=False` (`--no-calibrate`) measures that case.
landings_missing_detail lists, for every landing that did not come, the flick and what the
board sent after it (["moving"]: it saw the marble go, and never saw it stop).

Targets (issue 3): event_latency_ms_p95 <= 20, reset_recovery_s < 3.
"""
from __future__ import annotations

import math
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ringside.link import Link, LinkError
from ringside.sim.board import default_ring_bytes

TARGET_LATENCY_MS = 20.0
TARGET_RECOVERY_S = 3.0


def _pct(values, p):
    if not values:
        return None
    v = sorted(values)
    k = min(len(v) - 1, max(0, int(math.ceil(p / 100.0 * len(v))) - 1))
    return v[k]


class _Sim:
    def __init__(self, link: Path, *args: str):
        cmd = [sys.executable, "-m", "ringside.app.cli", "sim", "--link", str(link), *args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)
        first = self.proc.stdout.readline()
        if "simulated board on" not in first:
            self.close()
            raise LinkError("the simulated board did not start: %s" % first.strip())
        self.link = str(link)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()


def _emitted(log: Path, seq: int, timeout: float = 1.0):
    """The time the board wrote frame seq, from its emit log."""
    end = time.monotonic() + timeout
    while True:
        try:
            for line in log.read_text().splitlines():
                s, kind, t = line.split()
                if int(s) == seq:
                    return float(t)
        except (OSError, ValueError):
            pass
        if time.monotonic() > end:
            return None
        time.sleep(0.01)


class _OverLink:
    """ringside.calibration's board interface over a Link to a simulated board: the marble
    is set down with sim_place; time is the board's (speed x real time)."""

    def __init__(self, link: Link, speed: float):
        self.link = link
        self.speed = speed
        self.frames: list = []

    def send(self, kind, **fields):
        self.link.command(kind, **fields)

    def advance(self, ms):
        end = time.monotonic() + ms / 1000.0 / self.speed
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            ev = self.link.next_event(left)
            if ev is not None:
                self.frames.append((int(ev.t * 1000), ev.kind, dict(ev.fields)))

    def lift(self):
        self.link.command("sim_lift")

    def place(self, angle, space_id=None):
        self.link.command("sim_place", ang=int(round(angle * 100)) % 36000)
        # the simulated hand lifts the marble for 600 ms before it sets it down (at a real
        # table the player presses Enter once it is down): wait that out, and a little more
        self.advance(800)


def calibrate_over_link(link: Link, speed: float, side: str = "darts",
                        spaces: list[str] | None = None) -> dict:
    """Calibrate a simulated board over the link, as `ringside calibrate` does a real one
    (on every space of the side, or on `spaces`)."""
    import json

    from ringside.calibration import calibrate
    link.side(side)
    res = calibrate(_OverLink(link, speed), json.loads(default_ring_bytes()), side=side,
                    spaces=spaces, log=lambda *a: None)
    return res.as_dict()


def run(pings: int = 500, landings: int = 30, burst: int = 5000, resets: int = 3, seed: int = 1,
        boot_ms: int = 800, flick_speed: float = 5.0, calibrate: bool = True) -> dict:
    """Measure the link; returns the numbers (see the module docstring) and the targets."""
    rng = random.Random(seed)
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="ringside-bench-") as d:
        tmp = Path(d)
        # --- real-time board: pings, throughput, resets ---
        sim = _Sim(tmp / "rt", "--seed", str(seed), "--boot-ms", str(boot_ms))
        try:
            with Link(sim.link) as link:
                for _ in range(20):
                    link.ping()  # warm up
                rtts = [link.ping() * 1000.0 for _ in range(pings)]
                out["ping_rtt_ms_p50"] = round(_pct(rtts, 50), 3)
                out["ping_rtt_ms_p95"] = round(_pct(rtts, 95), 3)

                link.command("sim_burst", n=burst)
                got = 0
                t_first = t_last = None
                deadline = time.monotonic() + 60
                while got < burst and time.monotonic() < deadline:
                    ev = link.next_event(timeout=2.0)
                    if ev is None:
                        break
                    if ev.kind != "burst":
                        continue
                    now = time.monotonic()
                    if t_first is None:
                        t_first = now
                    t_last = now
                    got += 1
                out["frames_per_second"] = round((got - 1) / (t_last - t_first), 1) \
                    if got > 1 and t_last > t_first else None
                out["burst_frames_received"] = got

                link.side("darts")
                link.paint("ff0000", space="20")
                link.player("00ff00")
                recov = []
                for _ in range(resets):
                    link.timer_start(60, "white", show=False)
                    t0 = time.monotonic()
                    try:
                        link.command("sim_reset", ms=boot_ms)
                    except LinkError:
                        # the port can go before its ACK is read (a loaded machine): the
                        # reset happened all the same, and its recovery is what we measure
                        if link.connected:
                            raise
                    ev = link.wait_for("link_restored", 15)
                    if ev is None:
                        raise LinkError("the link did not recover from a board reset within 15 s")
                    recov.append(time.monotonic() - t0)
                out["reset_recovery_s"] = round(max(recov), 3)
                out["reset_recovery_s_runs"] = [round(r, 3) for r in recov]
                out["sim_boot_s"] = boot_ms / 1000.0
        finally:
            sim.close()

        # --- event latency: landings on a board running faster than real time ---
        log = tmp / "emits.log"
        sim = _Sim(tmp / "fast", "--seed", str(seed), "--speed", str(flick_speed), "--place", "0",
                   "--emit-log", str(log))
        lat = []
        missing = 0
        detail = []
        try:
            with Link(sim.link) as link:
                if calibrate:
                    t_cal = time.monotonic()
                    cal = calibrate_over_link(link, flick_speed)
                    out["calibrated_sensors"] = len(cal["sensors"])
                    out["calibration_s"] = round(time.monotonic() - t_cal, 1)
                out["calibrated"] = bool(calibrate)
                for k in range(landings):
                    speed = rng.uniform(500.0, 1300.0)
                    direction = rng.choice(("cw", "ccw"))
                    link.flick(speed, direction)
                    end = time.monotonic() + 20.0 / flick_speed + 5
                    seen = []
                    ev = None
                    while ev is None and time.monotonic() < end:
                        e = link.next_event(max(0.0, end - time.monotonic()))
                        if e is None:
                            break
                        seen.append(e.kind)
                        if e.kind in ("landed", "off_ring"):
                            ev = e
                    t_app = time.monotonic()
                    if ev is None:
                        missing += 1
                        detail.append({"flick": k, "speed_mm_s": round(speed), "dir": direction,
                                       "board_sent": seen,
                                       "why": "no landed or off_ring frame within %.0f s" % (
                                           20.0 / flick_speed + 5)})
                        continue
                    t_emit = _emitted(log, ev.seq)
                    if t_emit is None:
                        missing += 1
                        detail.append({"flick": k, "board_sent": seen,
                                       "why": "frame %d is not in the board's emit log" % ev.seq})
                        continue
                    lat.append((t_app - t_emit) * 1000.0)
                    if ev.kind == "off_ring":
                        link.command("sim_place", ang=rng.randrange(36000))
                        time.sleep(1.2 / flick_speed + 0.05)
        finally:
            sim.close()
        out["event_latency_ms_p50"] = round(_pct(lat, 50), 3) if lat else None
        out["event_latency_ms_p95"] = round(_pct(lat, 95), 3) if lat else None
        out["event_latency_ms_max"] = round(max(lat), 3) if lat else None
        out["landings_measured"] = len(lat)
        out["landings_missing"] = missing
        out["landings_missing_detail"] = detail
    out["pings"] = pings
    out["targets"] = {"event_latency_ms_p95": TARGET_LATENCY_MS,
                      "reset_recovery_s": TARGET_RECOVERY_S}
    out["meets_targets"] = bool(
        out["event_latency_ms_p95"] is not None
        and out["event_latency_ms_p95"] <= TARGET_LATENCY_MS
        and out["reset_recovery_s"] < TARGET_RECOVERY_S)
    ordered = {k: out.pop(k) for k in ("ping_rtt_ms_p50", "ping_rtt_ms_p95", "event_latency_ms_p95",
                                       "frames_per_second", "reset_recovery_s")}
    ordered.update(out)
    return ordered


if __name__ == "__main__":  # pragma: no cover
    import json
    print(json.dumps(run()))
