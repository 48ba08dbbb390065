"""The board's start-up, boot-only: ringfw.boot._run calls board() once and then unloads this
module (board_rp2040.drop_modules), so its bytecode is not heap while the loop runs.

board() reads ring.json, watches the rescue window (BOOTSEL, the safe-mode jumper, Ctrl-C)
and builds the board's parts: sensors (the Adafruit driver and the set-up code are dropped
again once they are up), LEDs, USB serial and the watchdog. ringfw.boot keeps only the loop
and what a fault or the way back to the REPL needs (docs/board.md, "Memory").
"""
from ringfw import boot

_RESCUE_STEP_MS = 10


def board(board, path, serial, fault_rounds, rescue_ms):
    """(ring, clock, sensors, pixels, serial, watchdog), or None: a fault was shown (a
    missing or bad ring.json, a part that failed to start), or safe mode, or Ctrl-C."""
    try:
        from ringfw import geometry
        ring = geometry.load(path)
    except OSError:
        boot.fault("no %s on the board: copy it with `mpremote cp hardware/ring.json :%s`"
                   % (path, path), path, fault_rounds)
        return None
    except Exception as e:  # RingError (a ValueError) explains what is wrong
        boot.fault("%s is not usable: %s" % (path, e), path, fault_rounds)
        return None

    if ring.cal_error:
        print("ringside: %s: running on ring.json's starting values; `ringside calibrate` "
              "writes a new one" % ring.cal_error)
    why = rescue(ring, board, rescue_ms)
    if why:
        _safe_mode(why, ring, board)
        return None

    try:
        board.drop_modules(board.BOOT_ONLY)  # ring.json's reader: its RAM back
        clock = board.Clock()
        print("ringside: starting %d sensors" % ring.sensor_count)
        ranging = board.RangeSensors(ring)
        sensors = board.SensorPoller(ranging)
        pixels = board.Pixels(ring)
        if serial is None:
            serial = board.Serial()
        watchdog = board.Watchdog()
        ranging.drop_init_code()          # the driver's and the set-up's RAM back
    except KeyboardInterrupt:  # Ctrl-C while starting: leave a usable REPL
        board.release_repl()
        print("ringside: interrupted while starting")
        return None
    except Exception as e:
        boot._print_error(e)
        boot.fault("board start failed: %s: %s" % (type(e).__name__, e), path, fault_rounds)
        return None
    return ring, clock, sensors, pixels, serial, watchdog


def _bootsel():
    """rp2.bootsel_button, or None where there is none (CPython, other ports)."""
    try:
        import rp2
        return rp2.bootsel_button
    except (ImportError, AttributeError):
        return None


def rescue(ring, board, rescue_ms):
    """Watch for a rescue for rescue_ms: '' (start the app) or why not (safe mode).

    Read before anything starts (core 1 not running: bootsel_button() briefly turns the
    flash off). The jumper is ring.json pins.safe, read with the pin's pull-up: a jumper to
    GND reads 0. Ctrl-C on the console (kbd_intr is on) counts too."""
    pin = None
    if ring.safe_pin >= 0:
        import machine
        pin = machine.Pin(ring.safe_pin, machine.Pin.IN, machine.Pin.PULL_UP)
    bootsel = _bootsel()
    sleep = getattr(board, "_sleep_ms", boot._sleep_ms)   # virtual time in the tests
    waited = 0
    try:
        while True:
            if pin is not None and not pin.value():
                return "jumper on GP%d" % ring.safe_pin
            if bootsel is not None and bootsel():
                return "BOOTSEL pressed"
            if waited >= rescue_ms:
                return ""
            sleep(_RESCUE_STEP_MS)
            waited += _RESCUE_STEP_MS
    except KeyboardInterrupt:
        return "Ctrl-C on the console"


def _safe_mode(why, ring, board):
    boot.stop_watchdog()
    from ringfw import blink
    blink.safe_mode(why, ring, board)
