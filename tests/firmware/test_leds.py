"""LED scenes (ringfw.leds) on the simulated board, the power cap on every frame, and the
proof that the per-step path (LED rendering, timer, frame encoding, command handling)
allocates nothing: a recorded feed with every command replays in the MicroPython VM under
heap_lock with zero allocations and the same output bytes as CPython."""
import json

import pytest

from ringfw import leds as L
from ringfw import power, ringfile
from ringfw.wire import Encoder
from ringside.link.frames import encode
from ringside.sim import vm
from ringside.sim.board import SimBoard
from boardtest import capture, cmd, rgb


def _board(**kw):
    b = SimBoard(seed=6, **kw)
    b.advance(1000)  # the marble at 0 deg is found and settles
    return b


_cmd = cmd
_capture = capture
_rgb = rgb


def _leds_of_space(b, side_name, space_id):
    ring = b.fw_ring
    side = ringfile.side(ring, side_name)
    k = ringfile.space_index(side, space_id)
    n = ring.led_count
    out = []
    for i in range(n):
        a = (ring.led0 + ring.led_dir * i * 36000 // n) % 36000
        if side.space_at(a) == k:
            out.append(i)
    return out


def _hue(rgb):
    """A colour's channels reduced to which are on: e.g. (1, 1, 0) for yellow-ish."""
    m = max(rgb)
    return tuple(int(v * 2 >= m and m > 0) for v in rgb)


def test_paint_by_label_colours_every_space_with_that_label():
    b = _board()
    _cmd(b, "side", name="wildwest")
    _cmd(b, "paint", c="ff0000", label="Gold")
    _cmd(b, "paint", c="0000ff", label="Money_bag")  # spaces in labels are '_' on the wire
    b.advance(60)
    ring = json.loads(b.ring_bytes)
    gold = [s["id"] for s in ring["sides"]["wildwest"]["spaces"] if s["label"] == "Gold"]
    bags = [s["id"] for s in ring["sides"]["wildwest"]["spaces"] if s["label"] == "Money bag"]
    assert len(gold) == 4 and len(bags) == 2
    red = {i for sp in gold for i in _leds_of_space(b, "wildwest", sp)}
    blue = {i for sp in bags for i in _leds_of_space(b, "wildwest", sp)}
    frame = b.pixels.frame
    for i in range(60):
        r, g, bl = _rgb(frame, i)
        if i in red:
            assert r > 0 and g == bl == 0
        elif i in blue:
            assert bl > 0 and r == g == 0
        else:
            assert (r, g, bl) == (0, 0, 0)


def test_paint_by_id_ground_and_unpaint():
    b = _board()
    _cmd(b, "paint", c="green", all=1)
    _cmd(b, "paint", c="ff0000", sp="20")
    b.advance(60)
    twenty = set(_leds_of_space(b, "darts", "20"))
    frame = b.pixels.frame
    assert all(_hue(_rgb(frame, i)) == ((1, 0, 0) if i in twenty else (0, 1, 0)) for i in range(60))
    _cmd(b, "paint", c="off", sp="20")  # off: the ground shows through again
    b.advance(60)
    assert all(_hue(_rgb(b.pixels.frame, i)) == (0, 1, 0) for i in range(60))
    _cmd(b, "clear")
    b.advance(60)
    assert not any(b.pixels.frame)


def test_a_new_side_starts_with_unpainted_spaces():
    b = _board()
    _cmd(b, "paint", c="red", sp="20")
    _cmd(b, "side", name="wildwest")
    b.advance(60)
    assert not any(b.pixels.frame)


def test_player_indicator_is_an_arc_that_breathes():
    b = _board()
    shown = _capture(b)
    _cmd(b, "player", c="00ff00", at=27000, w=3)
    b.advance(2100)
    ring = b.fw_ring
    centre = ring.led_at(27000)
    arc = {(centre - 1) % 60, centre, (centre + 1) % 60}
    levels = set()
    for _, f in shown[-60:]:
        lit = {i for i in range(60) if any(_rgb(f, i))}
        assert lit == arc
        levels.add(_rgb(f, centre)[1])
    assert len(levels) >= 3  # it breathes
    # default place: the side's start space
    _cmd(b, "player", c="blue")
    b.advance(60)
    start = set(_leds_of_space(b, "darts", "7"))
    lit = {i for i in range(60) if any(_rgb(b.pixels.frame, i))}
    assert lit & start


def test_landing_pulses_the_landed_space_then_the_scene_returns():
    b = _board()
    _cmd(b, "paint", c="101010", all=1)
    shown = _capture(b)
    fr, _ = b.run_flick(900)
    assert fr is not None and fr[1] == "landed"
    t_land, sp = fr[0], fr[2]["sp"]
    space = _leds_of_space(b, "darts", str(sp))
    b.advance(2000)
    during = [f for t, f in shown if t_land < t < t_land + 1400]
    i = space[len(space) // 2]
    levels = {_rgb(f, i) for f in during}
    assert len(levels) >= 3  # it pulses
    others = [j for j in range(60) if j not in space and j % 10 == 0]
    final = b.pixels.frame
    # only the landed space changes; afterwards it is back to the ground colour
    assert all(_rgb(f, j) == _rgb(final, j) for f in during[12:] for j in others)
    assert _rgb(final, i) == _rgb(final, others[0]) != (0, 0, 0)


@pytest.mark.parametrize("model", ("physical", "ideal"))
def test_trail_follows_the_marble_while_it_moves(model):
    b = _board(sensor_model=model)
    _cmd(b, "fx", pulse=0)
    ring = b.fw_ring
    seen = 0
    near = 0
    b.flick(900)
    for _ in range(150):
        b.advance(20)
        if not b.controller.tracker.moving():
            continue
        f = b.pixels.frame
        lit = [i for i in range(60) if any(_rgb(f, i))]
        if not lit:
            continue
        seen += 1
        head = max(lit, key=lambda i: sum(_rgb(f, i)))
        true = ring.led_at(int(b.marble.position_deg * 100) % 36000)
        d = min((head - true) % 60, (true - head) % 60)
        near += d <= 2
        assert len(lit) <= 12  # a short tail, not a painted ring
    assert seen >= 20 and near >= 0.8 * seen
    while not b.marble.at_rest:
        b.advance(50)
    for _ in range(150):     # once the board sees the stop (the physical model: seconds)
        if not b.controller.tracker.moving():
            break
        b.advance(100)
    b.advance(1000)
    assert not any(b.pixels.frame)  # the trail fades once it stops


def test_error_flash_on_an_invalid_flick_and_fx_switch():
    b = _board()
    _cmd(b, "arm", dir="cw", min=100)
    shown = _capture(b)
    fr, _ = b.run_flick(900)  # ccw: wrong direction
    b.advance(1000)
    v = b.frames_of("verdict")[-1][2]
    assert v["ok"] == 0 and v["why"] == "wrong_direction"
    t = fr[0]
    flash = [f for tt, f in shown if t <= tt < t + 720]
    all_red = [f for f in flash if all(_hue(_rgb(f, i)) == (1, 0, 0) for i in range(60))]
    dark_or_scene = [f for f in flash if f not in all_red]
    assert len(all_red) >= 6 and dark_or_scene  # blinks: red, then not, three times
    _cmd(b, "fx", flash=0)
    _cmd(b, "arm", dir="cw", min=100)
    n = len(shown)
    b.run_flick(900)
    b.advance(800)
    assert not any(all(_hue(_rgb(f, i)) == (1, 0, 0) for i in range(60)) for _, f in shown[n:])


def test_explicit_flash_and_pulse_commands():
    b = _board()
    shown = _capture(b)
    _cmd(b, "flash", c="blue", n=2)
    b.advance(600)
    blue = [f for _, f in shown if all(_rgb(f, i)[2] > 0 for i in range(60))]
    assert blue
    _cmd(b, "pulse", sp="20", c="green")
    b.advance(300)
    lit = {i for i in range(60) if any(_rgb(b.pixels.frame, i))}
    assert lit == set(_leds_of_space(b, "darts", "20"))


def test_brightness_scales_and_the_power_cap_bounds_every_frame():
    b = _board()
    ring = json.loads(b.ring_bytes)
    cap = power.brightness_cap(ring)
    shown = _capture(b)
    _cmd(b, "paint", c="ffffff", all=1)
    _cmd(b, "player", c="ffffff", w=60)
    _cmd(b, "timer_start", s=8, c="ffffff")
    b.advance(200)
    full = b.pixels.frame
    assert max(full) == cap  # full white at brightness 255 is exactly the cap
    _cmd(b, "bright", v=128)
    b.advance(200)
    assert max(b.pixels.frame) == L.scale(255, L.scale(128, cap))
    _cmd(b, "bright", v=255)
    b.run_flick(700)
    b.advance(9000)
    led = ring["leds"]
    budget_ua = led["budget_ma"] * 1000
    for _, f in shown:
        assert max(f) <= cap
        # the current this frame draws, from the datasheet figures in ring.json
        ua = (led["board_ma"] + led["count"] * led["idle_ma_per_led"]) * 1000 \
            + sum(f) * led["ma_per_channel"] * 1000 // 255
        assert ua <= budget_ua


def test_brightness_zero_turns_everything_off():
    b = _board()
    _cmd(b, "paint", c="white", all=1)
    _cmd(b, "bright", v=0)
    b.advance(100)
    assert not any(b.pixels.frame)


def test_frames_are_shown_only_when_something_changes_or_moves():
    b = _board()
    shown = _capture(b)
    b.advance(3000)
    assert shown == []  # an idle ring is not redrawn
    _cmd(b, "paint", c="red", sp="7")
    b.advance(3000)
    assert len(shown) == 1
    _cmd(b, "timer_start", s=2)
    b.advance(1000)
    gaps = [t2 - t1 for (t1, _), (t2, _) in zip(shown[1:], shown[2:], strict=False)]
    assert gaps and min(gaps) >= 25  # at most 40 frames a second


# ----- the per-step path allocates nothing (MicroPython VM) -----
def _scripted_feed():
    """A SimBoard recording with every link command, bad input, a flick and a timer expiry."""
    b = SimBoard(seed=2, record=True)
    b.advance(800)
    e = Encoder()
    script = [
        ("ping", {}), ("hello", {"proto": 1}), ("side", {"name": "wildwest"}),
        ("paint", {"c": "ff8000", "label": "Gold"}), ("paint", {"c": "blue", "sp": "bank-1"}),
        ("paint", {"c": "101010", "all": 1}), ("paint", {"c": "off", "sp": "bank-1"}),
        ("player", {"c": "green", "w": 5}), ("bright", {"v": 200}),
        ("fx", {"pulse": 1, "trail": 1, "flash": 1}), ("timer_start", {"s": 2, "c": "00ffff"}),
        ("arm", {"dir": "cw", "min": 9000}), ("status", {}), ("raw", {"on": 0}),
        ("cal", {"id": 1, "off": 3, "scale": 4100}), ("timer_pause", {}), ("timer_resume", {}),
        ("flash", {"c": "red", "n": 2}), ("pulse", {"sp": "gold-1"}), ("disarm", {}),
        ("arm", {"dir": "ccw", "min": 4500}),
        # refused: each NACK reason path
        ("bogus", {}), ("sim_flick", {"speed": 800, "dir": "cw"}), ("paint", {"c": "zz", "sp": "x"}),
        ("bright", {"v": 999}), ("side", {}), ("hello", {"proto": 7}), ("paint", {"c": "red"}),
        ("timer_start", {"ms": 0, "total": 3000}), ("timer_cancel", {}), ("timer_pause", {}),
        ("timer_start", {"ms": 1500, "c": "yellow"}), ("calsave", {}),
    ]
    for kind, fields in script:
        b.send_bytes(encode(e, kind, fields))
        b.advance(24)
    b.send_bytes(b"junk\r\nMicroPython v1.22 on 2024; Raspberry Pi Pico\r\n>>> @12 ping #00000000\n@3 pi")
    b.send_bytes(b"@1 " + b"x" * 300 + b"\n")
    b.advance(200)
    b.advance(2000)  # the timer expires
    fr, _ = b.run_flick(900)
    b.advance(1800)  # pulse, trail fade, verdict, heartbeats
    return b, fr


@pytest.fixture(scope="module")
def scripted():
    return _scripted_feed()


def test_scripted_feed_exercises_everything(scripted):
    b, fr = scripted
    kinds = {k for _, k, _ in b.frames}
    assert {"ack", "nack", "hello", "hb", "timer_expired", "landed", "verdict"} <= kinds
    whys = {f["why"] for _, k, f in b.frames if k == "nack"}
    assert {"unknown_command", "simulated_board_only", "unknown_value", "out_of_range",
            "missing_argument", "protocol_too_new", "say_sp_label_or_all", "no_timer",
            "bad_checksum"} <= whys
    assert b.controller.leds.frames > 50
    assert b.controller.errors == 0


def test_per_step_path_allocates_nothing_and_matches_cpython_byte_for_byte(scripted):
    b, _ = scripted
    feed = b.feed_bytes()
    locked = vm.run_feed(b.ring_bytes, feed, lock_heap=True)
    assert locked["stats"]["step_allocations"] == 0, locked["stats"]
    assert locked["stats"]["errors"] == 0
    ref = vm.run_feed_cpython(b.ring_bytes, feed)
    assert ref["stats"]["steps"] == locked["stats"]["steps"] == len(b.recording)
    assert locked["out"] == ref["out"]
    assert b"timer_expired" in ref["out"] and b"verdict" in ref["out"] and b"nack" in ref["out"]


def test_px_paints_runs_of_leds_over_the_spaces_and_clear_removes_them():
    b = _board()
    _cmd(b, "paint", c="blue", all=1)
    _cmd(b, "px", i=58, n=4, c="ff0000")      # wraps: 58, 59, 0, 1
    b.advance(60)
    f = b.pixels.frame
    red = {i for i in range(60) if _hue(_rgb(f, i)) == (1, 0, 0)}
    assert red == {58, 59, 0, 1}
    assert all(_hue(_rgb(f, i)) == (0, 0, 1) for i in range(60) if i not in red)
    _cmd(b, "px", i=0, n=1, c="off")          # off: the colour below shows again
    b.advance(60)
    assert _hue(_rgb(b.pixels.frame, 0)) == (0, 0, 1)
    _cmd(b, "clear")
    b.advance(60)
    assert not any(b.pixels.frame)


def test_px_refuses_an_led_that_is_not_there():
    b = _board()
    n0 = len(b.frames)
    b.send("px", i=60, n=1, c="red")
    b.advance(20)
    nack = [f for f in b.frames[n0:] if f[1] == "nack"]
    assert nack and "range" in str(nack[0][2].get("why", "")) + str(nack[0][2])
