"""Issue 17 item 7: the landing the link bench missed. Seed 1's first flick stopped at
177.6 deg, where sensors 4 and 5 both see the marble; uncalibrated, their drawn offsets make
them disagreed by ~5 deg, the tracker never found the marble still, and no `landed` came.
The bench now calibrates the board over the link first, as every ring is before play."""
from __future__ import annotations

import io

from ringside.bench.link import calibrate_over_link
from ringside.calibration import calibrate
from ringside.link import Link
from ringside.sim.board import SimBoard, SimTable
from ringside.sim.serve import SimServer

SPACES = ["17", "2", "15", "10"]    # 135-207 deg: the views of sensors 4 and 5


def _flick_into_the_overlap(b):
    """From 120 deg, 240 mm/s ccw: the marble stops at 176.2 deg (seed 1)."""
    b.place(120.0)
    b.advance(2000)
    return b.run_flick(240, timeout_ms=10000)[0]


def test_uncalibrated_the_landing_between_two_sensors_is_not_lost():
    """Since the sensors are judged against their own learned scene (issue 14), two sensors
    that disagree by their offsets no longer keep the tracker from finding the marble still."""
    b = SimBoard(seed=1)
    fr = _flick_into_the_overlap(b)
    assert abs(b.marble.position_deg - 176.2) < 0.1 and b.marble.at_rest
    assert fr is not None and fr[1] == "landed"
    # uncalibrated, the angle carries the sensors' offsets (up to 10 mm: 3.4 deg at ~2.9 mm a
    # degree) and, under the physical model, the scene's own: the lens set back in the wall and
    # the blend with the ring read 3.9-8.3 mm long (docs/simulator.md, "Misreports at the
    # boundaries, traced"), which calibration takes out; since the rest point weighs the near
    # sensor (sensor 5 here, 11 deg out, drawn +8.9 mm, +4 mm of its scene) by its sigma, that
    # is what the landing carries (3.9 deg). A lost track would land it far off or not at all.
    off = (max(abs(x) for x in b.model.bias_mm) + 8.3) / 2.9 + 0.5
    assert abs(fr[2]["ang"] / 100.0 - b.marble.position_deg) < off


def test_calibrated_it_is_reported_where_it_stopped():
    b = SimBoard(seed=1)
    b.advance(500)
    t = SimTable(b)
    t.send("side", name="darts")
    calibrate(t, b.ring_dict, side="darts", spaces=SPACES, log=lambda *a: None)
    fr = _flick_into_the_overlap(b)
    assert fr is not None and fr[1] == "landed" and str(fr[2]["sp"]) == "15"
    assert abs(fr[2]["ang"] / 100.0 - b.marble.position_deg) < 1.0


def test_the_bench_calibrates_the_board_over_the_link(tmp_path):
    srv = SimServer(seed=1, speed=5.0, out=io.StringIO(), link_path=str(tmp_path / "b")).start()
    try:
        with Link(srv.port) as link:
            got = calibrate_over_link(link, 5.0, spaces=SPACES)   # the bench's speed
            fits = {f["sensor"]: f for f in got["sensors"]}
            assert {4, 5} <= set(fits)
            ring = srv.board.controller.ring      # what the board now applies
            for i, f in fits.items():
                assert abs(ring.off16[i] - 16 * f["offset_mm"]) <= 1.0   # (fits are rounded)
                assert abs(ring.scale_q12[i] - 4096 * f["scale"]) <= 1.0
            # (what that calibration does to the landing is the test above, in virtual time:
            # in real time on a shared machine its timing would not be the test's own)
    finally:
        srv.stop()
