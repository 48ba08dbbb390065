"""The table page on a board over a serial port (the ring "board": `ringside serve --board
[PORT]`, the lobby's "a board on a serial port"), tested against the simulated board on a
real pty (ringside.sim.serve.SimServer): the host opens it with pyserial by its device path,
exactly as it opens a Pico's /dev/ttyACM0, and the board speaks the same frames.

A person's flick is made on the simulated marble itself (SimBoard.flick on the board's own
thread, as a player flicks the real marble): the host never asks for it, it only reads the
board's `landed` frame. USB auto-detection is tested with a faked
serial.tools.list_ports.comports()."""
from __future__ import annotations

import io
import json
import random
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from ringside.ring import load_side  # noqa: E402
from ringside.sim.physics import Flicker  # noqa: E402
from ringside.sim.serve import SimServer  # noqa: E402
from ringside.web import leds as L  # noqa: E402
from ringside.web import lobby as LB  # noqa: E402
from ringside.web.server import Config, create_app  # noqa: E402

BASE = "http://127.0.0.1:8765"
WS = "ws://127.0.0.1:8765"
SPEED = 10.0            # the simulated board's clock against the wall's
DARTS = load_side("darts")
ANN_BOB = [{"name": "Ann", "plays": "human"}, {"name": "Bob", "plays": "human"}]


class Board:
    """The simulated board on a pty (linked at tmp/board, the link follows it across resets),
    its marble resting on `at` before the host connects."""

    def __init__(self, tmp_path: Path, at: str = "7", seed: int = 6):
        self.srv = SimServer(seed=seed, speed=SPEED, out=io.StringIO(), link_path=str(tmp_path / "board"),
                             sensor_model="ideal")
        b = self.srv.board
        b.place(DARTS.centre(at), lift_ms=0)
        b.advance(1000)
        self.srv.settle()
        self.srv.start()

    @property
    def port(self) -> str:
        return self.srv.port

    def on_board(self, fn, timeout_s: float = 10.0):
        """fn() on the board's own thread (the simulated board is not thread safe)."""
        done = threading.Event()
        out = []

        def run():
            out.append(fn())
            done.set()
        self.srv._later(run)
        assert done.wait(timeout_s), "the simulated board did not run the action"
        return out[0]

    def flick(self, travel_deg: float, seed: int = 1) -> None:
        """A player's flick aimed at travel_deg (+ = anticlockwise), on the marble itself."""
        ring = self.srv.board.ring_dict
        speed = Flicker(ring).flick_speed(random.Random(seed), travel_deg, 1.0)
        self.on_board(lambda: self.srv.board.flick(speed))

    def marble_space(self) -> str | None:
        m = self.srv.board.marble
        return DARTS.space_at(m.position_deg) if m.on_ring else None

    def lit(self) -> dict:
        """LED -> its colour as the board's firmware shows it ("rrggbb", dimmed by the cap)."""
        frame = bytes(self.srv.board.pixels.frame)       # G R B per LED
        return {i: "%02x%02x%02x" % (frame[3 * i + 1], frame[3 * i], frame[3 * i + 2])
                for i in range(len(frame) // 3) if any(frame[3 * i:3 * i + 3])}

    def stop(self):
        self.srv.stop()


@pytest.fixture
def board(tmp_path):
    made = []

    def make(**kw):
        b = Board(tmp_path, **kw)
        made.append(b)
        return b
    yield make
    for b in made:
        b.stop()


@pytest.fixture
def client(tmp_path):
    made = []

    def make():
        st = LB.Settings(save_dir=tmp_path / "saves", speed=1.0, bot_delay=0.0, calibrate=False)
        app = create_app(Config(st, base=BASE))
        c = TestClient(app, base_url=BASE)
        c.__enter__()
        made.append(c)
        return c
    yield make
    for c in made:
        c.__exit__(None, None, None)


def board_room(c, port=None, players=ANN_BOB, seed=3):
    spec = {"game": "darts", "players": players, "ring": "board", "seed": seed}
    if port is not None:
        spec["port"] = port
    r = c.post("/api/rooms", json=spec)
    assert r.status_code == 200, r.text
    d = r.json()
    return d, c.app.state.rooms.rooms[d["room"]]


def wait(cond, timeout_s=30.0, what="it", b=None, room=None):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    more = ""
    if room is not None:
        more += "\nthe room said:\n" + "\n".join(ln["text"] for ln in list(room.lines)[-30:])
    if b is not None:
        more += "\nthe board wrote (board ms, frame):\n" + "\n".join(
            "%d %s" % (t, f.decode("ascii", "replace").strip()) for t, f in list(b.srv.sent)[-80:])
    raise AssertionError("%s did not happen within %.0f s%s" % (what, timeout_s, more))


def state_at(ws, seq, timeout_s=20.0):
    """The state message the page is sent at the room's seq (each change sends one)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        m = json.loads(ws.receive_text())
        if m.get("type") == "state" and m["seq"] >= seq:
            return m
    raise AssertionError("no state at seq %d" % seq)


def test_a_board_room_takes_the_landing_of_the_flick_made_on_the_marble(board, client):
    b = board()
    c = client()
    d, room = board_room(c, b.port)
    assert d["mode"] == "board"
    # the lobby reads the board's hello: its sensors, all working
    h = d["health"]
    assert h["link"] == "connected", h
    assert h["sensors"] == "12 of 12 working", h
    lobby = c.get("/api/lobby").json()
    assert [r["health"]["sensors"] for r in lobby["rooms"]] == ["12 of 12 working"]
    with c.websocket_connect("%s/ws/%s" % (WS, d["room"])) as ws:
        first = json.loads(ws.receive_text())
        assert first["type"] == "state" and first["mode"] == "board"
        assert first["flick"] is None and first["sim"] is None       # the page cannot flick a real marble
        labels = [m["label"] for m in first["moves"]]
        assert "it left the ring" in labels and "it stopped on 7" in labels   # a click still works
        # the host armed Ann's flick-off on the board (the board judges it)
        wait(lambda: room._armed is not None, what="arming the flick", b=b, room=room)
        assert room.game.flick_request()["seat"] == 0
        b.flick(300.0)
        wait(lambda: len(room.game.log) == 1, what="the board's landing reaching the room", b=b, room=room)
        seat, a = room.game.log[0]
        assert seat == 0 and a["type"] == "landed"
        at_rest = b.marble_space()
        assert a["space"] in (at_rest, a.get("alt")), (a, at_rest)
        m = state_at(ws, room.seq)
        assert m["landing"]["space"] == a["space"] and m["landing"]["seat"] == 0
        assert any("Ann" in ln["text"] for ln in m["log"]), m["log"]
        assert m["moves"] and {x["seat"] for x in m["moves"]} == {1}          # Bob's flick now
    # the LED scene the table sent reached the board: the same LEDs lit as the page's mirror
    wait(lambda: room._armed == (1, 1), what="arming Bob's flick", b=b, room=room)
    time.sleep(3000 / 1000.0 / SPEED + 0.3)                                  # the landing's pulse is over
    mirror = L.pixels(room.game)
    lit_m = {i for i, col in enumerate(mirror) if col != "000000"}
    lit_b = wait(lambda: b.lit() if set(b.lit()) == lit_m else None, 10, "the board lighting the mirror's LEDs", b=b, room=room)
    assert lit_m and set(lit_b) == lit_m, (mirror, lit_b)
    saved = json.loads((Path(c.app.state.cfg.settings.save_dir) / ("%s.json" % d["room"])).read_text())
    assert saved["meta"]["board"] == "board" and len(saved["game"]["log"]) == 1


def test_a_board_pulled_shows_lost_and_the_game_goes_on_where_it_was(board, client):
    b = board()
    c = client()
    d, room = board_room(c, b.port)
    rid = d["room"]
    wait(lambda: room._armed is not None, what="arming the flick", b=b, room=room)
    b.flick(300.0)
    wait(lambda: len(room.game.log) == 1, what="Ann's landing", b=b, room=room)
    ann = room.game.log[0]
    wait(lambda: room._armed == (1, 1), what="arming Bob's flick", b=b, room=room)

    def pull_and_carry():
        # the board's USB goes away (a reset: the pty is gone, a new one comes after 2.5 s);
        # while it is away Bob carries the marble back to 7 for his flick-off
        b.srv.reset(2500)
        b.srv.board.place(DARTS.centre("7"))
        b.srv.board.advance(1500)
    b.srv._later(pull_and_carry)
    lost = wait(lambda: (lambda h: h if h["link"].startswith("lost") else None)(
        c.get("/api/rooms/%s" % rid).json()["health"]), 10, what="the lobby showing the link lost")
    assert "waits for the board" in lost["link"]
    assert [r["health"]["link"] for r in c.get("/api/lobby").json()["rooms"]][0].startswith("lost")
    wait(lambda: c.get("/api/rooms/%s" % rid).json()["health"]["link"] == "connected", 20,
         what="the link coming back")
    assert c.get("/api/rooms/%s" % rid).json()["health"]["sensors"] == "12 of 12 working"
    assert room.game.log == [ann]                      # nothing lost, nothing added
    # after its reset the board shows the table's scene again (the link restores it): the mirror's LEDs
    lit_m = {i for i, col in enumerate(L.pixels(room.game)) if col != "000000"}
    assert lit_m
    wait(lambda: set(b.lit()) == lit_m, 10, "the board showing the scene again after its reset", b=b, room=room)
    time.sleep(0.5)
    with c.websocket_connect("%s/ws/%s" % (WS, rid)) as ws:
        m = json.loads(ws.receive_text())
        assert m["landing"]["space"] == ann[1]["space"] and {x["seat"] for x in m["moves"]} == {1}
        # the flick the link restored on the board is Bob's: his landing is taken
        b.flick(-300.0, seed=2)
        wait(lambda: len(room.game.log) == 2, what="Bob's landing after the board came back", b=b, room=room)
        assert room.game.log[0] == ann
        seat, a = room.game.log[1]
        assert seat == 1 and a["type"] == "landed" and a["space"] in (b.marble_space(), a.get("alt"))
        m = state_at(ws, room.seq)
        texts = [ln["text"] for ln in m["log"]]
        assert any("disconnected" in t for t in texts) and any("the board is back" in t for t in texts), texts
    assert room.table.port.link.stats["reconnects"] >= 1
    saved = json.loads((Path(c.app.state.cfg.settings.save_dir) / ("%s.json" % rid)).read_text())
    assert len(saved["game"]["log"]) == 2


class FakePort:
    def __init__(self, device, vid, serial_number=None, description=""):
        self.device = device
        self.vid = vid
        self.serial_number = serial_number
        self.description = description


def test_find_picos_keeps_the_raspberry_pi_vendor_id_only_sorted():
    from ringside.link.ports import PICO_VID, find_picos
    ports = [FakePort("/dev/ttyACM1", PICO_VID, "E66B", "Board in FS mode"), FakePort("/dev/ttyUSB0", 0x0403),
             FakePort("/dev/ttyS0", None), FakePort("/dev/ttyACM0", PICO_VID, "E66A", "Pico")]
    found = find_picos(lambda: ports)
    assert [p.device for p in found] == ["/dev/ttyACM0", "/dev/ttyACM1"]
    assert found[0].serial_number == "E66A" and found[1].description == "Board in FS mode"


def test_a_board_room_without_a_port_finds_the_pico_by_its_usb_id(board, client, monkeypatch):
    from serial.tools import list_ports
    from ringside.link.ports import PICO_VID
    b = board()
    fake = [FakePort("/dev/ttyUSB7", 0x0403, "FT1", "an FTDI cable"),
            FakePort(b.port, PICO_VID, "E6614103E7452D2F", "Board in FS mode")]
    monkeypatch.setattr(list_ports, "comports", lambda *a, **k: list(fake))
    c = client()
    lobby = c.get("/api/lobby").json()
    assert lobby["boards"] == [{"device": b.port, "description": "Board in FS mode", "serial": "E6614103E7452D2F"}]
    d, room = board_room(c)                     # no port: found by its USB vendor id
    assert room.table.port.link.port_name == b.port
    assert d["health"]["link"] == "connected" and d["health"]["sensors"] == "12 of 12 working"


def test_a_board_room_with_no_pico_plugged_in_is_one_line(client, monkeypatch):
    from serial.tools import list_ports
    monkeypatch.setattr(list_ports, "comports", lambda *a, **k: [FakePort("/dev/ttyUSB0", 0x0403)])
    c = client()
    assert c.get("/api/lobby").json()["boards"] == []
    r = c.post("/api/rooms", json={"game": "darts", "players": ANN_BOB, "ring": "board"})
    assert r.status_code == 400
    err = r.json()["error"]
    assert "no Raspberry Pi Pico found" in err and "\n" not in err and "Traceback" not in r.text
    r = c.post("/api/rooms", json={"game": "darts", "players": ANN_BOB, "ring": "board", "port": "/dev/nothing-here"})
    assert r.status_code == 400 and "/dev/nothing-here does not exist" in r.json()["error"]
    assert c.get("/api/lobby").json()["rooms"] == []


def test_carrying_the_marble_to_the_start_is_not_taken_for_a_flick(board, client):
    """Darts' flick-off starts every player's flick on 7: after Ann's landing Bob picks the
    marble up and sets it down on 7. A marble lifted while the board is armed is a flick off
    the ring (docs/protocol.md), so the table arms his flick once the board says the marble
    was set down, not before."""
    b = board()
    c = client()
    d, room = board_room(c, b.port)
    wait(lambda: room._armed is not None, what="arming the flick", b=b, room=room)
    b.flick(300.0)
    wait(lambda: len(room.game.log) == 1, what="Ann's landing", b=b, room=room)
    assert room.game.log[0][1]["space"] != "7"
    wait(lambda: room._armed == (1, 1), what="the room turning to Bob's flick", b=b, room=room)
    time.sleep(0.3)
    b.on_board(lambda: b.srv.board.place(DARTS.centre("7")))        # lifted (0.6 s), set down on 7
    time.sleep(3.0)                                                 # 30 s of the board's time
    assert len(room.game.log) == 1, (room.game.log, room.lines)     # the carry was no flick
    b.flick(-300.0, seed=2)
    wait(lambda: len(room.game.log) == 2, what="Bob's landing", b=b, room=room)
    seat, a = room.game.log[1]
    assert seat == 1 and a["type"] == "landed", a
    assert any("put the marble on 7" in ln["text"] for ln in room.lines), room.lines


def test_a_marble_put_back_after_leaving_the_ring_is_not_taken_for_a_flick(board, client):
    """Ann's flick-off leaves the ring; Bob puts the marble back on 7 and flicks: his flick is
    armed once the board has seen it set down, and his landing is his."""
    b = board()
    c = client()
    d, room = board_room(c, b.port)
    wait(lambda: room._armed is not None, what="arming the flick", b=b, room=room)
    b.on_board(lambda: b.srv.board.flick(2500.0))                   # far too hard: off the ring
    wait(lambda: len(room.game.log) == 1, what="Ann's flick-off", b=b, room=room)
    assert room.game.log[0][1]["type"] == "off_ring"
    wait(lambda: room._armed == (1, 1), what="the room turning to Bob's flick", b=b, room=room)
    time.sleep(0.3)
    b.on_board(lambda: b.srv.board.place(DARTS.centre("7")))
    time.sleep(3.0)
    assert len(room.game.log) == 1, room.game.log
    b.flick(300.0, seed=2)
    wait(lambda: len(room.game.log) == 2, what="Bob's landing", b=b, room=room)
    assert room.game.log[1][0] == 1 and room.game.log[1][1]["type"] == "landed", room.game.log


def test_ringside_serve_board_opens_the_game_on_the_port(board, tmp_path):
    """`ringside serve --game darts --players Ann,Bob --board PATH`, as a user runs it: the
    room is on the board, whose health the lobby reads from its hello; Ctrl-C closes it."""
    import urllib.request

    from tests.web.conftest import ctrl_c, ringside_serve

    from ringside.web.live import free_port
    b = board()
    port = free_port()
    with ringside_serve(tmp_path, "--port", str(port), "--no-browser", "--game", "darts", "--players", "Ann,Bob",
                        "--board", b.port, "--saves", str(tmp_path / "cli-saves")) as p:
        def lobby():
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/api/lobby" % port, timeout=2) as r:
                    return json.loads(r.read())
            except OSError:
                return None
        d = wait(lobby, 60, "the server answering")
        [room] = d["rooms"]
        assert room["mode"] == "board" and room["game"] == "darts"
        assert room["health"]["link"] == "connected" and room["health"]["sensors"] == "12 of 12 working"
        out, err = ctrl_c(p)
    assert p.returncode == 0, err
    assert "Traceback" not in out + err and "the games are saved" in err


def test_a_restarted_server_resumes_a_board_game_on_the_same_port_or_says_the_board_is_away(board, tmp_path):
    """The page asks a restarted server for a board room: it is opened again from its save
    on the port it was played on (kept in the save), the game where it was; with the board
    unplugged the answer is one line (503), not a server error."""
    b = board()
    st = LB.Settings(save_dir=tmp_path / "saves", speed=1.0, bot_delay=0.0, calibrate=False)

    def serve():
        c = TestClient(create_app(Config(st, base=BASE)), base_url=BASE)
        c.__enter__()
        return c
    c = serve()
    try:
        d, room = board_room(c, b.port)
        rid = d["room"]
        wait(lambda: room._armed is not None, what="arming the flick", b=b, room=room)
        b.flick(300.0)
        wait(lambda: len(room.game.log) == 1, what="Ann's landing", b=b, room=room)
        log = list(room.game.log)
    finally:
        c.__exit__(None, None, None)                 # the server stops: the room saved, the port closed
    c = serve()
    try:
        assert c.app.state.rooms.rooms == {}
        r = c.get("/table/%s" % rid)
        assert r.status_code == 200, r.text
        again = c.app.state.rooms.rooms[rid]
        assert again.mode == "board" and again.table.port.link.port_name == b.port
        assert again.game.log == log
        h = c.get("/api/rooms/%s" % rid).json()["health"]
        assert h["link"] == "connected" and h["sensors"] == "12 of 12 working"
    finally:
        c.__exit__(None, None, None)
    b.stop()                                          # unplugged: the port is gone
    c = serve()
    try:
        for path in ("/table/%s" % rid, "/api/rooms/%s" % rid):
            r = c.get(path)
            assert r.status_code == 503, (path, r.status_code, r.text)
            assert "cannot be reached" in r.text and "connect the board" in r.text
            assert r.text.count("\n") == 1 and "Traceback" not in r.text
        assert c.get("/api/lobby").json()["rooms"] == []
    finally:
        c.__exit__(None, None, None)


def test_the_lobby_counts_the_sensors_the_board_reports_faulty(board, client):
    b = board()
    c = client()
    d, room = board_room(c, b.port)
    rid = d["room"]

    def sensors():
        return c.get("/api/rooms/%s" % rid).json()["health"]["sensors"]
    assert sensors() == "12 of 12 working"
    b.on_board(lambda: b.srv.board.set_fault(4, "dead"))
    wait(lambda: sensors() == "11 of 12 working", 10, "the lobby counting sensor 4 out", b=b, room=room)
    b.on_board(lambda: b.srv.board.set_fault(4, None))
    wait(lambda: sensors() == "12 of 12 working", 10, "the lobby counting sensor 4 back", b=b, room=room)


# The room's thread watches a real board (Room._watch_board): its link state and its corrections.
def test_the_page_is_told_at_once_when_the_board_is_lost_and_back(board, client):
    b = board()
    c = client()
    d, room = board_room(c, b.port)
    wait(lambda: room._armed is not None, what="arming the flick", b=b, room=room)
    with c.websocket_connect("%s/ws/%s" % (WS, d["room"])) as ws:
        m = json.loads(ws.receive_text())
        assert m["board"]["link"] == "connected" and m["board"]["sensors"] == "12 of 12 working"
        b.srv._later(lambda: b.srv.reset(2500))

        def sent(words):     # the table the screens were last sent (the room's cache) says so
            with room._lock:
                return any(words in text for text in room._cache.values())
        wait(lambda: sent('"link": "lost'), 10, "the screens being told the board is lost", b=b, room=room)
        wait(lambda: sent('"link": "connected"'), 20, "the screens being told the board is back", b=b, room=room)
        links = []           # both were sent to this page already: reading them cannot wait for ever
        while not links or not links[-1] == "connected" or not any(x.startswith("lost") for x in links):
            m = json.loads(ws.receive_text())
            if m["type"] == "state":
                links.append(m["board"]["link"])
    assert room.game.log == []


def test_a_landing_the_board_corrects_is_replaced_in_the_room(board, client):
    """The ring tilts just after Ann's landing and the marble creeps on: the board withdraws
    the landing and reports where it stopped (corrects=1); nothing but the next flick was
    due, so the room plays the corrected landing in its place."""
    b = board()
    c = client()
    d, room = board_room(c, b.port)
    wait(lambda: room._armed is not None, what="arming the flick", b=b, room=room)
    b.flick(300.0)
    wait(lambda: len(room.game.log) == 1, what="Ann's landing", b=b, room=room)
    first = room.game.log[0][1]
    b.on_board(lambda: b.srv.board.marble.set_tilt(1.5, (b.srv.board.marble.position_deg + 40.0) % 360.0))
    wait(lambda: room.table.corrections == 1, 45, "the board's correction replacing the landing", b=b, room=room)
    assert len(room.game.log) == 1
    now = room.game.log[0][1]
    assert now["space"] != first["space"] and b.marble_space() in (now["space"], now.get("alt"))
    assert any("corrected by the board" in ln["text"] for ln in room.lines)


def test_the_page_says_to_put_the_marble_on_the_start(board, client):
    """After Ann's landing the table waits for the marble on 7 before it arms Bob's flick:
    the screens are told so at once, not at the next change."""
    b = board()
    c = client()
    d, room = board_room(c, b.port)
    wait(lambda: room._armed is not None, what="arming the flick", b=b, room=room)
    with c.websocket_connect("%s/ws/%s" % (WS, d["room"])) as ws:
        json.loads(ws.receive_text())
        b.flick(300.0)

        def told():          # the table the screens were last sent (the room's cache) says so
            with room._lock:
                return any("put the marble on 7" in text for text in room._cache.values())
        wait(told, 10, "the screens being told to put the marble on 7")
        while True:          # ... and this page has it (sent already: this cannot wait for ever)
            m = json.loads(ws.receive_text())
            if m["type"] == "state" and any("put the marble on 7" in ln["text"] for ln in m["log"]):
                break
        assert len(room.game.log) == 1 and {x["seat"] for x in m["moves"]} == {1}


def test_the_lobby_tells_a_real_boards_calibration_age_and_its_level(board, client, monkeypatch, tmp_path):
    """The board has no calendar: `ringside calibrate --port` notes the date on this computer
    by the board's uid, and the lobby says how long ago; the board's own `not_level` report
    (the marble swinging round a low point) turns the level from "level" to "not level"."""
    import argparse

    from ringside import calibration_record
    from ringside.app import cmd_ring
    from ringside.calibration import CalibrationResult, SensorFit

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    b = board()
    c = client()
    d, room = board_room(c, b.port)

    def health():
        return c.get("/api/rooms/%s" % d["room"]).json()["health"]
    # the board's hello says it keeps no calibration
    assert health()["calibration"].startswith("not calibrated: run `ringside calibrate --port %s`"
                                              % room.table.port.link.port_name)
    assert health()["level"] == "level (no swing reported since the board started)"
    uid = room.table.port.link.board_uid
    assert uid

    def keep():       # as a calsave leaves the board (the placements, a person's part, skipped)
        r = b.srv.board.fw_ring
        r.calibrated = True
        for i in range(r.sensor_count):
            r.bg_saved[4 * i] = 16 * 80
    b.on_board(keep)
    room.table.port.link.status()
    assert health()["calibration"] == ("calibrated, with the empty ring (saved on the board, not "
                                       "from this computer)")
    # three days ago, by this computer
    assert calibration_record.record(uid, 12, 0, now=time.time() - 3 * 86400 - 60)
    assert health()["calibration"] == "calibrated 3 days ago (from this computer)"
    # `ringside calibrate --port` on this board notes it (the placements, a person's part, faked)
    room.stop()
    fits = [SensorFit(sensor=i, points=3, offset_mm=0.0, scale=1.0, residual_mm=0.1) for i in range(12)]
    monkeypatch.setattr(cmd_ring, "calibrate", lambda *a, **k: CalibrationResult(fits=fits, rolled=1))
    args = argparse.Namespace(ring=None, side="darts", ideal=False, port=b.port, spaces=None, out=None, json=False)
    assert cmd_ring.cmd_calibrate(args) == 0
    got = calibration_record.last(uid)
    assert got["sensors"] == 12 and got["rolled"] == 1 and time.time() - got["at"] < 60
    # a tilted ring: the board reports the swing, the lobby says so
    d, room = board_room(c, b.port)
    b.on_board(lambda: b.srv.board.marble.set_tilt(1.0, 0.0))
    for k, travel in enumerate((100.0, -140.0, 200.0, -90.0, 160.0)):     # as tests/e2e's tilted ring
        b.flick(travel, seed=k)
        try:
            wait(lambda: health()["level"].startswith("not level: low point near"), 15, "a swing seen", b=b, room=room)
            break
        except AssertionError:
            continue
    assert health()["level"].startswith("not level: low point near"), health()
    assert "calibrated" in health()["calibration"] and "1 placements rolled away" in health()["calibration"]


def test_the_calibration_record_survives_a_bad_file_and_keeps_the_newest(tmp_path):
    from ringside import calibration_record as CR
    p = tmp_path / "calibrations.json"
    assert CR.last("sim6", p) is None
    p.write_text("{not json")
    assert CR.last("sim6", p) is None                     # unreadable: never calibrated, no traceback
    assert CR.record("sim6", 12, path=p, now=100.0)
    assert CR.last("sim6", p) == {"at": 100.0, "sensors": 12, "rolled": 0}
    assert not CR.record(None, 12, path=p)                # a board with no uid is not noted
    for k in range(CR.KEEP + 5):
        CR.record("b%d" % k, 12, path=p, now=200.0 + k)
    assert CR.last("sim6", p) is None and CR.last("b%d" % (CR.KEEP + 4), p) is not None
    p.write_text('{"x": {"at": true}, "y": [1], "z": {"at": 5}}')
    assert CR.last("x", p) is None and CR.last("y", p) is None and CR.last("z", p) == {"at": 5}
