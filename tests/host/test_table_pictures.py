"""Games whose LED picture is not board spaces: The Circle's time wheel and the Circleville
rondel, sent to the (simulated) board LED by LED and checked on the board's own pixels."""
import random

import pytest

from ringside import games
from ringside.games import CHANCE
from ringside.sim.board import SimBoard
from ringside.table import SimPort, Table


def _rgb(frame, i):
    g, r, b = frame[3 * i], frame[3 * i + 1], frame[3 * i + 2]
    return r, g, b


def _lit(frame):
    return {i for i in range(len(frame) // 3) if any(_rgb(frame, i))}


def _advance_randomly(game, steps, seed):
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        seat = game.to_act()[0]
        game.apply(seat, game.chance_action() if seat == CHANCE else rng.choice(game.legal_actions(seat)))


def _shown(table, board, game, tmp_path):
    table.show([])
    board.advance(100)
    return board.pixels.frame


class _WheelPresenter:
    """A presenter whose LED frame is a whole-ring picture (The Circle's time wheel, drawn by
    wheel.py), marking the wheel's turn as a turn of the picture: the table's px path is
    tested on it whatever the games' own present.py give."""

    def __init__(self, pulse=()):
        self.pulse = set(pulse)

    def led_frame(self, game):
        from ringside.games.circle import wheel
        from ringside.games.present import led_frame
        px = wheel.led_frame(game.view(None))
        return led_frame(pixels=[c + "*" if i in self.pulse and c not in ("off", "000000") else c
                                 for i, c in enumerate(px)])

    def led_turn(self, event):
        return -7 if event.get("type") == "wheel_turn" else None

    def event_text(self, e):
        return e["text"]


def _with_presenter(monkeypatch, game, pres):
    monkeypatch.setattr(type(game), "presenter", property(lambda self: pres))


def test_a_whole_ring_picture_is_sent_as_px_runs_and_only_what_changed(tmp_path, monkeypatch):
    from ringside.games.circle import wheel
    g = games.new("circle", ["A", "B", "C"], seed=3)
    _with_presenter(monkeypatch, g, _WheelPresenter())
    _advance_randomly(g, 120, 3)
    board = SimBoard(seed=1)
    board.advance(200)
    t = Table(g, SimPort(board), save_path=str(tmp_path / "s.json"))
    frame = _shown(t, board, g, tmp_path)
    want = wheel.led_frame(g.view(None))
    lit_want = {i for i, c in enumerate(want) if c not in ("off", "000000")}
    assert lit_want and _lit(frame) == lit_want
    top = wheel._segment_leds(8, wheel.DEFAULT_LEDS)       # the gold mark of square 8, at the top
    r, gr, b = _rgb(frame, top[0])
    assert r > 0 and gr > 0 and b == 0
    _advance_randomly(g, 60, 4)                            # a later state: only what changed is sent
    n0 = len(board.frames)
    frame2 = _shown(t, board, g, tmp_path)
    want2 = wheel.led_frame(g.view(None))
    assert _lit(frame2) == {i for i, c in enumerate(want2) if c not in ("off", "000000")}
    sent = [f for f in board.frames[n0:] if f[1] == "ack"]
    assert len(sent) < 60


def test_pixels_marked_to_pulse_pulse_on_the_board(tmp_path, monkeypatch):
    g = games.new("circle", ["A", "B", "C"], seed=3)
    _advance_randomly(g, 120, 3)
    pres = _WheelPresenter()
    lit = [i for i, c in enumerate(pres.led_frame(g)["pixels"]) if c not in ("off", "000000")]
    pres.pulse = set(lit[:3])
    _with_presenter(monkeypatch, g, pres)
    board = SimBoard(seed=1)
    board.advance(200)
    t = Table(g, SimPort(board), save_path=str(tmp_path / "s.json"))
    t.show([])
    board.advance(500)
    leds = board.controller.leds
    assert {i for i in range(60) if leds.px_pulse[i]} == set(lit[:3])


def test_a_picture_that_turns_is_animated_in_steps(tmp_path, monkeypatch):
    g = games.new("circle", ["A", "B", "C"], seed=5)
    _with_presenter(monkeypatch, g, _WheelPresenter())
    board = SimBoard(seed=1)
    board.advance(200)
    t = Table(g, SimPort(board), save_path=str(tmp_path / "s.json"))
    t.show([])
    rng = random.Random(5)
    sent_turn = None
    for _ in range(3000):
        if g.over:
            break
        seat = g.to_act()[0]
        a = g.chance_action() if seat == CHANCE else rng.choice(g.legal_actions(seat))
        before = g.view(None)
        events = g.apply(seat, a)
        n0 = len(board.frames)
        t.show(events)
        board.advance(50)
        if any(e.get("type") == "wheel_turn" for e in events) and any(s["spies"] for s in before["wheel"]):
            sent_turn = [f for f in board.frames[n0:] if f[1] == "ack"]
            break
    assert sent_turn, "no wheel turn with spies on the wheel in this game"
    assert len(sent_turn) > 8   # the animation's frames went to the board


@pytest.mark.parametrize("name", ["circle", "circleville"])
def test_a_games_own_ring_picture_is_what_the_board_shows(tmp_path, name):
    """Through the game's own present.py (skipped while a game has only the fallback)."""
    from ringside.games.present import Fallback
    g = games.new(name, ["A", "B", "C"], seed=2)
    if g.presenter is Fallback:
        pytest.skip("%s has no present.py yet" % name)
    _advance_randomly(g, 40, 2)
    want = g.presenter.led_frame(g)["pixels"]
    if want is None:
        pytest.skip("%s paints spaces, not a picture" % name)
    board = SimBoard(seed=1)
    board.advance(200)
    t = Table(g, SimPort(board), save_path=str(tmp_path / "s.json"))
    frame = _shown(t, board, g, tmp_path)
    assert _lit(frame) == {i for i, c in enumerate(want) if c.rstrip("*") not in ("off", "000000", "black")}


def test_doubles_turn_timer_runs_on_the_board_and_passes_the_turn(tmp_path):
    g = games.new("doubles", ["A", "B"], seed=4)
    board = SimBoard(seed=1)
    board.advance(200)
    t = Table(g, SimPort(board), save_path=str(tmp_path / "s.json"))
    while g.turn_timer()["seat"] is None:     # the coin toss
        t.apply("chance", g.chance_action())
    tt = g.turn_timer()
    assert tt["timed"]
    t.show([])
    # the board counts the 20 s itself and shows them on the ring
    assert board.controller.timer.state != 0
    board.advance(19000)
    assert t.check_timer() is None            # not yet
    board.advance(1500)
    ev = t.check_timer()
    assert ev and any(e["type"] == "timeout" for e in ev)
    assert g.turn_timer()["turn_no"] == tt["turn_no"] + 1 or g.turn_timer()["seat"] != tt["seat"]


def _doubles_at_a_timed_turn(tmp_path):
    g = games.new("doubles", ["A", "B"], seed=4)
    board = SimBoard(seed=1)
    board.advance(200)
    t = Table(g, SimPort(board), save_path=str(tmp_path / "s.json"))
    while not g.turn_timer()["timed"]:
        t.apply("chance", g.chance_action())
    t.show([])
    return g, board, t


def test_doubles_a_move_at_19_9_seconds_counts_and_cancels_the_timer(tmp_path):
    g, board, t = _doubles_at_a_timed_turn(tmp_path)
    turn = g.turn_timer()["turn_no"]
    if g.to_act() == ["chance"]:                 # the die, inside the 20 s
        ev = t.apply("chance", g.chance_action())
        assert any(e["type"] == "roll" for e in ev)
    board.advance(19900 - 10)
    seat = g.to_act()[0]
    t.apply(seat, g.legal_actions(seat)[0])      # in time
    assert g.turn_timer()["turn_no"] != turn or g.turn_timer()["seat"] != seat
    board.advance(2000)
    assert t.check_timer() is None               # no timeout for the turn that was played


def test_doubles_the_timer_keeps_running_while_the_host_stalls(tmp_path):
    g, board, t = _doubles_at_a_timed_turn(tmp_path)
    n0 = len(board.frames)
    board.advance(21000)                         # no command from the host at all
    assert [f for f in board.frames[n0:] if f[1] == "timer_expired"]


def test_doubles_host_rolled_die_blinks_the_ring(tmp_path):
    g, board, t = _doubles_at_a_timed_turn(tmp_path)
    assert g.to_act() == ["chance"]              # a turn starts with the die, timed
    roll = g.chance_action()
    t.apply("chance", roll)
    assert board.controller.leds.flash_n == roll["value"]
