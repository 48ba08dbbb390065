"""`ringside bench ring --seeds 1-5 --jobs N`: one process per seed, each seed's result the very
one of its single-seed run, and the worst seed per key."""
import pytest

from ringside.bench import ring as bench

VARY = ("wall_seconds", "speedup")      # the host's speed, not the simulation


def _same(a, b):
    return {k: v for k, v in a.items() if k not in VARY} == {k: v for k, v in b.items() if k not in VARY}


def test_each_seed_in_its_own_process_gives_its_single_run_and_the_worst_is_kept():
    kw = dict(flicks=2, calibrate_first=False)
    got = bench.run_seeds([3, 4], jobs=2, **kw)
    assert set(got["seeds"]) == {"3", "4"} and got["sensor_model"] == "physical"
    for s in (3, 4):
        assert _same(got["seeds"][str(s)], bench.run(seed=s, **kw))
    lat = [r["latency_ms_p95"] for r in got["seeds"].values() if r["latency_ms_p95"] is not None]
    if lat:
        assert got["worst"]["latency_ms_p95"] == max(lat)


def test_seed_lists_and_bad_ones():
    assert bench.parse_seeds("1-5") == [1, 2, 3, 4, 5]
    assert bench.parse_seeds("3, 1,3,7-8") == [3, 1, 7, 8]
    for bad in ("", "a", "5-1", "-2", "1-x"):
        with pytest.raises(ValueError, match="--seeds"):
            bench.parse_seeds(bad)


def test_the_fixed_band_trade_counts_ambiguous_and_wrong_landings():
    from ringside.ring import load_side
    spaces = load_side("darts")
    b0 = spaces.centre(spaces.start) + 9.0          # a boundary: spaces are 18 deg wide
    landed = [(b0 - 0.3, b0 + 0.2),    # reported 0.3 short of it, truly across: wrong unless b >= 0.3
              (b0 + 1.2, b0 + 1.0),    # right, 1.2 from the boundary: ambiguous once b > 1.2
              (b0 - 5.0, b0 - 4.0)]    # right, far from every boundary
    rows = {b: (amb, mis) for b, amb, mis in bench.fixed_band(landed, spaces)}
    assert rows[0.0] == (0.0, 1)
    assert rows[0.5] == (round(1 / 3, 4), 0)          # the first now names its neighbour
    assert rows[1.5] == (round(2 / 3, 4), 0)
    assert rows[3.0] == (round(2 / 3, 4), 0)


def test_a_run_names_its_slowest_landings():
    got = bench.run(flicks=4, seed=2, calibrate_first=False)
    slow = got["slowest_landings"]
    assert 1 <= len(slow) <= bench.SLOWEST
    lat = [s["latency_ms"] for s in slow]
    assert lat == sorted(lat, reverse=True) and lat[0] == got["latency_ms_max"]
    for s in slow:
        assert 0 <= s["flick"] < 4 and s["landed_at_ms"] - s["rest_at_ms"] <= s["latency_ms"]
        assert 0 <= s["true_angle"] < 360
