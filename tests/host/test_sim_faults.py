"""The simulated I2C bus's faults, at the register level: what a master sees on the wires.

Each fault kind of sim/vl53l0x_regs (and SimBoard.set_fault's routing) is checked by its
symptom alone, through the same machine.I2C / machine.Pin calls the firmware makes.
"""
import errno

import pytest

from ringfw import hal
from ringside.sim.board import FAULT_KINDS, SimBoard
from ringside.sim.vl53l0x_regs import (DEFAULT_ADDRESS, FakeI2C, VL53L0XModel, XShutLines,
                                       fake_modules)

SDA, SCL = 0, 1


class Clock:
    def __init__(self):
        self.t = 1000

    def __call__(self):
        return self.t


def rig(n=2):
    clock = Clock()
    readings = [[(100 + 10 * i, hal.STATUS_VALID)] for i in range(n)]
    chips = [VL53L0XModel(lambda i=i: readings[i][0], clock=clock) for i in range(n)]
    bus = FakeI2C(chips)
    lines = XShutLines()
    for i, c in enumerate(chips):
        lines.wire(10 + i, c)
    machine = fake_modules(bus, lines)["machine"]
    i2c = machine.I2C(0, scl=machine.Pin(SCL), sda=machine.Pin(SDA))
    for i in range(n):                     # power each up alone and move it off 0x29
        lines.set(10 + i, 1)
        i2c.writeto_mem(DEFAULT_ADDRESS, 0x8A, bytes((0x30 + i,)))
    return clock, chips, bus, machine, i2c, readings


def single_range(i2c, addr, clock):
    """Start a single-shot range, let it complete, read the 12-bit range (0x1E-0x1F)."""
    i2c.writeto_mem(addr, 0x0A, b"\x04")   # interrupt on new sample
    i2c.writeto_mem(addr, 0x00, b"\x01")
    clock.t += 40
    for _ in range(5):
        if i2c.readfrom_mem(addr, 0x13, 1)[0] & 0x07:
            break
    r = i2c.readfrom_mem(addr, 0x1E, 2)
    i2c.writeto_mem(addr, 0x0B, b"\x01")
    return (r[0] << 8) | r[1]


def test_the_rig_ranges():
    clock, chips, bus, machine, i2c, readings = rig()
    assert i2c.scan() == [0x30, 0x31]
    assert single_range(i2c, 0x30, clock) == 100
    assert single_range(i2c, 0x31, clock) == 110


def test_dead_nacks_every_transfer_and_leaves_the_scan():
    clock, chips, bus, machine, i2c, _ = rig()
    chips[0].answers = False
    with pytest.raises(OSError) as e:
        i2c.readfrom_mem(0x30, 0xC0, 1)
    assert e.value.errno == errno.EIO
    assert i2c.scan() == [0x31]
    assert single_range(i2c, 0x31, clock) == 110      # the other one is untouched


def test_stuck_reads_one_value_whatever_the_source_says():
    clock, chips, bus, machine, i2c, readings = rig()
    chips[0].frozen = (321, hal.STATUS_VALID, 5.0, 0.1)
    got = set()
    for r in (50, 150, 250):
        readings[0][0] = (r, hal.STATUS_VALID)
        got.add(single_range(i2c, 0x30, clock))
    assert got == {321}
    chips[0].frozen = None
    assert single_range(i2c, 0x30, clock) == 250


def test_intermittent_nacks_for_a_stretch_then_answers_as_before():
    clock, chips, bus, machine, i2c, _ = rig()
    i2c.writeto_mem(0x30, 0x46, b"\x33")              # a setting it must keep
    t0 = clock.t
    chips[0].drop_until(t0 + 500)
    for dt in (0, 200, 499):
        clock.t = t0 + dt
        with pytest.raises(OSError):
            i2c.readfrom_mem(0x30, 0x46, 1)
    clock.t = t0 + 500
    assert i2c.readfrom_mem(0x30, 0x46, 1) == b"\x33"  # back at its address, unreset
    assert chips[0].address == 0x30


def test_brownout_comes_back_at_0x29_with_default_registers_and_ranging_stopped():
    clock, chips, bus, machine, i2c, _ = rig()
    i2c.writeto_mem(0x30, 0x46, b"\x33")
    i2c.writeto_mem(0x30, 0x0A, b"\x04")
    i2c.writeto_mem(0x30, 0x00, b"\x02")              # continuous ranging
    chips[0].brownout()
    with pytest.raises(OSError):
        i2c.readfrom_mem(0x30, 0xC0, 1)
    assert i2c.readfrom_mem(DEFAULT_ADDRESS, 0xC0, 1) == b"\xee"
    assert i2c.readfrom_mem(DEFAULT_ADDRESS, 0x46, 1) == b"\x25"   # the reset value
    assert i2c.readfrom_mem(DEFAULT_ADDRESS, 0x0A, 1) == b"\x00"
    clock.t += 500
    assert i2c.readfrom_mem(DEFAULT_ADDRESS, 0x13, 1) == b"\x00"   # no ranging
    assert chips[0].mode == "idle" and chips[0].powered
    assert single_range(i2c, 0x31, clock) == 110


def test_bus_stuck_fails_every_transfer_until_scl_is_clocked_and_a_stop_sent():
    clock, chips, bus, machine, i2c, _ = rig()
    chips[1].hold_sda(3)
    sda_in = machine.Pin(SDA)                           # no mode: the I2C block keeps it
    assert sda_in.value() == 0
    for addr in (0x30, 0x31, DEFAULT_ADDRESS):
        with pytest.raises(OSError) as e:
            i2c.readfrom_mem(addr, 0xC0, 1)
        assert e.value.errno == errno.ETIMEDOUT
    assert i2c.scan() == []
    # the master takes the pins: now the I2C block cannot use them at all
    pin = machine.Pin
    scl = pin(SCL, pin.OPEN_DRAIN, value=1)
    sda = pin(SDA, pin.IN, pin.PULL_UP)
    for _ in range(2):
        scl.value(0)
        scl.value(1)
    assert sda.value() == 0                             # two clocks: still held
    # a STOP while it still holds SDA does nothing
    sda.init(pin.OPEN_DRAIN, value=0)
    sda.value(1)
    assert sda.value() == 0 and bus.stops == 0
    scl.value(0)
    scl.value(1)
    assert sda.value() == 1                             # the third clock: let go
    i2c = machine.I2C(0, scl=pin(SCL), sda=pin(SDA))    # without a STOP: still wedged
    with pytest.raises(OSError):
        i2c.readfrom_mem(0x30, 0xC0, 1)
    scl = pin(SCL, pin.OPEN_DRAIN, value=1)
    sda = pin(SDA, pin.OPEN_DRAIN, value=0)
    sda.value(1)                                        # STOP: SDA rises, SCL high
    assert bus.stops == 1
    with pytest.raises(OSError):                        # the pins are still GPIOs
        i2c.readfrom_mem(0x30, 0xC0, 1)
    i2c = machine.I2C(0, scl=pin(SCL), sda=pin(SDA))
    assert i2c.readfrom_mem(0x30, 0xC0, 1) == b"\xee"
    assert single_range(i2c, 0x31, clock) == 110


@pytest.mark.parametrize("model", ["physical", "ideal"])
def test_sim_board_routes_each_fault_kind(model):
    b = SimBoard(seed=2, bus="register", sensor_model=model)
    chips = b.hw.chips
    b.set_fault(1, "dead")
    b.set_fault(2, "stuck")
    b.set_fault(3, "noisy")
    b.set_fault(4, "misaimed")
    assert not chips[1].online and chips[2].frozen[0] == b.model.stuck_mm[2]
    assert b.model.faults[3] == "noisy" and "misaimed" in b.model.mount_faults[4]
    b.set_fault(5, "brownout")
    assert chips[5].address == DEFAULT_ADDRESS and chips[5].brownouts == 1
    b.set_fault(6, "bus-stuck")
    assert chips[6].holds_bus
    b.set_fault(7, "intermittent")
    assert not chips[7].online
    assert set(b.faults) == {1, 2, 3, 4, 5, 6, 7}
    for i in range(1, 8):
        b.set_fault(i, "ok")
    assert chips[1].online and chips[2].frozen is None and b.model.faults[3] is None
    assert not b.model.mount_faults[4] and not b._events and not b.faults
    with pytest.raises(ValueError, match="unknown sensor fault"):
        b.set_fault(0, "melted")
    assert "bus-stuck" in FAULT_KINDS


def test_the_direct_bus_has_only_the_sensor_models_faults():
    b = SimBoard(seed=2, sensor_model="physical", bus="direct")
    b.set_fault(3, "dead")
    assert b.model.faults[3] == "dead"
    with pytest.raises(ValueError, match="register-level bus"):
        b.set_fault(3, "brownout")


def test_faults_that_come_and_go_strike_again_from_the_seed():
    def strikes(seed):
        b = SimBoard(seed=seed, bus="register", sensor_model="ideal")
        b.set_fault(3, "brownout")
        b.set_fault(5, "intermittent")
        b.advance(31000)
        return [(s["sensor"], s["at_ms"]) for s in b.strikes]
    a = strikes(4)
    assert a == strikes(4)                     # replays exactly
    # a brownout at once (then every 15-45 s), NACK stretches every 3-12 s
    assert a[0] == (3, 0) and len([s for s in a if s[0] == 5]) >= 3
    assert a != strikes(5)
