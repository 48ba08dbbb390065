"""Setting the board's parts up: boot-only code for board_rp2040.

The constructors of board_rp2040's classes run this; RangeSensors.drop_init_code unloads
it with the Adafruit driver and the busio shim once everything is built (on the RP2040 a
loaded module's bytecode lives in the heap, and the loop has better use for it).

The sensors: all are held in reset (XSHUT low), then woken one at a time, moved off the
shared default address 0x29 to their own and set up by the genuine Adafruit driver
through ringfw.busio_shim; they then wait idle for the schedule (ringfw.sched) to start
their single-shot measurements. A sensor that fails is put back into reset, so the next
can come up.

Recovery (RangeSensors.service on core 1 calls recover() here): a sensor whose transfers
have failed for a while is probed at its address; if it is gone, it is put into reset
through its own XSHUT line (with any other failing one) and brought up again at 0x29 and
moved to its address, as at boot: a sensor that browned out (it restarts at 0x29 with
its registers reset) comes back so, and the others keep their addresses and settings.
One that does not come up stays in reset and is tried again later, less and less often.
"""
import sys

from ringfw.compat import const, filled

DEFAULT_ADDRESS = const(0x29)
_XSHUT_LOW_MS = const(10)       # all sensors held in reset this long
_BOOT_MS = const(3)             # VL53L0X boot after XSHUT rises (datasheet tBOOT <= 1.2 ms)
_MIN_BUDGET_MS = const(20)      # the driver refuses budgets below 20 ms
_MAX_BUDGET_MS = const(1000)
_BURST = const(13)              # 0x13 interrupt status, 0x14 range status .. 0x1E-0x1F range
_SCHED_SETUP = ("ringfw.sched_setup",)


def range_sensors(rs, ring, i2c, io_timeout_s, log, sleep_ms):
    """RangeSensors.__init__: check the timing, open the bus, bring every sensor up."""
    budget = ring.budget_ms
    if not _MIN_BUDGET_MS <= budget <= _MAX_BUDGET_MS:
        raise ValueError("ring.json sensor_timing.budget_ms must be %d..%d, not %d"
                         % (_MIN_BUDGET_MS, _MAX_BUDGET_MS, budget))
    rs.budget_ms = budget
    import machine
    rs._machine = machine            # the bus recovery drives the pins itself
    bus, sda, scl = ring.i2c_pins
    rs._i2c_pins = (bus, sda, scl)
    rs._i2c_hz = ring.i2c_hz
    rs._own_bus = i2c is None        # a bus handed in cannot be rebuilt after a clear
    if i2c is None:
        i2c = machine.I2C(bus, scl=machine.Pin(scl), sda=machine.Pin(sda), freq=ring.i2c_hz)
        rs._sda = machine.Pin(sda)   # no mode: its level can be read, the I2C block keeps it
    else:
        rs._sda = None
    rs._i2c = i2c
    rs._io_timeout = io_timeout_s
    rs._sleep = sleep_ms
    n = ring.sensor_count
    rs.count = n
    rs.ok = bytearray(n)
    rs.errors = [""] * n
    rs.addresses = bytearray(n)
    rs._buf = bytearray(_BURST)
    rs._clear = bytearray(1)
    rs._clear[0] = 0x01
    rs._one = bytearray(1)
    # a single-shot start, register and value pairs (ST's sequence, as the driver's
    # do_range_measurement writes it); the 4th value is each sensor's stop variable
    rs._start_seq = bytes((0x80, 0x01, 0xFF, 0x01, 0x00, 0x00, 0x91, 0x00,
                           0x00, 0x01, 0xFF, 0x00, 0x80, 0x00, 0x00, 0x01))
    rs._stop = bytearray(n)
    rs.drivers = [None] * n
    rs._log = log
    # bus and sensor recovery (RangeSensors.service): preallocated, counted
    rs.io_errors = 0                 # failed transfers (MicroPython allocates an OSError each)
    rs.bus_clears = 0                # SDA found held low: SCL clocked out, STOP, I2C made again
    rs.recoveries = 0                # sensors brought back (re-addressed through XSHUT)
    rs.recovery_fails = 0            # tries that did not bring a sensor back
    rs.recovered_at = filled("i", n, -1)     # tick of each sensor's last recovery
    rs.cleared_at = -1               # tick of the last bus clear
    rs._failed = bytearray(n)        # a transfer failed since the last service()
    rs._fail0 = filled("i", n)       # tick of the first failure of the running stretch
    rs._nfail = bytearray(n)         # failures in the running stretch (saturates)
    rs._retry = bytearray(n)         # 1: an I/O failure, worth trying to bring back
    rs._retry_at = filled("i", n)
    rs._backoff = filled("i", n)
    rs._any = 0                      # some _failed[i] is set
    rs._down = 0                     # sensors in reset waiting for another try
    rs._next = 0                     # tick of the earliest such try
    # The schedule first (it only keeps rs and rs.ok, which bring_up fills): ringfw.sched and
    # its arrays stay for good, so they go into the heap below the driver, which is dropped
    # again, and the schedule's set-up code is dropped before the driver comes in.
    from ringfw import sched
    rs.sched = sched.Schedule(ring, rs, budget, rs.ok)
    rs.signal = rs.sched.signal
    rs.ambient = rs.sched.ambient
    from ringfw.board_rp2040 import drop_modules
    drop_modules(_SCHED_SETUP, False)
    bring_up(rs, ring, io_timeout_s, sleep_ms)
    _count_down(rs)                  # those that failed at boot on the bus: tried again


def sensor_poller(sp, sensors, ticks, sleep_ms):
    """SensorPoller.__init__: core 1's arrays and the hand-over slots."""
    sp.sensors = sensors
    n = sensors.count
    sp.count = n
    sp.ok = sensors.ok
    sp.errors = sensors.errors
    sp._ticks = ticks
    sp._sleep = sleep_ms
    from ringfw import sched
    sp.hand = sched.HandOver(sensors.sched)
    sp.signal = sp.hand.signal
    sp.ambient = sp.hand.ambient
    sp._lock = None
    sp.running = False
    sp.stop = False
    sp.rounds = 0
    sp.died = ""


def pixels(px, ring, pin, count):
    """Pixels.__init__: MicroPython's neopixel on the ring's LED pin."""
    import machine
    import neopixel
    if ring is not None:
        pin = ring.led_pin
        count = ring.led_count
    px.count = count
    px._np = neopixel.NeoPixel(machine.Pin(pin), count)


def serial(ser, stream_in, stream_out, poll_target):
    """Serial.__init__: the USB console's streams and an allocation-free poll of input."""
    import select
    if stream_in is None:
        stream_in = sys.stdin.buffer
        poll_target = sys.stdin
    if stream_out is None:
        stream_out = sys.stdout.buffer
    if poll_target is None:
        poll_target = stream_in
    ser._in = stream_in
    ser._out = stream_out
    ser._one = bytearray(1)
    ser._pollin = select.POLLIN
    p = select.poll()
    p.register(poll_target, select.POLLIN)
    ser._poll = p
    ser._ipoll = getattr(p, "ipoll", None)
    ser._prefix_write = sys.implementation.name == "micropython"


def bring_up(rs, ring, io_timeout_s, sleep_ms):
    """Initialise every sensor of the ring for RangeSensors rs: fills rs.addresses, rs.ok,
    rs.errors and rs.drivers, and logs each result with rs._log."""
    import machine
    from ringfw import busio_shim
    import adafruit_vl53l0x
    busio_shim.patch_driver_time(adafruit_vl53l0x)
    bus = busio_shim.I2C(rs._i2c)
    seen = {}
    n = rs.count
    xshut = ring.xshut_pin
    pins = [None] * n
    rs._xshut = pins
    rs._addr_ok = bytearray(n)     # the address is usable (recovery may try it again)
    for i in range(n):  # every sensor with an XSHUT line into reset first
        if xshut[i] >= 0:
            pins[i] = machine.Pin(xshut[i], machine.Pin.OUT, value=0)
    sleep_ms(_XSHUT_LOW_MS)
    # A sensor without an XSHUT line is always on, so it must move off 0x29 while all
    # the others are still in reset: it goes first. Only one such sensor can work.
    order = [i for i in range(n) if xshut[i] < 0] + [i for i in range(n) if xshut[i] >= 0]
    always_on = 0
    for i in order:
        addr = ring.sensor_address[i]
        rs.addresses[i] = addr
        why = ""
        if addr in seen:
            why = "address 0x%02x already taken by sensor %d" % (addr, seen[addr])
        elif not 0x08 <= addr <= 0x77 or addr == DEFAULT_ADDRESS:
            why = "address 0x%02x is not a usable 7-bit address (not 0x29)" % addr
        elif xshut[i] < 0:
            always_on += 1
            if always_on > 1:
                why = "no xshut_pin, and another sensor without one came first"
        if not why:
            seen[addr] = i
            rs._addr_ok[i] = 1
            why = _one(rs, bus, adafruit_vl53l0x, i, addr, pins[i], io_timeout_s, sleep_ms)
            if why and pins[i] is not None:
                rs._retry[i] = 1      # a bus failure: worth another try later
        if why:
            rs.errors[i] = why
            rs._log("sensor %d: FAILED: %s" % (i, why))
        else:
            rs.ok[i] = 1
            rs._log("sensor %d: ok at 0x%02x" % (i, addr))


def _one(rs, bus, driver_mod, i, addr, pin, io_timeout_s, sleep_ms):
    """Bring one sensor up at its address; returns "" or why it failed."""
    if pin is not None:
        pin.value(1)
        sleep_ms(_BOOT_MS)
    try:
        dev = driver_mod.VL53L0X(bus, DEFAULT_ADDRESS, io_timeout_s)
        dev.set_address(addr)
        dev.measurement_timing_budget = rs.budget_ms * 1000
        rs._stop[i] = dev._stop_variable     # each single-shot start writes it back
    except Exception as e:  # OSError, RuntimeError (timeout, IDs), ValueError (no ACK)
        if pin is not None:
            pin.value(0)  # back into reset, off 0x29, so the next sensor can come up
        return "%s: %s" % (type(e).__name__, e)
    if rs.drivers is not None:      # (None once drop_init_code ran: a recovery keeps none)
        rs.drivers[i] = dev
    return ""


RETRY_MS = const(250)           # the first retry of a sensor that did not come back
_RETRY_MAX_MS = const(8000)     # ... doubling up to this
_RECOVER_TIMEOUT_S = 0.1       # a driver wait on core 1 while the others wait for it
_MODEL_ID_REG = const(0xC0)
_MODEL_ID = const(0xEE)


def _answers(rs, addr):
    """Does a VL53L0X answer at addr (its model ID register reads 0xEE)?"""
    one = rs._one
    try:
        rs._i2c.readfrom_mem_into(addr, _MODEL_ID_REG, one)
    except OSError:
        rs.io_errors += 1
        return False
    return one[0] == _MODEL_ID


def recover(rs, cands, now):
    """Bring back the sensors in cands (a list of indices) whose transfers keep failing.

    One that still answers at its address had a passing hiccup: it carries on. The others
    go into reset together (their XSHUT low); if 0x29 still answers then, another sensor
    browned out and has not been noticed yet, so this waits for it. Then each is woken
    alone at 0x29, set up by the driver and moved to its address (a browned-out sensor
    answers at 0x29 with its registers reset: exactly this). One that fails stays in reset
    and is tried again after RETRY_MS, doubling up to _RETRY_MAX_MS. The driver is loaded
    only for a sensor that answers at 0x29: a dead one costs a probe a try. Returns True
    when the driver was loaded (the caller may unload it again)."""
    sleep_ms = rs._sleep
    gone = []
    for i in cands:
        if rs.ok[i] and _answers(rs, rs.addresses[i]):
            rs._nfail[i] = 0
            continue
        gone.append(i)
    if not gone:
        return False
    for i in gone:
        rs._xshut[i].value(0)
        rs.ok[i] = 0
        rs._retry[i] = 1
    sleep_ms(1)
    if _answers(rs, DEFAULT_ADDRESS):      # someone else sits at 0x29: it first
        for i in gone:
            _later(rs, i, now, RETRY_MS)
        _count_down(rs)
        return False
    driver = None
    for i in gone:
        rs._nfail[i] = 0
        pin = rs._xshut[i]
        pin.value(1)
        sleep_ms(_BOOT_MS)
        if not _answers(rs, DEFAULT_ADDRESS):    # nothing there: no driver needed to know
            pin.value(0)
            why = "no answer at 0x29 after XSHUT"
        else:
            if driver is None:                   # (on the board: loaded again for this)
                from ringfw import busio_shim
                import adafruit_vl53l0x as driver
                busio_shim.patch_driver_time(driver)
                bus = busio_shim.I2C(rs._i2c)
            why = _one(rs, bus, driver, i, rs.addresses[i], None,
                       min(rs._io_timeout, _RECOVER_TIMEOUT_S), sleep_ms)
            if why:
                pin.value(0)
            if rs.drivers is not None:
                rs.drivers[i] = None
        if why:
            rs.recovery_fails += 1
            rs.errors[i] = why
            b = rs._backoff[i]
            b = RETRY_MS if b <= 0 else (b * 2 if b * 2 <= _RETRY_MAX_MS else _RETRY_MAX_MS)
            _later(rs, i, now, b)
        else:
            rs.ok[i] = 1
            rs.errors[i] = ""
            rs._backoff[i] = 0
            rs.recoveries += 1
            rs.recovered_at[i] = now
    _count_down(rs)
    return driver is not None


def _count_down(rs):
    """How many sensors wait in reset for another try, and when the first try is due."""
    from ringfw.compat import tdiff
    rs._down = 0
    for i in range(rs.count):
        if not rs.ok[i] and rs._retry[i] and rs._addr_ok[i]:
            if not rs._down or tdiff(rs._retry_at[i], rs._next) < 0:
                rs._next = rs._retry_at[i]
            rs._down += 1


def _later(rs, i, now, ms):
    from ringfw.compat import tadd
    rs._backoff[i] = ms
    rs._retry_at[i] = tadd(now, ms)


def unique_id_hex():
    """The RP2040's unique id (the 64-bit id of its flash chip, machine.unique_id()) as
    lowercase hex bytes: the board's identity in its hello, and the USB serial number
    MicroPython enumerates with. b"" where the port has no unique id."""
    import binascii
    import machine
    try:
        return binascii.hexlify(machine.unique_id())
    except (AttributeError, OSError):
        return b""
