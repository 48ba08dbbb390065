"""The frame codec (ringfw.wire, and its host half ringside.link.frames) and how the
firmware's receiver treats bad input.

Every bad input the issue lists has a test here, on the board's side: garbage, a REPL
banner mid-stream, half frames, bad CRCs, over-long lines, unknown message types, a
future protocol version and commands with wrong arguments. The receiver counts, skips or
NACKs with a reason; it never crashes or hangs. The host's side is in tests/host/test_link*.py.
"""
import binascii

import pytest
from hypothesis import given, settings, strategies as st

from ringfw import wire
from ringfw.wire import MAX_FRAME, Encoder, Frame, crc32_into
from ringside.link.frames import EncodeError, StreamReader, WireError, encode, parse
from ringside.sim.board import SimBoard

BANNER = (b"MicroPython v1.22.2 on 2024-02-22; Raspberry Pi Pico with RP2040\r\n"
          b"Type \"help()\" for more information.\r\n>>> ")


def frame(kind, **fields):
    return encode(Encoder(), kind, fields)


def frames_of(data, chunks=None):
    rd = StreamReader()
    out = []
    if chunks is None:
        chunks = [data]
    for c in chunks:
        out.extend(rd.feed(c))
    return out, rd


# ----- the format -----
def test_a_frame_is_a_readable_line_with_sequence_and_crc32():
    line = frame("landed", sp="7", ang=9012, trv=-21450, conf=87)
    assert line.startswith(b"@1 landed sp=7 ang=9012 trv=-21450 conf=87 #")
    assert line.endswith(b"\n")
    body, crc = line[:-1].rsplit(b"#", 1)
    assert crc == b"%08x" % (binascii.crc32(body) & 0xFFFFFFFF)


def test_crc_matches_binascii_for_every_byte_value():
    data = bytes(range(256)) * 3
    out = bytearray(8)
    crc32_into(data, 0, len(data), out, 0)
    assert bytes(out) == b"%08x" % (binascii.crc32(data) & 0xFFFFFFFF)


def test_parse_round_trip_and_types():
    seq, kind, f = parse(frame("hb", up=12, loop=4, why="silent", neg=-3, empty="")[:-1])
    assert (seq, kind) == (1, "hb")
    assert f == {"up": 12, "loop": 4, "why": "silent", "neg": -3, "empty": ""}
    # names that look like numbers stay names with raw=True
    _, _, f = parse(frame("landed", sp="007", ring="12345678")[:-1], raw=True)
    assert f == {"sp": "007", "ring": "12345678"}


def test_sequence_numbers_count_up_and_wrap_at_16_bits():
    e = Encoder()
    e.seq = 0xFFFE
    seqs = [parse(encode(e, "ping", {})[:-1])[0] for _ in range(3)]
    assert seqs == [0xFFFF, 0, 1]


def test_encoder_refuses_frames_over_the_bound():
    e = Encoder()
    with pytest.raises(WireError, match="too long"):
        encode(e, "x", {"k%d" % i: "v" * 10 for i in range(15)})
    longest = None
    # the longest frame that fits is exactly MAX_FRAME bytes before the newline
    for n in range(150, 200):
        try:
            line = encode(e, "x", {"k": "v" * n})
        except WireError:
            break
        longest = line
    assert len(longest) - 1 == MAX_FRAME
    assert parse(longest[:-1])[1] == "x"


@pytest.mark.parametrize("value", ["has space", "a=b", "#x", "@x", "caf\u00e9", "tab\t"])
def test_encoder_refuses_values_that_are_not_tokens(value):
    with pytest.raises(WireError, match="not a token"):
        frame("paint", c=value)


def test_encoder_refuses_seventeen_fields_the_decoder_would_refuse():
    """Issue 17 item 5: 17 fields made a frame the decoder refuses (too_many_fields)."""
    e = Encoder()
    sixteen = {"k%d" % i: i for i in range(wire.MAX_FIELDS)}
    assert parse(encode(e, "x", sixteen)[:-1])[2] == sixteen
    seq = e.seq
    with pytest.raises(EncodeError, match="x has 17 fields; a frame holds at most 16") as err:
        encode(e, "x", dict(sixteen, k16=16))
    assert err.value.why == "too_many_fields"
    assert e.seq == seq          # nothing was begun: no frame number spent on it


@pytest.mark.parametrize("kind, fields, why", [
    ("x", {"k%d" % i: "v" * 10 for i in range(15)}, "frame_too_long"),
    ("", {}, "bad_message_type"),
    ("two words", {}, "bad_message_type"),
    ("x", {"": 1}, "bad_field"),
    ("x", {"a=b": 1}, "bad_field"),
    ("x", {"k": "a b"}, "bad_value"),
    ("x", {"k": 10 ** 9}, "bad_value"),
    ("x", {"k": -10 ** 9}, "bad_value"),
    ("x", {"k": 1.5}, "bad_value"),
    ("x", {"k": None}, "bad_value"),
    ("x", {"k": b"bytes"}, "bad_value"),
])
def test_encoder_refusals_carry_the_decoders_reason(kind, fields, why):
    with pytest.raises(EncodeError) as err:
        encode(Encoder(), kind, fields)
    assert err.value.why == why
    assert isinstance(err.value, WireError)


def test_the_boards_encoder_drops_a_frame_with_too_many_fields():
    e = Encoder()
    e.begin(b"x")
    for i in range(wire.MAX_FIELDS):
        e.int(b"k", i)
    n = e.end()
    assert n and Frame().decode(e.buf, n - 1) == wire.E_TWICE   # (the same key: the count is ok)
    e.begin(b"x")
    for i in range(wire.MAX_FIELDS + 1):
        e.tok(b"k%d" % i if i < 10 else b"j%d" % i, b"v")
    assert e.end() == 0


# ----- bad input: the decoder names what is wrong -----
def _corrupt(line, i, b):
    x = bytearray(line)
    x[i] = b
    return bytes(x)


@pytest.mark.parametrize("line, why", [
    (b"", "not a frame"),
    (b"hello", "not a frame"),
    (b"@1 ping", "no checksum"),
    (b"@1 ping #1234567", "no checksum"),
    (b"@1 ping #00000000", "bad checksum"),
    (b"@" + b"x" * MAX_FRAME, "frame too long"),
])
def test_parse_rejects_with_a_reason(line, why):
    with pytest.raises(WireError, match=why):
        parse(line)


def _signed(body):
    """A line with a correct CRC around any body (to reach the checks after the CRC)."""
    b = b"@" + body + b" "
    return b + b"#%08x" % (binascii.crc32(b) & 0xFFFFFFFF)


@pytest.mark.parametrize("body, why", [
    (b"x ping", "bad sequence number"),
    (b"123456 ping", "bad sequence number"),
    (b"70000 ping", "bad sequence number"),
    (b"-1 ping", "bad sequence number"),
    (b"5", "no message type"),
    (b"5 a=b", "bad message type"),
    (b"5 ping k", "bad field"),
    (b"5 ping =v", "bad field"),
    (b"5 ping  k=v", "bad field"),
    (b"5 ping k=v=w", "bad value"),
    (b"5 ping k=1 k=2", "a field twice"),
    (b"5 ping " + b" ".join(b"k%d=1" % i for i in range(17)), "too many fields"),
    (b"5 p\xffng", "bad message type"),
    (b"5 ping \xff=1", "bad field"),
])
def test_signed_but_malformed_frames_are_rejected(body, why):
    with pytest.raises(WireError, match=why):
        parse(_signed(body))


def test_frame_decode_gives_codes_for_the_firmware():
    f = Frame()
    line = _corrupt(frame("ping")[:-1], 3, ord("x"))
    assert f.decode(line, len(line)) == wire.E_BAD_CRC
    assert wire.REASONS.split(b" ")[wire.E_BAD_CRC] == b"bad_checksum"


# ----- the byte stream: noise, banners, half frames, over-long lines -----
def test_garbage_bytes_are_counted_and_skipped():
    good = frame("ping")
    out, rd = frames_of(b"\x00\xff\x03\x04garbage\r\n" + good + b"more junk\n")
    assert out == [good[:-1]]
    assert rd.noise == len(b"\x00\xff\x03\x04garbage") + len(b"more junk")


def test_a_repl_banner_in_the_middle_of_the_stream_is_skipped():
    a, b = frame("ping"), frame("status")
    # the prompt ">>> " has no newline: the next frame follows on the same line
    out, rd = frames_of(a + BANNER + b)
    assert out == [a[:-1], b[:-1]]
    assert rd.noise == len(BANNER) - 4  # CR LF pairs end lines: they are not noise bytes
    assert rd.partial == 0


def test_a_half_frame_is_dropped_and_the_next_frame_survives():
    a, b = frame("ping"), frame("status")
    out, rd = frames_of(a[:9] + b)
    assert out == [b[:-1]]
    assert rd.partial == 1


def test_a_half_frame_cut_by_a_newline_fails_its_check():
    a = frame("paint", c="red", sp="7")
    out, _ = frames_of(a[:15] + b"\n")
    with pytest.raises(WireError):
        parse(out[0])


def test_oversized_lines_are_skipped_whole_and_counted():
    good = frame("ping")
    out, rd = frames_of(b"@1 " + b"x" * 500 + b" #00000000\n" + good)
    assert out == [good[:-1]]
    assert rd.overlong == 1


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(st.binary(min_size=0, max_size=40), max_size=30), st.data())
def test_fuzz_any_stream_in_any_chunks_never_raises_and_keeps_valid_frames(noise, data):
    """Valid frames mixed with random bytes: the reader never raises, every valid frame
    that is not touched by noise comes out whole, and chunking does not matter."""
    e = Encoder()
    stream = b""
    kept = []
    for i, n in enumerate(noise):
        f = encode(e, "ev", {"i": i})
        # noise that holds '@' or ends without a newline may swallow the frame after it
        safe = b"@" not in n
        stream += n + b"\n" + f if safe else n + f
        if safe:
            kept.append(f[:-1])
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    chunks = [stream[a:b] for a, b in zip([0] + cuts, cuts + [len(stream)], strict=True)]
    out, rd = frames_of(stream, chunks)
    whole, _ = frames_of(stream)
    assert out == whole
    for f in kept:
        assert f in out
    for line in out:
        try:
            parse(line)
        except WireError:
            pass


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=MAX_FRAME + 20))
def test_fuzz_parse_of_random_bytes_only_raises_wire_error(line):
    try:
        seq, kind, f = parse(line)
    except WireError:
        return
    assert 0 <= seq <= 0xFFFF and kind


_token = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126,
                                        blacklist_characters="#=@"), min_size=1, max_size=8)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(_token, st.dictionaries(_token, st.one_of(st.integers(-999999999, 999999999), _token),
                               max_size=8))
def test_fuzz_encode_then_decode_is_identity(kind, fields):
    e = Encoder()
    try:
        line = encode(e, kind, fields)
    except WireError as err:
        assert "too long" in str(err)
        return
    assert len(line) - 1 <= MAX_FRAME
    seq, k, f = parse(line[:-1], raw=True)
    assert k == kind
    assert f == {key: str(v) for key, v in fields.items()}
    # the board's in-place view finds the same fields
    fr = Frame()
    assert fr.decode(line, len(line) - 1) == wire.E_OK
    for key, v in fields.items():
        if isinstance(v, int):
            assert fr.int_arg(key.encode(), -10 ** 9, 10 ** 9) == v
        else:
            assert fr.tok_index(key.encode(), v.encode()) == 0


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 60), st.integers(0, 255))
def test_fuzz_one_changed_byte_is_always_caught(pos, value):
    line = frame("landed", sp="12", ang=9012, trv=-2145, conf=87)[:-1]
    pos %= len(line)
    if line[pos] == value:
        return
    bad = _corrupt(line, pos, value)
    with pytest.raises(WireError):
        parse(bad)


# ----- the firmware's receiver on a simulated board -----
@pytest.fixture
def board():
    b = SimBoard(seed=3)
    b.advance(40)
    return b


def reply(b, data, ms=12):
    """Send bytes; the board reads 64 bytes a loop (4 ms), so wait long enough for them."""
    n = len(b.frames)
    b.send_bytes(data)
    b.advance(ms + len(data) // 16)
    return [(k, f) for _, k, f in b.frames[n:] if k != "hb"]


def host(kind, seq=7, **fields):
    e = Encoder()
    e.seq = seq - 1
    return encode(e, kind, fields)


def test_board_acks_ping_with_its_sequence_number(board):
    assert reply(board, host("ping", seq=41)) == [("ack", {"re": 41})]


def test_board_survives_garbage_and_still_answers(board):
    import random
    rng = random.Random(5)
    junk = bytes(rng.randrange(256) for _ in range(3000)).replace(b"@", b"")
    assert reply(board, junk, ms=40) == []  # no '@', so nothing that could be a frame
    assert board.controller.reader.noise > 1000
    assert reply(board, b"\n" + host("ping", seq=8)) == [("ack", {"re": 8})]
    assert board.controller.errors == 0


def test_board_skips_a_repl_banner(board):
    got = reply(board, BANNER + host("ping", seq=9) + BANNER, ms=40)
    assert got == [("ack", {"re": 9})]


def test_board_drops_half_frames_and_counts_them(board):
    a = host("paint", seq=10, c="red", sp="7")
    got = reply(board, a[:12] + host("ping", seq=11))
    assert got == [("ack", {"re": 11})]
    assert board.controller.reader.partial == 1
    board.advance(1000)
    assert board.frames_of("hb")[-1][2]["drop"] >= 1


def test_board_nacks_a_bad_crc_without_trusting_its_sequence(board):
    a = _corrupt(host("ping", seq=12), 2, ord("9"))
    assert reply(board, a) == [("nack", {"re": -1, "why": "bad_checksum"})]
    assert board.controller.bad_frames == 1


def test_board_skips_oversized_lines_and_reads_on(board):
    got = reply(board, b"@1 " + b"k=v " * 300 + b"#00000000\n" + host("ping", seq=13), ms=60)
    assert got == [("ack", {"re": 13})]
    assert board.controller.reader.overlong == 1


def test_board_nacks_unknown_message_types_by_name(board):
    assert reply(board, host("teleport", seq=14, to=3)) == [
        ("nack", {"re": 14, "why": "unknown_command", "what": "teleport"})]


def test_board_refuses_a_future_protocol_version_after_saying_its_own(board):
    got = reply(board, host("hello", seq=15, proto=2))
    assert got[0][0] == "hello" and got[0][1]["proto"] == wire.PROTOCOL
    assert got[1] == ("nack", {"re": 15, "why": "protocol_too_new"})
    assert reply(board, host("hello", seq=16, proto=1))[1] == ("ack", {"re": 16})


@pytest.mark.parametrize("kind, fields, why, arg", [
    ("side", {}, "missing_argument", "name"),
    ("side", {"name": "chess"}, "unknown_value", "name"),
    ("raw", {"on": 5}, "out_of_range", "on"),
    ("cal", {"id": 99}, "out_of_range", "id"),
    ("cal", {"id": "one"}, "not_a_number", "id"),
    ("cal", {"id": 1, "scale": 100}, "out_of_range", "scale"),
    ("arm", {"dir": "up"}, "unknown_value", "dir"),
    ("arm", {"min": -5}, "out_of_range", "min"),
    ("paint", {"sp": "7"}, "missing_argument", "c"),
    ("paint", {"c": "chartreuse", "sp": "7"}, "unknown_value", "c"),
    ("paint", {"c": "red", "sp": "99"}, "unknown_value", "sp"),
    ("paint", {"c": "red", "label": "Nowhere"}, "unknown_value", "label"),
    ("player", {"c": "red", "at": 36000}, "out_of_range", "at"),
    ("bright", {}, "missing_argument", "v"),
    ("bright", {"v": 256}, "out_of_range", "v"),
    ("bright", {"v": "1e3"}, "not_a_number", "v"),
    ("timer_start", {}, "missing_argument", "ms"),
    ("timer_start", {"ms": 90000000}, "out_of_range", "ms"),
    ("timer_start", {"s": 5, "c": "12345g"}, "unknown_value", "c"),
    ("flash", {"n": 0}, "out_of_range", "n"),
    ("pulse", {"sp": "nowhere"}, "unknown_value", "sp"),
    ("fx", {"trail": 2}, "out_of_range", "trail"),
])
def test_board_nacks_wrong_arguments_naming_the_argument(board, kind, fields, why, arg):
    before = board.pixels.frame
    got = reply(board, host(kind, seq=20, **fields))
    assert got == [("nack", {"re": 20, "why": why, "arg": arg})]
    board.advance(60)
    assert board.pixels.frame == before  # nothing half-applied
    assert board.controller.errors == 0


def test_board_nacks_commands_that_name_no_target(board):
    assert reply(board, host("paint", seq=21, c="red")) == [
        ("nack", {"re": 21, "why": "say_sp_label_or_all"})]
    assert reply(board, host("timer_pause", seq=22)) == [("nack", {"re": 22, "why": "no_timer"})]


def test_a_real_board_refuses_simulated_board_commands_clearly(board):
    # SimBoard runs the bare controller, as a real board does: no sim_command handler
    assert board.controller.sim_command is None
    assert reply(board, host("sim_flick", seq=23, speed=800, dir="cw")) == [
        ("nack", {"re": 23, "why": "simulated_board_only", "what": "sim_flick"})]


def test_repl_command_acks_then_hands_the_port_back(board):
    released = []
    board.controller.serial.release_repl = lambda: released.append(board.now)
    got = reply(board, host("repl", seq=24))
    assert got == [("ack", {"re": 24})]
    assert released and board.controller.released


def test_repl_command_calls_release_repl_on_a_serial_that_has_it():
    from ringfw import geometry
    from ringfw.controller import Controller
    from ringside.sim import board as sb

    class Port:
        def __init__(self):
            self.inbox = bytearray(host("repl", seq=5))
            self.out = bytearray()
            self.calls = 0

        def read_into(self, buf):
            n = min(len(buf), len(self.inbox))
            buf[:n] = self.inbox[:n]
            del self.inbox[:n]
            return n

        def write(self, buf, n):
            self.out += buf[:n]

        def release_repl(self):
            self.calls += 1
            self.acked_first = b"ack re=5" in self.out

    b = SimBoard(seed=1)
    port = Port()
    ctl = Controller(geometry.loads(b.ring_bytes), sb._Clock(b), sb._Sensors(b), b.pixels, port,
                     b.watchdog)
    ctl.step(4)
    assert port.calls == 1 and port.acked_first


def test_hello_carries_versions_ring_hash_and_sensor_health(board):
    got = reply(board, host("status", seq=30))
    hello = dict(got)["hello"]
    assert hello["proto"] == wire.PROTOCOL
    assert hello["fw"] == "0.1.0"
    assert hello["ring"] == "%08x" % (binascii.crc32(board.ring_bytes) & 0xFFFFFFFF)
    assert hello["sensors"] == 12 and 0 <= hello["healthy"] <= 12
    assert hello["side"] == "darts"


def test_hello_names_the_board_by_its_unique_id(board):
    """Issue 17 item 3/4: a host tells this board from another on the same port by uid."""
    hello = dict(reply(board, host("status", seq=31)))["hello"]
    assert hello["uid"] == board.uid == "sim0000000000003"      # seeded, marked simulated
    other = SimBoard(seed=4)
    assert other.uid != board.uid and SimBoard(seed=3).uid == board.uid


def test_the_pico_reports_machine_unique_id(monkeypatch):
    import sys
    import types
    from ringfw import board_setup
    m = types.ModuleType("machine")
    m.unique_id = lambda: bytes.fromhex("e6614103e7452d2f")
    monkeypatch.setitem(sys.modules, "machine", m)
    assert board_setup.unique_id_hex() == b"e6614103e7452d2f"
    del m.unique_id                     # a port without one: no uid= in the hello
    assert board_setup.unique_id_hex() == b""


def test_heartbeat_fields(board):
    board.advance(2100)
    hb = board.frames_of("hb")[-1][2]
    assert set(hb) >= {"up", "loop", "drop", "err", "blind"}
    assert hb["up"] >= 2 and hb["loop"] == board.loop_ms and hb["drop"] == 0


def test_arm_tells_the_tracker_a_flick_is_due_and_disarm_takes_it_back(board):
    assert reply(board, host("arm", seq=40, dir="cw", min=18000)) == [("ack", {"re": 40})]
    ctl = board.controller
    assert ctl.tracker.armed and ctl.arm_dir == 2 and ctl.arm_min == 18000
    assert reply(board, host("disarm", seq=41)) == [("ack", {"re": 41})]
    assert not ctl.tracker.armed and ctl.arm_dir == -1


# ----- word lists: the board's tables of tokens -----
def test_word_lists_find_and_write_words():
    f = Frame()
    line = frame("cmd", c="blue", sp="money-bag-2", label="Money_bag", e="")
    assert f.decode(line[:-1], len(line) - 1) == wire.E_OK
    colours = b"off red green blue"
    assert f.tok_index(b"c", colours) == 3
    assert f.tok_index(b"sp", b"bank-1 money-bag-2") == 1
    assert f.tok_index(b"sp", b"bank-1 money-bag-22") == -1 and f.err == wire.A_UNKNOWN
    f.err = 0
    assert f.tok_index(b"e", b"") == -1          # nothing is in an empty list
    labels = b"Money bag\nBank\nMoney bag"
    assert f.label_index(b"label", labels, 0) == 0
    assert f.label_index(b"label", labels, 1) == 2
    assert f.label_index(b"label", labels, 3) == -1
    assert f.kind_in(b"ping cm cmd") == 2 and f.kind_in(b"cmdx") == -1
    enc = Encoder()
    enc.begin(b"t")
    enc.word(b"a", colours, 0)
    enc.word(b"b", colours, 3)
    enc.word(b"c", labels, 1, 10)
    n = enc.end()
    assert bytes(enc.buf[:n]).split(b" #")[0] == b"@1 t a=off b=blue c=Bank"


def test_the_controllers_words_are_named_by_their_index():
    """controller._W_<NAME> is word <name> of controller._WORDS (every one, and no word
    twice), and an Encoder / Frame given the word list writes and reads a word by its index
    exactly as it does the bytes."""
    import ast
    from pathlib import Path

    from ringfw import controller
    words = controller._WORDS.split(b" ")
    assert len(set(words)) == len(words)
    src = (Path(controller.__file__)).read_text()
    named = {}
    for node in ast.parse(src).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id.startswith("_W_"):
            named[node.targets[0].id] = node.value.args[0].value
    assert len(named) == len(words)
    for name, k in named.items():
        assert words[k] == name[3:].lower().encode(), name
    starts = wire.word_starts(controller._WORDS)
    a, b = Encoder(), Encoder(controller._WORDS, starts)
    ka, kb = words.index(b"sensor_fault"), words.index(b"why")
    a.begin(b"sensor_fault")
    a.int(b"why", 3)
    b.begin(ka)
    b.int(kb, 3)
    n = a.end()
    assert b.end() == n and a.buf[:n] == b.buf[:n]
    f = Frame(controller._WORDS, starts)
    assert f.decode(a.buf, n - 1) == wire.E_OK
    assert f.int_arg(kb, 0, 9) == 3 and f.has(kb) and not f.has(ka)
