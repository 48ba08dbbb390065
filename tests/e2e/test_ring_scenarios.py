"""Named ring scenarios: the firmware controller on the simulated ring, every verdict
checked against the simulator's ground truth."""
import pytest

from ringside.calibration import calibrate
from ringside.sim.board import SimBoard, SimTable
from ringside.sim.physics import speed_for_travel
from ringside.sim.sensors import SensorParams


def space_of(board, angle, side="darts"):
    a = angle % 360.0
    for sp in board.ring_dict["sides"][side]["spaces"]:
        lo, hi = sp["from_deg"], sp["to_deg"]
        if (a - lo) % 360.0 < (hi - lo) % 360.0:
            return str(sp.get("id", sp["label"]))
    raise AssertionError(angle)


def make_board(seed=5, tilt=0.0, faults=None, noise=1.0, low_deg=None, model=None):
    b = SimBoard(seed=seed, tilt_deg=tilt, faults=faults, low_deg=low_deg,
                 sensor_params=SensorParams(noise_scale=noise), sensor_model=model)
    b.place(90.0)
    b.advance(1000)
    calibrate(SimTable(b), b.ring_dict, log=lambda *a: None)
    b.place(90.0)
    b.advance(1500)
    while not b.marble.at_rest:   # on a tilted ring it rolls down first
        b.advance(100)
    b.advance(1500)
    return b


# Each scenario runs under the physical model (the default) and the ideal one: where the
# firmware does not yet get it right under the physical model, that run is a known failure
# (tests/conftest.py, docs/simulator.md "Known failures under the physical model").
MODELS = ("physical", "ideal")


@pytest.fixture(scope="module", params=MODELS)
def level(request):
    return make_board(model=request.param)


def flick(board, travel_deg, *, settle=True):
    """Flick for about travel_deg; returns (frame, true final angle, true travel)."""
    frame, _ = board.run_flick(speed_for_travel(board.ring_dict, travel_deg), timeout_ms=30000)
    assert frame is not None, "the board gave no verdict"
    while settle and board.marble.on_ring and not board.marble.at_rest:
        board.advance(50)
    return frame, board.marble.position_deg, board.marble.travel_deg


def assert_landing_right(board, frame, true_angle, true_travel):
    assert frame[1] == "landed", frame
    f = frame[2]
    truth = space_of(board, true_angle)
    assert truth in (str(f["sp"]), str(f.get("alt"))), (f, truth, true_angle)
    assert abs(f["trv"] / 100.0 - true_travel) < 3.0, (f, true_travel)


@pytest.mark.parametrize("travel", [150.0, -150.0])
def test_clockwise_and_anticlockwise(level, travel):
    frame, angle, trv = flick(level, travel)
    assert_landing_right(level, frame, angle, trv)
    assert (frame[2]["trv"] > 0) == (travel > 0)
    moving = [f for f in level.frames if f[1] == "moving"][-1]
    assert moving[2]["dir"] == (1 if travel > 0 else -1)


@pytest.mark.parametrize("travel", [25.0, 180.0, -180.0, 450.0, -480.0])
def test_short_half_and_multi_turn(level, travel):
    frame, angle, trv = flick(level, travel)
    assert_landing_right(level, frame, angle, trv)
    if abs(travel) > 360:
        assert abs(frame[2]["trv"]) > 36000  # more than a full turn, kept unwrapped


def test_off_the_ring(level):
    speed = 1.3 * level.marble.params.off_ring_speed_mm_s
    frame, _ = level.run_flick(-speed, timeout_ms=10000)
    assert not level.marble.on_ring
    assert frame is not None and frame[1] == "off_ring", frame
    # put back next to the 7: the board finds it again and says where
    n0 = len(level.frames)
    level.place(90.0)
    # the physical model's far-window noise makes the board take up to ~3 s to find a
    # marble set down (about 1.2 s under the ideal one): what is checked is where
    for _ in range(25):
        level.advance(200)
        if any(f[1] == "placed" for f in level.frames[n0:]):
            break
    placed = [f for f in level.frames[n0:] if f[1] == "placed"]
    assert placed and str(placed[-1][2]["sp"]) == "7"


def test_stopping_on_a_boundary(level):
    # aim the marble exactly at the boundary between two spaces
    start = level.marble.position_deg
    sp = level.ring_dict["sides"]["darts"]["spaces"]
    boundary = next(s["from_deg"] for s in sp if (s["from_deg"] - start) % 360 > 60)
    travel = (boundary - start) % 360.0
    # aim with a copy of the marble: the physics is deterministic, so a few secant steps
    # find the flick that stops on the boundary itself
    import copy

    def ends(speed):
        m = copy.deepcopy(level.marble)
        m.flick(speed)
        m.run_until_rest()
        return m.angle_deg - level.marble.angle_deg

    s0 = speed_for_travel(level.ring_dict, travel)
    s1 = s0 * 1.01
    e0, e1 = ends(s0) - travel, ends(s1) - travel
    for _ in range(8):
        if abs(e1) < 0.01 or e1 == e0:
            break
        s0, s1 = s1, s1 - e1 * (s1 - s0) / (e1 - e0)
        e0, e1 = e1, ends(s1) - travel
    level.controller.tracker.arm()
    frame, _ = level.run_flick(s1, timeout_ms=30000)
    while level.marble.on_ring and not level.marble.at_rest:
        level.advance(50)
    angle = level.marble.position_deg
    assert abs((angle - boundary + 180) % 360 - 180) < 0.05, "the physics missed the boundary"
    f = frame[2]
    left = space_of(level, boundary - 0.5)
    right = space_of(level, boundary + 0.5)
    assert "alt" in f, "a stop on a boundary must report the neighbouring space"
    assert {str(f["sp"]), str(f["alt"])} == {left, right}
    assert f["conf"] <= 99  # never sure of a stop on a boundary


@pytest.mark.parametrize("model", MODELS)
def test_tilted_ring_swings_and_is_reported(model):
    # (under the physical model this gave no verdict within 30 s until stop 24: a slow
    # marble unseen for a moment was landed blind at once; now it is followed until it
    # must have stopped)
    b = make_board(seed=11, tilt=1.0, low_deg=0.0, model=model)
    landed = 0
    for travel in (100.0, -140.0, 200.0, -90.0, 160.0):
        frame, _ = b.run_flick(speed_for_travel(b.ring_dict, travel), timeout_ms=30000)
        assert frame is not None
        at_emit = b.marble.angle_deg
        while b.marble.on_ring and not b.marble.at_rest:
            b.advance(50)
        if frame[1] != "landed":
            continue
        landed += 1
        # never declared at the turning point of a swing: it did not move on afterwards
        assert abs(b.marble.angle_deg - at_emit) < 0.5, (frame, at_emit, b.marble.angle_deg)
        truth = space_of(b, b.marble.position_deg)
        assert truth in (str(frame[2]["sp"]), str(frame[2].get("alt")))
    assert landed >= 4
    nl = b.frames_of("not_level")
    assert nl, "a ring 1 degree off level must be reported"
    low = nl[-1][2]["low"] / 100.0
    assert abs((low - 0.0 + 180) % 360 - 180) < 25, low


@pytest.mark.parametrize("dead", [[4], [4, 9]])
def test_dead_sensors(dead):
    b = make_board(seed=7, faults={i: "dead" for i in dead})
    faults = b.frames_of("sensor_fault")
    assert sorted({f[2]["id"] for f in faults}) == dead
    assert faults[-1][2]["blind"] > 0  # how much of the ring is now blind
    hb = b.frames_of("hb")[-1]
    assert hb[2]["blind"] == faults[-1][2]["blind"]
    right = blind = 0
    for travel in (60.0, -75.0, 130.0, -200.0, 95.0, 170.0, -50.0, 240.0):
        frame, angle, trv = flick(b, travel)
        if frame[1] != "landed":
            continue
        if frame[2].get("blind"):
            blind += 1
            assert frame[2]["conf"] <= 10  # a guess, and it says so
            continue
        assert_landing_right(b, frame, angle, trv)
        right += 1
    assert right >= 5


def test_high_noise():
    """Half again the default noise: landings stay right (or flagged), never a space further off."""
    b = make_board(seed=9, noise=1.5)
    n = right = 0
    after_blind = False
    for travel in (35.0, -80.0, 120.0, -160.0, 210.0, -260.0, 300.0, -45.0, 75.0, -130.0):
        frame, angle, trv = flick(b, travel)
        assert frame[1] == "landed", frame
        f = frame[2]
        n += 1
        truth = space_of(b, angle)
        if truth in (str(f["sp"]), str(f.get("alt"))):
            right += 1
        else:  # wrong: then only by a hair, across the nearest boundary
            assert abs((f["ang"] / 100.0 - angle + 180) % 360 - 180) < 1.5
        if f.get("blind"):
            # a sensor flagged noisy (1.5 times the noise) left an arc unseen: a landing
            # there names its candidates, and its travel is the board's guess over the arc
            assert truth in str(f["cands"]).split(","), f
        elif not after_blind:      # (a travel from a blind landing starts at its guess)
            assert abs(f["trv"] / 100.0 - trv) < 3.0
        after_blind = bool(f.get("blind"))
    assert right >= n - 1
