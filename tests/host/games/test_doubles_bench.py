"""`ringside bench doubles`: run(n, seed) plays seeded matches and reports JSON."""
import json

import pytest

from ringside.bench import doubles as bench


def test_wilson_interval():
    assert bench.wilson(0, 0) == [0.0, 1.0]
    lo, hi = bench.wilson(360, 400)                   # 90 %
    assert 0.86 < lo < 0.9 < hi < 0.93
    lo, hi = bench.wilson(400, 400)
    assert hi == 1.0 and 0.98 < lo < 1.0
    lo, hi = bench.wilson(10.5, 20)                  # draws count half
    assert lo < 0.525 < hi


def test_run_reports_every_rate_with_its_interval(monkeypatch):
    monkeypatch.setattr(bench, "SELF_PLAY_SECONDS", 0.05)
    r = bench.run(2, seed=3, processes=1)
    json.dumps(r)
    assert r["games"] == 2 and r["self_play_games"] >= 1 and r["self_play_games_per_s"] > 0
    for a, b in bench.MATCHES:
        key = "%s_vs_%s_win_rate" % (a, b)
        assert 0.0 <= r[key] <= 1.0 and r[key] * 4 == int(r[key] * 4)   # 2 games, draws half
        lo, hi = r[key + "_ci95"]
        assert 0.0 <= lo <= r[key] <= hi <= 1.0
    assert r["strong_moves"] > 0 and 0 < r["strong_move_ms_p50"] <= r["strong_move_ms_p95"] <= r["strong_move_ms_max"]
    with pytest.raises(ValueError):
        bench.run(0)
