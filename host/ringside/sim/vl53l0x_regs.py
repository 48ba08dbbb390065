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
  0x14 (RESULT_RANGE_STATUS, via `ringfw.hal.encode_range_status`), 0x16-0x17 (effective
  SPAD count), 0x1A-0x1B (signal rate, 9.7 MCPS), 0x1C-0x1D (ambient) and 0x1E-0x1F
  (range, mm, big-endian). Single-shot ranging (0x01) completes on the next poll.
- Address change: I2C_SLAVE_DEVICE_ADDRESS (0x8A) takes effect after the write.
- XSHUT: a device held in shutdown answers nothing; when XSHUT rises it boots with its
  registers reset, at 0x29.

Time is the caller's: `clock() -> int ms` (the simulator's virtual time, or a test's).
Fault injection: `answers = False` (NACK everything), `calibration_stuck = True` (the
reference calibration interrupt never comes), `ranging_stuck = True` (no new results).
"""
from __future__ import annotations

import errno
import time
import types
from collections.abc import Callable, Iterable

from ringfw import busio_shim
from ringfw.hal import STATUS_VALID, encode_range_status

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
        return self.powered and self.answers

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
            self._polls_left -= 1
            if self._polls_left <= 0 and not self.ranging_stuck and \
                    (self.clock() - self._t0) * 1000 >= self.period_us():
                self._latch()
                self.mode = "idle"
        elif self.mode == "continuous" and not self.ranging_stuck:
            period = self.period_us()
            done = ((self.clock() - self._t0) * 1000) // period
            if done > self._done:
                self._done = done
                self._latch()

    def _latch(self) -> None:
        got = self.source()
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

    transfers counts every method call that moved bytes; log keeps the last `log_size`
    (kind, address, register or -1, length) tuples.
    """

    def __init__(self, devices: Iterable = (), *, log_size: int = 4096):
        self.devices = list(devices)
        self.transfers = 0
        self.log: list[tuple[str, int, int, int]] = []
        self.log_size = log_size
        self.config: dict = {}

    def add(self, device: VL53L0XModel) -> None:
        self.devices.append(device)

    def _at(self, addr: int):
        found = [d for d in self.devices if d.online and d.address == addr]
        if not found:
            raise OSError(errno.EIO, "no device acknowledged address 0x%02x" % addr)
        return found

    def _note(self, kind: str, addr: int, reg: int, n: int) -> None:
        self.transfers += 1
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
        data = bytes(buf)
        self._note("wm", addr, memaddr, len(data))
        self._write(addr, bytes((memaddr & 0xFF,)) + data)

    def readfrom_mem_into(self, addr: int, memaddr: int, buf: bytearray | memoryview, *, addrsize: int = 8) -> None:
        n = len(buf)
        self._note("rm", addr, memaddr, n)
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

    class Pin:
        IN, OUT, OPEN_DRAIN = 0, 1, 2
        PULL_UP, PULL_DOWN = 1, 2

        def __init__(self, n, mode=-1, pull=-1, *, value=None):
            self.n = n
            self.mode = mode
            if value is not None:
                lines.set(n, value)
            elif pull == Pin.PULL_UP and n not in lines.levels:
                lines.levels[n] = 1     # an open input with its pull-up reads high

        def init(self, mode=-1, pull=-1, *, value=None):
            self.mode = mode
            if value is not None:
                lines.set(self.n, value)

        def value(self, v=None):
            if v is None:
                return lines.levels.get(self.n, 0)
            lines.set(self.n, v)
            return None

        __call__ = value

        def on(self):
            lines.set(self.n, 1)

        def off(self):
            lines.set(self.n, 0)

    def I2C(id=0, *, scl=None, sda=None, freq=400000, timeout=50000):  # noqa: N802
        bus.config = {"id": id, "scl": getattr(scl, "n", scl), "sda": getattr(sda, "n", sda),
                      "freq": freq, "timeout": timeout}
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
