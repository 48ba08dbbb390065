"""The tracker's set-up lives in a boot-only module (ringfw.tracker_setup) that the board drops
once the tracker is built; ringfw.boot builds the tracker before the controller's modules and
hands it to the Controller. The tracker must come out the same whichever way it is made."""
import sys
from array import array
from pathlib import Path

from ringfw import geometry
from ringfw import tracker as T
from ringfw import tracker_setup

RING = geometry.loads((Path(__file__).resolve().parents[2] / "hardware" / "ring.json").read_bytes())


def _state(t):
    """A tracker's attributes, arrays and bytearrays as lists (comparable by value)."""
    out = {}
    for k, v in vars(t).items():
        out[k] = list(v) if isinstance(v, (array, bytearray)) else v
    return out


def test_tracker_init_is_the_set_up_modules():
    a = T.Tracker(RING)
    b = T.Tracker.__new__(T.Tracker)
    tracker_setup.tracker(b, RING)
    assert _state(a) == _state(b)
    assert len(vars(a)) > 100        # the set-up did run: the window, the queues, the state


def test_a_controller_given_a_tracker_equals_one_that_builds_its_own():
    from ringfw.controller import Controller
    from ringside.sim import fw_replay
    made = []
    for trk in (None, T.Tracker(RING)):
        ctl = Controller(RING, fw_replay._Clock(), fw_replay._Sensors(RING.sensor_count),
                         fw_replay._Pixels(False), fw_replay._Serial(16), fw_replay._Watchdog(),
                         None, trk)
        if trk is not None:
            assert ctl.tracker is trk
        made.append(_state(ctl.tracker))
    assert made[0] == made[1]


def test_a_tracker_can_be_built_again_after_its_set_up_was_dropped(monkeypatch):
    # the board drops ringfw.tracker_setup (board_rp2040.drop_modules) once its tracker is
    # built; anyone building another one (a test, the simulator) gets it imported again
    from ringside.sim.vl53l0x_regs import FakeI2C, fake_modules
    for name, mod in fake_modules(FakeI2C()).items():
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.delitem(sys.modules, "ringfw.board_rp2040", raising=False)
    import importlib
    import ringfw
    board = importlib.import_module("ringfw.board_rp2040")
    try:
        first = _state(T.Tracker(RING))
        assert "ringfw.tracker_setup" in sys.modules
        board.drop_modules(("ringfw.tracker_setup",))
        assert "ringfw.tracker_setup" not in sys.modules and not hasattr(ringfw, "tracker_setup")
        assert _state(T.Tracker(RING)) == first                    # imported again
    finally:
        sys.modules.pop("ringfw.board_rp2040", None)
