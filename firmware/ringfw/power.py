"""LED power cap: the brightest global level that keeps the whole build on USB power.

The worst case for a WS2812B ring is every LED full white: each of the three colour
channels draws `ma_per_channel` at full duty (255), and each LED draws `idle_ma_per_led`
whatever it shows. Current scales linearly with the PWM duty, so at a global brightness
`b` (0..255) the worst case is

    board_ma + count * idle_ma_per_led + count * 3 * ma_per_channel * b / 255   (mA)

`brightness_cap` is the highest `b` for which that stays within `budget_ma`. It is worked
out once, when ring.json is read (ringfile: ring.led_cap); the firmware passes every
channel of every frame through leds.scale(value, cap), so no scene, whatever the host
asks for, can draw more than the budget. This module is boot-only on the board.

Integer arithmetic only (the board has single-precision floats, CPython doubles; both
must agree).
"""
from ringfw.compat import const
from ringfw.geometry import RingError

CHANNELS = const(3)  # a WS2812B pixel: red, green, blue
FULL = const(255)  # full PWM duty of one channel

# The "leds" keys this module needs, with the smallest value each may take.
_KEYS = (("count", 1), ("ma_per_channel", 0), ("idle_ma_per_led", 0),
         ("budget_ma", 1), ("board_ma", 0))


def _params(ring):
    """ring.json dict -> (count, ma_per_channel, idle, budget, board)."""
    try:
        leds = ring["leds"]
    except (KeyError, TypeError):
        raise RingError("ring.json is missing the 'leds' block")
    out = []
    for key, least in _KEYS:
        if key not in leds:
            raise RingError("ring.json leds block is missing %r" % key)
        v = leds[key]
        if isinstance(v, bool) or not isinstance(v, int):
            raise RingError("ring.json leds.%s must be a whole number, not %r" % (key, v))
        if v < least:
            raise RingError("ring.json leds.%s must be at least %d, not %d" % (key, least, v))
        out.append(v)
    return out


def _fixed_ma(p):
    """mA drawn whatever the LEDs show: the board plus every LED's quiescent current."""
    return p[4] + p[0] * p[2]


def _full_channels_ma(p):
    """mA of all channels of all LEDs at full duty (full white at brightness 255)."""
    return p[0] * CHANNELS * p[1]


def brightness_cap(ring):
    """Highest global brightness (0..255) at which all LEDs full white stay within budget_ma.

    0 means even dark LEDs plus the board exceed the budget; 255 means no cap is needed.
    """
    p = _params(ring)
    spare = p[3] - _fixed_ma(p)  # mA left for the colour channels
    if spare < 0:
        return 0
    full = _full_channels_ma(p)
    if full == 0:  # channels that draw nothing need no cap
        return FULL
    cap = spare * FULL // full  # floor: the worst case at cap never exceeds the budget
    if cap > FULL:
        return FULL
    return cap


def worst_case_ua(ring, brightness):
    """Worst-case current (µA, rounded up) with all LEDs full white at a global brightness."""
    p = _params(ring)
    full_ua = _full_channels_ma(p) * 1000
    return _fixed_ma(p) * 1000 + (full_ua * brightness + FULL - 1) // FULL


def power_report(ring):
    """The LED power budget as a dict of integers, for the docs and the host.

    Keys: count, ma_per_channel, idle_ma_per_led, board_ma, budget_ma (copied from
    ring.json); fixed_ma (board plus all LEDs dark); full_white_ma (worst case at
    brightness 255); cap (brightness_cap); cap_permille (cap as thousandths of full);
    worst_case_ua_at_cap and worst_case_ma_at_cap (rounded up); headroom_ma (budget
    minus the worst case at cap, rounded down); within_budget (False only when even
    dark LEDs exceed the budget).
    """
    p = _params(ring)
    cap = brightness_cap(ring)
    ua = worst_case_ua(ring, cap)
    return {
        "count": p[0],
        "ma_per_channel": p[1],
        "idle_ma_per_led": p[2],
        "budget_ma": p[3],
        "board_ma": p[4],
        "fixed_ma": _fixed_ma(p),
        "full_white_ma": _fixed_ma(p) + _full_channels_ma(p),
        "cap": cap,
        "cap_permille": (cap * 1000 + FULL // 2) // FULL,
        "worst_case_ua_at_cap": ua,
        "worst_case_ma_at_cap": (ua + 999) // 1000,
        "headroom_ma": (p[3] * 1000 - ua) // 1000,
        "within_budget": ua <= p[3] * 1000,
    }
