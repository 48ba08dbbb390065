"""The few names MicroPython and CPython spell differently."""
try:
    from micropython import const  # noqa: F401
except ImportError:  # CPython
    def const(x):
        return x

from array import array

# Board ticks wrap at 2**30 ms (MicroPython's ticks_ms period on 32-bit ports), so every
# time value stays a small int and never allocates. All time arithmetic goes through tdiff.
TICKS_MASK = const(0x3FFFFFFF)
_TICKS_HALF = const(0x20000000)


def tdiff(a, b):
    """a - b in ms, for tick values that wrap at 2**30."""
    return ((a - b + _TICKS_HALF) & TICKS_MASK) - _TICKS_HALF


def tadd(a, d):
    return (a + d) & TICKS_MASK


def isqrt(v):
    """Integer square root of a non-negative int (Newton; no floats)."""
    if v <= 0:
        return 0
    x = v
    y = (x + 1) >> 1
    while y < x:
        x = y
        y = (x + v // x) >> 1
    return x


def filled(tc, n, v=0):
    """array(tc) of n items equal to v, allocated once. array(tc, [v] * n) builds an n-item
    list first: garbage the boot's heap must hold until the next collection. bytes(n) (byte
    typecodes) and range(n) have a length, so array() sizes itself from them."""
    a = array(tc, bytes(n) if tc in "bB" else range(n))
    if v or tc not in "bB":
        for k in range(n):
            a[k] = v
    return a
