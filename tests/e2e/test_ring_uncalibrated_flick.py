"""An uncalibrated simulated board (the ideal sensor model, as `ringside sim` starts it) sees
a flicked marble roll on and land. Regression: the tracker learnt each sensor's empty-ring
background while the marble rested, and kept the marble's own readings back as background
in the sensors ahead of it (their background still being learnt) while it had not yet
noticed the flick, so the marble vanished from the track and was called off the ring."""
import pytest

from ringfw import geometry
from ringside.sim.board import SimBoard


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_uncalibrated_flick_from_90_degrees_lands_where_the_marble_stops(seed):
    b = SimBoard(seed=seed)
    b.place(90.0)
    b.advance(3000)
    fr, _ = b.run_flick(655, timeout_ms=20000)
    assert fr is not None, "no verdict from the board"
    assert b.marble.on_ring and b.marble.at_rest
    assert fr[1] == "landed", fr
    got = fr[2]["ang"]
    want = int(round(b.marble.position_deg * 100)) % geometry.FULL_TURN
    assert abs(geometry.sdiff(got, want)) <= 500, (got, want)      # within 5 degrees
