"""The firmware in a real MicroPython VM: same bytes out as under CPython, and no
allocation in any controller step (every step runs under micropython.heap_lock())."""
import pytest

from ringside.sim import vm
from ringside.sim.board import SimBoard
from ringside.sim.physics import speed_for_travel


@pytest.fixture(scope="module")
def feed():
    """About 25 simulated seconds: boot, calibration commands, flicks both ways, an
    off-ring flick, garbage on the serial line, a dead sensor joining in."""
    b = SimBoard(seed=21, record=True)
    b.place(90.0)
    b.advance(800)
    b.send_bytes(b"MicroPython v1.24 on 2024-01-01; Raspberry Pi Pico\r\n>>> \x03\x00\xff garbage\n")
    b.send("ping")
    b.send("cal", id=3, off=40, scale=4100)
    b.send("side", name="wildwest")
    b.send("side", name="darts")
    b.send("bogus", x=1)
    b.send("px", i=57, n=6, c="00ff00")        # a run of LEDs that wraps round LED 0
    b.send_bytes(b"@9 ping #00000000\n")  # bad checksum
    for travel in (120.0, -200.0, 400.0):
        b.run_flick(speed_for_travel(b.ring_dict, travel))
        b.advance(500)
    b.run_flick(-1.4 * b.marble.params.off_ring_speed_mm_s, timeout_ms=3000)
    b.place(90.0)
    b.advance(1500)
    b.model.set_fault(5, "dead")
    b.advance(1500)
    return b


def test_cpython_replay_matches_the_live_run(feed):
    # the harness itself is faithful: replaying the recording gives what the board sent
    res = vm.run_feed_cpython(feed.ring_bytes, feed.feed_bytes(), out_cap=1 << 17)
    assert res["out"] == bytes(feed.out)


def test_micropython_emits_the_same_bytes_and_never_allocates_in_a_step(feed):
    data = feed.feed_bytes()
    cpy = vm.run_feed_cpython(feed.ring_bytes, data, out_cap=1 << 17)
    mpy = vm.run_feed(feed.ring_bytes, data, lock_heap=True, out_cap=1 << 17)
    assert mpy["stats"]["steps"] == cpy["stats"]["steps"] > 2000
    # every step - sensors, tracking, frames out, commands in - ran with the heap locked
    assert mpy["stats"]["step_allocations"] == 0
    assert mpy["out"] == cpy["out"]
    # and the same LED frames, pixel for pixel
    assert mpy["stats"]["pixel_frames"] == cpy["stats"]["pixel_frames"] > 10
    assert mpy["stats"]["pixel_sum"] == cpy["stats"]["pixel_sum"]
    kinds = {line.split(b" ")[1] for line in mpy["out"].splitlines()}
    assert {b"hello", b"hb", b"landed", b"moving", b"off_ring", b"sensor_fault", b"ack", b"nack"} <= kinds
