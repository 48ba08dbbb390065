"""The table page in a real browser (Debian's chromium through Playwright; tests/web/conftest.py):
a whole game on the simulated ring, Doubles' countdown, The Circle on two seats' screens, a
correction by clicking a space, a stale move, a restarted server, the LAN's tokens and
origins, and no console errors on any page."""
from __future__ import annotations

import json
import time

import pytest

from ringside.web import lobby as LB
from ringside.web.live import LiveServer

pytest.importorskip("starlette")


def _settings(tmp_path, **kw):
    kw.setdefault("speed", 40.0)
    kw.setdefault("bot_delay", 0.0)
    kw.setdefault("calibrate", False)
    kw.setdefault("sensor_model", "physical")
    return LB.Settings(save_dir=tmp_path / "saves", **kw)


@pytest.fixture
def live(tmp_path):
    servers = []

    def start(**kw):
        lan = kw.pop("lan", False)
        port = kw.pop("port", None)
        s = LiveServer(_settings(tmp_path, **kw), port=port, lan=lan).start()
        servers.append(s)
        return s
    yield start
    for s in servers:
        s.stop()


def seq(pg) -> int:
    return int(pg.evaluate("document.body.dataset.seq || -1"))


def wait_seq_after(pg, old: int, timeout_ms: int = 20000) -> int:
    pg.wait_for_function("(old) => Number(document.body.dataset.seq || -1) > old", arg=old, timeout=timeout_ms)
    return seq(pg)


def state(pg) -> dict:
    return pg.evaluate("window.ringside.state()")


def open_table(pg, url):
    pg.goto(url)
    pg.wait_for_selector("body[data-seq]", state="attached", timeout=20000)
    pg.wait_for_function("document.body.dataset.conn === 'live'")


def click_a_move(pg) -> None:
    """Press the first move on offer; a long menu is folded into groups: open the first."""
    if pg.locator("button.move").count() == 0:
        pg.locator("button.group").first.click()
    pg.locator("button.move").first.click()


def test_a_whole_darts_game_through_the_page_against_the_computer(live, new_page):
    srv = live()
    room = srv.new_room({"game": "darts", "players": [{"name": "Ann"}, {"name": "Cy", "plays": "good"}],
                         "ring": "sim", "seed": 5})
    pg = new_page()
    open_table(pg, srv.url(room))
    assert pg.locator("[data-space='7']").count() == 1          # the ring, drawn as a ring
    flicks = 0
    end = time.monotonic() + 60
    while not state(pg)["over"]:
        assert time.monotonic() < end, "the game did not end in 60 s: %s" % state(pg)["picture"]["status"]
        st = state(pg)
        before = st["seq"]
        if st["flick"] is not None:
            f = st["flick"]
            aim = 360 if f["target_travel"] else int((f["min_steps"] + 2) * f["space_deg"])
            pg.locator("#deg").fill(str(min(aim, f["max_deg"])))
            pg.locator("[data-action='flick']").click()
            flicks += 1
        elif st["moves"]:
            click_a_move(pg)
        else:
            pg.wait_for_function("(old) => Number(document.body.dataset.seq) > old || window.ringside.state().over",
                                 arg=before, timeout=20000)
            continue
        pg.wait_for_function("(old) => Number(document.body.dataset.seq) > old", arg=before, timeout=20000)
    st = state(pg)
    assert flicks >= 3
    assert st["picture"]["result"]["winners"]
    assert st["picture"]["result"]["text"] in pg.inner_text("body")
    assert any("Cy flicks" in ln["text"] for ln in st["log"])
    assert room.game.over and room.game.presenter.picture(room.game, None)["result"] == st["picture"]["result"]
    assert pg.errors == []


def test_the_page_shows_where_the_marble_stopped_before_the_table_scores_it(live, new_page):
    """The board's `landed` is drawn at once: the marble at rest on its space, the space
    marked, the words in the status line, while the table still waits to see that the marble
    stays (1.5 s of ring time, 0.75 s at speed 2); then the table that scores it."""
    srv = live(speed=2.0)
    room = srv.new_room({"game": "darts", "players": [{"name": "Ann"}, {"name": "Bob"}], "ring": "sim", "seed": 5})
    pg = new_page()
    open_table(pg, srv.url(room))
    pg.wait_for_selector("[data-action='flick']")
    before = seq(pg)
    pg.locator("#deg").fill("60")
    pg.locator("[data-action='flick']").click()
    pg.wait_for_selector("body[data-landed]", state="attached", timeout=20000)
    told = [m for m in pg.evaluate("window.ringside.messages") if m["type"] == "landed"]
    assert len(told) == 1
    t = told[0]
    scored = [m for m in pg.evaluate("window.ringside.messages") if m["type"] == "state" and m["seq"] > before + 1]
    assert not scored, "the landing is on the screen before the table that scores it"
    assert pg.inner_text("#status") == t["text"]
    if t["space"] is not None:
        assert pg.get_attribute(".rs-space.rs-landed", "data-space") == t["space"]
        assert pg.get_attribute(".rs-marble", "data-marble-space") == t["space"]
        assert abs(float(pg.get_attribute(".rs-marble", "data-deg")) - t["deg"]) < 0.1
        assert pg.text_content(".rs-ring-centre") == t["label"]
    wait_seq_after(pg, before + 1)
    assert any(t["text"].split(" on ")[-1] in ln["text"] for ln in state(pg)["log"]) or t["space"] is None
    assert pg.errors == []


def test_a_flick_drawn_round_the_ring_with_the_pointer(live, new_page):
    """Press on the marble, draw it round the ring, let go: the page flicks in the direction
    drawn with the strength drawn (the arc shows it while drawing), as the slider would. A
    drag the wrong way round is refused on the page with the reason, and sends nothing."""
    import math
    srv = live(speed=20.0)
    # Wild West: clockwise only, so a drag the wrong way round is tried too
    room = srv.new_room({"game": "wildwest", "players": [{"name": "Ann"}, {"name": "Bob"}], "ring": "sim", "seed": 5})
    pg = new_page()
    sent = []
    pg.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(json.loads(f))))
    open_table(pg, srv.url(room))
    pg.wait_for_selector("[data-action='flick']")
    f = state(pg)["flick"]
    assert f["directions"] == ["cw"]

    def draw(sign, steps):
        box = pg.locator(".rs-ring").bounding_box()       # where the ring is now (a banner moves it)
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        mb = pg.locator(".rs-marble").bounding_box()
        mx, my = mb["x"] + mb["width"] / 2, mb["y"] + mb["height"] / 2
        r = math.hypot(mx - cx, my - cy)
        a0 = math.degrees(math.atan2(-(my - cy), mx - cx))
        pg.mouse.move(mx, my)
        pg.mouse.down()
        for k in range(1, steps + 1):          # 5 degrees a step
            a = math.radians(a0 + sign * 5 * k)
            pg.mouse.move(cx + r * math.cos(a), cy - r * math.sin(a))

    draw(+1, 6)                                # anticlockwise: this flick goes clockwise only
    pg.mouse.up()
    assert "clockwise only" in pg.inner_text("#banner")
    assert not [m for m in sent if m.get("op") == "flick"]
    before = seq(pg)
    assert f["max_deg"] > 45
    draw(-1, 9)                                # 45 degrees clockwise
    # the arc drawn (pointer moves reach the page with its next frame)
    pg.wait_for_function("() => Math.abs(Number(document.querySelector('.rs-aim').dataset.delta) + 45) <= 1")
    assert pg.locator("#dir-cw").is_checked() and abs(int(pg.input_value("#deg")) - 45) <= 1
    pg.mouse.up()
    wait_seq_after(pg, before)
    flicks = [m for m in sent if m.get("op") == "flick"]
    assert len(flicks) == 1 and flicks[0]["dir"] == "cw" and abs(flicks[0]["deg"] - 45) <= 1, flicks
    assert pg.locator(".rs-aim").count() == 0
    pg.wait_for_function("() => window.ringside.messages.some((m) => m.type === 'landed')", timeout=20000)
    assert pg.errors == []


def test_a_doubles_turn_lost_to_the_countdown(live, new_page):
    srv = live(speed=5.0)          # the board's 20 s run in 4 s of the wall's
    room = srv.new_room({"game": "doubles", "players": [{"name": "Ann"}, {"name": "Cy", "plays": "random"}],
                         "ring": "sim", "seed": 2})
    pg = new_page()
    open_table(pg, srv.url(room))
    for _ in range(5):        # two readings within one of Ann's turns (a new turn restarts the ring)
        pg.wait_for_function("""() => { const b = document.querySelector('.rs-timer'); const s = window.ringside.state();
            return b && s.timer && s.timer.seat === 0 && Number(b.dataset.remainingMs) > 1500; }""", timeout=20000)
        d1 = state(pg)["timer"]["deadline_ms"]
        first = float(pg.locator(".rs-timer").get_attribute("data-remaining-ms"))
        time.sleep(0.5)
        second = float(pg.locator(".rs-timer").get_attribute("data-remaining-ms"))
        if (state(pg)["timer"] or {}).get("deadline_ms") == d1:
            break
    assert 0 < second < first, (first, second)           # the ring empties as time runs
    turn = state(pg)["timer"]
    pg.wait_for_function("""(t) => { const s = window.ringside.state();
        return s.log.some((l) => l.text.includes("time is up")); }""", arg=turn, timeout=15000)
    st = state(pg)
    assert any("time is up" in ln["text"] for ln in st["log"])
    assert room.game.state["turn"] != 0 or room.game.state["turn_no"] > 1
    assert pg.errors == []


def _seat_token(room, seat):
    return room.tokens.seat[seat]


def test_the_circle_on_two_seats_screens_each_sees_its_own(live, new_page):
    srv = live(bot_delay=0.0)
    room = srv.new_room({"game": "circle", "players": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy", "plays": "easy"}],
                         "ring": "screen", "seed": 4})
    ann, bob = new_page(), new_page()
    open_table(ann, srv.url(room, _seat_token(room, 0)))
    open_table(bob, srv.url(room, _seat_token(room, 1)))
    assert "Ann's screen" in ann.inner_text("#you") and "Bob's screen" in bob.inner_text("#you")
    for _ in range(8):            # decisions, each made on its own seat's screen only
        if room.game.over:
            break
        act = room.game.to_act()
        if act[0] not in (0, 1):
            time.sleep(0.05)
            continue
        me, other = (ann, bob) if act[0] == 0 else (bob, ann)
        me.wait_for_function("(s) => window.ringside.state().moves.length > 0 && Number(document.body.dataset.seq) >= s",
                             arg=room.seq, timeout=20000)
        assert other.locator("button.move, button.group").count() == 0    # the other seat has nothing to press
        before = seq(me)
        click_a_move(me)
        wait_seq_after(me, before)
    for pg, mine in ((ann, 0), (bob, 1)):
        msgs = pg.evaluate("window.ringside.messages.filter((m) => m.type === 'state')")
        assert msgs and all(m["you"]["seat"] == mine for m in msgs)
        assert all(mv["seat"] == mine for m in msgs for mv in m["moves"])          # in the messages
        last = msgs[-1]
        if last["seq"] == room.seq:      # what the server sent is that seat's own picture
            assert last["picture"] == json.loads(json.dumps(room.game.presenter.picture(room.game, mine)))
    assert ann.errors == [] and bob.errors == []


def test_each_seat_sees_only_its_own_secret_in_the_dom_and_the_messages(live, new_page):
    from tests.web.test_server import _Secrets
    from ringside import games
    games.register(_Secrets)
    try:
        srv = live()
        room = srv.new_room({"game": "_secrets", "players": [{"name": "Ann"}, {"name": "Bob"}], "ring": "screen"})
        ann, bob = new_page(), new_page()
        open_table(ann, srv.url(room, _seat_token(room, 0)))
        open_table(bob, srv.url(room, _seat_token(room, 1)))
        ann.wait_for_selector("text=ann-secret-KX7")
        bob.wait_for_selector("text=bob-secret-QZ9")
        assert "bob-secret" not in ann.content() and "ann-secret" not in bob.content()
        before = seq(bob)
        ann.locator("button.move").first.click()
        wait_seq_after(bob, before)
        assert "ann-secret" not in json.dumps(bob.evaluate("window.ringside.messages"))
        assert "bob-secret" not in json.dumps(ann.evaluate("window.ringside.messages"))
    finally:
        games._REGISTRY.pop("_secrets", None)


def test_a_correction_by_clicking_a_space(live, new_page):
    srv = live()
    room = srv.new_room({"game": "darts", "players": [{"name": "Ann"}, {"name": "Bob"}], "ring": "typed", "seed": 1})
    pg = new_page()
    open_table(pg, srv.url(room))
    before = seq(pg)
    pg.locator("[data-space='19']").first.click()          # at a real table: where it stopped
    wait_seq_after(pg, before)
    assert state(pg)["landing"]["space"] == "19"
    pg.locator("[data-action='correct the landing']").click()
    pg.wait_for_selector("#banner:has-text('really on')")
    before = seq(pg)
    pg.locator("[data-space='16']").first.click()
    wait_seq_after(pg, before)
    st = state(pg)
    assert st["landing"]["space"] == "16"
    assert any("corrected: the marble is on 16" in ln["text"] for ln in st["log"])
    assert "corrected: the marble is on 16" in pg.inner_text("#happened")
    # Bob's flick-off, then a turn the board could not tell between 3 and 19: the page asks
    before = seq(pg)
    pg.locator("[data-space='20']").first.click()
    wait_seq_after(pg, before)
    from ringside.table import typed_action
    before = seq(pg)
    room.call(lambda r: r._apply(r.game.to_act()[0], dict(typed_action(r.game, "3"), alt="19")))
    wait_seq_after(pg, before)
    pg.wait_for_selector("#ambiguous")
    counted = state(pg)["landing"]["space"]
    other = "3" if counted == "19" else "19"
    before = seq(pg)
    pg.locator("[data-space='%s']" % other).first.click()
    wait_seq_after(pg, before)
    st = state(pg)
    assert st["landing"]["space"] == other and st["landing"]["choices"] is None
    assert pg.locator("#ambiguous").count() == 0
    assert pg.errors == []


def test_a_stale_move_is_refused_and_the_page_catches_up(live, new_page):
    srv = live()
    room = srv.new_room({"game": "darts", "players": [{"name": "Ann"}, {"name": "Bob"}], "ring": "typed", "seed": 1})
    a, b = new_page(), new_page()
    open_table(a, srv.url(room))
    open_table(b, srv.url(room))
    old = state(b)
    move = next(m for m in old["moves"] if m["place"] == "7")
    before = seq(a)
    a.locator("[data-space='7']").first.click()
    now = wait_seq_after(a, before)
    wait_seq_after(b, before)
    # b sends the move it saw on its old table, as a page that had not caught up would
    b.evaluate("(m) => window.ringside.send(m)", {"op": "act", "seq": old["seq"], "i": move["i"], "label": move["label"]})
    b.wait_for_selector("#banner.refused")
    assert "changed since your page showed it" in b.inner_text("#banner")
    assert seq(b) >= now and len(room.game.log) == 1           # nothing applied twice
    assert a.errors == [] and b.errors == []


def test_the_page_reconnects_after_the_server_restarts(live, new_page):
    srv = live()
    room = srv.new_room({"game": "darts", "players": [{"name": "Ann"}, {"name": "Bob"}], "ring": "typed", "seed": 1})
    pg = new_page()
    open_table(pg, srv.url(room))
    before = seq(pg)
    pg.locator("[data-space='19']").first.click()
    wait_seq_after(pg, before)
    status = state(pg)["picture"]["status"]
    port = srv.port
    heard = pg.evaluate("window.ringside.messages.length")
    srv.stop()
    pg.wait_for_function("document.body.dataset.conn !== 'live'", timeout=10000)
    srv2 = live(port=port)                 # the same saves: the game comes back from its autosave
    pg.wait_for_function("document.body.dataset.conn === 'live'", timeout=15000)
    # the page shows the restarted server's table (its own state message, drawn), not the
    # one it still had: the restored room counts its seq afresh, so a move chosen on the old
    # table's seq would be refused as stale (a CI run clicked too soon and waited 20 s)
    pg.wait_for_function("""(n) => {
        const fresh = window.ringside.messages.slice(n).filter((m) => m.type === "state");
        const s = window.ringside.state();
        return fresh.length > 0 && s !== null && s.seq === fresh[fresh.length - 1].seq; }""",
                         arg=heard, timeout=10000)
    pg.wait_for_function("(s) => window.ringside.state().picture.status === s", arg=status, timeout=10000)
    assert srv2.rooms.rooms[room.rid].game.log == room.game.log
    st = state(pg)
    assert st["landing"]["space"] == "19"
    before = seq(pg)
    pg.locator("[data-space='5']").first.click()                  # and play goes on
    wait_seq_after(pg, before)
    assert len(srv2.rooms.rooms[room.rid].game.log) == 2
    assert [e for e in pg.errors if "WebSocket" not in e] == []    # the dropped socket is the only complaint


def test_lan_without_a_token_is_refused_and_so_is_another_origin(live, new_page, static_server):
    srv = live(lan=True)
    room = srv.new_room({"game": "darts", "players": [{"name": "Ann"}, {"name": "Bob"}], "ring": "typed"})
    pg = new_page()
    r = pg.goto("%s/table/%s" % (srv.base, room.rid))
    assert r.status == 403
    r = pg.goto("%s/" % srv.base)
    assert r.status == 403
    open_table(pg, srv.url(room))                  # with the token: the table
    # a page of another site (another origin) cannot open this server's socket
    other = new_page()
    other.goto(static_server + "/_harness.html")
    opened = other.evaluate("""(url) => new Promise((done) => {
        const ws = new WebSocket(url);
        ws.onopen = () => done("open");
        ws.onclose = () => done("refused"); })""",
                            "ws://127.0.0.1:%d/ws/%s?t=%s" % (srv.port, room.rid, room.tokens.table))
    assert opened == "refused"


def test_no_console_errors_on_the_lobby_or_any_games_table(live, new_page):
    from ringside import games
    srv = live(bot_delay=0.5)        # the computer's moves at a pace that leaves the machine free
    pg = new_page()
    pg.goto(srv.base + "/")
    pg.wait_for_selector("#game option", state="attached")
    assert pg.locator("#game option").count() == len(games.names())
    # start a game from the lobby: a person and the computer, on the simulated ring
    pg.select_option("#game", "wildwest")
    pg.locator("[data-action='start the game']").click()
    pg.wait_for_url("**/table/wildwest-*", timeout=20000)
    pg.wait_for_selector("body[data-seq]", state="attached")
    pg.wait_for_selector("[data-space]")
    assert pg.errors == []
    specs = {"doubles": [{"name": "Ann"}, {"name": "Cy", "plays": "easy"}],
             "circle": [{"name": "Ann"}, {"name": "Bob", "plays": "easy"}, {"name": "Cy", "plays": "easy"}],
             "circleville": [{"name": "Ann"}, {"name": "bertha", "plays": "solo"}]}
    for name in games.names():
        players = specs.get(name, [{"name": "Ann"}, {"name": "Cy", "plays": "easy"}])
        room = srv.new_room({"game": name, "players": players, "ring": "sim", "seed": 1})
        p = pg                            # one page, each table in turn: its errors are kept
        open_table(p, srv.url(room))
        p.wait_for_selector("#picture > *")
        p.locator("#rules-box summary").click()
        p.wait_for_selector("#rules p")
        assert p.errors == [], (name, p.errors)
        assert p.locator("#leds *").count() > 0
