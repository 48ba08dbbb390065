"""The host link (ringside.link) over real ptys: handshake, version and ring checks, bad
input from the board, commands and their refusals, silence, resets and reconnection with the
scene and timer restored, Pico discovery by USB vendor id."""
from __future__ import annotations

import io
import os
import threading
import time
import tty
from types import SimpleNamespace

import pytest

from ringfw import ringfile
from ringfw.wire import Encoder
from ringside.link import PICO_VID, Link, LinkError, find_picos, open_port
from ringside.link.frames import StreamReader, WireError, encode, parse
from ringside.sim.serve import SimServer

BANNER = (b"MicroPython v1.22.2 on 2024-02-22; Raspberry Pi Pico with RP2040\r\n"
          b"Type \"help()\" for more information.\r\n>>> ")


class FakeBoard:
    """A scripted board on a pty: answers hello and commands as told, sends what it is told."""

    def __init__(self, proto=1, ring="87b30cc1", heartbeat_s=0.2, on_command=None, uid=None):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.enc = Encoder()
        self.proto = proto
        self.ring = ring
        self.uid = uid
        self.heartbeat_s = heartbeat_s
        self.on_command = on_command
        self.received = []
        self.silent = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def send(self, kind, **fields):
        self.raw(encode(self.enc, kind, fields))

    def raw(self, data):
        with self._lock:
            os.write(self.master, data)

    def hello(self):
        f = dict(fw="9.9.9", proto=self.proto, ring=self.ring, sensors=12, healthy=12,
                 side="darts")
        if self.uid:
            f["uid"] = self.uid
        self.send("hello", **f)

    def _run(self):
        rd = StreamReader()
        next_hb = time.monotonic()
        import select
        while not self._stop.is_set():
            r, _, _ = select.select([self.master], [], [], 0.02)
            if r:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    return
                for line in rd.feed(data):
                    try:
                        seq, kind, f = parse(line)
                    except WireError:
                        continue
                    self.received.append((kind, f))
                    if self.silent:
                        continue
                    if self.on_command and self.on_command(self, seq, kind, f):
                        continue
                    if kind == "hello":
                        self.hello()
                        if f.get("proto", 1) > self.proto:
                            self.send("nack", re=seq, why="protocol_too_new")
                        else:
                            self.send("ack", re=seq)
                    else:
                        self.send("ack", re=seq)
            if not self.silent and self.heartbeat_s and time.monotonic() >= next_hb:
                next_hb = time.monotonic() + self.heartbeat_s
                self.send("hb", up=1, loop=4, drop=0, err=0, blind=0)

    def close(self):
        self._stop.set()
        self._t.join(timeout=1)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


@pytest.fixture
def fake():
    boards = []

    def make(**kw):
        b = FakeBoard(**kw)
        boards.append(b)
        return b
    yield make
    for b in boards:
        b.close()


@pytest.fixture
def sim(tmp_path):
    servers = []

    def make(speed=1.0, link=True, **kw):
        s = SimServer(seed=kw.pop("seed", 6), speed=speed, out=io.StringIO(),
                      link_path=str(tmp_path / ("board%d" % len(servers))) if link else None, **kw)
        s.board.advance(1000)  # the marble lying at 0 deg settles before real time starts
        s.settle()             # ... and the board has found it (physical model: ~3-4 s)
        servers.append(s.start())
        return s
    yield make
    for s in servers:
        s.stop()


def _until(pred, timeout=3.0, step=0.01):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def _led(link, i):
    """LED i as the simulated board shows it (r, g, b), asked over the link (after 60 ms:
    the board shows a change within one 25 ms frame)."""
    time.sleep(0.06)
    link.command("sim_led", i=i)
    ev = link.wait_for("led", timeout=1.0)
    assert ev is not None and ev.fields["i"] == i
    return ev.fields["r"], ev.fields["g"], ev.fields["b"]


def _leds_of_space(srv, side, space):
    ring = srv.board.fw_ring
    s = ringfile.side(ring, side)
    k = ringfile.space_index(s, space)
    n = ring.led_count
    return [i for i in range(n)
            if s.space_at((ring.led0 + ring.led_dir * i * 36000 // n) % 36000) == k]


# ----- handshake -----
def test_handshake_reads_the_boards_hello_and_checks_the_ring(sim):
    srv = sim()
    with Link(srv.port) as link:
        assert link.connected and link.port_name == srv.port
        assert link.board["proto"] == 1 and link.board["sensors"] == 12
        assert link.board["ring"] == link.expected_ring
        assert link.ping() < 0.5


def test_a_different_ring_json_is_refused(sim):
    srv = sim()
    with pytest.raises(LinkError, match="different ring.json.*mpremote cp"):
        Link(srv.port, ring=b'{"another": "ring"}').open()


def test_ring_check_can_be_skipped(sim):
    srv = sim()
    with Link(srv.port, ring=None) as link:
        assert link.board["ring"]


def test_a_board_speaking_a_future_protocol_is_refused(fake):
    b = fake(proto=2)
    with pytest.raises(LinkError, match="speaks protocol 2; this ringside speaks 1: update ringside"):
        Link(b.path, ring=None).open()


def test_an_older_board_that_refuses_our_protocol_asks_for_a_firmware_update(fake):
    b = fake(proto=0)
    with pytest.raises(LinkError, match="protocol 0.*update the board's firmware"):
        Link(b.path, ring=None).open()


def test_a_board_that_never_answers(fake):
    b = fake(heartbeat_s=0)
    b.silent = True
    t0 = time.monotonic()
    with pytest.raises(LinkError, match="did not answer the hello"):
        Link(b.path, ring=None, handshake_timeout_s=0.3).open()
    assert time.monotonic() - t0 < 1.5


def test_a_board_stuck_in_its_fault_blink_is_reported_with_what_it_says(fake):
    # the board prints why it is not running the app every 2 s (ringfw.blink.fault); the
    # host says that, not "no answer"
    b = fake(heartbeat_s=0)
    b.silent = True
    stop = threading.Event()

    def console():
        while not stop.is_set():
            b.raw(b"ringside: starting 12 sensors\r\n")
            b.raw(b"ringside: FAULT: ring.json is not usable: ring.json is missing 'leds'\r\n")
            stop.wait(0.1)
    t = threading.Thread(target=console, daemon=True)
    t.start()
    try:
        with pytest.raises(LinkError) as e:
            Link(b.path, ring=None, handshake_timeout_s=0.5).open()
    finally:
        stop.set()
        t.join(1)
    assert str(e.value) == ("the board on %s is not running the app; it says: ring.json is not "
                            "usable: ring.json is missing 'leds'" % b.path)


def test_a_missing_port_is_named(tmp_path):
    with pytest.raises(LinkError, match="does not exist"):
        Link(str(tmp_path / "nothing"), handshake_timeout_s=0.2).open()


# ----- bad input from the board -----
def test_bad_input_from_the_board_is_counted_and_skipped(fake):
    b = fake()
    link = Link(b.path, ring=None).open()
    try:
        b.raw(b"\x00\xff garbage \x03\r\n")                       # garbage
        b.send("placed", sp="7", ang=9000)
        b.raw(BANNER)                                             # a REPL banner
        b.send("moving", ang=9000, dir=1)
        good = encode(b.enc, "lost", {"ang": 1})
        b.raw(good[:10])                                          # half a frame
        b.raw(good[:-12] + b"#00000000\n")                        # a bad CRC
        b.raw(b"@9 landed " + b"x=1 " * 100 + b"#00000000\n")     # an over-long line
        b.send("quantum_event", spin="up")                        # a type it does not know
        b.send("landed", sp="12", ang=33000, trv=-4000, conf=90)
        got = []
        while True:
            ev = link.next_event(timeout=1.0)
            assert ev is not None
            got.append(ev.kind)
            if ev.kind == "landed":
                assert ev.fields["sp"] == "12" and ev.fields["trv"] == -4000
                break
        assert got == ["placed", "moving", "quantum_event", "landed"]
        st = link.stats
        assert st["bad_frames"] == 1 and st["partial_frames"] == 1 and st["overlong_lines"] == 1
        assert st["noise_bytes"] > 50
        assert link.connected
    finally:
        link.close()


def test_names_that_look_like_numbers_stay_names(fake):
    b = fake(ring="00001234")
    with Link(b.path, ring=None) as link:
        assert link.board["ring"] == "00001234"
        b.send("landed", sp="007", alt="12", ang=1, trv=2, conf=3)
        ev = link.wait_for("landed", 1.0)
        assert ev.fields["sp"] == "007" and ev.fields["alt"] == "12" and ev.fields["ang"] == 1


# ----- commands -----
def test_wrong_arguments_are_refused_with_the_reason_in_words(sim):
    srv = sim()
    with Link(srv.port) as link:
        with pytest.raises(LinkError, match="out of range.*argument v") as e:
            link.command("bright", v=999)
        assert e.value.why == "out_of_range"
        with pytest.raises(LinkError, match="names something the board does not have.*argument name"):
            link.side("chess")
        with pytest.raises(LinkError, match="does not know this command.*teleport"):
            link.command("teleport")
        with pytest.raises(ValueError, match="direction"):
            link.arm("up")
        with pytest.raises(ValueError, match="space, a label"):
            link.paint("red")
        with pytest.raises(LinkError, match="not a token"):
            link.command("paint", c="red", sp="two words")
        assert link.connected  # refusals do not hurt the link


def test_flick_on_a_real_board_says_it_cannot(fake):
    def real(board, seq, kind, f):
        if kind.startswith("sim_"):
            board.send("nack", re=seq, why="simulated_board_only", what=kind)
            return True
        return False
    b = fake(on_command=real)
    with Link(b.path, ring=None) as link:
        with pytest.raises(LinkError, match="is a real board: it cannot flick the marble"):
            link.flick(800, "cw")


def test_a_damaged_command_is_sent_again(fake):
    def garble_first(board, seq, kind, f):
        if kind == "ping" and not board.garbled:
            board.garbled = True
            board.send("nack", re=-1, why="bad_checksum")
            return True
        return False
    b = fake(on_command=garble_first)
    b.garbled = False
    with Link(b.path, ring=None) as link:
        link.ping()
        assert link.stats["garbled"] == 1
        assert [k for k, _ in b.received].count("ping") == 2


def test_flick_arm_and_verdict_over_the_link(sim):
    srv = sim(speed=4.0)
    with Link(srv.port) as link:
        link.arm("cw", min_deg=90)
        link.flick(900, "ccw")
        ev = link.wait_for(("landed", "off_ring"), timeout=8)
        assert ev is not None and ev.kind == "landed"
        v = link.wait_for("verdict", timeout=1)
        assert v.fields["ok"] == 0 and v.text == "invalid flick: wrong direction"
        assert link.scene.arm is None  # a verdict disarms


# ----- silence, resets, reconnection -----
def test_a_silent_board_is_noticed_within_3_s(fake):
    b = fake()
    with Link(b.path, ring=None, reconnect=False) as link:
        t0 = time.monotonic()
        b.silent = True
        ev = link.wait_for("link_lost", timeout=4)
        assert ev is not None and "no word from the board" in ev.fields["why"]
        assert ev.t - t0 < 3.0
        with pytest.raises(LinkError, match="not connected"):
            link.ping()


def test_reset_with_a_new_pty_reconnects_and_restores_scene_timer_and_arm(sim):
    srv = sim()
    wild = "wildwest"
    with Link(srv.port) as link:
        link.side(wild)
        link.paint("ff0000", label="Gold")
        link.paint("0000ff", space="bank-1")
        link.brightness(200)
        link.player("00ff00", at_deg=180, width=3)
        link.timer_start(6, "00ffff", show=False)  # counting only: the spaces stay visible
        link.arm("ccw", 45)
        old_path = srv.path
        t_reset = time.monotonic()
        link.command("sim_reset", ms=300)
        lost = link.wait_for("link_lost", 2)
        assert lost is not None
        back = link.wait_for("link_restored", 3)
        assert back is not None and back.fields["restored"] >= 7
        assert time.monotonic() - t_reset < 3.0
        assert srv.path != old_path and link.connected
        ctl = srv.board.controller
        assert srv.resets == 1 and ctl.side == ctl.ring.side_names.index(wild)
        gold = _leds_of_space(srv, wild, "gold-1")[1]
        bank = _leds_of_space(srv, wild, "bank-1")[1]
        assert _led(link, gold)[0] > 0 and _led(link, bank)[2] > 0
        assert ctl.leds.bright == 200 and ctl.arm_dir == 1 and ctl.arm_min == 4500
        # the timer goes on at the time it had left: started 6 s, about 0.3 s + the
        # round trips have passed; what the board has now agrees with the host's clock
        left = ctl.timer.remaining(ctl.clock.ticks_ms())
        host_left = link.timer_left() * 1000
        assert ctl.timer.total == 6000 and not ctl.timer.shown
        assert 4000 < left < 5800 and abs(left - host_left) < 150


def test_soft_reset_on_the_same_port_is_noticed_and_the_scene_restored(sim):
    srv = sim()
    with Link(srv.port) as link:
        link.paint("00ff00", everywhere=True)
        link.command("sim_reset", ms=0, keep=1)
        ev = link.wait_for("board_reset", 2)
        assert ev is not None
        assert _until(lambda: srv.board.controller.leds.ground == 0x00FF00, 2)
        assert _led(link, 5)[1] > 0


def test_timer_that_ran_out_while_the_board_was_away_is_reported(sim):
    srv = sim()
    with Link(srv.port) as link:
        link.timer_start(0.4, "white")
        link.command("sim_reset", ms=600)
        ev = link.wait_for("timer_expired", 3)
        assert ev is not None and ev.fields.get("restored") == 1
        assert "while the board was away" in ev.text
        # and the board shows the expired timer, without sending its own expiry
        assert _until(lambda: srv.board.controller.timer.state == 3, 1)


def test_commands_while_reconnecting_fail_clearly(sim):
    srv = sim()
    with Link(srv.port) as link:
        link.command("sim_reset", ms=600)
        assert link.wait_for("link_lost", 2) is not None
        with pytest.raises(LinkError, match="not connected \\(reconnecting"):
            link.paint("red", space="7")
        assert link.wait_for("link_restored", 4) is not None


def test_host_gone_and_back_board_keeps_timer_and_scene(sim):
    srv = sim()
    a = Link(srv.port).open()
    a.paint("0000ff", space="20")
    a.timer_start(0.8, "green")
    t_start = time.monotonic()
    a._ser.close()  # the host vanishes without a word
    a.close()
    time.sleep(0.3)
    with Link(srv.port) as b:  # a new host, knowing nothing
        ev = b.wait_for("timer_expired", 3)
        assert ev is not None
        assert abs((ev.t - t_start) - 0.8) < 0.15  # on time although no host was there
        i = _leds_of_space(srv, "darts", "20")[1]
        assert _led(b, i) == (12, 0, 0)  # the expired timer stays on show (red)...
        b.timer_cancel()
        r, g, bl = _led(b, i)
        assert bl > 0 and r == g == 0  # ...over the painted space, which survived both hosts


# ----- finding the board -----
def _fake_comports(paths):
    return lambda: [SimpleNamespace(device=p, vid=v, serial_number=sn, description="Board")
                    for p, v, sn in paths()]


def test_find_picos_by_vendor_id():
    ports = _fake_comports(lambda: [("/dev/ttyACM1", PICO_VID, "E66"), ("/dev/ttyUSB0", 0x0403, "FT"),
                                    ("/dev/ttyACM0", PICO_VID, "E65")])
    assert [p.device for p in find_picos(ports)] == ["/dev/ttyACM0", "/dev/ttyACM1"]


def test_no_port_finds_the_pico_and_follows_it_to_a_new_path(sim):
    srv = sim(link=False)
    where = {"path": srv.path}
    ports = _fake_comports(lambda: [(where["path"], PICO_VID, "E6614103E7")])
    with Link(None, comports=ports) as link:
        assert link.port_name == srv.path
        link.paint("ff0000", space="7")
        first = srv.path
        link.command("sim_reset", ms=200)
        assert link.wait_for("link_lost", 2) is not None
        assert _until(lambda: srv.path != first, 2)
        where["path"] = srv.path  # the replugged board enumerates under a new name
        back = link.wait_for("link_restored", 3)
        assert back is not None and back.fields["port"] == srv.path != first
        assert srv.board.controller.leds.sp_col[ringfile.space_index(ringfile.side(srv.board.fw_ring, "darts"), "7")] \
            == 0xFF0000


def test_no_pico_plugged_in():
    with pytest.raises(LinkError, match="no Raspberry Pi Pico found.*--port"):
        Link(None, comports=lambda: [], handshake_timeout_s=0.2).open()


def test_pyserial_urls_are_reachable():
    port = open_port("loop://")
    port.write(b"@1 ping #x\n")
    assert port.read(11) == b"@1 ping #x\n"
    port.close()
    with pytest.raises(LinkError, match="cannot open"):
        open_port("nosuchscheme://x")


def test_a_url_that_does_not_answer_fails_the_handshake():
    with pytest.raises(LinkError, match="did not answer"):
        Link("loop://", ring=None, handshake_timeout_s=0.2).open()


def test_a_boards_hello_says_what_calibration_it_keeps_in_plain_words():
    from ringside.link.messages import board_calibration, describe
    base = {"fw": "0.1.0", "proto": 1, "ring": "abcd0123", "sensors": 12, "healthy": 12,
            "side": "darts"}
    assert board_calibration(base) is None                   # a firmware before stop 42
    assert "calibrat" not in describe("hello", base)
    none = board_calibration(dict(base, cal=0, bg=0))
    assert none[0] is False and none[1].startswith("not calibrated: run `ringside calibrate")
    old = board_calibration(dict(base, cal=1, bg=0))
    assert old[0] is False and "older version, without the empty ring" in old[1]
    assert board_calibration(dict(base, cal=1, bg=12)) == (True, "calibrated, with the empty ring")
    part = board_calibration(dict(base, cal=1, bg=11))
    assert part[0] is True and "11 of its 12 sensors" in part[1]
    assert describe("hello", dict(base, cal=1, bg=0)).endswith(old[1])
    bad = board_calibration(dict(base, cal=-1, bg=0))
    assert bad[0] is False and "calibration file is unusable" in bad[1]


@pytest.mark.parametrize("hello, said", [
    ({"cal": 1, "bg": 0}, "the board on /dev/ttyACM7 is calibrated by an older version, without "
                          "the empty ring: run `ringside calibrate --port /dev/ttyACM7` again"),
    ({"cal": 0, "bg": 0}, "the board on /dev/ttyACM7 is not calibrated: run `ringside "
                          "calibrate --port /dev/ttyACM7`"),
    ({"cal": 1, "bg": 12}, None),
    ({}, None),                                   # a firmware that does not say
])
def test_play_on_a_real_board_says_when_its_calibration_will_let_the_family_down(
        monkeypatch, capsys, hello, said):
    import ringside.link as link_mod
    from ringside.app import cmd_play

    class FakeLink:
        port_name = "/dev/ttyACM7"

        def __init__(self, port):
            self.hello = dict({"sensors": 12, "healthy": 12, "proto": 1}, **hello)

        def open(self):
            return self

        def close(self):
            pass
    monkeypatch.setattr(link_mod, "Link", FakeLink)
    game = SimpleNamespace(capabilities=SimpleNamespace(ring_side="darts"))
    args = SimpleNamespace(port="/dev/ttyACM7", sim=False, sim_pty=False, typed=False,
                           ideal=False, no_calibrate=False)
    port, mode, close = cmd_play._open_board(args, game, 1)
    assert mode == "board" and port.link.port_name == "/dev/ttyACM7"
    out = capsys.readouterr().out
    if said is None:
        assert out == ""
    else:
        assert said in out
    # a game played off the ring (Doubles, The Circle) uses the board's LEDs only: no word
    game = SimpleNamespace(capabilities=SimpleNamespace(ring_side=None))
    cmd_play._open_board(args, game, 1)
    assert capsys.readouterr().out == ""
