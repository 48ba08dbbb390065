"""The Circle at the table (games/circle/present.py): the picture follows the contract at every
step of random play, shows the time wheel and every agency as the view has them, never shows
the hidden face-down deck, labels every legal action distinctly in the rulebook's words, and
the LED frame is the time wheel on ring.json's LEDs."""
import json
import random
import re
from pathlib import Path

import pytest

from ringside import games
from ringside.games import CHANCE
from ringside.games import present as P
from ringside.games.circle import present as CP
from ringside.games.circle import wheel

RING = json.loads((Path(__file__).resolve().parents[3] / "hardware" / "ring.json").read_text())
LEDS = RING["leds"]["count"]
HEX = re.compile(r"^(off|[0-9a-f]{6})\*?$")


def check_led(frame):
    assert set(frame) == {"player", "spaces", "pulse", "pixels"}
    assert frame["player"] is None or frame["player"] in P.COLOUR_RGB
    assert len(frame["pixels"]) == LEDS
    assert all(c in P.COLOUR_RGB or HEX.match(c) for c in frame["pixels"])


def hidden_cards(g):
    return list(g.state["deck"])     # the engine's hidden state: the face-down neutral deck


def mentions(text, cid):
    return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(cid), text) is not None


def play_checked(players, seed, steps=400):
    g = games.new("circle", players, seed=seed)
    rng = random.Random(seed)
    seen = set()
    for _ in range(steps):
        if g.over:
            break
        for viewer in [None] + list(range(len(players))):
            pic = P.check_picture(CP.picture(g, viewer))
            text = json.dumps(pic)
            for cid in hidden_cards(g):
                assert not mentions(text, cid), "the picture shows %s, still face down in the deck" % cid
        check_led(CP.led_frame(g))
        seats = g.to_act()
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        if seat == CHANCE:
            a = g.chance_action()
        else:
            acts = g.legal_actions(seat)
            labels = [CP.label(g, seat, x) for x in acts]
            assert all(isinstance(x, str) and x.strip() for x in labels)
            assert len(set(labels)) == len(labels), "two legal actions share a label: %s" % sorted(labels)
            assert not any("{" in x or "type=" in x for x in labels), labels   # words, not data
            a = rng.choice(acts)
        for e in g.apply(seat, a):
            seen.add(e["type"])
    return g, seen


@pytest.mark.parametrize("players,seed", [(["Ann", "Bob", "Cy"], 1), (["Ann", "Amy", "Bob", "Cy"], 2),
                                          (["A", "B", "C", "D", "E", "F"], 3)])
def test_every_step_of_random_play_has_a_contract_picture_labels_and_led_frame(players, seed):
    g, seen = play_checked(players, seed)
    assert "wheel_turn" in seen and ("auction" in seen or "hired" in seen)    # phase 3 was reached


def test_the_picture_shows_the_time_wheel_and_the_agencies_as_the_view_has_them():
    g, _ = play_checked(["Ann", "Amy", "Bob"], 5, steps=120)
    v = g.view(0)
    pic = CP.picture(g, 0)
    names = [p["name"] for p in pic["players"]]
    assert names == ["Ann", "Amy", "Bob"]
    assert [p["glyph"] for p in pic["players"]] == ["A1", "A2", "B"]      # Ann and Amy apart
    assert [p["score"] for p in pic["players"]] == [p["vp"] for p in v["players"]]
    wheel_sec = pic["sections"][0]
    assert wheel_sec["kind"] == "track" and wheel_sec["steps"][0]["label"].startswith("8")
    by_label = {s["label"].rstrip(":"): s for s in wheel_sec["steps"]}
    for w in v["wheel"]:
        marks = by_label[str(w["number"])]["marks"]
        assert [m["text"].split(" ")[0] for m in marks] == [e["card"] for e in w["spies"]]
        assert [m["seat"] for m in marks] == [e["owner"] for e in w["spies"]]
        assert all(m["colour"] == ("grey" if e["owner"] is None else e["colour"]) for m, e in zip(marks, w["spies"], strict=True))
    agencies = pic["sections"][1]
    assert agencies["kind"] == "table"
    for row, pl in zip(agencies["rows"], v["players"], strict=False):
        assert row[0] == pl["name"] and row[3] == str(pl["vp"])
        assert row[4:8] == [str(pl["secrets"][c]) for c in ("INT", "SUP", "REC", "OPS")]
    assert agencies["rows"][-1][:4] == ["the Circle", "-", "-", str(v["circle_vp"])]
    assert pic["hidden"] == ["the face-down neutral deck (%d cards): what they are and their order" % v["deck_size"]]
    # the picture reads as a table, not as the view's data
    assert "'secrets'" not in json.dumps(pic) and "{" not in pic["status"]


def test_status_and_now_say_who_does_what():
    g = games.new("circle", ["Ann", "Bob", "Cy"], seed=1)
    pic = CP.picture(g, None)
    assert pic["status"].startswith("Set-up") and "the table must" in pic["status"]
    rng = random.Random(1)
    while g.view(None)["deciding"] != "auction":
        s = g.to_act()[0]
        g.apply(s, g.chance_action() if s == CHANCE else rng.choice(g.legal_actions(s)))
    pic = CP.picture(g, None)
    au = g.view(None)["auction"]
    who = g.players[g.to_act()[0]]
    assert pic["status"].endswith("%s to raise the bid or drop out" % who) and au["card"] in pic["status"]
    now = pic["sections"][-1]["lines"]
    assert any(line.startswith("Auction for %s" % au["card"]) for line in now)
    assert [CP.label(g, g.to_act()[0], a) for a in g.legal_actions(g.to_act()[0])] == \
        ["raise the bid to %d secrets" % (au["bid"] + 1), "drop out of the auction"]


def test_labels_are_the_rulebooks_words():
    g = games.new("circle", ["Ann", "Bob", "Cy"], seed=1)
    assert CP.label(g, 0, {"type": "agency", "agency": "USA"}) == "take the USA secret agency (marker passive)"
    assert CP.label(g, 0, {"type": "activate", "card": "INT-gain-1"}) == \
        "activate INT-gain-1, 2 additional secrets (time 2, 2 VP, homeland USA) for 2 secrets"
    assert CP.label(g, 0, {"type": "secret", "division": "OPS", "n": 1}) == "put 1 new secret in your OPS division"
    assert CP.spy(g, "N-intgain-1") == "N-intgain-1, 1 additional secret"
    assert CP.label(g, 0, {"type": "marker"}) == "activate your secret agency marker (costs 1 VP)"


def test_led_frame_is_the_time_wheel_and_the_wheel_turn_is_exposed():
    g = games.new("circle", ["Ann", "Bob", "Cy"], seed=4)
    rng = random.Random(4)
    turned = False
    while not turned:
        s = g.to_act()
        s = s[0] if len(s) == 1 else rng.choice(s)
        before = g.view(None)
        evs = g.apply(s, g.chance_action() if s == CHANCE else rng.choice(g.legal_actions(s)))
        frame = CP.led_frame(g)
        check_led(frame)
        assert frame["pixels"] == wheel.led_frame(g.view(None), RING["leds"])
        act = g.to_act()
        if act and act != [CHANCE]:
            assert frame["player"] == g.view(None)["players"][act[0]]["colour"]
        for e in evs:
            if CP.turns_wheel(e):
                turned = True
                assert CP.led_turn(e) == -LEDS / 8
                frames = CP.turn_frames(before)
                assert len(frames) == 8 and frames[-1] == wheel.led_frame(wheel.turned(before), RING["leds"])
            else:
                assert CP.led_turn(e) is None


def test_step_line_says_what_changed_and_what_is_next_in_one_line():
    g = games.new("circle", ["Ann", "Bob", "Cy"], seed=2)
    ev = g.apply(CHANCE, g.chance_action())
    line = CP.step_line(g, ev)
    assert "\n" not in line and line.startswith(ev[0]["text"])
    assert line.endswith("Next: " + CP.status(g, g.view(None)))


def test_long_menus_fold_under_few_headings():
    g = games.new("circle", ["Ann", "Bob", "Cy"], seed=1)
    while g.view(None)["deciding"] != "p1":
        g.apply(g.to_act()[0], g.chance_action() if g.to_act() == [CHANCE] else g.legal_actions(g.to_act()[0])[0])
    s = g.to_act()[0]
    acts = g.legal_actions(s)
    heads = {CP.group(g, s, a) for a in acts}
    assert len(acts) > 16 and heads <= {"place new secrets", "activate a spy for 2 secrets",
                                        "activate a face-up neutral spy for free"}
