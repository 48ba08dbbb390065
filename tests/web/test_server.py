"""The table page's server without a browser (Starlette's TestClient): the lobby's API, the
WebSocket protocol, sequence numbers and stale moves, tokens and origins, each seat's view."""
from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from ringside import games  # noqa: E402
from ringside.web import lobby as LB  # noqa: E402
from ringside.web.server import Config, create_app  # noqa: E402

BASE = "http://127.0.0.1:8765"
WS = "ws://127.0.0.1:8765"


def settings(tmp_path, **kw):
    kw.setdefault("speed", 50.0)
    kw.setdefault("bot_delay", 0.0)
    kw.setdefault("calibrate", False)
    kw.setdefault("sensor_model", "physical")
    return LB.Settings(save_dir=tmp_path / "saves", **kw)


@pytest.fixture
def make_client(tmp_path):
    made = []

    def make(lan=False, **kw):
        st = settings(tmp_path, **kw)
        app = create_app(Config(st, lan=lan, base=BASE))
        c = TestClient(app, base_url=BASE)
        c.__enter__()
        made.append(c)
        return c
    yield make
    for c in made:
        c.__exit__(None, None, None)


def new_room(c, game="darts", players=None, ring="sim", seed=3, q="", **extra):
    players = players or [{"name": "Ann", "plays": "human"}, {"name": "Cy", "plays": "good"}]
    r = c.post("/api/rooms" + q, json=dict({"game": game, "players": players, "ring": ring, "seed": seed}, **extra))
    assert r.status_code == 200, r.text
    return r.json()


def recv(ws, want="state", timeout_s=20.0, until=None):
    """The next message of type want (and passing until(msg)), skipping others."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        m = json.loads(ws.receive_text())
        if m.get("type") == want and (until is None or until(m)):
            return m
    raise AssertionError("no %s message in %.0f s" % (want, timeout_s))


def test_lobby_lists_every_game_with_levels_and_rings(make_client):
    c = make_client()
    r = c.get("/api/lobby")
    assert r.status_code == 200
    d = r.json()
    assert {g["name"] for g in d["games"]} == set(games.names())
    darts = next(g for g in d["games"] if g["name"] == "darts")
    assert "good" in darts["levels"] and "easy" in darts["levels"]
    assert {x["ring"] for x in d["rings"]} == {"sim", "typed", "screen", "board"}
    circleville = next(g for g in d["games"] if g["name"] == "circleville")
    assert {s["name"] for s in circleville["solo"]} >= {"Bertha", "Denzel"}
    assert c.get("/").status_code == 200 and "lobby" in c.get("/").text.lower()


def test_bad_new_game_requests_are_one_clear_line(make_client):
    c = make_client()
    for body, words in [({"game": "chess", "players": [{"name": "A"}]}, "no game called"),
                        ({"game": "darts", "players": []}, "no players"),
                        ({"game": "darts", "players": [{"name": "A", "plays": "genius"}]}, "level"),
                        ({"game": "darts", "players": [{"name": "A"}], "ring": "moon"}, "the ring is one of")]:
        r = c.post("/api/rooms", json=body)
        assert r.status_code == 400
        assert words in r.json()["error"], r.json()
        assert "Traceback" not in r.text
    r = c.post("/api/rooms", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]


def test_a_darts_game_over_the_websocket_with_seq_on_every_update(make_client):
    c = make_client()
    room = new_room(c)
    with c.websocket_connect("%s/ws/%s" % (WS, room["room"])) as ws:
        m = recv(ws, until=lambda m: m["flick"] is not None)
        assert m["picture"]["title"] == "Circles: Darts"
        assert m["flick"]["seat"] == 0 and m["you"] == {"role": "table", "seat": None, "name": None, "plays_for": [0]}
        assert len(m["leds"]["pixels"]) == m["leds"]["ring"]["count"] == 60
        seqs = [m["seq"]]
        ws.send_text(json.dumps({"op": "flick", "seq": m["seq"], "dir": m["flick"]["directions"][0], "deg": 360}))
        # the page sees the marble roll, then the computer's flick, and its own turn again
        marble = False
        while True:
            x = json.loads(ws.receive_text())
            if x["type"] == "marble":
                marble = True
                continue
            if x["type"] == "landed":       # the board's result, told at once (the next test)
                continue
            assert x["type"] == "state", x
            seqs.append(x["seq"])
            if x["flick"] is not None and len(x["log"]) > 3:
                break
        assert marble
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs     # every update, in order
        assert any("Cy flicks" in ln["text"] for ln in x["log"])


def test_the_boards_landing_is_told_at_once_then_the_table_that_scores_it(make_client):
    """The page shows where the marble stopped the moment the board says so (a small
    `landed` message), before the table that plays it; the two agree, and each landing is
    told once, numbered in order."""
    c = make_client()
    room = new_room(c)
    with c.websocket_connect("%s/ws/%s" % (WS, room["room"])) as ws:
        m = recv(ws, until=lambda m: m["flick"] is not None)
        ws.send_text(json.dumps({"op": "flick", "seq": m["seq"], "dir": m["flick"]["directions"][0], "deg": 90}))
        told, rolled = [], False
        seen = m["log"][-1]["n"] if m["log"] else 0
        while len(told) < 2:                          # mine, then the computer's
            x = json.loads(ws.receive_text())
            if x["type"] == "marble":
                rolled = True
                assert not told or len(told) == 1, "the marble rolls before its landing is told"
            elif x["type"] == "landed":
                assert rolled, "a landing is told after the marble rolled"
                told.append(x)
                rolled = False
                # the next table scores this very landing
                st = recv(ws, until=lambda s: s["busy"] is None)
                assert st["seq"] > x["seq"]
                if x["space"] is None:
                    assert x["text"] == "the marble left the ring"
                else:
                    assert x["text"].startswith("the marble stopped on ")
                    assert 0 <= x["deg"] < 360
                    # the table played what was told: its newest lines name that space
                    said = [ln["text"] for ln in st["log"] if ln["n"] > seen]
                    assert any(("on %s" % x["label"]) in t for t in said), (x, said)
                seen = st["log"][-1]["n"] if st["log"] else 0
        assert [t["n"] for t in told] == [told[0]["n"], told[0]["n"] + 1]
        assert told[0]["seat"] == 0 and told[1]["seat"] == 1


def test_a_stale_move_is_refused_and_the_page_catches_up(make_client):
    c = make_client()
    room = new_room(c, players=[{"name": "Ann"}, {"name": "Bob"}], ring="typed")
    url = "%s/ws/%s" % (WS, room["room"])
    with c.websocket_connect(url) as a, c.websocket_connect(url) as b:
        ma = recv(a)
        mb = recv(b, until=lambda m: m["seq"] == ma["seq"])
        land = next(m for m in ma["moves"] if m["place"] == "7")
        a.send_text(json.dumps({"op": "act", "seq": ma["seq"], "i": land["i"], "label": land["label"]}))
        na = recv(a, until=lambda m: m["seq"] > ma["seq"])
        # b still shows the old table and moves from it
        b.send_text(json.dumps({"op": "act", "seq": mb["seq"], "i": land["i"], "label": land["label"]}))
        r = recv(b, want="refused")
        assert "changed since your page showed it" in r["text"]
        caught = recv(b, until=lambda m: m["seq"] >= na["seq"])
        assert caught["seq"] >= na["seq"]
        # nothing was lost or doubled: exactly one landing recorded
        assert caught["picture"]["status"] == na["picture"]["status"]


def test_bad_messages_get_a_clear_line_and_change_nothing(make_client):
    c = make_client()
    room = new_room(c, players=[{"name": "Ann"}, {"name": "Bob"}], ring="typed")
    with c.websocket_connect("%s/ws/%s" % (WS, room["room"])) as ws:
        m = recv(ws)
        for text, words in [("{oops", "not JSON"), ("[1, 2]", "JSON object"),
                            (json.dumps({"op": "dance"}), "unknown message"), (json.dumps({"op": "__init__"}), "unknown message"),
                            (json.dumps({"op": "act", "seq": m["seq"], "i": 999}), "no move"),
                            (json.dumps({"op": "act", "i": 0}), "seq"),
                            (json.dumps({"op": "flick", "seq": m["seq"], "dir": "cw", "deg": 100}), "flick"),
                            (json.dumps({"op": "correct", "seq": m["seq"], "space": "12"}), "no flick")]:
            ws.send_text(text)
            e = recv(ws, want="error")
            assert words in e["text"], (text, e)
        ws.send_text(json.dumps({"op": "ping"}))
        assert recv(ws, want="pong")["seq"] == m["seq"]      # nothing changed


def test_a_seat_token_sees_that_seat_only_and_plays_for_it_only(make_client):
    c = make_client()
    room = new_room(c, players=[{"name": "Ann"}, {"name": "Bob"}], ring="typed")
    seats = room["links"]["seats"]
    t0 = seats[0]["url"].split("t=")[1]
    t1 = seats[1]["url"].split("t=")[1]
    with c.websocket_connect("%s/ws/%s?t=%s" % (WS, room["room"], t0)) as s0, \
            c.websocket_connect("%s/ws/%s?t=%s" % (WS, room["room"], t1)) as s1:
        m0, m1 = recv(s0), recv(s1)
        assert m0["you"]["seat"] == 0 and m0["you"]["plays_for"] == [0]
        assert m1["you"]["seat"] == 1 and m1["you"]["plays_for"] == [1]
        assert m0["moves"] and not m1["moves"]          # Ann's flick is due: Bob has nothing to press
        s1.send_text(json.dumps({"op": "act", "seq": m1["seq"], "i": 0}))
        assert "no move" in recv(s1, want="error")["text"]


class _Secrets(games.Game):
    """A game with a secret per seat, for the view test: the fallback presenter shows the
    view's top level, so a seat's picture holds exactly what its view holds."""
    name = "_secrets"
    title = "Secrets"
    min_players, max_players = 2, 2
    actions = {"peek": {}}

    @property
    def presenter(self):
        from ringside.games.present import Fallback
        return Fallback

    def _setup(self):
        self.state = {"secret": ["ann-secret-KX7", "bob-secret-QZ9"], "turn": 0}

    def _to_act(self):
        return [self.state["turn"]]

    def _legal(self, seat):
        return [{"type": "peek"}]

    def _apply(self, seat, action):
        self.state["turn"] = 1 - seat
        return [{"type": "peek", "text": "%s looked" % self.players[seat]}]

    def _view(self, seat):
        v = {"turn": self.state["turn"]}
        if seat is not None:
            v["mine"] = self.state["secret"][seat]
        return v


@pytest.fixture
def secrets_game():
    games.register(_Secrets)
    yield
    games._REGISTRY.pop("_secrets", None)


def test_the_server_sends_each_seat_only_its_own_view(make_client, secrets_game):
    c = make_client()
    room = new_room(c, game="_secrets", players=[{"name": "Ann"}, {"name": "Bob"}], ring="screen")
    t0 = room["links"]["seats"][0]["url"].split("t=")[1]
    t1 = room["links"]["seats"][1]["url"].split("t=")[1]
    url = "%s/ws/%s" % (WS, room["room"])
    with c.websocket_connect(url + "?t=" + t0) as s0, c.websocket_connect(url + "?t=" + t1) as s1, \
            c.websocket_connect(url + "?t=" + room["links"]["table"].split("t=")[1]) as tb:
        raw0, raw1, rawt = s0.receive_text(), s1.receive_text(), tb.receive_text()
        assert "ann-secret-KX7" in raw0 and "bob-secret-QZ9" not in raw0
        assert "bob-secret-QZ9" in raw1 and "ann-secret-KX7" not in raw1
        assert "secret-" not in rawt
        # a seat whose view holds more than the table's is played from its own screen only
        assert json.loads(rawt)["you"]["plays_for"] == []
        m0 = json.loads(raw0)
        s0.send_text(json.dumps({"op": "act", "seq": m0["seq"], "i": 0}))
        x = s1.receive_text()
        assert json.loads(x)["seq"] > m0["seq"] and "ann-secret-KX7" not in x
        assert json.loads(x)["you"]["plays_for"] == [1] and json.loads(x)["moves"]


def test_lan_needs_a_token_everywhere(make_client):
    c = make_client(lan=True)
    assert c.get("/").status_code == 403
    assert c.get("/api/lobby").status_code == 403
    assert c.get("/static/app.js").status_code == 403
    assert c.post("/api/rooms", json={}).status_code == 403
    lobby_token = c.app.state.cfg.lobby_token
    q = "?t=" + lobby_token
    assert c.get("/" + q).status_code == 200
    room = new_room(c, q=q, players=[{"name": "Ann"}, {"name": "Bob"}], ring="typed")
    rid = room["room"]
    c.cookies.clear()
    assert c.get("/table/%s" % rid).status_code == 403
    assert c.get("/table/%s?t=wrong" % rid).status_code == 403
    with pytest.raises(WebSocketDisconnect):
        with c.websocket_connect("%s/ws/%s" % (WS, rid)) as ws:
            ws.receive_text()
    seat0 = room["links"]["seats"][0]["url"].split("t=")[1]
    assert c.get("/table/%s?t=%s" % (rid, seat0)).status_code == 200
    assert c.get("/static/app.js").status_code == 200          # the cookie the page set
    with c.websocket_connect("%s/ws/%s?t=%s" % (WS, rid, seat0)) as ws:
        assert recv(ws)["you"]["seat"] == 0
    # a seat's token does not open the lobby or another seat's links
    c.cookies.clear()
    assert c.get("/api/lobby?t=" + seat0).status_code == 403
    links = c.get("/api/rooms/%s?t=%s" % (rid, seat0)).json()["links"]
    assert [s["seat"] for s in links["seats"]] == [0]


def test_a_socket_from_another_sites_page_is_refused(make_client):
    c = make_client()
    room = new_room(c, players=[{"name": "Ann"}, {"name": "Bob"}], ring="typed")
    with pytest.raises(WebSocketDisconnect):
        with c.websocket_connect("%s/ws/%s" % (WS, room["room"]), headers={"origin": "http://evil.example"}) as ws:
            ws.receive_text()
    with c.websocket_connect("%s/ws/%s" % (WS, room["room"]), headers={"origin": BASE}) as ws:
        assert recv(ws)["type"] == "state"
    r = c.post("/api/rooms", json={"game": "darts", "players": [{"name": "A"}]}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403


def test_a_name_rebound_to_this_machine_is_refused(make_client):
    c = make_client()
    r = c.get("/", headers={"host": "evil.example:8765"})
    assert r.status_code == 403


def test_undo_and_a_correction_by_space(make_client):
    c = make_client()
    room = new_room(c, players=[{"name": "Ann"}, {"name": "Bob"}], ring="typed")
    with c.websocket_connect("%s/ws/%s" % (WS, room["room"])) as ws:
        m = recv(ws)
        land = next(x for x in m["moves"] if x["place"] == "7")
        ws.send_text(json.dumps({"op": "act", "seq": m["seq"], "i": land["i"], "label": land["label"]}))
        m = recv(ws, until=lambda x: x["landing"] is not None)
        assert m["landing"]["space"] == "7" and m["landing"]["seat"] == 0
        ws.send_text(json.dumps({"op": "correct", "seq": m["seq"], "space": "20"}))
        m = recv(ws, until=lambda x: x["landing"] and x["landing"]["space"] == "20")
        assert any("corrected: the marble is on 20" in ln["text"] for ln in m["log"])
        ws.send_text(json.dumps({"op": "undo", "seq": m["seq"]}))
        m = recv(ws, until=lambda x: x["landing"] is None)
        assert any(ln["text"].startswith("undone") for ln in m["log"])


def test_a_restarted_server_finds_the_game_in_its_autosave(tmp_path):
    st = settings(tmp_path)
    app = create_app(Config(st, base=BASE))
    with TestClient(app, base_url=BASE) as c:
        room = new_room(c, players=[{"name": "Ann"}, {"name": "Bob"}], ring="typed")
        with c.websocket_connect("%s/ws/%s" % (WS, room["room"])) as ws:
            m = recv(ws)
            land = next(x for x in m["moves"] if x["place"] == "7")
            ws.send_text(json.dumps({"op": "act", "seq": m["seq"], "i": land["i"], "label": land["label"]}))
            before = recv(ws, until=lambda x: x["landing"] is not None)
    app2 = create_app(Config(st, base=BASE))
    with TestClient(app2, base_url=BASE) as c2:
        t = room["links"]["table"].split("t=")[1]
        with c2.websocket_connect("%s/ws/%s?t=%s" % (WS, room["room"], t)) as ws:
            after = recv(ws)
            assert after["picture"]["status"] == before["picture"]["status"]
            assert after["landing"]["space"] == "7"


def test_rules_panel_is_the_declared_rulebook(make_client):
    c = make_client()
    room = new_room(c, players=[{"name": "Ann"}, {"name": "Bob"}], ring="typed")
    rb = c.get("/api/rooms/%s/rules" % room["room"]).json()
    assert rb["source"] == "001_ef80526ab0ed9dc2.txt"
    assert rb["lines"][0] == "Darts" and "Wild West" not in rb["lines"]
    assert any("100 points" in ln for ln in rb["lines"])


def test_the_packaged_rulebooks_are_the_seeds():
    from pathlib import Path
    from ringside.web.rules import SEEDS
    seeds = Path(__file__).resolve().parents[2] / "seeds"
    for p in sorted(seeds.glob("*.txt")):
        assert (SEEDS / p.name).read_bytes() == p.read_bytes(), "copy seeds/%s to %s" % (p.name, SEEDS)


def test_every_game_declares_a_rulebook_that_is_found():
    from ringside.web.rules import rulebook
    for name in games.names():
        rb = rulebook(games.game_class(name))
        assert rb["source"] and len(rb["lines"]) > 5, name


def test_an_ambiguous_landing_asks_which_of_the_two_spaces(tmp_path):
    from ringside.table import typed_action
    from ringside.web.hub import Room, Screen
    g = games.new("darts", ["Ann", "Bob"], seed=1)
    room = Room("amb", g, {0: "human", 1: "human"}, "typed")      # its thread not started: driven here
    for seat, sid in ((0, "7"), (1, "16")):                        # the flick-off: Ann is nearest
        room._apply(seat, typed_action(room.game, sid))
    seat = room.game.to_act()[0]
    far = typed_action(room.game, "3")                             # 10 spaces on: a turn that counts
    room._apply(seat, dict(far, alt="19"))
    st = room._state(("table", None))
    assert sorted(st["landing"]["choices"]) == ["19", "3"]
    counted = st["landing"]["space"]
    assert counted in ("3", "19")
    out = []
    screen = Screen("table", None, out.append)
    other = "3" if counted == "19" else "19"
    room._handle("msg", screen, {"op": "choose", "seq": room.seq, "space": "12"})
    assert "choose" in json.loads(out[-1])["text"]
    room._handle("msg", screen, {"op": "choose", "seq": room.seq, "space": other})
    st = room._state(("table", None))
    assert st["landing"]["space"] == other and st["landing"]["choices"] is None
    assert any("corrected: the marble is on %s" % other in ln["text"] for ln in st["log"])


def test_at_a_real_table_chance_is_entered_or_left_to_the_computer(make_client):
    c = make_client()
    room = new_room(c, game="doubles", players=[{"name": "Ann"}, {"name": "Bob"}], ring="typed")
    with c.websocket_connect("%s/ws/%s" % (WS, room["room"])) as ws:
        m = recv(ws)
        assert m["chance"] and m["moves"] and all(x["seat"] == "chance" for x in m["moves"])
        ws.send_text(json.dumps({"op": "chance", "seq": m["seq"]}))
        m2 = recv(ws, until=lambda x: x["seq"] > m["seq"])
        assert m2["log"] and m2["picture"]["status"] != m["picture"]["status"]
        ws.send_text(json.dumps({"op": "chance", "seq": m["seq"]}))          # from the old table
        assert "changed since" in recv(ws, want="refused")["text"]
    darts = new_room(c, players=[{"name": "Ann"}, {"name": "Bob"}], ring="typed")
    with c.websocket_connect("%s/ws/%s" % (WS, darts["room"])) as ws:
        m = recv(ws)
        assert m["chance"] is None
        ws.send_text(json.dumps({"op": "chance", "seq": m["seq"]}))
        assert "nothing is left to chance" in recv(ws, want="error")["text"]


def test_the_simulated_ring_from_the_page_place_tilt_and_a_sensor_fault(make_client):
    c = make_client()
    room = new_room(c)
    with c.websocket_connect("%s/ws/%s" % (WS, room["room"])) as ws:
        m = recv(ws, until=lambda x: x["flick"] is not None)
        assert m["sim"]["sensors"] == 12 and "dead" in m["sim"]["faults"] and "7" in m["sim"]["spaces"]
        for msg, words in [({"what": "place", "space": "5"}, "set down on 5"),
                           ({"what": "tilt", "deg": 1.0, "low": 90}, "tilts 1.0 degrees"),
                           ({"what": "fault", "sensor": 3, "kind": "dead"}, "sensor 3: dead")]:
            ws.send_text(json.dumps(dict(msg, op="sim")))
            x = recv(ws, until=lambda s, w=words: any(w in ln["text"] for ln in s["log"]))
            assert x["flick"] is not None          # the game waits as it was
        for bad in ({"what": "fault", "sensor": 99, "kind": "dead"}, {"what": "tilt", "deg": 40},
                    {"what": "place", "space": "nowhere"}, {"what": "explode"}):
            ws.send_text(json.dumps(dict(bad, op="sim")))
            assert recv(ws, want="error")["text"]
    health = c.get("/api/rooms/%s" % room["room"]).json()["health"]
    assert health["sensors"] == "11 of 12 working", health
    assert health["level"].startswith("level") or health["level"].startswith("not level")


def test_the_led_mirror_lights_what_the_boards_firmware_lights():
    """The mirror is computed from the table's LED frame; the simulated board's firmware
    turns the same frame into its pixel buffer: the same LEDs are lit, in the same colours
    (the board's dimmed by its brightness cap)."""
    from ringside.sim.board import SimBoard
    from ringside.web import leds as L
    from ringside.web.hub import PacedSimPort, Room
    g = games.new("darts", ["Cy", "Dee"], seed=2)
    b = SimBoard(seed=2, sensor_model="physical")
    room = Room("m", g, {0: "good", 1: "good"}, "sim", port=PacedSimPort(b, speed=50), bot_delay=0)
    for _ in range(8):
        room._bot_turn(room.game.to_act()[0])
    b.advance(2000)                       # the landing's pulse is over on the board
    mirror = L.pixels(room.game)
    frame = b.pixels.frame                # G R B per LED
    board = ["%02x%02x%02x" % (frame[3 * i + 1], frame[3 * i], frame[3 * i + 2]) for i in range(len(mirror))]
    lit_m = {i for i, c in enumerate(mirror) if c != "000000"}
    lit_b = {i for i, c in enumerate(board) if c != "000000"}
    assert lit_m and lit_m == lit_b, (mirror, board)

    def strongest(hexc):
        ch = [int(hexc[k:k + 2], 16) for k in (0, 2, 4)]
        return ch.index(max(ch))
    assert all(strongest(mirror[i]) == strongest(board[i]) for i in lit_m)
