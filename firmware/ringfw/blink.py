"""The LEDs of a board not running the app (ringfw.boot): the red fault blink and safe
mode's blue. Only a fault or safe mode imports this, so a board that starts never holds its
bytecode (on the RP2040 a loaded module's bytecode is heap).
"""
_RED = 40            # red level of the fault blink (0..255)
_BLUE = 24           # blue level of the safe-mode LEDs


def _led_guess(path):
    """(pin, count) of the LEDs from ring.json if it can be read at all, else the defaults."""
    pin, count = 22, 60
    try:
        try:
            import ujson as json
        except ImportError:  # CPython
            import json
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
