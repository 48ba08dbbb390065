"""Property tests (hypothesis) of the frame codec and of the link's frame handling.

- the codec: whatever encode() sends, parse() and the board's Frame read back unchanged;
  encode() refuses exactly what the decoder would refuse, with the decoder's reason; any one
  changed, dropped, inserted or swapped byte in a frame is refused;
- the link: no input (random bytes, frames with a valid CRC and odd fields, huge lines, in
  any chunks) raises out of its frame handling or ends its reader; afterwards it still
  answers.

Repeatable in CI: every test is derandomized (the examples follow from the test alone, no
example database). RINGSIDE_HYPOTHESIS=nightly runs 50 times as many examples from a random
seed (hypothesis prints the seed and a reproduction blob for any failure).
"""
from __future__ import annotations

import os
import time

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from ringfw import wire
from ringfw.wire import MAX_FIELDS, MAX_FRAME, Encoder, Frame, crc32_into
from ringside.link import Link
from ringside.link.frames import EncodeError, WireError, encode, parse

from test_link import FakeBoard

NIGHTLY = os.environ.get("RINGSIDE_HYPOTHESIS", "") == "nightly"


def profile(examples: int):
    """CI: `examples`, derandomized. Nightly: 50 times as many, from a random seed."""
    return settings(max_examples=examples * (50 if NIGHTLY else 1), derandomize=not NIGHTLY,
                    database=None, deadline=None, print_blob=NIGHTLY,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


TOKEN_CHARS = st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="#=@")
token = st.text(alphabet=TOKEN_CHARS, min_size=1, max_size=12)
value = st.one_of(st.integers(-999_999_999, 999_999_999), st.text(alphabet=TOKEN_CHARS, max_size=12))


def _signed(body: bytes) -> bytes:
    """A line with a correct CRC over whatever body it is given (no checks)."""
    line = bytearray(body + b" #00000000")
    crc32_into(line, 0, len(body) + 1, line, len(body) + 2)
    return bytes(line)


def _naive(seq: int, kind: str, fields: dict) -> bytes:
    """The frame an encoder without checks would send."""
    body = "@%d %s" % (seq, kind) + "".join(" %s=%s" % (k, v) for k, v in fields.items())
    return _signed(body.encode("utf-8", "surrogatepass"))


# ----- the codec -----
@profile(200)
@given(token, st.dictionaries(token, value, max_size=MAX_FIELDS))
def test_what_encode_sends_reads_back_unchanged_on_both_sides(kind, fields):
    e = Encoder()
    try:
        line = encode(e, kind, fields)
    except EncodeError as err:
        assert err.why == "frame_too_long"
        assert len(_naive(e.seq, kind, fields)) > MAX_FRAME
        return
    assert line.endswith(b"\n") and len(line) - 1 <= MAX_FRAME
    seq, k, got = parse(line[:-1], raw=True)
    assert (seq, k) == (e.seq, kind)
    assert got == {key: str(v) for key, v in fields.items()}
    fr = Frame()                                   # the board's in-place view agrees
    assert fr.decode(line, len(line) - 1) == wire.E_OK and fr.nf == len(fields)
    for key, v in fields.items():
        j = fr.find(key.encode())
        assert j >= 0 and line[fr.vst[j]:fr.ven[j]] == str(v).encode()
        if isinstance(v, int):
            assert fr.int_arg(key.encode(), -10 ** 9, 10 ** 9) == v


_ANY_TEXT = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=10)


@profile(250)
@given(st.one_of(token, _ANY_TEXT),
       st.dictionaries(st.one_of(token, _ANY_TEXT), st.one_of(token, _ANY_TEXT), max_size=20))
def test_encode_sends_exactly_what_the_decoder_reads_as_meant(kind, fields):
    """Whatever text is asked for: the sender sends a frame if and only if the receiver would
    read that very frame back as the type and fields that were meant (a space or '=' in a
    name makes another frame, or none); a refusal names one of the decoder's reasons."""
    e = Encoder()
    e.seq = 41
    naive = _naive(42, kind, fields)
    try:
        seq, k, got = parse(naive, raw=True)
        meant = (seq, k, got) == (42, kind, fields)
    except WireError:
        meant = False
    try:
        line = encode(e, kind, fields)
    except EncodeError as err:
        assert err.why in wire.REASONS.decode().split()
        assert not meant, (err.why, naive)
        return
    assert meant and line[:-1] == naive


def _mutations(line: bytes):
    return st.one_of(
        st.tuples(st.just("change"), st.integers(0, len(line) - 1), st.integers(0, 255)),
        st.tuples(st.just("drop"), st.integers(0, len(line) - 1), st.just(0)),
        st.tuples(st.just("insert"), st.integers(0, len(line)), st.integers(0, 255)),
        st.tuples(st.just("swap"), st.integers(0, len(line) - 2), st.just(0)))


def _mutate(line: bytes, how) -> bytes:
    op, i, b = how
    x = bytearray(line)
    if op == "change":
        x[i] = b
    elif op == "drop":
        del x[i]
    elif op == "insert":
        x.insert(i, b)
    else:
        x[i], x[i + 1] = x[i + 1], x[i]
    return bytes(x)


@profile(300)
@given(token, st.dictionaries(token, value, max_size=6), st.data())
def test_any_single_mutation_of_a_frame_is_refused(kind, fields, data):
    try:
        line = encode(Encoder(), kind, fields)[:-1]
    except EncodeError:
        return
    bad = _mutate(line, data.draw(_mutations(line)))
    assume(bad != line)
    try:
        parse(bad)
    except WireError:
        return
    raise AssertionError("a mutated frame was accepted: %r from %r" % (bad, line))


# ----- the link's frame handling -----
KINDS = ("hello", "ack", "nack", "hb", "moving", "landed", "verdict", "off_ring", "placed",
         "lost", "sensor_fault", "sensor_ok", "not_level", "timer_expired", "raw", "error",
         "led", "burst", "link_lost", "board_reset", "quantum")
KEYS = ("re", "why", "proto", "ring", "uid", "leds", "tmr", "tps", "up", "sp", "alt", "trv",
        "ang", "conf", "ok", "dir", "total", "id", "i", "r", "g", "b", "k", "x")
ODD = st.one_of(value, st.sampled_from(["", "-", "abc", "1e5", "0x10", "--1", "1.5",
                                        "9999999999", "-0", "00001", "ff0000", "NaN"]))


@st.composite
def odd_frame(draw):
    """A frame with a valid CRC: a real message type with odd fields (wrong types, missing
    ones, too many, a key twice)."""
    kind = draw(st.sampled_from(KINDS))
    keys = draw(st.lists(st.sampled_from(KEYS), max_size=MAX_FIELDS + 2))
    body = "@%d %s" % (draw(st.integers(0, 70000)), kind)
    body += "".join(" %s=%s" % (k, draw(ODD)) for k in keys)
    return _signed(body.encode()) + b"\n"


stream = st.lists(st.one_of(
    st.binary(max_size=64),                                  # noise
    odd_frame(),
    st.binary(min_size=MAX_FRAME, max_size=4 * MAX_FRAME).map(lambda b: b"@1 " + b + b"\n"),
    st.just(b"@"), st.just(b"\r\n")), max_size=12).map(b"".join)


def _offline_link():
    link = Link("loop://", ring=None)       # never opened: its frame handling alone
    link.scene.record("timer_start", {"ms": 30000}, time.monotonic())   # hb tmr= is read
    return link


@profile(200)
@given(stream, st.lists(st.integers(1, 64), max_size=6))
def test_no_input_raises_out_of_the_links_frame_handling(data, cuts):
    link = _offline_link()
    now = time.monotonic()
    i = 0
    for c in cuts + [len(data)]:
        link._feed(data[i:i + c], now)       # the reader's path for bytes: it must not raise
        i += c
    link._feed(data[i:], now)
    st_ = link.stats
    assert st_["frames"] >= st_.get("refused_frames", 0)
    assert link.board == {} or link.board.get("proto") == wire.PROTOCOL


def test_no_input_ends_the_reader_of_a_live_link():
    """The same streams, written by a board on a pty into a running link: after each, the
    reader thread is alive and the board still answers a ping."""
    board = FakeBoard(uid="e6614103e7452d2f")
    link = Link(board.path, ring=None).open()
    reader = link._reader_thread
    try:
        @profile(40)
        @given(stream)
        def write_then_ping(data):
            board.raw(data + b"\n")
            # a hello in the stream that the link must refuse (another protocol, another
            # board) drops the port on purpose: the keeper has it back within a moment
            assert link.wait_connected(3.0)
            link.ping()                       # raises if the link is down
            assert link._reader_thread is reader and reader.is_alive()

        write_then_ping()
        assert link.connected and link.stats["reader_restarts"] == 0
    finally:
        link.close()
        board.close()
