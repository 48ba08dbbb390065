"""Squaring Circleville, wave 2 (issue 16): a solo seat's road cubes never count as cubes that
could be pulled back, so a solo town that cannot be finished ends. docs/rules/circleville.md
("A town that cannot be finished") and circleville-solo.md ("Running out of cubes")."""
from ringside.games import CHANCE
from ringside.games.circleville import bots as B

from solotest import game as solo_game
from test_circleville_rules import complete

SOLO = 1


def _stuck_solo_town(seed=3):
    """Every section done but 4 and 9; only the solo seat's cubes stand on their roads, enough
    to finish either one if they could be pulled back; every supply is empty."""
    g = solo_game("bertha", seed=seed)
    while g.to_act() == [CHANCE]:
        g.apply(CHANCE, g.chance_action())
    for n in range(1, 21):
        if n not in (4, 9):
            complete(g, n)
    for n in (4, 9):
        sec, b = g._sec(n), g.board["sections"][n]
        sec["red"] = [SOLO] * (b["red"] - 1)
        sec["blue"] = [SOLO] * (b["blue"] - 1)
    for p in g.state["players"]:
        p["supply"] = 0
    return g


def test_solo_road_cubes_are_not_counted_as_cubes_to_pull_back():
    g = _stuck_solo_town()
    # the cubes on the other section's roads would finish either one, but they are the solo
    # player's, who never pulls cubes back
    assert all(g.remaining_work(n) <= len(g._sec(m)["red"]) + len(g._sec(m)["blue"])
               for n, m in ((4, 9), (9, 4)))
    assert g.town_stuck()
    # the same cubes belonging to the person can be pulled back: not stuck
    for n in (4, 9):
        for road in ("red", "blue"):
            g._sec(n)[road] = [0] * len(g._sec(n)[road])
    assert not g.town_stuck()


def test_a_solo_town_that_cannot_be_finished_ends():
    g = _stuck_solo_town()
    bot = B.HeuristicBot(3)
    steps = 0
    while not g.over and steps < 3000:
        seat = g.to_act()[0]
        if seat == CHANCE:
            a = g.chance_action()
        elif seat == 0:
            a = bot.choose(g, 0)
        else:
            a = g.legal_actions(seat)[0]
        g.apply(seat, a)
        steps += 1
    assert g.over, "the stuck solo town did not end in %d actions" % steps
    assert "cannot be finished" in g.result["reason"]
    assert g.state["players"][SOLO]["score"] < 200


def test_the_cubes_on_built_structures_are_in_the_view():
    from test_circleville_rules import game, rondel_to
    g = game(3)
    g.state["queue"] = ["silver", "natural"]
    seat = rondel_to(g, 4, stack=["blue"])       # green space, blue tile
    g.apply(seat, {"type": "act", "colour": "green", "action": "green"})
    g.apply(seat, {"type": "build", "section": 10})
    sec = g.view(None)["sections"][9]
    assert sec["plots"][0] == "silver"
    assert sec["plot_cubes"][0] == [g.players[seat], None]


def test_the_3_vp_tile_scores_when_used_not_when_taken():
    # "Immediately score 3 victory points and trigger the end of the game": read as what the tile
    # does when its owner uses it ("using one is always optional"); taking it scores nothing.
    from test_circleville_rules import P, game, rondel_to
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    for y in g.state["years"][:-1]:
        y["bonus"] = None
    assert g.state["years"][-1]["bonus"] == "three_vp"
    score = P(g)["score"]
    g._take_year_bonus(seat, g.state["years"][-1]["year"])
    assert P(g)["bonus"][-1] == "three_vp" and P(g)["score"] == score and not g.state["end"]
    assert {"type": "use_bonus", "kind": "three_vp"} in g.legal_actions(seat)
    g.apply(seat, {"type": "use_bonus", "kind": "three_vp"})
    assert P(g)["score"] == score + 3 and g.state["end"]


def test_an_occupied_space_just_past_the_counted_steps_cannot_be_reached():
    # "Spaces already holding another player's assistant may be skipped over without counting
    # against your movement, or you may choose to land on an occupied space": an occupied space is
    # a landing on the way, before the last counted (unoccupied) space, not one beyond it.
    from test_circleville_rules import active, game
    g = game(3)
    seat = active(g)
    others = [i for i in range(3) if i != seat]
    g.state["players"][seat]["assistant"] = 0
    g.state["players"][others[0]]["assistant"] = 3
    g.state["players"][others[1]]["assistant"] = 4
    dests = [a["space"] for a in g.legal_actions(seat) if a["type"] == "rondel"]
    assert dests == [1, 2]                  # 1 and 2 counted; 3 and 4 (occupied) lie beyond
    g.state["players"][others[0]]["assistant"] = 2
    dests = [a["space"] for a in g.legal_actions(seat) if a["type"] == "rondel"]
    assert dests == [1, 2, 3]               # 2 is occupied: land on it, or skip it and count 3
