"""Helpers shared by the tests that drive a simulated board's LEDs and timer."""
from ringfw.wire import Encoder
from ringside.link.frames import encode


def cmd(b, kind, **fields):
    """Send a command frame to SimBoard b, run 8 ms, and return its ACK (a NACK fails).

    (No wait argument: `ms` is a field of some commands, e.g. timer_start.)"""
    enc = getattr(b, "_test_enc", None) or Encoder()
    b._test_enc = enc
    b.send_bytes(encode(enc, kind, fields))
    b.advance(8)
    last = [f for f in b.frames if f[1] in ("ack", "nack")][-1]
    assert last[1] == "ack", last
    return last


def capture(b):
    """Record every LED frame b shows from now on: [(time ms, GRB bytes), ...]."""
    shown = []
    orig = b.pixels.show

    def show(buf):
        shown.append((b.now, bytes(buf)))
        orig(buf)
    b.pixels.show = show
    return shown


def rgb(frame, i):
    """(r, g, b) of LED i in a GRB frame."""
    return frame[3 * i + 1], frame[3 * i], frame[3 * i + 2]
