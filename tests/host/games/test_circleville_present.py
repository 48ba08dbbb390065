"""Squaring Circleville at the table (games/circleville/present.py), multiplayer and solo: the
picture follows the contract at every step of random play, shows the rondel, the town and
every mat as the view has them, does not change when only hidden things change (the bag's
colours, the tiles under a stack's top, the undealt tiles), labels every legal action
distinctly in the rulebook's words, and the LED frame is the rondel on ring.json's LEDs."""
import copy
import json
import random
import re
from pathlib import Path

import pytest

from ringside import games
from ringside.games import CHANCE
from ringside.games import present as P
from ringside.games.circleville import present as VP
from ringside.games.circleville import render

RING = json.loads((Path(__file__).resolve().parents[3] / "hardware" / "ring.json").read_text())
LEDS = RING["leds"]["count"]
HEX = re.compile(r"^(off|[0-9a-f]{6})\*?$")

CONFIGS = [(["Ann", "Bob"], {}), (["Ann", "Amy", "Bob"], {}), (["Ann", "Bob", "Cy", "Di"], {}),
           (["Ann", "Bertha"], {"solo": ["Bertha"]}),
           (["Ann", "Carsten", "Denzel", "Katherine"], {"solo": ["Carsten", "Denzel", "Katherine"]})]


def check_led(frame):
    assert set(frame) == {"player", "spaces", "pulse", "pixels"}
    assert frame["player"] is None or frame["player"] in P.COLOUR_RGB
    assert len(frame["pixels"]) == LEDS
    assert all(c in P.COLOUR_RGB or HEX.match(c) for c in frame["pixels"])


def hide_differently(g):
    """The same public table with other hidden things: one tile of the bag changes colour,
    the tiles under each stack's top turn round, the undealt tiles come in another order."""
    S = g.state
    cols = [c for c in S["bag"] if S["bag"][c] > 0]
    if cols:
        a = cols[0]
        b = next(c for c in S["bag"] if c != a)
        S["bag"][a] -= 1
        S["bag"][b] += 1
    for st in S["stacks"]:
        st[:-1] = st[:-1][::-1]
    for k in ("equipment", "achievements"):
        S["deal"][k] = S["deal"][k][::-1]


def play_checked(players, options, seed, steps, every=1):
    g = games.new("circleville", players, seed=seed, options=options)
    rng = random.Random(seed)
    for i in range(steps):
        if g.over:
            break
        if i % every == 0:
            for viewer in [None] + list(range(len(players))):
                P.check_picture(VP.picture(g, viewer))
            check_led(VP.led_frame(g))
        seats = g.to_act()
        seat = seats[0]
        if seat == CHANCE:
            a = g.chance_action()
        else:
            acts = g.legal_actions(seat)
            labels = [VP.label(g, seat, x) for x in acts]
            assert all(isinstance(x, str) and x.strip() for x in labels)
            assert len(set(labels)) == len(labels), "two legal actions share a label: %s" % sorted(labels)
            assert not any("{" in x or "type" in x for x in labels), labels        # words, not data
            a = rng.choice(acts)
        g.apply(seat, a)
    return g


@pytest.mark.parametrize("players,options", CONFIGS, ids=lambda x: ",".join(x) if isinstance(x, list) else None)
def test_every_step_of_random_play_has_a_contract_picture_labels_and_led_frame(players, options):
    g = play_checked(players, options, seed=len(players), steps=700)
    assert g.state["turns"] > 5           # real turns were played, not only the set-up


def test_a_finished_game_has_its_result_in_the_picture():
    g = games.new("circleville", ["Ann", "Bertha"], seed=3, options={"solo": ["Bertha"]})
    games.play_random(g, random.Random(3), max_actions=20000)
    assert g.over
    pic = P.check_picture(VP.picture(g))
    assert pic["result"]["winners"] == g.result["winners"] and pic["result"]["scores"] == g.result["scores"]
    assert pic["status"].startswith("Game over: " + " and ".join(g.result["winners"]))


def test_the_picture_does_not_change_when_only_hidden_things_change():
    g = play_checked(["Ann", "Bob", "Cy"], {}, seed=4, steps=150, every=1000)
    assert any(len(st) > 1 for st in g.state["stacks"]) and sum(g.state["bag"].values())
    for viewer in (None, 0, 2):
        before = json.dumps(VP.picture(g, viewer), sort_keys=True)
        saved = copy.deepcopy(g.state)
        hide_differently(g)
        assert g.state != saved
        assert json.dumps(VP.picture(g, viewer), sort_keys=True) == before
        g.state = saved


def test_the_picture_shows_the_rondel_the_town_and_the_mats_as_the_view_has_them():
    g = play_checked(["Ann", "Amy", "Bob"], {}, seed=2, steps=400, every=1000)
    v = g.view(0)
    pic = VP.picture(g, 0)
    assert [p["glyph"] for p in pic["players"]] == ["A1", "A2", "B"]
    assert [p["score"] for p in pic["players"]] == [p["score"] for p in v["players"]]
    assert [p["colour"] for p in pic["players"]] == ["yellow", "purple", "teal"]    # never an action colour
    rondel, town, table = pic["sections"][:3]
    assert rondel["kind"] == "track" and len(rondel["steps"]) == 8
    for step, r in zip(rondel["steps"], v["rondel"], strict=True):
        assert step["label"].startswith("%d %s" % (r["space"], r["colour"]))
        assert [m["seat"] for m in step["marks"]] == [g.players.index(n) for n in r["assistants"]]
    assert town["kind"] == "grid" and town["columns"] == ["quadrant %d" % q for q in (1, 2, 3, 4)]
    cells = [c for row in town["rows"] for c in row["cells"] if c["text"]]
    assert sorted(int(c["glyph"]) for c in cells) == list(range(1, 21))     # every section once
    assert [r["label"] for r in town["rows"]] == ["inner", "middle", "middle", "outer", "outer"]
    worked = [s for s in v["sections"] if s["done"] or s["cubes"] or any(x.endswith("*") for x in s["structures"])]
    assert [row[0] for row in table["rows"]] == [str(s["number"]) for s in worked] and worked
    for row, s in zip(table["rows"], worked, strict=True):
        if s["done"]:
            assert row[1].startswith("complete")
            continue
        assert row[1] == "red %s, blue %s" % (s["red"], s["blue"])
        for i, x in enumerate(s["structures"]):
            if x.endswith("*"):
                assert "%s razed by %s" % (x[:-1], " and ".join(s["razed_by"][i])) in row[2]
    mats = next(s for s in pic["sections"] if s["title"].startswith("Player mats"))
    for row, p in zip(mats["rows"], v["players"], strict=False):
        assert row[0] == p["name"] and row[1].startswith("%d (" % p["levels"]["red"]) and row[7] == str(p["supply"])
    text = json.dumps(pic)
    assert "structures gn" not in text and "0:G/G" not in text      # the old cryptic lines are gone


def test_the_status_line_says_whose_turn_and_which_step():
    g = games.new("circleville", ["Ann", "Bob"], seed=1)
    assert VP.status(g).startswith("Set-up")
    while g.to_act() == [CHANCE]:
        g.apply(CHANCE, g.chance_action())
    who = g.players[g.to_act()[0]]
    assert VP.status(g) == "%s, step 1: move your assistant on the courthouse rondel" % who
    a = g.legal_actions(g.to_act()[0])[0]
    g.apply(g.to_act()[0], a)
    assert VP.status(g).startswith("%s, step 2: actions left " % who)
    assert VP.picture(g)["status"] == VP.status(g)


def test_labels_are_the_rulebooks_words():
    g = games.new("circleville", ["Ann", "Bob"], seed=1)
    while g.to_act() == [CHANCE]:
        g.apply(CHANCE, g.chance_action())
    s = g.to_act()[0]
    g.state["players"][s]["supervisor"] = 4
    assert VP.label(g, s, {"type": "act", "colour": "red", "action": "red"}) == \
        "Red - Deconstruct Roads in section 4, level 1: up to 2 cubes on red squares"
    assert VP.label(g, s, {"type": "act", "colour": "orange", "action": "move"}) == \
        "orange action, alternate level 1 - Move Your Supervisor"
    assert VP.label(g, s, {"type": "use_bonus", "kind": "raze", "section": 7, "structure": "brown"}) == \
        "use the Raze a Structure year bonus tile: raze a brown structure in section 7"
    assert VP.label(g, s, {"type": "pull", "section": 12, "road": "blue"}) == \
        "pull your cube back off a blue square in section 12"


def test_led_frame_is_the_rondel():
    g = play_checked(["Ann", "Bob"], {}, seed=6, steps=60, every=1000)
    frame = VP.led_frame(g)
    check_led(frame)
    assert frame["pixels"] == render.led_frame(g, RING["leds"])
    act = g.to_act()
    if act and act != [CHANCE]:
        assert frame["player"] == VP.seat_colour(act[0])


def test_step_line_says_what_changed_and_what_is_next_in_one_line():
    g = games.new("circleville", ["Ann", "Bob"], seed=1)
    while g.to_act() == [CHANCE]:
        g.apply(CHANCE, g.chance_action())
    seat = g.to_act()[0]
    ev = g.apply(seat, g.legal_actions(seat)[0])
    line = VP.step_line(g, ev)
    assert "\n" not in line and line.startswith(ev[0]["text"].rstrip("."))
    assert line.endswith("Next: " + VP.status(g))
    many = [{"type": "x", "text": "Ann does thing number %d." % i, "seat": 0} for i in range(40)]
    assert len(VP.step_line(g, many)) < 300 and "(and " in VP.step_line(g, many)


def test_long_menus_fold_under_few_headings():
    g = play_checked(["Ann", "Bob", "Cy"], {}, seed=4, steps=300, every=1000)
    worst = 0
    for _ in range(300):
        if g.over:
            break
        s = g.to_act()[0]
        if s != CHANCE:
            acts = g.legal_actions(s)
            heads = [VP.group(g, s, a) for a in acts]
            assert all(h.strip() for h in heads)
            worst = max(worst, len(set(heads)))
        g.apply(s, g.chance_action() if s == CHANCE else random.Random(len(g.log)).choice(g.legal_actions(s)))
    assert 1 < worst <= 16
