"""The board's bus and sensor recovery (ringfw.board_rp2040 / board_setup) on the simulated
board's register-level bus: the firmware's own code finds the fault and gets out of it.

Each test runs SimBoard(bus="register"): the Adafruit driver brings the chips up over the
fake bus, the schedule ranges them through board_rp2040.RangeSensors, and a fault is put on
a chip (sim/vl53l0x_regs). Passing means: recovered within 2 s, without a reboot, while the
other sensors kept ranging.
"""
import pytest

from ringfw.hal import STATUS_NO_ANSWER
from ringside.sim.board import SimBoard
from ringside.sim.vl53l0x_regs import DEFAULT_ADDRESS


def board(model="physical", seed=3):
    b = SimBoard(seed=seed, bus="register", sensor_model=model)
    b.place(40.0)
    b.advance(1500)
    return b


class Readings:
    """Every reading core 0 takes, per sensor: [(ms, status)]."""

    def __init__(self, b):
        self.by = {i: [] for i in range(b.model.count)}
        poll = b.sensors.poll

        def spy(now, ranges, statuses, fresh):
            n = poll(now, ranges, statuses, fresh)
            for i in range(len(fresh)):
                if fresh[i]:
                    self.by[i].append((b.now, statuses[i]))
            return n
        b.controller.sensors = spy_obj(b.sensors, spy)

    def answered(self, i, since):
        return [t for t, st in self.by[i] if t > since and st != STATUS_NO_ANSWER]

    def lost(self, i, since):
        return [t for t, st in self.by[i] if t > since and st == STATUS_NO_ANSWER]


def spy_obj(sensors, poll):
    class Spy:
        def __getattr__(self, name):
            return getattr(sensors, name)
    s = Spy()
    s.poll = poll
    return s


@pytest.mark.parametrize("model", ["physical", "ideal"])
def test_a_device_holding_sda_low_is_clocked_free_and_nothing_is_lost(model):
    b = board(model)
    rs = b.sensors.rs
    ctl = b.controller
    seen = Readings(b)
    t0 = b.now
    b.set_fault(5, "bus-stuck")
    chip = b.hw.chips[5]
    assert chip.holds_bus and b.hw.bus.sda_level() == 0
    b.advance(2000)
    assert rs.bus_clears == 1 and t0 <= rs.cleared_at <= t0 + 100
    assert not chip.holds_bus and b.hw.bus.muxed and b.hw.bus.stops >= 1
    assert b.hw.bus.pulses <= 9
    assert b.strikes[0]["back_ms"] is not None and b.strikes[0]["back_ms"] < 2000
    # the transfer that met the stuck bus was tried again once clear: no sensor was
    # reported as not answering, and every one kept ranging
    for i in range(b.model.count):
        assert not seen.lost(i, t0), i
        assert seen.answered(i, t0 + 1000), i
    assert b.controller is ctl and rs.recoveries == 0
    assert not b.frames_of("sensor_fault")


@pytest.mark.parametrize("model", ["physical", "ideal"])
def test_a_browned_out_sensor_is_given_its_address_again_through_its_xshut(model):
    b = board(model)
    rs = b.sensors.rs
    ctl = b.controller
    chips = b.hw.chips
    addr = [c.address for c in chips]
    boots = [c.boots for c in chips]
    seen = Readings(b)
    t0 = b.now
    b.set_fault(4, "brownout")
    assert chips[4].address == DEFAULT_ADDRESS
    b.advance(2000)
    assert rs.recoveries == 1 and t0 < rs.recovered_at[4] <= t0 + 2000
    assert [c.address for c in chips] == addr
    assert b.strikes[0]["back_ms"] < 2000
    assert seen.answered(4, rs.recovered_at[4])
    # only sensor 4 went through reset and the driver's set-up again; the others kept
    # ranging all along
    assert [c.boots - k for c, k in zip(chips, boots, strict=True)] == \
        [1 if i == 4 else 0 for i in range(len(chips))]
    assert chips[4].calibrations == 2                    # the driver's VHV and phase
    for i in range(b.model.count):
        if i != 4:
            assert not seen.lost(i, t0), i
            assert len(seen.answered(i, t0)) >= 4, i     # (a resting marble: focus)
    assert b.controller is ctl


def test_a_dead_sensor_is_tried_again_less_and_less_often_and_comes_back_when_it_can():
    b = board("ideal")
    rs = b.sensors.rs
    b.set_fault(7, "dead")
    b.advance(20000)
    fails = rs.recovery_fails
    # tries at about 0.25, 0.5, 1, 2, 4, 8 and 16 s (the wait doubles up to 8 s): seven in
    # 20 s, not one a round
    assert 5 <= fails <= 8
    assert not rs.ok[7] and not b.hw.chips[7].powered     # waits in reset
    assert all(rs.ok[i] for i in range(12) if i != 7)
    b.set_fault(7, None)                                  # the cable pushed back in
    b.advance(9000)
    assert rs.ok[7] and rs.recoveries == 1 and b.hw.chips[7].address == rs.addresses[7]


def test_an_intermittent_sensor_is_back_after_each_stretch():
    b = board("ideal")
    rs = b.sensors.rs
    seen = Readings(b)
    b.set_fault(2, "intermittent")
    b.advance(30000)
    strikes = [s for s in b.strikes if s["sensor"] == 2]
    assert len(strikes) >= 3
    # each NACK stretch lasts 0.15-1.5 s; the readings are back within 2 s of it ending
    for s in strikes[:-1]:
        assert s["back_ms"] is not None and s["back_ms"] < 1500 + 2000, s
    assert seen.answered(2, b.now - 3000) or b.strikes[-1]["back_ms"] is None
    assert rs.io_errors > 0


def test_nothing_failing_costs_nothing():
    b = board("ideal")
    rs = b.sensors.rs
    b.advance(3000)
    assert rs.io_errors == 0 and rs.bus_clears == 0 and rs.recoveries == 0
    assert not rs._any and not rs._down
