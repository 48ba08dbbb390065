"""The frame codec of the serial link: the board's half.

A frame is one readable line:

    @<seq> <type>[ <key>=<value>]... #<crc32, 8 lowercase hex>\\n

for example ``@17 landed sp=7 alt=16 ang=9012 trv=-21450 conf=87 #3a5f09c2``. The CRC-32
(the same as binascii.crc32) covers every byte from ``@`` up to and including the space
before ``#``. A line is at most MAX_FRAME bytes. Keys are tokens; values are tokens too
(possibly empty); a value of the form ``-?[0-9]+`` is an integer. A token is printable
ASCII without space, ``=``, ``#`` or ``@``, so ``@`` only ever starts a frame: a receiver
that sees ``@`` in the middle of a line drops what came before (noise or half a frame)
and starts over. See docs/protocol.md.

Only what runs on the board is here (every line of this module is bytecode in the board's
heap). FrameReader + Frame read frames: bytes are pushed one at a time into a buffer
allocated once; a complete line is checked and split in place (offsets into the buffer,
integers parsed digit by digit), and commands read their arguments with Frame.int_arg /
Frame.tok_index. Nothing allocates, so the firmware handles commands under
micropython.heap_lock(). Errors are small integer codes (REASONS gives the token).

Tables of tokens (commands, reasons, colour names, space ids) are word lists: one bytes
object of words separated by a space (labels, which may hold spaces: by a newline),
looked up with Frame.word_index and written with Encoder.word. On the board a bytes
constant costs about 36 bytes of heap, so one list beats a tuple of them.

The host's half, ringside.link.frames, builds on this one: parse(line) -> (seq, kind,
fields dict) with the same checks (Frame.decode does the work) or WireError, encode()
from a dict, StreamReader (a FrameReader with feed()) and LineReader.

The encoder writes into one buffer allocated at start-up and computes the CRC with
16-bit halves, so that sending a frame allocates nothing on the board (a 32-bit CRC
value would be a heap-allocated long int on a 32-bit MicroPython port).
"""
from ringfw.compat import const, filled

MAX_FRAME = const(200)      # longest line, in bytes, without the newline
MAX_FIELDS = const(16)      # most key=value fields in one frame
PROTOCOL = const(1)         # the version both hellos carry (docs/protocol.md, "Versions")
_MAX_DIGITS = const(9)      # integers stay below 10**9: small ints on a 32-bit board

_HEX = b"0123456789abcdef"

# Frame.decode() error codes, and the token each is reported with in a NACK. (Underscored:
# no module dict entry on the board; the few the tests name stay public.)
E_OK = const(0)
_E_LONG = const(1)
_E_NOT_FRAME = const(2)
_E_NO_CRC = const(3)
E_BAD_CRC = const(4)
_E_NO_TYPE = const(5)
_E_BAD_SEQ = const(6)
_E_BAD_TYPE = const(7)
_E_BAD_FIELD = const(8)
_E_BAD_VALUE = const(9)
E_TWICE = const(10)
_E_MANY = const(11)
REASONS = (b"ok frame_too_long not_a_frame no_checksum bad_checksum no_message_type "
           b"bad_sequence_number bad_message_type bad_field bad_value field_twice "
           b"too_many_fields")

# Frame argument errors (Frame.err after int_arg / tok_index), reported as NACK reasons.
_A_MISSING = const(1)
_A_NOT_INT = const(2)
_A_RANGE = const(3)
A_UNKNOWN = const(4)
ARG_REASONS = b"ok missing_argument not_a_number out_of_range unknown_value"


def _tables():
    # CRC-32 (reflected, polynomial 0xEDB88320) of each 4-bit value, in 16-bit halves:
    # a nibble table is 64 bytes where a byte table is 1 KB of the board's heap, and a
    # frame a second costs two lookups a byte instead of one
    hi_t = filled("H", 16)
    lo_t = filled("H", 16)
    for n in range(16):
        hi, lo = 0, n
        for _ in range(4):
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
        lo ^= buf[i]
        k = lo & 15
        lo = ((lo >> 4) | ((hi & 15) << 12)) ^ tl[k]
        hi = (hi >> 4) ^ th[k]
        k = lo & 15
        lo = ((lo >> 4) | ((hi & 15) << 12)) ^ tl[k]
        hi = (hi >> 4) ^ th[k]
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


def _tok_byte(ch):
    """True for a byte allowed in a token: printable ASCII but space, '#', '=', '@'."""
    return 32 < ch < 127 and ch != 35 and ch != 61 and ch != 64


def word_starts(words, sep=32):
    """Where each word of a word list starts: array('H') of count + 1 offsets, the last one
    past the end + 1, so word k is words[starts[k]:starts[k + 1] - 1]. Built once (boot)."""
    count = 1
    for b in words:
        if b == sep:
            count += 1
    starts = filled("H", count + 1)
    k = 1
    for i in range(len(words)):
        if words[i] == sep:
            starts[k] = i + 1
            k += 1
    starts[count] = len(words) + 1
    return starts


class Encoder:
    """Builds frames in a buffer allocated once. begin(), then fields, then end() -> length.

    A frame the decoder would refuse is never sent: one longer than MAX_FRAME or with more
    than MAX_FIELDS fields overflows, and end() drops it (returns 0).

    Encoder(words=None, starts=None): with a word list (and its word_starts), a message type,
    key or token may be given as the index of its word instead of as bytes (the controller
    names its words so: one word list costs the board's heap far less than a bytes constant
    per word)."""

    def __init__(self, words=None, starts=None):
        self.buf = bytearray(MAX_FRAME + 16)
        self.n = 0
        self.nf = 0
        self.seq = 0
        self.overflow = False
        self.words = words
        self.starts = starts

    def _put(self, b):
        n = self.n
        if n >= MAX_FRAME - 10:  # room must remain for " #xxxxxxxx" (the newline is extra)
            self.overflow = True
            return
        self.buf[n] = b
        self.n = n + 1

    def _bytes(self, s):
        if isinstance(s, int):       # word s of the word list
            w = self.words
            st = self.starts
            for i in range(st[s], st[s + 1] - 1):
                self._put(w[i])
            return
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
        self.nf = 0
        self.overflow = False
        self.seq = (self.seq + 1) & 0xFFFF
        self._put(64)  # '@'
        self._int(self.seq)
        self._put(32)
        self._bytes(kind)

    def int(self, key, value):
        self.nf += 1
        self._put(32)
        self._bytes(key)
        self._put(61)  # '='
        self._int(value)

    def tok(self, key, value):
        self.nf += 1
        self._put(32)
        self._bytes(key)
        self._put(61)
        self._bytes(value)

    def tok_from(self, key, buf, start, end):
        """A token copied from buf[start:end] (e.g. a received frame), without slicing."""
        self.nf += 1
        self._put(32)
        self._bytes(key)
        self._put(61)
        for i in range(start, end):
            self._put(buf[i])

    def word(self, key, words, k, sep=32):
        """key=<word k of the word list words> (words separated by the byte sep)."""
        self.nf += 1
        self._put(32)
        self._bytes(key)
        self._put(61)
        i = 0
        n = len(words)
        while k and i < n:
            if words[i] == sep:
                k -= 1
            i += 1
        while i < n and words[i] != sep:
            self._put(words[i])
            i += 1

    def word_run(self, key, words, first, count, total, sep=32):
        """key=<words first, first+1, ... (count of them, wrapping at total)>, joined by
        commas (the candidate spaces of a blind landing: cands=3,17)."""
        self.nf += 1
        self._put(32)
        self._bytes(key)
        self._put(61)
        for j in range(count):
            if j:
                self._put(44)  # ','
            k = (first + j) % total
            i = 0
            n = len(words)
            while k and i < n:
                if words[i] == sep:
                    k -= 1
                i += 1
            while i < n and words[i] != sep:
                self._put(words[i])
                i += 1

    def bits(self, key, mask):
        """key=<the set bits of mask, as indices joined by commas>, or '-' when none
        (which sensors: ids=3,5)."""
        self.nf += 1
        self._put(32)
        self._bytes(key)
        self._put(61)
        if not mask:
            self._put(45)
            return
        i = 0
        first = True
        while mask:
            if mask & 1:
                if not first:
                    self._put(44)
                self._int(i)
                first = False
            mask >>= 1
            i += 1

    def end(self):
        """Close the frame; returns its length (0 if it overflowed and was dropped: too long,
        or more than MAX_FIELDS fields)."""
        if self.overflow or self.nf > MAX_FIELDS:
            return 0
        n = self.n
        buf = self.buf
        buf[n] = 32
        buf[n + 1] = 35  # '#'
        crc32_into(buf, 0, n + 1, buf, n + 2)
        buf[n + 10] = 10
        self.n = n + 11
        return self.n


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


class Frame:
    """A received frame, checked and split in place (the board's command parser).

    decode(buf, n) -> E_OK or an E_* code. Then seq, the kind (kind_in /
    kind_starts) and the fields, read by key with int_arg() and tok_index(); an argument
    error sets err (an A_* code) and err_key (the key, as given) instead of raising.
    Nothing here allocates. Frame(words=None, starts=None): with a word list (and its
    word_starts), a key may be given as the index of its word (see Encoder).
    """

    def __init__(self, words=None, starts=None):
        self.words = words
        self.starts = starts
        self.buf = None
        self.n = 0
        self.seq = -1
        self.ks = 0
        self.ke = 0
        self.nf = 0
        self.kst = filled("H", MAX_FIELDS)
        self.ken = filled("H", MAX_FIELDS)
        self.vst = filled("H", MAX_FIELDS)
        self.ven = filled("H", MAX_FIELDS)
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
            return _E_LONG
        if n < 1 or buf[0] != 64:
            return _E_NOT_FRAME
        h = n - 10  # where " #" must stand
        if h < 1 or buf[h] != 32 or buf[h + 1] != 35:
            return _E_NO_CRC
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
                return _E_BAD_SEQ
            seq = seq * 10 + d
            i += 1
        if i == 1 or seq > 0xFFFF:
            return _E_BAD_SEQ
        if i >= h:
            return _E_NO_TYPE
        i += 1
        self.ks = i
        while i < h and buf[i] != 32:
            if not _tok_byte(buf[i]):
                return _E_BAD_TYPE
            i += 1
        self.ke = i
        if self.ke == self.ks:
            return _E_BAD_TYPE
        nf = 0
        while i < h:
            i += 1  # the space before a field
            if nf >= MAX_FIELDS:
                return _E_MANY
            ks = i
            while i < h and buf[i] != 32 and buf[i] != 61:
                if not _tok_byte(buf[i]):
                    return _E_BAD_FIELD
                i += 1
            if i == ks or i >= h or buf[i] != 61:
                return _E_BAD_FIELD
            ke = i
            i += 1
            vs = i
            while i < h and buf[i] != 32:
                if not _tok_byte(buf[i]):
                    return _E_BAD_VALUE
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
        buf = self.buf
        if isinstance(lit, int):     # word lit of the word list
            w = self.words
            a = self.starts[lit]
            if e - s != self.starts[lit + 1] - 1 - a:
                return False
            while s < e:
                if buf[s] != w[a]:
                    return False
                s += 1
                a += 1
            return True
        if e - s != len(lit):
            return False
        j = 0
        for ch in lit:
            if buf[s + j] != ch:
                return False
            j += 1
        return True

    # ----- the message type -----
    def kind_in(self, words):
        """Index of the message type in a word list (space-separated bytes), or -1."""
        return self.word_index(self.ks, self.ke, words)

    def kind_starts(self, prefix):
        p = len(prefix)
        if self.ke - self.ks < p:
            return False
        return self._eq(self.ks, self.ks + p, prefix)

    # ----- fields -----
    def find(self, key):
        """Index of the field named key (bytes, or the index of a word), or -1."""
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
                self._fail(_A_MISSING, key)
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
            self._fail(_A_NOT_INT, key)
            return lo
        v = 0
        while i < e:
            d = buf[i] - 48
            if d < 0 or d > 9:
                self._fail(_A_NOT_INT, key)
                return lo
            v = v * 10 + d
            i += 1
        if neg:
            v = -v
        if v < lo or v > hi:
            self._fail(_A_RANGE, key)
            return lo
        return v

    def tok_index(self, key, words, default=-2):
        """Index of field key's value in a word list; default if absent (-2: required).

        A value not in the list sets err = A_UNKNOWN and returns -1.
        """
        j = self.find(key)
        if j < 0:
            if default == -2:
                self._fail(_A_MISSING, key)
                return -1
            return default
        k = self.word_index(self.vst[j], self.ven[j], words)
        if k < 0:
            self._fail(A_UNKNOWN, key)
        return k

    def label_index(self, key, labels, start):
        """Index of field key's value in a newline-separated list of labels, which may
        hold spaces (written '_' on the wire), from label start on (so repeated labels can
        all be found); -1 if none or if the field is absent."""
        j = self.find(key)
        if j < 0:
            return -1
        return self.word_index(self.vst[j], self.ven[j], labels, 10, start)

    def word_index(self, s, e, words, sep=32, start=0):
        """Index of buf[s:e] among the words of a word list (bytes, words separated by the
        byte sep), counting from word start; -1 if none. A '_' in buf matches a space in
        a word (labels may hold spaces; tokens cannot)."""
        buf = self.buf
        n = len(words)
        want = e - s
        k = 0
        i = 0
        while i < n:
            j = i
            while j < n and words[j] != sep:
                j += 1
            if k >= start and j - i == want:
                a = s
                b = i
                while b < j:
                    c = buf[a]
                    w = words[b]
                    if c != w and not (c == 95 and w == 32):
                        break
                    a += 1
                    b += 1
                if b == j:
                    return k
            k += 1
            i = j + 1
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
