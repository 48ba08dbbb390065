"""The board's turn timer (ringfw.timer) and how the ring shows it.

The board owns the timing: once started, the timer ends on time whatever the host does
(here the host sends nothing and reads nothing until it is over), reports `timer_expired`
once, and keeps its expired display until the host says otherwise.
"""
import pytest

from ringfw import timer as T
from ringfw.compat import TICKS_MASK, tadd
from ringside.sim.board import SimBoard
from boardtest import capture, cmd, rgb

TOP_CD = 9000


# ----- the Timer on its own -----
def test_start_counts_down_and_expires_exactly_once():
    t = T.Timer()
    t.start(1000, 3000, 0, 0x00FF00, False)
    assert t.state == T.RUNNING and t.total == 3000
    assert t.remaining(2000) == 2000
    assert not t.tick(3999)
    assert t.tick(4000)
    assert t.state == T.EXPIRED and t.late == 0
    assert not t.tick(4004) and not t.tick(9000)
    assert t.remaining(5000) == 0


def test_pause_freezes_and_resume_continues():
    t = T.Timer()
    t.start(0, 10000, 0, 1, False)
    assert t.pause(4000)
    assert t.remaining(4000) == 6000 and t.remaining(60000) == 6000
    assert not t.tick(60000)
    assert t.pause(61000)  # pausing a paused timer is harmless
    assert t.resume(70000)
    assert t.remaining(71000) == 5000
    assert t.tick(76000) and t.late == 0


def test_cancel_and_commands_without_a_timer():
    t = T.Timer()
    assert not t.pause(0) and not t.resume(0)
    t.start(0, 5000, 0, 1, False)
    t.cancel()
    assert t.state == T.IDLE and not t.tick(10000)


def test_zero_length_start_shows_expired_without_an_event():
    t = T.Timer()
    t.start(0, 0, 30000, 1, False)
    assert t.state == T.EXPIRED and not t.tick(1)


def test_restored_timer_keeps_its_total():
    t = T.Timer()
    t.start(0, 12000, 30000, 1, False)
    assert t.total == 30000 and t.remaining(2000) == 10000


def test_timer_works_across_the_tick_wrap():
    t = T.Timer()
    start = TICKS_MASK - 1000
    t.start(start, 5000, 0, 1, False)
    assert t.remaining(tadd(start, 4000)) == 1000
    assert not t.tick(tadd(start, 4999))
    assert t.tick(tadd(start, 5000))


# ----- on the board -----
def _board(**kw):
    b = SimBoard(seed=4, **kw)
    b.advance(1000)  # the marble lying at 0 deg is found and settles (no trail any more)
    return b


_cmd = cmd
_capture = capture
_rgb = rgb


def _sweep_order(b):
    """LED indices in sweep order: clockwise from 12 o'clock."""
    ring = b.fw_ring
    n = ring.led_count
    ang = [(ring.led0 + ring.led_dir * i * 36000 // n) % 36000 for i in range(n)]
    return sorted(range(n), key=lambda i: (TOP_CD - ang[i]) % 36000)


def test_timer_expires_on_time_while_the_host_says_nothing():
    b = _board()
    t0 = _cmd(b, "timer_start", s=3, c="green")[0]  # the step that started it
    b.advance(5000)  # the host neither sends nor reads anything
    ev = b.frames_of("timer_expired")
    assert len(ev) == 1
    t, _, f = ev[0]
    assert f["total"] == 3000
    assert 0 <= (t - t0) - 3000 <= b.loop_ms + 8  # within one loop of the deadline
    assert f["late"] <= b.loop_ms


def test_heartbeats_carry_the_time_left():
    b = _board()
    _cmd(b, "timer_start", ms=10000)
    b.advance(2500)
    hbs = [f for t, k, f in b.frames if k == "hb" and "tmr" in f]
    assert hbs and all(0 < f["tmr"] <= 10000 for f in hbs)
    assert [f["tmr"] for f in hbs] == sorted((f["tmr"] for f in hbs), reverse=True)
    _cmd(b, "timer_pause")
    b.advance(1100)
    hb = b.frames_of("hb")[-1][2]
    assert hb["tps"] == 1 and 7000 <= hb["tmr"] <= 8000


def test_pause_and_resume_shift_the_expiry():
    b = _board()
    t0 = _cmd(b, "timer_start", s=2)[0]
    b.advance(500)
    _cmd(b, "timer_pause")
    b.advance(3000)
    assert not b.frames_of("timer_expired")
    _cmd(b, "timer_resume")
    b.advance(2000)
    (t, _, _), = b.frames_of("timer_expired")
    paused = 3000 + 8  # the pause, and the 8 ms the pause command waited for its ack
    assert abs((t - t0) - (2000 + paused)) <= b.loop_ms


def test_cancel_stops_it_and_clears_the_sweep():
    b = _board()
    _cmd(b, "timer_start", s=10, c="blue")
    b.advance(300)
    assert any(_rgb(b.pixels.frame, i)[2] for i in range(60))
    _cmd(b, "timer_cancel")
    b.advance(2000)
    assert not b.frames_of("timer_expired")
    assert not any(b.pixels.frame)


def test_sweep_runs_down_clockwise_from_twelve_with_the_last_5_s_red():
    b = _board()
    order = _sweep_order(b)
    shown = _capture(b)
    _cmd(b, "timer_start", s=20, c="00ff00")
    b.advance(60)
    first = shown[-1][1]
    # the whole ring is lit: the first quarter of the sweep (5 s of 20) red, the rest green
    for k, i in enumerate(order):
        r, g, bl = _rgb(first, i)
        if k < 15:
            assert r > 0 and g == 0, (k, i, (r, g, bl))
        elif k > 15:
            assert g > 0 and r == 0, (k, i, (r, g, bl))
    lit_counts = []
    for _ in range(15):
        b.advance(1000)
        lit_counts.append(sum(1 for i in range(60) if any(_rgb(b.pixels.frame, i))))
    # it shrinks back towards 12 o'clock: the lit LEDs are always a prefix of the sweep
    assert lit_counts == sorted(lit_counts, reverse=True) and lit_counts[-1] < lit_counts[0]
    frame = b.pixels.frame
    lit = [k for k, i in enumerate(order) if any(_rgb(frame, i))]
    assert lit == list(range(len(lit)))
    # with 5 s left only the red part remains, and it blinks
    b.advance(1200)
    recent = [f for t, f in shown if t > b.now - 1000]
    assert any(not any(f) for f in recent) and any(any(f) for f in recent)
    for f in recent:
        assert all(_rgb(f, i)[1] == 0 for i in range(60))  # no green left


def test_expired_timer_keeps_its_display_until_told_otherwise():
    b = _board()
    order = _sweep_order(b)
    _cmd(b, "timer_start", s=1, c="green")
    b.advance(1500)
    assert b.frames_of("timer_expired")
    shown = _capture(b)
    frame = b.pixels.frame
    b.advance(5000)
    assert b.pixels.frame == frame  # unchanged for 5 s
    red = [k for k, i in enumerate(order) if _rgb(frame, i)[0] > 0]
    assert red and red == list(range(len(red)))  # the last-5-s part stays lit red
    # a 1 s timer's warning part is the whole ring
    assert len(red) == 60
    assert len(b.frames_of("timer_expired")) == 1
    _cmd(b, "timer_cancel")
    b.advance(100)
    assert not any(b.pixels.frame) and shown


def test_timer_without_show_counts_but_leaves_the_leds_alone():
    b = _board()
    _cmd(b, "paint", c="blue", all=1)
    b.advance(100)
    painted = b.pixels.frame
    _cmd(b, "timer_start", s=1, show=0)
    b.advance(1500)
    assert b.frames_of("timer_expired")
    assert b.pixels.frame == painted


def test_a_new_start_replaces_a_running_timer():
    b = _board()
    _cmd(b, "timer_start", s=1)
    b.advance(500)
    _cmd(b, "timer_start", s=2)
    b.advance(1500)
    assert not b.frames_of("timer_expired")
    b.advance(600)
    assert len(b.frames_of("timer_expired")) == 1


def test_zero_length_start_shows_expired_and_sends_no_event():
    b = _board()
    _cmd(b, "timer_start", ms=0, total=30000)
    b.advance(500)
    assert not b.frames_of("timer_expired")
    assert any(_rgb(b.pixels.frame, i)[0] for i in range(60))


@pytest.mark.parametrize("total_s", [1, 30, 600, 86400])
def test_sweep_fraction_has_no_large_integers(total_s):
    """_frac16 keeps every product below 2**30 (small ints on the board)."""
    from ringfw.leds import _frac16
    total = total_s * 1000
    prev = None
    for rem in (0, 1, total // 3, total // 2, total - 1, total):
        v = _frac16(rem, total, 60)
        assert 0 <= v <= 60 * 16
        if prev is not None:
            assert v >= prev
        prev = v
    assert _frac16(total, total, 60) == 960 and _frac16(0, total, 60) == 0
