"""A sensor knocked off its aim while the board was off (the ring bumped in the cupboard
between two sessions): the board boots from its saved calibration, and the knocked cone sees
the floor, a steady, faint return in its window, from its first reading on. The marble may
lie anywhere at boot; the floor must not be taken for it (docs/simulator.md, "Stop 43").

Run on the ring bench itself (physical model, misaimed:2, a few flicks from the boot): seed 3
is the case that misreported at stop 43; seed 7 the one that did with ST's own sigma formula in
the model (stop 49), where the marble, lifted from its rest after the boot, was followed onto
the knocked floor by a chain of the floor's own readings; seed 1 (stop 50) the first flick
that got no verdict, the marble at rest beside the knocked floor (misaimed:5 seed 3's blind
landing, the same stop, is a trace in tests/traces).

The cases were found on boards calibrated once round the spaces, the default until stop 55,
and are run so: the calibration's placements are drawn from the seed, so with two passes each
run is another history, in which the rules' cases do not arise (checked: with two passes the
three tests without a rule find no wrong answer to show)."""
import pytest

from ringfw import tracker as T

from ringside import calibration
from ringside.bench import ring as bench


@pytest.fixture(autouse=True)
def _calibrated_once_round(monkeypatch):
    monkeypatch.setattr(calibration, "PASSES", 1)


def _knocked_while_off(seed, flicks=12):
    return bench.run(flicks=flicks, seed=seed, fault_specs=[("misaimed", 2)],
                     saved_calibration=True, faults_before_boot=True)


@pytest.mark.parametrize("seed", [3, 7])
def test_a_ring_knocked_while_the_board_was_off_is_answered_right_from_the_first_flick(seed):
    res = _knocked_while_off(seed)
    assert res["faults_before_boot"] is True
    assert res["misreported"] == 0 and res["false_off_ring"] == 0 and res["no_verdict"] == 0, res
    assert res["accuracy"] == 1.0, res["wrong_landings"]


def test_without_the_brightness_rules_the_knocked_floor_is_taken_for_the_marble(monkeypatch):
    # (before stop 43, seed 3: the floor's readings and the marble's alternated and reset the
    # one candidate the tracker keeps, 317 times in 9 s, until the floor won: no verdict for
    # the first flicks, then a misreport. Before stop 49, seed 7: the marble, lifted from its
    # rest and set down, was taken to have rolled onto the floor, flick 0 landed there.)
    monkeypatch.setattr(T, "_DIM_K", 1 << 30)
    res = _knocked_while_off(7)
    assert res["misreported"] > 0 or res["no_verdict"] > 0


def _lifted_at_once():
    # misaimed:5, seed 1: at the boot the marble lies in sensor 9's window; it is lifted and
    # set down elsewhere (flick 0) before it has rested 8 times, while knocked sensor 5 sees
    # the floor 130 deg away at 40-90x less than the marble's signal x range^2
    return bench.run(flicks=2, seed=1, fault_specs=[("misaimed", 5)],
                     saved_calibration=True, faults_before_boot=True)


def test_the_marble_lifted_at_once_after_the_boot_is_not_followed_onto_the_knocked_floor():
    res = _lifted_at_once()
    assert res["misreported"] == 0 and res["false_off_ring"] == 0 and res["no_verdict"] == 0, res
    assert res["accuracy"] == 1.0, res["wrong_landings"]


def test_without_the_brightness_rules_the_lift_lands_on_the_floor(monkeypatch):
    # (stop 43: the floor's readings, unbroken once the rest's were gone, made a chain off
    # the rest; the lift became a flick that landed on the floor, space 15 for space 7)
    monkeypatch.setattr(T, "_DIM_K", 1 << 30)
    res = _lifted_at_once()
    assert res["misreported"] == 1, res["wrong_landings"]
    assert res["wrong_landings"][0]["reported"] == "15" and res["wrong_landings"][0]["true"] == "7"


def _at_rest_beside_the_floor():
    # misaimed:2, seed 1: flick 0 goes once round and stops at 89.6 deg, beside where it
    # started, far in sensor 1's window and in knocked sensor 2's, whose floor blends with it
    # at 20-80 times less than the marble's signal x range^2; both feed the slow track, a
    # degree or two apart, and its still window never holds
    return bench.run(flicks=2, seed=1, fault_specs=[("misaimed", 2)],
                     saved_calibration=True, faults_before_boot=True)


def test_a_marble_at_rest_beside_the_knocked_floor_gets_its_verdict():
    res = _at_rest_beside_the_floor()
    assert res["misreported"] == 0 and res["false_off_ring"] == 0 and res["no_verdict"] == 0, res
    assert res["accuracy"] == 1.0, res["wrong_landings"]


def test_without_the_stale_track_rule_that_marble_gets_no_verdict(monkeypatch):
    # (stop 49's suite: no verdict in the bench's 30 s; the rule keeps the far-dim readings
    # out of a track slow for _STALE_MS while bright ones come)
    monkeypatch.setattr(T, "_STALE_MS", 1 << 30)
    res = _at_rest_beside_the_floor()
    assert res["no_verdict"] >= 1, res
