"""Register-level VL53L0X I2C model, a fake `machine.I2C` bus, XSHUT pins and `machine`.

The genuine `adafruit_vl53l0x.VL53L0X` driver (through `ringfw.busio_shim`) and the
board's own per-sample reads (`ringfw.board_rp2040`) talk to `VL53L0XModel` byte for byte.
The model keeps what the driver's sequences depend on:

- ID registers 0xC0/0xC1/0xC2 = 0xEE/0xAA/0x10; register banks selected by 0xFF (the
  driver writes page 1, 6 and 7 registers that share addresses with page 0 ones).
- The stop variable at 0x91 (page 1), read at init and written back before ranging.
- SPAD info: page 7 register 0x92 gives count | aperture << 7 only after the NVM fetch the
  driver starts (0x94 = 0x6B, then 0x83 = 0x00, then polling 0x83 until it turns non-zero);
  otherwise it reads 0. The reference SPAD map at 0xB0..0xB5 reads back what was written.
- Reference calibration: SYSRANGE_START (0x00) = 0x01 | vhv starts a measurement whose
  interrupt (RESULT_INTERRUPT_STATUS 0x13, bits 2..0) appears after a few polls; writing
  SYSTEM_INTERRUPT_CLEAR (0x0B) clears it. No interrupt is raised while
  SYSTEM_INTERRUPT_CONFIG_GPIO (0x0A) is 0, as on the device.
- Timing budget: the period of continuous ranging is computed from the sequence-step
  enables (0x01), VCSEL periods (0x50, 0x70) and step timeouts (0x46, 0x51-0x52,
  0x71-0x72) with ST's formula, so a budget the driver sets is the period the model runs.
- Continuous back-to-back ranging (SYSRANGE_START = 0x02): every period a new measurement
  completes; its result is latched from `source() -> (range_mm, status_code)` (or a
  `sensors.Reading`, whose signal and ambient rates then fill 0x1A/0x1C) into
  0x14 (RESULT_RANGE_STATUS, via `encode_range_status`, the inverse of `ringfw.hal.decode_range_status`), 0x16-0x17 (effective
  SPAD count), 0x1A-0x1B (signal rate, 9.7 MCPS), 0x1C-0x1D (ambient) and 0x1E-0x1F
  (range, mm, big-endian). Single-shot ranging (0x01) completes on the next poll.
- Address change: I2C_SLAVE_DEVICE_ADDRESS (0x8A) takes effect after the write.
- XSHUT: a device held in shutdown answers nothing; when XSHUT rises it boots with its
  registers reset, at 0x29.

Time is the caller's: `clock() -> int ms` (the simulator's virtual time, or a test's).

Faults, at the register level (what the master sees on the wires):
- `answers = False`: dead, it NACKs its address (every transfer raises OSError(EIO)).
- `drop_until(t)`: intermittent, it NACKs until the clock reaches t, then answers again
  with its registers as they were (a loose contact, not a reset).
- `frozen = (range_mm, status, signal_mcps, ambient_mcps)`: stuck, every measurement
  latches that one reading whatever the source says (the interrupt still comes).
- `brownout()`: its supply dipped: it restarts with its registers reset, at 0x29, its
  ranging stopped, its stop variable and SPAD info back to their defaults.
- `hold_sda(bits)`: it holds SDA low (a read cut off mid-byte): the bus (FakeI2C) fails
  every transfer until the master clocks SCL `bits` times (the device shifts its byte
  out and lets go) and then sends a STOP.
- `calibration_stuck = True` (the reference calibration interrupt never comes),
  `ranging_stuck = True` (no new results).
"""
from __future__ import annotations

import errno
import time
import types
from collections.abc import Callable, Iterable

from ringfw import busio_shim
from ringfw.hal import (STATUS_HARDWARE_FAIL, STATUS_MIN_RANGE_FAIL, STATUS_NONE,
                        STATUS_PHASE_FAIL, STATUS_SIGMA_FAIL, STATUS_SIGNAL_FAIL, STATUS_VALID)

def encode_range_status(code: int) -> int:
    """STATUS_* -> a register 0x14 value that ringfw.hal.decode_range_status decodes to it
    (host only: the board never writes the register)."""
    dev = {STATUS_VALID: 11, STATUS_SIGMA_FAIL: 11, STATUS_SIGNAL_FAIL: 4,
           STATUS_MIN_RANGE_FAIL: 8, STATUS_PHASE_FAIL: 6, STATUS_HARDWARE_FAIL: 1,
           STATUS_NONE: 0}.get(code, 0)
    return (dev << 3) | 0x01  # bit 0: measurement data ready


DEFAULT_ADDRESS = 0x29

# Registers the model gives meaning to (page 0 unless noted).
SYSRANGE_START = 0x00
SYSTEM_SEQUENCE_CONFIG = 0x01
SYSTEM_INTERRUPT_CONFIG_GPIO = 0x0A
SYSTEM_INTERRUPT_CLEAR = 0x0B
RESULT_INTERRUPT_STATUS = 0x13
RESULT_RANGE_STATUS = 0x14
MSRC_CONFIG_TIMEOUT_MACROP = 0x46
PRE_RANGE_CONFIG_VCSEL_PERIOD = 0x50
PRE_RANGE_CONFIG_TIMEOUT_MACROP_HI = 0x51
FINAL_RANGE_CONFIG_VCSEL_PERIOD = 0x70
FINAL_RANGE_CONFIG_TIMEOUT_MACROP_HI = 0x71
GPIO_HV_MUX_ACTIVE_HIGH = 0x84
I2C_SLAVE_DEVICE_ADDRESS = 0x8A
PAGE_SELECT = 0xFF

_RESET_PAGE0 = {
    0xC0: 0xEE, 0xC1: 0xAA, 0xC2: 0x10,          # model ID, module type, revision
    0x01: 0xFF,                                   # all sequence steps enabled
    0x0A: 0x00,                                   # interrupts disabled
    0x44: 0x00, 0x45: 0x20,                       # final range min count rate
    0x46: 0x25,                                   # MSRC timeout
    0x50: 0x06, 0x51: 0x00, 0x52: 0x96,           # pre-range VCSEL period, timeout
    0x60: 0x00,                                   # MSRC config control
    0x70: 0x04, 0x71: 0x01, 0x72: 0xFE,           # final range VCSEL period, timeout
    0x84: 0x11,                                   # GPIO active high
    0x8A: DEFAULT_ADDRESS,
    0xB0: 0xFF, 0xB1: 0xFF, 0xB2: 0xFF, 0xB3: 0xFF, 0xB4: 0xFF, 0xB5: 0xFF,
}


def _decode_timeout(v: int) -> int:
    """ST's "(LSByte * 2^MSByte) + 1" macro-period count."""
    return (v & 0xFF) * (1 << ((v >> 8) & 0xFF)) + 1


def _mclks_to_us(mclks: int, vcsel_pclks: int) -> int:
    macro_ns = ((2304 * vcsel_pclks * 1655) + 500) // 1000
    return ((mclks * macro_ns) + macro_ns // 2) // 1000


class VL53L0XModel:
    """One VL53L0X on an I2C bus.

    source: () -> (range_mm, status_code) with STATUS_* codes from ringfw.hal, or a
        sensors.Reading (range, status, signal_mcps, ambient_mcps, ...) from the physical
        model; called once per completed measurement.
    clock: () -> int ms; drives continuous ranging. None = the host's monotonic clock.
    spad_count, spad_aperture: the reference SPAD info the NVM holds.
    stop_variable: the value at 0x91 on page 1.
    polls_to_ready: reads of the polled register before the NVM fetch or a calibration
        completes (>= 1, so the driver's wait loops really loop).
    """

    holding = 0                      # devices (on any bus) holding one: FakeI2C's fast path
    addr_gen = 0                     # bumped on every address change: FakeI2C's lookup cache

    @property
    def address(self) -> int:
        return self._address

    @address.setter
    def address(self, a: int) -> None:
        self._address = a
        VL53L0XModel.addr_gen += 1

    def __init__(self, source: Callable[[], tuple[int, int]],
                 clock: Callable[[], int] | None = None, *, spad_count: int = 5,
                 spad_aperture: bool = True, stop_variable: int = 0x3C,
                 polls_to_ready: int = 2, name: str = ""):
        self.source = source
        self.clock = clock if clock is not None else (lambda: int(time.monotonic() * 1000))
        self.spad_count = spad_count
        self.spad_aperture = spad_aperture
        self.stop_variable = stop_variable
        self.polls_to_ready = max(1, polls_to_ready)
        self.name = name
        self.answers = True
        self.frozen = None           # stuck: the one reading every measurement latches
        self._nack_until = None      # intermittent: NACK until this clock time
        self.sda_bits = 0            # SCL pulses until a held SDA is let go (hold_sda)
        self.awaiting_stop = False   # let go of SDA, but its state machine waits for a STOP
        self.brownouts = 0
        self.boots = 0               # rising XSHUT edges (power-ons) so far
        self.calibration_stuck = False
        self.ranging_stuck = False
        self.powered = False
        self.measurements = 0        # results latched since power-on
        self.calibrations = 0        # reference calibrations completed since power-on
        self._reset()

    # ----- power (XSHUT) -----
    def power(self, on: bool) -> None:
        """XSHUT level: low = shutdown (silent), rising edge = boot at 0x29 with reset registers."""
        if on and not self.powered:
            self._reset()
            self.boots += 1
        self.powered = bool(on)

    def _reset(self) -> None:
        self.address = DEFAULT_ADDRESS
        self.page = 0
        self.regs: dict[tuple[int, int], int] = {(0, k): v for k, v in _RESET_PAGE0.items()}
        self.regs[(1, 0x91)] = self.stop_variable
        self.regs[(6, 0x83)] = 0x00
        self.regs[(7, 0x83)] = 0x00
        self.pointer = 0
        self.mode = "idle"           # idle | single | calibration | continuous
        self.irq = False
        self._polls_left = 0
        self._nvm = "idle"           # idle | fetching | done
        self._t0 = 0
        self._done = 0
        self._new_address = None
        self.measurements = 0
        self.calibrations = 0

    @property
    def online(self) -> bool:
        """Would this device acknowledge its address now?"""
        if not (self.powered and self.answers):
            return False
        if self._nack_until is not None:
            if self.clock() < self._nack_until:
                return False
            self._nack_until = None
        return True

    # ----- faults -----
    def drop_until(self, t_ms: int) -> None:
        """Intermittent: drop off the bus (NACK everything) until clock() reaches t_ms."""
        self._nack_until = t_ms

    def brownout(self) -> None:
        """The supply dipped below the device's reset level: it comes back at 0x29 with
        every register at its default and its ranging stopped (XSHUT stays high)."""
        if not self.powered:
            return
        self._reset()
        self.brownouts += 1

    def hold_sda(self, bits: int = 8) -> None:
        """Hold SDA low until the master clocks SCL `bits` times, then wait for a STOP."""
        if self.powered:
            self.sda_bits = max(1, int(bits))
            if not self.awaiting_stop:
                VL53L0XModel.holding += 1
            self.awaiting_stop = True

    @property
    def holds_bus(self) -> bool:
        """Does this device keep the bus from working (SDA low, or no STOP seen yet)?"""
        return self.awaiting_stop

    def scl_rising(self) -> None:
        """One SCL clock from the master: a held byte shifts out one more bit."""
        if self.sda_bits:
            self.sda_bits -= 1

    def bus_stop(self) -> None:
        """A STOP condition (SDA rising while SCL is high): the state machine resets,
        once the device has let go of SDA."""
        if self.sda_bits == 0 and self.awaiting_stop:
            self.awaiting_stop = False
            VL53L0XModel.holding -= 1

    # ----- registers -----
    def _get(self, reg: int) -> int:
        if reg == PAGE_SELECT:
            return self.page
        return self.regs.get((self.page, reg), 0)

    def _set(self, reg: int, val: int) -> None:
        val &= 0xFF
        if reg == PAGE_SELECT:
            self.page = val
            return
        self.regs[(self.page, reg)] = val
        if self.page == 0:
            self._write_page0(reg, val)
        elif self.page == 7:
            if reg == 0x83 and val == 0x00 and self.regs.get((7, 0x94)) == 0x6B:
                self._nvm = "fetching"
                self._polls_left = self.polls_to_ready

    def _write_page0(self, reg: int, val: int) -> None:
        if reg == SYSRANGE_START:
            if val & 0x02:
                self.mode = "continuous"
                self._t0 = self.clock()
                self._done = 0
                self.regs[(0, SYSRANGE_START)] = val & ~0x01
            elif val & 0x01:
                # 0x01 | 0x40 (VHV) or 0x01 with sequence config 0x01/0x02 = calibration
                seq = self.regs.get((0, SYSTEM_SEQUENCE_CONFIG), 0)
                self.mode = "calibration" if (val & 0x40 or seq in (0x01, 0x02)) else "single"
                self._polls_left = self.polls_to_ready
                self._t0 = self.clock()      # a single-shot range takes one timing budget
            else:
                self.mode = "idle"
        elif reg == SYSTEM_INTERRUPT_CLEAR and val & 0x01:
            self.irq = False
        elif reg == I2C_SLAVE_DEVICE_ADDRESS:
            self._new_address = val & 0x7F

    def _read_hook(self, reg: int) -> int:
        """Value of reg as the device shows it on a read, advancing polled state."""
        if self.page == 0 and reg == SYSRANGE_START:
            v = self._get(reg)
            # The start bit clears once the device has taken the command.
            self.regs[(0, SYSRANGE_START)] = v & ~0x01
            return v
        if self.page == 0 and reg == RESULT_INTERRUPT_STATUS:
            self._advance()
            cfg = self.regs.get((0, SYSTEM_INTERRUPT_CONFIG_GPIO), 0) & 0x07
            return cfg if (self.irq and cfg) else 0
        if self.page == 7 and reg == 0x83 and self._nvm == "fetching":
            self._polls_left -= 1
            if self._polls_left <= 0:
                self._nvm = "done"
                self.regs[(7, 0x83)] = 0x10
            return self.regs[(7, 0x83)]
        if self.page == 7 and reg == 0x92:
            if self._nvm != "done":
                return 0
            return (self.spad_count & 0x7F) | (0x80 if self.spad_aperture else 0)
        return self._get(reg)

    def _advance(self) -> None:
        """Complete whatever measurement is due by now (called on interrupt-status reads)."""
        if self.mode == "calibration":
            if self.calibration_stuck:
                return
            self._polls_left -= 1
            if self._polls_left <= 0:
                self.irq = True
                self.calibrations += 1
                self.mode = "idle"
        elif self.mode == "single":
            # a single shot is ready by time alone, as on the device (its period after the
            # start), however often it is asked
            if not self.ranging_stuck and (self.clock() - self._t0) * 1000 >= self.period_us():
                self._latch()
                self.mode = "idle"
        elif self.mode == "continuous" and not self.ranging_stuck:
            period = self.period_us()
            done = ((self.clock() - self._t0) * 1000) // period
            if done > self._done:
                self._done = done
                self._latch()

    def _latch(self) -> None:
        got = self.frozen if self.frozen is not None else self.source()
        range_mm, status = got[0], got[1]
        range_mm = int(range_mm) & 0xFFFF
        r = self.regs
        r[(0, RESULT_RANGE_STATUS)] = encode_range_status(status)
        spads = self.spad_count * 256
        r[(0, 0x16)], r[(0, 0x17)] = spads >> 8, spads & 0xFF
        if len(got) >= 4:
            # the physical model's rates (sensors.Reading: range, status, signal, ambient, ...)
            rate = min(0xFFFF, max(0, int(got[2] * 128 + 0.5)))       # 9.7 fixed point MCPS
            amb = min(0xFFFF, max(0, int(got[3] * 128 + 0.5)))
        else:
            rate = (12 << 7) if status == STATUS_VALID else (1 << 6)
            amb = 0x20
        r[(0, 0x1A)], r[(0, 0x1B)] = rate >> 8, rate & 0xFF
        r[(0, 0x1C)], r[(0, 0x1D)] = amb >> 8, amb & 0xFF
        r[(0, 0x1E)], r[(0, 0x1F)] = range_mm >> 8, range_mm & 0xFF
        self.irq = True
        self.measurements += 1

    # ----- what the configuration means -----
    def period_us(self) -> int:
        """Measurement timing budget implied by the registers (VL53L0X_GetMeasurementTimingBudget)."""
        g = lambda reg: self.regs.get((0, reg), 0)  # noqa: E731
        seq = g(SYSTEM_SEQUENCE_CONFIG)
        tcc, dss, msrc = seq & 0x10, seq & 0x08, seq & 0x04
        pre, final = seq & 0x40, seq & 0x80
        pre_vcsel = (g(PRE_RANGE_CONFIG_VCSEL_PERIOD) + 1) << 1
        final_vcsel = (g(FINAL_RANGE_CONFIG_VCSEL_PERIOD) + 1) << 1
        msrc_us = _mclks_to_us(g(MSRC_CONFIG_TIMEOUT_MACROP) + 1, pre_vcsel)
        pre_mclks = _decode_timeout((g(0x51) << 8) | g(0x52))
        pre_us = _mclks_to_us(pre_mclks, pre_vcsel)
        final_mclks = _decode_timeout((g(0x71) << 8) | g(0x72))
        if pre:
            final_mclks -= pre_mclks
        final_us = _mclks_to_us(final_mclks, final_vcsel)
        us = 1910 + 960
        if tcc:
            us += msrc_us + 590
        if dss:
            us += 2 * (msrc_us + 690)
        elif msrc:
            us += msrc_us + 660
        if pre:
            us += pre_us + 660
        if final:
            us += final_us + 550
        return max(us, 1000)

    def ref_spad_map(self) -> bytes:
        """The six reference SPAD enable bytes (0xB0..0xB5) as last written."""
        return bytes(self.regs.get((0, 0xB0 + k), 0) for k in range(6))

    # ----- I2C transactions -----
    def i2c_write(self, data: bytes) -> None:
        """A write transaction: first byte = register, the rest auto-increment from it."""
        data = bytes(data)
        if not data:
            return  # address probe
        reg = data[0]
        self.pointer = reg
        self._new_address = None
        for k, b in enumerate(data[1:]):
            self._set((reg + k) & 0xFF, b)
        if len(data) > 1:
            self.pointer = (reg + len(data) - 1) & 0xFF
        if self._new_address is not None:
            self.address = self._new_address
            self._new_address = None

    def write_reg(self, reg: int, val: int) -> None:
        """i2c_write(bytes((reg, val))), without the bytes."""
        self._new_address = None
        self._set(reg, val)
        self.pointer = reg
        if self._new_address is not None:
            self.address = self._new_address
            self._new_address = None

    def i2c_read(self, n: int) -> bytes:
        """A read transaction of n bytes from the register pointer, auto-incrementing."""
        out = bytearray(n)
        reg = self.pointer
        for k in range(n):
            out[k] = self._read_hook((reg + k) & 0xFF)
        self.pointer = (reg + n) & 0xFF
        return bytes(out)


class FakeI2C:
    """A `machine.I2C`-compatible bus with VL53L0X models (or anything with the same four
    members: online, address, i2c_write, i2c_read) on it.

    Devices sharing an address all take the writes and pull the reads low together (the
    wired-AND of open-drain SDA), as on a real bus. A transfer to an address nobody
    acknowledges raises OSError(EIO), as MicroPython's rp2 port does.

    The lines: SDA and SCL are open drain with pull-ups. `sda_level()` is 0 while the
    master (a GPIO driving the SDA pin) or a device (VL53L0XModel.hold_sda) pulls it low.
    While a device holds the bus, every transfer raises OSError(ETIMEDOUT) (rp2 reports a
    timeout when it cannot get the bus). `muxed` is True while the pins belong to the I2C
    block: machine.I2C(...) gives them to it, and making either pin a GPIO (machine.Pin(n,
    mode)) takes them back, so transfers fail until machine.I2C(...) is made again, as on
    the RP2040 (a pin has one function at a time). `scl_pin`/`sda_pin`: the pin numbers
    (from machine.I2C's arguments). `clears` counts SCL pulses, `stops` STOP conditions.

    transfers counts every method call that moved bytes; log keeps the last `log_size`
    (kind, address, register or -1, length) tuples.
    """

    def __init__(self, devices: Iterable = (), *, log_size: int = 4096):
        self.devices = list(devices)
        self._cache_gen = -1
        self._by_addr: dict = {}
        self.transfers = 0
        self.log: list[tuple[str, int, int, int]] = []
        self.log_size = log_size
        self.config: dict = {}
        self.muxed = True
        self.scl_pin = self.sda_pin = None
        self.scl_out = 1             # the master's GPIO levels (1 = released)
        self.sda_out = 1
        self.pulses = 0
        self.stops = 0
        self.failed = 0              # transfers that raised OSError

    # --- the lines ---
    def sda_level(self) -> int:
        if not self.sda_out:
            return 0
        for d in self.devices:
            if d.sda_bits and d.powered:
                return 0
        return 1

    def scl_level(self) -> int:
        return self.scl_out

    def drive(self, pin: int, level: int) -> None:
        """A GPIO on one of the bus pins drives it (0) or lets it go (1)."""
        level = 1 if level else 0
        if pin == self.scl_pin:
            rising = level and not self.scl_out
            self.scl_out = level
            if rising:
                self.pulses += 1
                for d in self.devices:
                    if d.sda_bits:
                        d.scl_rising()
        elif pin == self.sda_pin:
            was = self.sda_level()
            self.sda_out = level
            if level and not was and self.sda_level() and self.scl_out:
                self.stops += 1                # SDA rose while SCL was high: a STOP
                for d in self.devices:
                    d.bus_stop()

    def read_line(self, pin: int) -> int:
        return self.scl_level() if pin == self.scl_pin else self.sda_level()

    def take_pins(self) -> None:
        """A bus pin became a GPIO: the I2C block has lost it."""
        self.muxed = False

    def _check_bus(self) -> None:
        if not self.muxed:
            self.failed += 1
            raise OSError(errno.ETIMEDOUT, "the I2C pins are GPIOs (make machine.I2C again)")
        if not VL53L0XModel.holding:
            return
        for d in self.devices:
            if d.awaiting_stop:
                self.failed += 1
                raise OSError(errno.ETIMEDOUT, "bus stuck: SDA held low")

    def add(self, device: VL53L0XModel) -> None:
        self.devices.append(device)
        self._cache_gen = -1

    def _at(self, addr: int):
        self._check_bus()
        gen = VL53L0XModel.addr_gen
        if gen != self._cache_gen:
            self._by_addr = {}
            for d in self.devices:
                self._by_addr.setdefault(d.address, []).append(d)
            self._cache_gen = gen
        found = [d for d in self._by_addr.get(addr, ()) if d.online]
        if not found:
            self.failed += 1
            raise OSError(errno.EIO, "no device acknowledged address 0x%02x" % addr)
        return found

    def _note(self, kind: str, addr: int, reg: int, n: int) -> None:
        self.transfers += 1
        if not self.log_size:
            return
        self.log.append((kind, addr, reg, n))
        if len(self.log) > self.log_size:
            del self.log[: len(self.log) - self.log_size]

    def _write(self, addr: int, data: bytes) -> None:
        for d in self._at(addr):
            d.i2c_write(data)

    def _read(self, addr: int, n: int) -> bytes:
        devs = self._at(addr)
        out = bytearray(b"\xff" * n)
        for d in devs:
            got = d.i2c_read(n)
            for k in range(n):
                out[k] &= got[k]
        return bytes(out)

    # --- the machine.I2C methods ---
    def scan(self) -> list[int]:
        self._note("scan", -1, -1, 0)
        if not self.muxed or any(d.awaiting_stop for d in self.devices):
            return []
        return sorted({d.address for d in self.devices if d.online})

    def writeto(self, addr: int, buf: bytes | bytearray | memoryview, stop: bool = True) -> int:
        data = bytes(buf)
        self._note("w", addr, data[0] if data else -1, len(data))
        self._write(addr, data)
        return len(data)

    def readfrom_into(self, addr: int, buf: bytearray | memoryview, stop: bool = True) -> None:
        n = len(buf)
        self._note("r", addr, -1, n)
        buf[:] = self._read(addr, n)

    def readfrom(self, addr: int, nbytes: int, stop: bool = True) -> bytes:
        self._note("r", addr, -1, nbytes)
        return self._read(addr, nbytes)

    def writeto_mem(self, addr: int, memaddr: int, buf: bytes | bytearray | memoryview, *, addrsize: int = 8) -> None:
        self._note("wm", addr, memaddr, len(buf))
        if len(buf) == 1:                      # the per-sample path's one-byte writes
            for d in self._at(addr):
                d.write_reg(memaddr & 0xFF, buf[0])
            return
        self._write(addr, bytes((memaddr & 0xFF,)) + bytes(buf))

    def readfrom_mem_into(self, addr: int, memaddr: int, buf: bytearray | memoryview, *, addrsize: int = 8) -> None:
        n = len(buf)
        self._note("rm", addr, memaddr, n)
        devs = self._at(addr)
        if len(devs) == 1:                     # one device: no wired-AND to work out
            d = devs[0]
            d.pointer = memaddr & 0xFF
            buf[:] = d.i2c_read(n)
            return
        self._write(addr, bytes((memaddr & 0xFF,)))
        buf[:] = self._read(addr, n)

    def readfrom_mem(self, addr: int, memaddr: int, nbytes: int, *, addrsize: int = 8) -> bytes:
        self._note("rm", addr, memaddr, nbytes)
        self._write(addr, bytes((memaddr & 0xFF,)))
        return self._read(addr, nbytes)


class XShutLines:
    """Which device each GPIO's XSHUT line powers: pin number -> list of devices."""

    def __init__(self):
        self.wires: dict[int, list] = {}
        self.levels: dict[int, int] = {}

    def wire(self, pin: int, device: VL53L0XModel) -> None:
        self.wires.setdefault(pin, []).append(device)
        device.power(bool(self.levels.get(pin, 0)))

    def set(self, pin: int, level: int) -> None:
        self.levels[pin] = 1 if level else 0
        for d in self.wires.get(pin, ()):
            d.power(bool(level))


class FakeNeoPixel:
    """micropython-lib's `neopixel.NeoPixel` surface: buf (GRB bytes) and write()."""

    def __init__(self, pin: object, n: int, bpp: int = 3, timing: int = 1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.timing = timing
        self.buf = bytearray(n * bpp)
        self.frames: list[bytes] = []

    def write(self) -> None:
        self.frames.append(bytes(self.buf))


def fake_modules(bus: FakeI2C, lines: XShutLines | None = None) -> dict[str, types.ModuleType]:
    """Fake `machine`, `micropython`, `neopixel` (and the `busio`, `circuitpython_typing`
    the Adafruit libraries import for annotations) for running board_rp2040 on CPython.

    machine.I2C(...) returns `bus` (its keyword arguments land in bus.config);
    machine.Pin(n, mode, value=...) drives `lines` (XSHUT); machine.WDT(timeout=ms) records
    feeds (machine.wdts); machine.Timer records its period and callback (machine.timers);
    micropython.kbd_intr calls land in micropython.kbd_intr_calls; neopixel.NeoPixel
    objects keep every frame written (neopixel.instances). Install them with pytest's
    monkeypatch.setitem(sys.modules, name, module).
    """
    lines = lines if lines is not None else XShutLines()

    machine = types.ModuleType("machine")
    machine.lines = lines
    machine.wdts = []

    def _bus_pin(n):
        return n is not None and n in (bus.scl_pin, bus.sda_pin)

    class Pin:
        # Pin(n) without a mode leaves the pin's function alone (reading its level works
        # whatever owns it, as GPIO_IN does on the RP2040); with a mode it becomes a GPIO.
        # The I2C pins are open drain on the bus lines (FakeI2C.drive / read_line).
        IN, OUT, OPEN_DRAIN = 0, 1, 2
        PULL_UP, PULL_DOWN = 1, 2

        def __init__(self, n, mode=-1, pull=-1, *, value=None):
            self.n = n
            self.mode = mode
            self._mode(mode, value)
            if value is None and pull == Pin.PULL_UP and not _bus_pin(n) and n not in lines.levels:
                lines.levels[n] = 1     # an open input with its pull-up reads high

        def _mode(self, mode, value):
            if _bus_pin(self.n):
                if mode != -1:
                    bus.take_pins()
                    if mode == self.IN:
                        bus.drive(self.n, 1)
                if value is not None and mode != self.IN:
                    bus.drive(self.n, value)
            elif value is not None:
                lines.set(self.n, value)

        def init(self, mode=-1, pull=-1, *, value=None):
            self.mode = mode
            self._mode(mode, value)

        def value(self, v=None):
            if _bus_pin(self.n):
                if v is None:
                    return bus.read_line(self.n)
                if self.mode in (self.OUT, self.OPEN_DRAIN):
                    bus.drive(self.n, v)
                return None
            if v is None:
                return lines.levels.get(self.n, 0)
            lines.set(self.n, v)
            return None

        __call__ = value

        def on(self):
            self.value(1)

        def off(self):
            self.value(0)

    def I2C(id=0, *, scl=None, sda=None, freq=400000, timeout=50000):  # noqa: N802
        bus.config = {"id": id, "scl": getattr(scl, "n", scl), "sda": getattr(sda, "n", sda),
                      "freq": freq, "timeout": timeout}
        bus.scl_pin, bus.sda_pin = bus.config["scl"], bus.config["sda"]
        bus.muxed = True               # the pins belong to the I2C block again
        bus.scl_out = bus.sda_out = 1
        machine.i2c_inits += 1
        return bus

    class WDT:
        def __init__(self, id=0, timeout=5000):
            self.timeout = timeout
            self.feeds = 0
            machine.wdts.append(self)

        def feed(self):
            self.feeds += 1

    class Timer:
        def __init__(self, id=-1, *, mode=1, period=-1, callback=None):
            self.period = period
            self.callback = callback
            machine.timers.append(self)

    machine.timers = []
    machine.i2c_inits = 0
    machine.Pin = Pin
    machine.I2C = I2C
    machine.WDT = WDT
    machine.Timer = Timer

    micropython = types.ModuleType("micropython")
    micropython.const = lambda x: x
    micropython.kbd_intr_calls = []
    micropython.kbd_intr = micropython.kbd_intr_calls.append

    neopixel = types.ModuleType("neopixel")
    neopixel.instances = []

    def NeoPixel(pin, n, bpp=3, timing=1):  # noqa: N802
        np = FakeNeoPixel(pin, n, bpp, timing)
        neopixel.instances.append(np)
        return np

    neopixel.NeoPixel = NeoPixel

    # The Adafruit libraries import these for their type annotations only, which CPython
    # evaluates: busio.I2C is the firmware's own busio-style shim.
    busio = types.ModuleType("busio")
    busio.I2C = busio_shim.I2C
    typing_mod = types.ModuleType("circuitpython_typing")
    typing_mod.ReadableBuffer = typing_mod.WriteableBuffer = object
    return {"machine": machine, "micropython": micropython, "neopixel": neopixel,
            "busio": busio, "circuitpython_typing": typing_mod}


def fake_machine(bus: FakeI2C, lines: XShutLines | None = None) -> types.ModuleType:
    """Just the fake `machine` module (I2C -> bus, Pin -> XSHUT lines, WDT, Timer)."""
    return fake_modules(bus, lines)["machine"]
