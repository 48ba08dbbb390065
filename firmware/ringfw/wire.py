"""The frame codec of the serial link, shared by the firmware and the host.

A frame is one readable line:

    @<seq> <type>[ <key>=<value>]... #<crc32, 8 lowercase hex>\\n

for example ``@17 landed sp=7 alt=16 ang=9012 trv=-21450 conf=87 #3a5f09c2``. The CRC-32
(the same as binascii.crc32) covers every byte from ``@`` up to and including the space
before ``#``. A line is at most MAX_FRAME bytes. Values are signed decimal integers or
tokens of printable ASCII without space, ``=``, ``#`` or ``@``. See docs/protocol.md.

The encoder writes into one buffer allocated at start-up and computes the CRC with
16-bit halves, so that sending a frame allocates nothing on the board (a 32-bit CRC
value would be a heap-allocated long int on a 32-bit MicroPython port).
"""
from array import array

from ringfw.compat import const

MAX_FRAME = const(200)
PROTOCOL = const(1)

_HEX = b"0123456789abcdef"


def _tables():
    hi_t = array("H", [0] * 256)
    lo_t = array("H", [0] * 256)
    for n in range(256):
        hi, lo = 0, n
        for _ in range(8):
            odd = lo & 1
            lo = (lo >> 1) | ((hi & 1) << 15)
            hi >>= 1
            if odd:
                hi ^= 0xEDB8
                lo ^= 0x8320
        hi_t[n] = hi
        lo_t[n] = lo
    return hi_t, lo_t


_CRC_HI, _CRC_LO = _tables()


def crc32_into(buf, start, end, out, pos):
    """CRC-32 of buf[start:end], written as 8 hex digits at out[pos:pos+8]. No allocation."""
    hi = 0xFFFF
    lo = 0xFFFF
    th = _CRC_HI
    tl = _CRC_LO
    for i in range(start, end):
        k = (lo ^ buf[i]) & 0xFF
        lo = ((lo >> 8) | ((hi & 0xFF) << 8)) ^ tl[k]
        hi = (hi >> 8) ^ th[k]
    hi ^= 0xFFFF
    lo ^= 0xFFFF
    h = _HEX
    out[pos] = h[hi >> 12]
    out[pos + 1] = h[(hi >> 8) & 15]
    out[pos + 2] = h[(hi >> 4) & 15]
    out[pos + 3] = h[hi & 15]
    out[pos + 4] = h[lo >> 12]
    out[pos + 5] = h[(lo >> 8) & 15]
    out[pos + 6] = h[(lo >> 4) & 15]
    out[pos + 7] = h[lo & 15]


class WireError(ValueError):
    """A line that is not a valid frame. The message says why."""


class Encoder:
    """Builds frames in a buffer allocated once. begin(), then fields, then end() -> length."""

    def __init__(self):
        self.buf = bytearray(MAX_FRAME + 16)
        self.n = 0
        self.seq = 0
        self.overflow = False

    def _put(self, b):
        n = self.n
        if n >= MAX_FRAME - 11:  # room must remain for " #xxxxxxxx\n"
            self.overflow = True
            return
        self.buf[n] = b
        self.n = n + 1

    def _bytes(self, s):
        for b in s:
            self._put(b)

    def _int(self, v):
        if v < 0:
            self._put(45)  # '-'
            v = -v
        if v == 0:
            self._put(48)
            return
        # digits most significant first, without building a string
        d = 1
        while d * 10 <= v:
            d *= 10
        while d:
            self._put(48 + (v // d) % 10)
            d //= 10

    def begin(self, kind):
        """Start a frame of type `kind` (bytes) with the next sequence number."""
        self.n = 0
        self.overflow = False
        self.seq = (self.seq + 1) & 0xFFFF
        self._put(64)  # '@'
        self._int(self.seq)
        self._put(32)
        self._bytes(kind)

    def int(self, key, value):
        self._put(32)
        self._bytes(key)
        self._put(61)  # '='
        self._int(value)

    def tok(self, key, value):
        self._put(32)
        self._bytes(key)
        self._put(61)
        self._bytes(value)

    def end(self):
        """Close the frame; returns its length (0 if it overflowed and was dropped)."""
        if self.overflow:
            return 0
        n = self.n
        buf = self.buf
        buf[n] = 32
        buf[n + 1] = 35  # '#'
        crc32_into(buf, 0, n + 1, buf, n + 2)
        buf[n + 10] = 10
        self.n = n + 11
        return self.n


def _valid_token(t):
    for ch in t:
        if ch <= 32 or ch > 126 or ch in (35, 61, 64):
            return False
    return True


def check(line):
    """A received line (bytes, without the newline) -> body bytes without the CRC part.

    Raises WireError naming what is wrong. Used by both ends.
    """
    if len(line) > MAX_FRAME:
        raise WireError("frame too long")
    if not line or line[0] != 64:
        raise WireError("not a frame")
    h = line.rfind(b" #")
    if h < 0 or len(line) - h != 10:
        raise WireError("no checksum")
    tmp = bytearray(8)
    crc32_into(line, 0, h + 1, tmp, 0)
    if bytes(tmp) != line[h + 2:]:
        raise WireError("bad checksum")
    return line[1:h]


def parse(line):
    """A received line -> (seq, kind, fields). Values that look like integers become ints.

    Raises WireError with a reason for anything malformed.
    """
    body = check(line)
    parts = body.split(b" ")
    if len(parts) < 2:
        raise WireError("no message type")
    try:
        seq = int(parts[0])
    except ValueError:
        raise WireError("bad sequence number")
    kind = parts[1]
    if not kind or not _valid_token(kind):
        raise WireError("bad message type")
    fields = {}
    for p in parts[2:]:
        eq = p.find(b"=")
        if eq <= 0:
            raise WireError("bad field")
        k = p[:eq].decode()
        v = p[eq + 1:]
        if not _valid_token(v) and v:
            raise WireError("bad value")
        if k in fields:
            raise WireError("field %s twice" % k)
        fields[k] = _value(v)
    return seq, kind.decode(), fields


def _value(v):
    if v and (48 <= v[-1] <= 57):
        try:
            return int(v)
        except ValueError:
            pass
    return v.decode()


def encode(enc, kind, fields):
    """Host-side convenience: build a frame from a dict with an Encoder; returns bytes."""
    enc.begin(kind.encode())
    for k in fields:
        v = fields[k]
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, int):
            enc.int(k.encode(), v)
        else:
            t = str(v).encode()
            if not t or not _valid_token(t):
                raise WireError("value for %s is not a token: %r" % (k, v))
            enc.tok(k.encode(), t)
    n = enc.end()
    if n == 0:
        raise WireError("frame too long")
    return bytes(enc.buf[:n])


class LineReader:
    """Splits a byte stream into lines of at most MAX_FRAME bytes.

    Bytes of over-long lines are discarded up to the next newline and counted; a frame
    never spans a reset of the reader. feed() returns complete lines one at a time via next_line().
    """

    def __init__(self):
        self.buf = bytearray(MAX_FRAME + 1)
        self.n = 0
        self.discarding = False
        self.overlong = 0
        self._lines = []

    def feed(self, data, count=-1):
        if count < 0:
            count = len(data)
        for i in range(count):
            b = data[i]
            if b == 10 or b == 13:
                if self.discarding:
                    self.discarding = False
                elif self.n:
                    self._lines.append(bytes(self.buf[:self.n]))
                self.n = 0
            elif self.discarding:
                continue
            elif self.n >= MAX_FRAME:
                self.discarding = True
                self.overlong += 1
                self.n = 0
            else:
                self.buf[self.n] = b
                self.n += 1

    def next_line(self):
        if self._lines:
            return self._lines.pop(0)
        return None
