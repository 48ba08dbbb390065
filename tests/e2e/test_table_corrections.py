"""The table takes the board's corrections: a landing the marble moved on from is withdrawn
on the link (`withdrawn`, then `landed ... corrects=1`), and the scored result is replaced
while nothing but chance has been played since (docs/protocol.md, "Landings withdrawn")."""
import random

from ringside import games
from ringside.ring import load_side
from ringside.table import SimPort, Table

from test_ring_faults import calibrated_board


def _darts_after_flick_off():
    g = games.new("darts", ["Ann", "Bob"], seed=1)
    g.apply(0, {"type": "landed", "space": "7", "travel": 360.0})
    g.apply(1, {"type": "off_ring"})
    return g


def _flick_then_creep(table, b):
    """Ann flicks (the table plays the result); then the ring tilts (1.5 deg, the low point
    40 deg on) and the marble rolls on by itself before the next flick is armed - the
    tilted ring of issue 18, where a game scored a space the marble had left."""
    req = table.game.flick_request()
    a = table.flick_sim(120.0 if "ccw" in req["directions"] else -120.0, 1.0, random.Random(3))
    assert a["type"] == "landed"
    table.apply(req["seat"], a)
    b.marble.set_tilt(1.5, (b.marble.position_deg + 40.0) % 360.0)
    b.advance(500)
    while not b.marble.at_rest:
        b.advance(50)
    b.advance(6000)
    frames = [(k, f) for _, k, f in b.frames if k in ("withdrawn", "landed")]
    assert frames[-2][0] == "withdrawn" and frames[-1][1].get("corrects") == 1, frames[-3:]
    return a, load_side("darts", b.ring_dict).space_at(b.marble.position_deg)


def test_the_table_replaces_a_landing_the_marble_moved_on_from():
    b = calibrated_board(2)
    said = []
    table = Table(_darts_after_flick_off(), SimPort(b), log=said.append)
    first, true = _flick_then_creep(table, b)
    assert first["space"] != true
    n = len(table.game.log)
    ev = table.take_corrections()
    g = table.game
    assert ev and table.corrections == 1
    assert len(g.log) == n                        # replaced, not added
    last = g.log[-1][1]
    assert last["type"] == "landed" and true in (last["space"], last.get("alt"))
    assert any("withdraws the landing on %s" % first["space"] in s for s in said)
    assert any("corrected by the board" in s for s in said)
    # the log replays to exactly this game
    again = g.replay()
    assert again.log == g.log and again.state == g.state


def test_a_correction_after_the_next_player_has_moved_changes_nothing_and_says_so():
    b = calibrated_board(2)
    said = []
    table = Table(_darts_after_flick_off(), SimPort(b), log=said.append)
    first, true = _flick_then_creep(table, b)
    g = table.game
    seat = g.to_act()[0]
    acts = g.legal_actions(seat) if seat != games.CHANCE else []
    if not acts or g.flick_request() is not None:
        # the next player's flick: typed in, as at a table without a simulated board
        table.apply(g.flick_request()["seat"], {"type": "off_ring"})
    else:
        table.apply(seat, acts[0])
    before = list(table.game.log)
    assert table.take_corrections() == []
    assert table.game.log == before and table.corrections == 0
    assert any("play has gone on since: nothing is changed" in s for s in said)
