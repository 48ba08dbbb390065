"""The frame codec of the serial link, shared by the firmware and the host.

A frame is one readable line:

    @<seq> <type>[ <key>=<value>]... #<crc32, 8 lowercase hex>\\n

for example ``@17 landed sp=7 alt=16 ang=9012 trv=-21450 conf=87 #3a5f09c2``. The CRC-32
(the same as binascii.crc32) covers every byte from ``@`` up to and including the space
before ``#``. A line is at most MAX_FRAME bytes. Keys are tokens; values are tokens too
(possibly empty); a value of the form ``-?[0-9]+`` is an integer. A token is printable
ASCII without space, ``=``, ``#`` or ``@``, so ``@`` only ever starts a frame: a receiver
that sees ``@`` in the middle of a line drops what came before (noise or half a frame)
and starts over. See docs/protocol.md.

Two ways to read frames:

- FrameReader + Frame (the board): bytes are pushed one at a time into a buffer
  allocated once; a complete line is checked and split in place (offsets into the
  buffer, integers parsed digit by digit), and commands read their arguments with
  Frame.int_arg / Frame.tok_index. Nothing allocates, so the firmware handles commands
  under micropython.heap_lock(). Errors are small integer codes (REASONS gives the token).
- parse(line) (the host): a line -> (seq, kind, fields dict); raises WireError.

The encoder writes into one buffer allocated at start-up and computes the CRC with
16-bit halves, so that sending a frame allocates nothing on the board (a 32-bit CRC
value would be a heap-allocated long int on a 32-bit MicroPython port).
"""
from array import array

from ringfw.compat import const

MAX_FRAME = const(200)      # longest line, in bytes, without the newline
MAX_FIELDS = const(16)      # most key=value fields in one frame
PROTOCOL = const(1)         # the version both hellos carry (docs/protocol.md, "Versions")
_MAX_DIGITS = const(9)      # integers stay below 10**9: small ints on a 32-bit board

_HEX = b"0123456789abcdef"

# Frame.decode() error codes, and the token each is reported with in a NACK.
E_OK = const(0)
E_LONG = const(1)
E_NOT_FRAME = const(2)
E_NO_CRC = const(3)
E_BAD_CRC = const(4)
E_NO_TYPE = const(5)
E_BAD_SEQ = const(6)
E_BAD_TYPE = const(7)
E_BAD_FIELD = const(8)
E_BAD_VALUE = const(9)
E_TWICE = const(10)
E_MANY = const(11)
REASONS = (b"ok", b"frame_too_long", b"not_a_frame", b"no_checksum", b"bad_checksum",
           b"no_message_type", b"bad_sequence_number", b"bad_message_type", b"bad_field",
           b"bad_value", b"field_twice", b"too_many_fields")

# Frame argument errors (Frame.err after int_arg / tok_index), reported as NACK reasons.
A_MISSING = const(1)
A_NOT_INT = const(2)
A_RANGE = const(3)
A_UNKNOWN = const(4)
ARG_REASONS = (b"ok", b"missing_argument", b"not_a_number", b"out_of_range", b"unknown_value")


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


def _tok_byte(ch):
    """True for a byte allowed in a token: printable ASCII but space, '#', '=', '@'."""
    return 32 < ch < 127 and ch != 35 and ch != 61 and ch != 64


class Encoder:
    """Builds frames in a buffer allocated once. begin(), then fields, then end() -> length."""

    def __init__(self):
        self.buf = bytearray(MAX_FRAME + 16)
        self.n = 0
        self.seq = 0
        self.overflow = False

    def _put(self, b):
        n = self.n
        if n >= MAX_FRAME - 10:  # room must remain for " #xxxxxxxx" (the newline is extra)
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

    def tok_from(self, key, buf, start, end):
        """A token copied from buf[start:end] (e.g. a received frame), without slicing."""
        self._put(32)
        self._bytes(key)
        self._put(61)
        for i in range(start, end):
            self._put(buf[i])

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
        if not _tok_byte(ch):
            return False
    return True


def _is_int(v):
    """bytes of the form -?[0-9]{1,9}."""
    n = len(v)
    i = 1 if n and v[0] == 45 else 0
    if n - i < 1 or n - i > _MAX_DIGITS:
        return False
    while i < n:
        if not 48 <= v[i] <= 57:
            return False
        i += 1
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


_MESSAGES = ("ok", "frame too long", "not a frame", "no checksum", "bad checksum",
             "no message type", "bad sequence number", "bad message type", "bad field",
             "bad value", "a field twice", "too many fields")


def parse(line, raw=False):
    """A received line (bytes, no newline) -> (seq, kind, fields). Raises WireError.

    The same checks as the board's Frame.decode (it does the work). Values of the form
    -?[0-9]+ (at most 9 digits) become ints, others str; with raw=True every value stays
    a str (for fields that are names, such as space ids).
    """
    f = Frame()
    err = f.decode(line, len(line))
    if err:
        raise WireError(_MESSAGES[err])
    line = bytes(line)
    fields = {}
    for j in range(f.nf):
        k = line[f.kst[j]:f.ken[j]].decode()
        v = line[f.vst[j]:f.ven[j]]
        fields[k] = v.decode() if raw else _value(v)
    return f.seq, line[f.ks:f.ke].decode(), fields


def _value(v):
    if _is_int(v):
        return int(v)
    return v.decode()


def encode(enc, kind, fields):
    """Host-side convenience: build a frame from a dict with an Encoder; returns bytes."""
    kb = kind.encode()
    if not kb or not _valid_token(kb):
        raise WireError("message type %r is not a token" % (kind,))
    enc.begin(kb)
    for k in fields:
        v = fields[k]
        kk = k.encode()
        if not kk or not _valid_token(kk):
            raise WireError("field name %r is not a token" % (k,))
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, int):
            if abs(v) >= 1000000000:
                raise WireError("value for %s is too large: %d" % (k, v))
            enc.int(kk, v)
        else:
            t = str(v).encode()
            if not _valid_token(t):
                raise WireError("value for %s is not a token: %r" % (k, v))
            enc.tok(kk, t)
    n = enc.end()
    if n == 0:
        raise WireError("frame too long")
    return bytes(enc.buf[:n])


class LineReader:
    """Splits a byte stream into lines of at most MAX_FRAME bytes (host side).

    Bytes of over-long lines are discarded up to the next newline and counted. feed()
    takes bytes; next_line() returns complete lines one at a time, or None. A line may
    be noise: parse() says so.
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


class FrameReader:
    """Finds frames in a byte stream, one byte at a time, with no allocation.

    push(b) returns the length of a complete candidate frame, now in buf[:length] and
    starting with '@' (valid until the next push), or 0. Whatever is not inside a frame
    is skipped and counted: noise (bytes outside any frame: REPL banners, echo, line
    noise), partial (a frame cut short by the next '@'), overlong (lines longer than
    MAX_FRAME). Nothing here raises.
    """

    def __init__(self):
        self.buf = bytearray(MAX_FRAME + 1)
        self.n = 0              # bytes of the frame being collected; 0 = outside a frame
        self.skip = False       # inside an over-long line: skip to its end
        self.noise = 0
        self.partial = 0
        self.overlong = 0

    def push(self, b):
        n = self.n
        if b == 64:  # '@' only ever starts a frame
            if n:
                self.partial += 1
            self.buf[0] = 64
            self.n = 1
            self.skip = False
            return 0
        if b == 10 or b == 13:
            self.skip = False
            if n:
                self.n = 0
                return n
            return 0
        if n == 0 or self.skip:
            self.noise += 1
            return 0
        if n >= MAX_FRAME:
            self.overlong += 1
            self.skip = True
            self.n = 0
            return 0
        self.buf[n] = b
        self.n = n + 1
        return 0

    def feed(self, data, count=-1):
        """Host side: push many bytes; returns the complete frames (bytes) found."""
        if count < 0:
            count = len(data)
        out = []
        for i in range(count):
            k = self.push(data[i])
            if k:
                out.append(bytes(self.buf[:k]))
        return out


class Frame:
    """A received frame, checked and split in place (the board's command parser).

    decode(buf, n) -> E_OK or an E_* code. Then seq, the kind (kind_in / kind_is /
    kind_starts) and the fields, read by key with int_arg() and tok_index(); an argument
    error sets err (an A_* code) and err_key (the key, as given) instead of raising.
    Nothing here allocates.
    """

    def __init__(self):
        self.buf = None
        self.n = 0
        self.seq = -1
        self.ks = 0
        self.ke = 0
        self.nf = 0
        self.kst = array("H", [0] * MAX_FIELDS)
        self.ken = array("H", [0] * MAX_FIELDS)
        self.vst = array("H", [0] * MAX_FIELDS)
        self.ven = array("H", [0] * MAX_FIELDS)
        self.err = 0
        self.err_key = b""
        self._crc = bytearray(8)

    def decode(self, buf, n):
        self.buf = buf
        self.n = n
        self.nf = 0
        self.seq = -1
        self.err = 0
        self.err_key = b""
        if n > MAX_FRAME:
            return E_LONG
        if n < 1 or buf[0] != 64:
            return E_NOT_FRAME
        h = n - 10  # where " #" must stand
        if h < 1 or buf[h] != 32 or buf[h + 1] != 35:
            return E_NO_CRC
        c = self._crc
        crc32_into(buf, 0, h + 1, c, 0)
        for j in range(8):
            if c[j] != buf[h + 2 + j]:
                return E_BAD_CRC
        # the body is buf[1:h]: "<seq> <kind>( <key>=<value>)*"
        i = 1
        seq = 0
        while i < h and buf[i] != 32:
            d = buf[i] - 48
            if d < 0 or d > 9 or i > 5:
                return E_BAD_SEQ
            seq = seq * 10 + d
            i += 1
        if i == 1 or seq > 0xFFFF:
            return E_BAD_SEQ
        if i >= h:
            return E_NO_TYPE
        i += 1
        self.ks = i
        while i < h and buf[i] != 32:
            if not _tok_byte(buf[i]):
                return E_BAD_TYPE
            i += 1
        self.ke = i
        if self.ke == self.ks:
            return E_BAD_TYPE
        nf = 0
        while i < h:
            i += 1  # the space before a field
            if nf >= MAX_FIELDS:
                return E_MANY
            ks = i
            while i < h and buf[i] != 32 and buf[i] != 61:
                if not _tok_byte(buf[i]):
                    return E_BAD_FIELD
                i += 1
            if i == ks or i >= h or buf[i] != 61:
                return E_BAD_FIELD
            ke = i
            i += 1
            vs = i
            while i < h and buf[i] != 32:
                if not _tok_byte(buf[i]):
                    return E_BAD_VALUE
                i += 1
            for j in range(nf):
                if self._same(self.kst[j], self.ken[j], ks, ke):
                    return E_TWICE
            self.kst[nf] = ks
            self.ken[nf] = ke
            self.vst[nf] = vs
            self.ven[nf] = i
            nf += 1
        self.nf = nf
        self.seq = seq
        return E_OK

    def _same(self, a, ae, b, be):
        if ae - a != be - b:
            return False
        buf = self.buf
        while a < ae:
            if buf[a] != buf[b]:
                return False
            a += 1
            b += 1
        return True

    def _eq(self, s, e, lit):
        if e - s != len(lit):
            return False
        buf = self.buf
        j = 0
        for ch in lit:
            if buf[s + j] != ch:
                return False
            j += 1
        return True

    # ----- the message type -----
    def kind_is(self, lit):
        return self._eq(self.ks, self.ke, lit)

    def kind_in(self, table):
        """Index of the message type in a tuple of bytes, or -1."""
        k = 0
        for lit in table:
            if self._eq(self.ks, self.ke, lit):
                return k
            k += 1
        return -1

    def kind_starts(self, prefix):
        p = len(prefix)
        if self.ke - self.ks < p:
            return False
        return self._eq(self.ks, self.ks + p, prefix)

    # ----- fields -----
    def find(self, key):
        """Index of the field named key (bytes), or -1."""
        for j in range(self.nf):
            if self._eq(self.kst[j], self.ken[j], key):
                return j
        return -1

    def has(self, key):
        return self.find(key) >= 0

    def _fail(self, code, key):
        if not self.err:
            self.err = code
            self.err_key = key

    def int_arg(self, key, lo, hi, default=None):
        """The integer value of field key within lo..hi; default if absent (None: required).

        On a missing, malformed or out-of-range value: err/err_key are set, lo returned.
        """
        j = self.find(key)
        if j < 0:
            if default is None:
                self._fail(A_MISSING, key)
                return lo
            return default
        buf = self.buf
        i = self.vst[j]
        e = self.ven[j]
        neg = False
        if i < e and buf[i] == 45:
            neg = True
            i += 1
        if i == e or e - i > _MAX_DIGITS:
            self._fail(A_NOT_INT, key)
            return lo
        v = 0
        while i < e:
            d = buf[i] - 48
            if d < 0 or d > 9:
                self._fail(A_NOT_INT, key)
                return lo
            v = v * 10 + d
            i += 1
        if neg:
            v = -v
        if v < lo or v > hi:
            self._fail(A_RANGE, key)
            return lo
        return v

    def tok_index(self, key, table, default=-2):
        """Index of field key's value in a tuple of bytes; default if absent (-2: required).

        A value not in the table sets err = A_UNKNOWN and returns -1.
        """
        j = self.find(key)
        if j < 0:
            if default == -2:
                self._fail(A_MISSING, key)
                return -1
            return default
        s = self.vst[j]
        e = self.ven[j]
        k = 0
        for lit in table:
            if self._eq(s, e, lit):
                return k
            k += 1
        self._fail(A_UNKNOWN, key)
        return -1

    def label_index(self, key, labels, start):
        """Like tok_index for labels that may hold spaces, written '_' on the wire.

        Searches labels[start:] (so repeated labels can all be found); -1 if none."""
        j = self.find(key)
        if j < 0:
            return -1
        s = self.vst[j]
        e = self.ven[j]
        buf = self.buf
        for k in range(start, len(labels)):
            lab = labels[k]
            if len(lab) != e - s:
                continue
            i = s
            for ch in lab:
                b = buf[i]
                if b != ch and not (b == 95 and ch == 32):
                    break
                i += 1
            if i == e:
                return k
        return -1

    def hex_arg(self, key, default=-1):
        """A 6-hex-digit value (rrggbb) -> int, or -1 if it is not one; default if absent."""
        j = self.find(key)
        if j < 0:
            return default
        s = self.vst[j]
        if self.ven[j] - s != 6:
            return -1
        v = 0
        buf = self.buf
        for i in range(s, s + 6):
            c = buf[i]
            if 48 <= c <= 57:
                d = c - 48
            elif 97 <= c <= 102:
                d = c - 87
            elif 65 <= c <= 70:
                d = c - 55
            else:
                return -1
            v = (v << 4) | d
        return v

    def value_span(self, key):
        """(start, end) of field key's value in buf, or (-1, -1). Allocates a tuple: host use."""
        j = self.find(key)
        if j < 0:
            return -1, -1
        return self.vst[j], self.ven[j]
