"""Squaring Circleville solo, wave 2 (issue 16, defect 4's second half): the end for a town that
cannot be finished counts a solo player's cubes in supply only for the actions its rules can
still take. docs/rules/circleville.md ("A town that cannot be finished") and
circleville-solo.md ("Running out of cubes")."""
import ringside.games as G
from ringside.games import CHANCE
from ringside.games.circleville import bots as B

from solotest import game as solo_game
from solotest import step, turn
from test_circleville_rules import complete

SOLO = 1
FINISHING = {"red", "blue", "orange"}


def _settle(g):
    """No action tile left anywhere a tile could come from: stacks, upcoming stack, bag."""
    S = g.state
    S["stacks"] = [[] for _ in S["stacks"]]
    S["upcoming"] = []
    S["bag"] = {c: 0 for c in S["bag"]}


def _red_only_town(solo="carsten", seed=3, solo_cubes=3, blue=SOLO):
    """Every section done but 9, 14 and 18, which each still need their 3 red squares and
    nothing else (their blue squares hold `blue`'s cubes, their structures are razed); the
    person has no cube, the solo player `solo_cubes`."""
    g = solo_game(solo, seed=seed)
    for n in range(1, 21):
        if n not in (9, 14, 18):
            complete(g, n)
    for n in (9, 14, 18):
        sec, b = g._sec(n), g.board["sections"][n]
        assert b["red"] == 3
        sec["red"], sec["blue"] = [], [blue] * b["blue"]
        for i in sec["icons"]:
            i["cubes"] = [0]
    for p in g.state["players"]:
        p["supply"] = 0
    g.state["players"][SOLO]["supply"] = solo_cubes
    return g


def _carsten_never_red(g):
    """Carsten as in the seed-4005 game: his assistant on space 5 (red), his supervisor on his
    space 4, his mat green, blue, red, green. Red then only ever comes as his red pair
    (equipment, no cube)."""
    g.state["solo"][SOLO]["tiles"] = ["green", "blue", "red", "green"]
    g.state["solo"][SOLO]["space"] = 3
    g.state["players"][SOLO]["assistant"] = 5
    g.state["active"], g.state["phase"] = 0, "rondel"


def test_solo_cubes_its_rules_can_never_place_do_not_keep_the_town_open():
    g = _red_only_town()
    _settle(g)
    _carsten_never_red(g)
    pl = g.solo_players[SOLO]
    assert "red" not in pl.placeable_colours(g, SOLO)
    assert g.town_stuck()
    # the same cubes with a red level 1 action ahead of him: the town is not stuck
    g.state["solo"][SOLO]["tiles"] = ["green", "blue", "green", "green"]
    assert "red" in pl.placeable_colours(g, SOLO)
    assert not g.town_stuck()


def test_while_tiles_can_still_come_a_solo_players_cubes_count():
    g = _red_only_town()
    _settle(g)
    _carsten_never_red(g)
    g.state["stacks"][2] = ["red"]            # one tile left: it may change his colours
    assert g.solo_players[SOLO].placeable_colours(g, SOLO) == FINISHING
    assert not g.town_stuck()


def test_too_few_solo_cubes_for_any_section_is_stuck_too():
    g = _red_only_town(solo_cubes=2)          # each section needs 3 reds
    _settle(g)
    _carsten_never_red(g)
    g.state["solo"][SOLO]["tiles"] = ["green", "blue", "green", "green"]
    assert "red" in g.solo_players[SOLO].placeable_colours(g, SOLO)
    assert g.town_stuck()
    g.state["players"][SOLO]["supply"] = 3
    assert not g.town_stuck()


def test_the_persons_pull_back_cubes_still_count_beside_solo_cubes():
    # the person's cubes on the blue squares of the other two sections may be pulled back:
    # 3 reds for a section whatever Carsten does
    g = _red_only_town(blue=0)
    _settle(g)
    _carsten_never_red(g)
    assert not g.town_stuck()
    # Carsten's reds plus one pulled-back cube: still enough with only 1 of the person's left
    for n in (14, 18):
        g._sec(n)["blue"] = [SOLO] * len(g._sec(n)["blue"])
    g._sec(9)["blue"] = [SOLO] * (len(g._sec(9)["blue"]) - 1) + [0]
    assert g.town_stuck()                     # Carsten never places a red: 1 < 3
    g.state["solo"][SOLO]["tiles"] = ["green", "blue", "green", "green"]
    g.state["players"][SOLO]["supply"] = 2
    assert not g.town_stuck()                 # 2 of his reds + the person's 1 for 14 or 18


def test_denzel_holding_cubes_keeps_the_town_open_while_tiles_can_come():
    # a filled column completes a section without filling it (his forced completion)
    g = _red_only_town("denzel", solo_cubes=1)
    assert g.solo_players[SOLO].completes_without_cubes(g, SOLO)
    assert not g.town_stuck()
    _settle(g)
    assert not g.solo_players[SOLO].completes_without_cubes(g, SOLO)
    assert g.town_stuck()                     # 1 cube, 3 reds needed


def test_carstens_predicted_colours_are_the_ones_he_takes():
    # follow his settled turns for real from several starting points; what he can still
    # do never grows (checked after every step: his next step is 2, 4 or a new turn's 1)
    for assistant, space in ((0, 0), (1, 3), (5, 3), (6, 1)):
        for tiles in (["green", "blue", "red", "green"], [None, None, None, None],
                      ["red", "red", "green", "orange"], ["green", "green", "green", "green"]):
            g = solo_game("carsten", seed=5)
            _settle(g)
            st = g.state["solo"][SOLO]
            st["tiles"], st["space"] = list(tiles), space
            g.state["players"][SOLO]["supply"] = 0      # every action: "no cubes" (its colour said)
            g.state["players"][SOLO]["assistant"] = assistant
            g.state["active"], g.state["phase"] = 0, "rondel"
            predicted = g.solo_players[SOLO].placeable_colours(g, SOLO)
            taken = set()
            for _ in range(32):      # his (assistant, supervisor) orbit: at most 8 x 4 turns
                turn(g)
                for _ in range(3):
                    taken |= {e["action"] for e in step(g)
                              if e["type"] == "solo" and e.get("action") in FINISHING and e.get("level") == 1}
                    assert g.solo_players[SOLO].placeable_colours(g, SOLO) <= predicted
            assert taken == predicted, (assistant, space, tiles)


def _play(seed, max_actions):
    g = G.new("circleville", ["Ann", "Carsten"], seed=seed, options={"solo": ["carsten"]})
    person = B.RandomBot(5)
    n = 0
    while not g.over and n < max_actions:
        seat = g.to_act()[0]
        a = g.chance_action() if seat == CHANCE else person.choose(g, 0) if seat == 0 else g.legal_actions(seat)[0]
        g.apply(seat, a)
        n += 1
    return g, n


def test_seed_4005_carsten_against_a_random_person_ends():
    # before: the bag and every stack empty, sections 9, 14 and 18 each needing 3 reds, Carsten
    # holding 3 but taking his reds only as a pair (equipment): 19,313 VP at 20,000 actions
    g, n = _play(4005, 12000)
    assert g.over, "the game did not end in %d actions" % n
    assert n < 9000
    assert "cannot be finished" in g.result["reason"]
    S = g.state
    assert [k for k in range(1, 21) if not S["sections"][k - 1]["done"]] == [9, 14, 18]
    assert S["players"][0]["supply"] == 0 and S["players"][SOLO]["supply"] == 3
    scores = g.result["scores"]
    assert scores == {"Ann": S["players"][0]["score"], "Carsten": S["players"][SOLO]["score"]}
    assert g.result["winners"] == [max(scores, key=scores.get)]
    assert scores["Carsten"] < 10000
