"""The host's half of the frame codec; ringfw.wire is the board's half (what runs on the board).

The frame format, the CRC, the Encoder and the board's receiver (wire.FrameReader.push,
wire.Frame.decode) live in ringfw.wire, and only what the board needs lives there: every
line of it is bytecode in the board's heap. What only the host (CPython) uses is here:

- parse(line): a received line -> (seq, kind, fields dict), built on wire.Frame.decode
  (the same checks as the board); raises WireError naming what is wrong.
- encode(enc, kind, fields): a frame built from a dict with a wire.Encoder -> bytes.
- StreamReader: wire.FrameReader plus feed(data) -> the complete frames found.
- LineReader: a byte stream -> lines of at most MAX_FRAME bytes.
- check(line): the CRC check alone, on a whole line.

See docs/protocol.md.
"""
from __future__ import annotations
from ringfw import wire
from ringfw.wire import _MAX_DIGITS, MAX_FRAME, Frame, _tok_byte, crc32_into
from ringside.errors import RingsideError
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringfw.wire import Encoder


class WireError(RingsideError, ValueError):
    """A line that is not a valid frame. The message says why."""


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


def check(line: bytes) -> bytes:
    """A received line (bytes, without the newline) -> body bytes without the CRC part.

    Raises WireError naming what is wrong.
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


# Frame.decode() error codes (wire.E_*) -> WireError messages.
_MESSAGES = ("ok", "frame too long", "not a frame", "no checksum", "bad checksum",
             "no message type", "bad sequence number", "bad message type", "bad field",
             "bad value", "a field twice", "too many fields")


def parse(line: bytes, raw: bool = False) -> tuple:
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


class EncodeError(WireError):
    """A frame the host was about to send that the board's decoder would refuse. `why` is
    the decoder's reason token (docs/protocol.md, Frames): too_many_fields,
    frame_too_long, bad_message_type, bad_field or bad_value."""

    def __init__(self, why: str, message: str):
        super().__init__(message)
        self.why = why


def encode(enc: Encoder, kind: str, fields: dict) -> bytes:
    """Build a frame from a dict with a wire.Encoder (its next sequence number); returns bytes.

    Refuses, with EncodeError, what the receiving decoder would refuse, before anything is
    written: more than MAX_FIELDS fields, a type or key that is not a token, a value that is
    neither a whole number (|v| < 10**9: the board's small ints) nor a token, and a frame
    longer than MAX_FRAME bytes. Only whole frames leave the sender."""
    kb = kind.encode() if isinstance(kind, str) else b""
    if not kb or not _valid_token(kb):
        raise EncodeError("bad_message_type", "message type %r is not a token" % (kind,))
    if len(fields) > wire.MAX_FIELDS:
        raise EncodeError("too_many_fields", "%s has %d fields; a frame holds at most %d" % (
            kind, len(fields), wire.MAX_FIELDS))
    items = []
    for k in fields:
        v = fields[k]
        kk = k.encode() if isinstance(k, str) else b""
        if not kk or not _valid_token(kk):
            raise EncodeError("bad_field", "field name %r is not a token" % (k,))
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, int):
            if not -1000000000 < v < 1000000000:
                raise EncodeError("bad_value", "value for %s is too large: %d (at most 9 digits)"
                                  % (k, v))
            items.append((kk, v))
        elif isinstance(v, str):
            t = v.encode()
            if not _valid_token(t):
                raise EncodeError("bad_value", "value for %s is not a token: %r" % (k, v))
            items.append((kk, t))
        else:
            raise EncodeError("bad_value", "value for %s is neither a whole number nor a token: "
                              "%r" % (k, v))
    enc.begin(kb)
    for kk, v in items:
        if isinstance(v, int):
            enc.int(kk, v)
        else:
            enc.tok(kk, v)
    n = enc.end()
    if n == 0:
        raise EncodeError("frame_too_long", "%s is too long for a frame (over %d bytes)" % (
            kind, MAX_FRAME))
    return bytes(enc.buf[:n])


class StreamReader(wire.FrameReader):
    """The board's FrameReader with feed(): many bytes in, the complete frames out.

    The same skipping and counting (noise, partial, overlong) as push() on the board.
    """

    def feed(self, data: bytes, count: int = -1) -> list:
        """Push data[:count] (all of it by default); returns the complete frames (bytes) found."""
        if count < 0:
            count = len(data)
        out = []
        for i in range(count):
            k = self.push(data[i])
            if k:
                out.append(bytes(self.buf[:k]))
        return out


class LineReader:
    """Splits a byte stream into lines of at most MAX_FRAME bytes.

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

    def feed(self, data: bytearray, count: int = -1) -> None:
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

    def next_line(self) -> bytes | None:
        if self._lines:
            return self._lines.pop(0)
        return None
