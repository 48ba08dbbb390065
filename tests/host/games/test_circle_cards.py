"""The Circle's card data: the default deck matches every count the rulebook gives; a user's
own deck is validated with clear errors."""
import copy
import json

import pytest

from ringside import games
from ringside.games import GameError
from ringside.games.circle import cards as cardlib


def deck():
    return copy.deepcopy(cardlib.load())


def test_default_deck_matches_the_rulebook_counts():
    d = deck()
    assert len(d) == 60
    for col in cardlib.COLOURS:
        assert sum(1 for c in d if c["colour"] == col) == 10
    assert sum(1 for c in d if c["colour"] == "neutral") == 20
    stacks = {(c["colour"], c["type"]) for c in d if c["colour"] != "neutral"}
    assert len(stacks) == 16
    homes = [c["homeland"] for c in d if c["homeland"]]
    assert len(homes) == 12 and all(homes.count(n) == 2 for n in cardlib.NATIONS)
    assert len({(c["colour"], c["type"]) for c in d if c["homeland"]}) == 12
    assert all(c["moth"] == c["colour"] for c in d if c["colour"] != "neutral")
    assert all(c["moth"] is None and c["auction"] in cardlib.COLOURS + ("grey",) for c in d if c["colour"] == "neutral")
    assert {c["type"] for c in d if c["colour"] == "neutral"} == set(cardlib.ALL_TYPES)


def broken(fn):
    d = deck()
    fn(d)
    return d


@pytest.mark.parametrize("change,msg", [
    (lambda d: d.pop(), "60 spy cards, this deck has 59"),
    (lambda d: d[1].update(id=d[0]["id"]), "two cards are called"),
    (lambda d: d[0].update(colour="pink"), "colour must be one of"),
    (lambda d: d[0].update(type="ops_capture"), "a INT spy's action is one of"),
    (lambda d: d[0].update(time=9), "time must be a whole number 1-7"),
    (lambda d: d[0].update(vp="3"), "vp must be a whole number"),
    (lambda d: d[1].update(homeland="USA"), "more than one homeland spy"),
    (lambda d: d[0].update(homeland="ITA"), "homeland must be null or one of"),
    (lambda d: d[0].update(moth="SUP"), "shows the INT quarter of the moth"),
    (lambda d: d[-1].update(moth="INT"), "no moth quarter"),
    (lambda d: d[-1].update(auction="pink"), "auction must be one of"),
    (lambda d: d[-1].update(colour="INT", type="int_gain", moth="INT", auction="INT"), "there are 10 INT spies"),
    (lambda d: d[0].update(homeland=None), "there are 12 homeland spies"),
    (lambda d: d[1].update(time=5), "must share their time and VP"),
])
def test_a_users_deck_is_refused_with_a_clear_reason(change, msg):
    with pytest.raises(GameError, match=msg):
        cardlib.load({"cards": broken(change)})


def test_a_users_deck_file_and_the_game_option(tmp_path):
    p = tmp_path / "mine.json"
    d = deck()
    for c in d:
        if c["type"] == "ops_capture":
            c["vp"] = 5
    p.write_text(json.dumps({"cards": d}))
    g = games.new("circle", ["A", "B", "C"], seed=1, options={"data": str(p)})
    assert g.card["OPS-capture-1"]["vp"] == 5
    g2 = games.new("circle", ["A", "B", "C"], seed=1, options={"data": {"cards": d}})
    assert g2.card["OPS-capture-1"]["vp"] == 5
    with pytest.raises(GameError, match="cannot read"):
        games.new("circle", ["A", "B", "C"], seed=1, options={"data": str(tmp_path / "none.json")})
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(GameError, match="not valid JSON"):
        cardlib.load(str(tmp_path / "bad.json"))
    with pytest.raises(GameError, match="needs a list 'cards'"):
        cardlib.load({"cards": 3})
