"""The hardware the controller talks to, named once.

The controller never imports `machine`. It is handed objects with these methods:
`board_rp2040` implements them on the Pico; `ringside.sim` implements them in
virtual time. Every method returns promptly: nothing here may block forever.

Clock
    ticks_ms() -> int            milliseconds, wrapping at 2**30 (see compat.tdiff)

RangeSensors (one object for all the VL53L0X on the ring)
    count                         number of sensors, in ring.json order
    poll(now, ranges, statuses, fresh) -> int
        For each sensor with a new measurement since the last poll, write
        ranges[i] (mm, int), statuses[i] (a STATUS_* code below) and fresh[i] = 1;
        leave the others untouched. Returns how many are fresh. The caller clears
        each fresh[i] it consumes, so a poll may skip writing zeros (RangeSensors
        writes them; SensorPoller does not).
        A sensor that does not answer on I2C reports STATUS_NO_ANSWER. (The Pico's
        RangeSensors also gets the bus and the sensor back: a stuck SDA is clocked free,
        a browned-out sensor re-addressed through its XSHUT; board_rp2040.)
    signal, ambient               arrays: the last fresh reading's signal and ambient rates
                                  per sensor (MCPS in 9.7 fixed point, registers 0x1A/0x1C)
    set_focus(i)                  i: the one sensor that alone sees a resting or slow marble,
                                  or -1; the schedule ranges it more often (ringfw.sched)
    set_together(on)              bring-up only: every sensor ranges at once (crosstalk check)

Pixels
    count                         LEDs on the ring
    show(buf)                     buf: bytearray(3 * count), G R B order

Serial
    read_into(buf) -> int         bytes now waiting, copied into buf; 0 if none (never blocks)
    write(buf, n)                 send the first n bytes of buf
    uid                           optional: the board's unique id, hex bytes (the RP2040's
                                  machine.unique_id()); its hello carries it as uid=, so a
                                  host can tell this board from another on the same port

Watchdog
    feed()
"""
from ringfw.compat import const

# Range status codes, as ST's API reports them (VL53L0X_GetRangeMeasurementData
# "RangeStatus"), decoded from register 0x14 by decode_range_status().
STATUS_VALID = const(0)
STATUS_SIGMA_FAIL = const(1)
STATUS_SIGNAL_FAIL = const(2)
STATUS_MIN_RANGE_FAIL = const(3)
STATUS_PHASE_FAIL = const(4)
STATUS_HARDWARE_FAIL = const(5)
STATUS_NONE = const(254)        # the device returned "no update" codes
STATUS_NO_ANSWER = const(255)   # I2C error or timeout: the sensor did not answer

# The device writes these into the range register when there is no target in view.
RANGE_OUT_OF_RANGE = const(8190)
RANGE_NO_TARGET = const(8191)


def decode_range_status(reg14):
    """Register 0x14 (RESULT_RANGE_STATUS) -> STATUS_* code.

    Mirrors ST's VL53L0X_get_pal_range_status: the device status sits in bits 6..3;
    11 means a valid range.
    """
    dev = (reg14 & 0x78) >> 3
    if dev == 11:
        return STATUS_VALID
    if dev in (0, 5, 7, 12, 13, 14, 15):
        return STATUS_NONE
    if dev <= 3:
        return STATUS_HARDWARE_FAIL
    if dev == 6 or dev == 9:
        return STATUS_PHASE_FAIL
    if dev == 8 or dev == 10:
        return STATUS_MIN_RANGE_FAIL
    return STATUS_SIGNAL_FAIL  # dev == 4

