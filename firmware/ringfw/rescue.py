"""The boot's rescue window, safe mode and red fault blink (ringfw.boot): boot-only code.

ringfw.boot imports this when it needs it and the board drops it with ring.json's reader
(board_rp2040.BOOT_ONLY) before the app starts: on the RP2040 a loaded module's bytecode is
heap. A fault after that imports it again (the app has stopped; the heap has room).
"""
import time

_RED = 40            # red level of the fault blink (0..255)
_BLUE = 24           # blue level of the safe-mode LEDs
_RESCUE_STEP_MS = 10

try:
    _sleep_ms = time.sleep_ms
except AttributeError:  # CPython (tests)
    def _sleep_ms(ms):
        time.sleep(ms / 1000)


def _led_guess(path):
    """(pin, count) of the LEDs from ring.json if it can be read at all, else the defaults."""
    pin, count = 22, 60
    try:
        from ringfw.compat import json
        with open(path) as f:
            leds = json.load(f)["leds"]
        pin = int(leds.get("pin", pin))
        count = int(leds.get("count", count))
        if not 0 < count <= 1024:
            count = 60
    except Exception:
        pass
    return pin, count


def fault(message, path, rounds, pixels, blink_s, sleep):
    """ringfw.boot.fault: blink red and print message every 2 s; rounds < 0 = forever."""
    if pixels is None:
        try:
            from ringfw import board_rp2040
            pin, count = _led_guess(path)
            pixels = board_rp2040.Pixels(pin=pin, count=count)
        except Exception as e:
            print("ringside: LEDs unavailable too:", e)
    buf = None
    if pixels is not None:
        buf = bytearray(3 * pixels.count)
    k = 0
    while rounds < 0 or k < rounds:
        print("ringside: FAULT:", message)
        for phase in (1, 0, 1, 0):
            if buf is not None:
                for i in range(1, len(buf), 3):  # G R B: the middle byte is red
                    buf[i] = _RED * phase
                try:
                    pixels.show(buf)
                except Exception:
                    buf = None
            sleep(blink_s)
        k += 1


def _bootsel():
    """rp2.bootsel_button, or None where there is none (CPython, other ports)."""
    try:
        import rp2
        return rp2.bootsel_button
    except (ImportError, AttributeError):
        return None


def window(ring, board, rescue_ms):
    """Watch for a rescue for rescue_ms: '' (start the app) or why not (safe mode).

    Read before anything starts (core 1 not running: bootsel_button() briefly turns the
    flash off). The jumper is ring.json pins.safe, read with the pin's pull-up: a jumper to
    GND reads 0. Ctrl-C on the console (kbd_intr is on) counts too."""
    pin = None
    if ring.safe_pin >= 0:
        import machine
        pin = machine.Pin(ring.safe_pin, machine.Pin.IN, machine.Pin.PULL_UP)
    bootsel = _bootsel()
    sleep = getattr(board, "_sleep_ms", _sleep_ms)   # virtual time in the tests
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


def safe_mode(why, ring, board):
    """Say so and light every LED dim blue (the caller has stopped the watchdog)."""
    print("ringside: SAFE MODE (%s): the app is not started, the watchdog is off, the REPL "
          "is free. Remove the jumper / release BOOTSEL and reset to run the app." % why)
    try:   # every LED dim blue: safe mode is visible without a console
        px = board.Pixels(ring)
        buf = bytearray(3 * px.count)
        for i in range(2, len(buf), 3):   # G R B: the last byte is blue
            buf[i] = _BLUE
        px.show(buf)
    except Exception as e:
        print("ringside: LEDs unavailable:", e)
