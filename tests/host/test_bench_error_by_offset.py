"""The ring bench reports its landings' angle errors by how far out the nearest sensor that
can range the true place sees it: what ring.json's calibration_sigma_by_offset is measured
from (docs/simulator.md, "Stop 34")."""
import json
import math

from ringside.bench.ring import error_by_offset, pool_error_by_offset
from ringside.sim.board import default_ring_bytes

RING = json.loads(default_ring_bytes())


def _sensor(i):
    s = RING["sensors"][i]
    return s["angle_deg"], 1 if s.get("aim", "ccw") == "ccw" else -1


def test_errors_fall_in_the_bin_of_the_nearest_sensor_that_ranges_the_place():
    a3, d3 = _sensor(3)
    landed = [
        # 20 deg past sensor 3: sensor 3 ranges it 20 deg out
        (a3 + d3 * 20 + 0.3, a3 + d3 * 20), (a3 + d3 * 21 - 0.5, a3 + d3 * 21),
        # 5 deg past sensor 3, under its minimum range: sensor 2 ranges it 35 deg out
        (a3 + d3 * 5 + 1.0, a3 + d3 * 5),
    ]
    rows = {r[0]: r[1:] for r in error_by_offset(landed, RING)}
    assert rows[20][0] == 2 and math.isclose(rows[20][1], -0.1, abs_tol=1e-3)
    assert math.isclose(rows[20][2], math.sqrt((0.09 + 0.25) / 2), abs_tol=1e-3)
    assert rows[35] == [1, 1.0, 1.0]
    assert sum(r[0] for r in rows.values()) == 3


def test_errors_across_zero_degrees_are_signed_the_short_way():
    a0, d0 = _sensor(0)
    true = (a0 + d0 * 20) % 360
    rows = error_by_offset([((true - 0.4) % 360, true)], RING)
    assert rows[0][1:] == [1, -0.4, 0.4]


def test_runs_pool_by_counts():
    a = [[20, 2, -0.1, 0.5], [35, 1, 1.0, 1.0]]
    b = [[20, 2, 0.3, 0.3]]
    rows = {r[0]: r[1:] for r in pool_error_by_offset([a, b])}
    assert rows[20][0] == 4 and math.isclose(rows[20][1], 0.1, abs_tol=1e-3)
    assert math.isclose(rows[20][2], math.sqrt((0.25 * 2 + 0.09 * 2) / 4), abs_tol=1e-3)
    assert rows[35] == [1, 1.0, 1.0]
