"""The table contract (games/__init__.py Capabilities and defaults, games/present.py, ringside.bots):
every game keeps it at every step of random play."""
import random
import re

import pytest

from ringside import bots as B
from ringside import games
from ringside.games import CHANCE, present as P
from ringside.games.present import Fallback

GAMES = games.names()
PLAYERS = {"circle": 3}
STEPS = {"circleville": 250, "circle": 300}


def _new(name, seed=1, names=("Ann", "Bob", "Cy")):
    return games.new(name, list(names[:PLAYERS.get(name, 2)]), seed=seed)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_step_of_random_play_keeps_the_presentation_contract(name, seed):
    """check_picture holds for every viewer, every legal action has words (no JSON), and the
    LED frame has its shape, at every step. (The Circle and Circleville use their own
    present.py once it is there; until then the generic fallback, which keeps them playable.)"""
    g = _new(name, seed)
    pres = g.presenter
    rng = random.Random(seed)
    for _ in range(STEPS.get(name, 2000)):
        if g.over:
            break
        seat = g.to_act()[0]
        for viewer in {None, seat if seat != CHANCE else None}:
            P.check_picture(pres.picture(g, viewer))
        P.check_led_frame(pres.led_frame(g))
        acts = g.legal_actions(seat)
        for a in acts:
            lab = pres.label(g, seat, a)
            assert isinstance(lab, str) and lab.strip(), (name, a)
            if pres is not Fallback:
                assert "{" not in lab and "'type'" not in lab, lab
        ev = g.apply(seat, g.chance_action() if seat == CHANCE else rng.choice(acts))
        for e in ev:
            assert P.event_text(pres, e)
    P.check_picture(pres.picture(g, None))
    if g.over:
        r = pres.picture(g, None)["result"]
        assert r and r["text"] and all(isinstance(w, str) for w in r["winners"])


def test_the_three_ring_and_grid_games_have_their_own_presenter():
    for name in ("darts", "wildwest", "doubles"):
        assert _new(name).presenter is not Fallback


@pytest.mark.parametrize("name", GAMES)
def test_capabilities_and_the_default_contract_methods(name):
    g = _new(name)
    caps = g.capabilities
    assert caps.default_level in caps.bot_levels
    assert {"random", "easy", "good"} <= set(caps.bot_levels) and caps.bot_levels[0] == "random"
    assert isinstance(g.turn_timer()["timed"], bool)
    if caps.ring_side:
        assert g.side.name == caps.ring_side
    else:
        assert g.flick_request() is None
    if not caps.turn_seconds:
        assert g.turn_timer() == {"timed": False} and g.timeout_entry() is None
    if caps.chance:
        assert caps.chance_prompt


@pytest.mark.parametrize("name", GAMES)
def test_every_declared_level_plays_legal_moves(name):
    for level in B.levels(games.game_class(name)):
        g = _new(name, seed=3)
        bot = B.make(g, level, seed=4)
        assert isinstance(bot, B.Bot) and bot.level == level
        for _ in range(30):
            if g.over:
                break
            s = g.to_act()[0]
            g.apply(s, g.chance_action() if s == CHANCE else bot.choose(g, s))


def test_an_unknown_level_is_one_line_listing_the_games_levels():
    g = _new("darts")
    with pytest.raises(games.GameError) as e:
        B.make(g, "strong")
    assert "random, easy (default), good" in str(e.value) and "\n" not in str(e.value)
    assert B.make(_new("doubles"), "strong").level == "strong"
    assert B.make(g, None).level == g.capabilities.default_level
    assert B.make(g, "weak").level == "easy"          # the name earlier saves hold


def test_darts_cubes_of_players_with_one_initial_have_distinct_glyphs():
    g = games.new("darts", ["Ann", "Amy", "Al"], seed=2)
    pic = g.presenter.picture(g, None)
    assert [p["glyph"] for p in pic["players"]] == ["A1", "A2", "A3"]
    assert len({e["glyph"] for e in pic["legend"]}) == len(pic["legend"])


def _darts_at_lucky_to():
    for seed in range(200):
        g = games.new("darts", ["Ann", "Cy"], seed=seed)
        rng = random.Random(seed)
        for _ in range(200):
            if g.over:
                break
            if g.state["phase"] == "lucky_pick":
                picks = [a for a in g.legal_actions(g.to_act()[0]) if a["type"] == "lucky_pick"]
                if picks:
                    g.apply(g.to_act()[0], picks[0])
                    return g, picks[0]
            s = g.to_act()[0]
            g.apply(s, rng.choice(g.legal_actions(s)))
    raise AssertionError("no Lucky 7 in 200 games")


def test_darts_lucky_7_shows_the_picked_up_cube_lifted():
    g, pick = _darts_at_lucky_to()
    pres = g.presenter
    ring = pres.picture(g, None)["sections"][0]
    space = next(s for s in ring["spaces"] if s["id"] == pick["space"])
    on_board = g.state["board"][pick["space"]][pick["colour"]]
    assert len([m for m in space["marks"] if m["seat"] == pick["colour"]]) == on_board - 1
    assert "lifted" in pres.picture(g, None)["status"]
    frame = pres.led_frame(g)
    if on_board == 1:
        assert pick["space"] not in frame["spaces"]


def test_darts_ring_section_lists_the_numbers_in_ring_order():
    g = _new("darts")
    ring = g.presenter.picture(g, None)["sections"][0]
    ids = [s["id"] for s in ring["spaces"]]
    assert ids == g.side.ids
    i = ids.index("17")
    assert "3" in (ids[i - 1], ids[(i + 1) % len(ids)])      # neighbours on the ring sit side by side


def test_darts_words_you_and_owners():
    pres = _new("darts").presenter
    assert pres.event_text({"type": "scored", "text": "You scores 28: 28 in all"}) == "You score 28: 28 in all"
    assert pres.event_text({"type": "placed", "text": "Bob hit the 3: a Ann cube goes on 3, removing 1 You"}) == \
        "Bob hit the 3: Ann's cube goes on 3, removing your cube"


def test_doubles_moves_read_as_words_and_fold_by_square():
    g = games.new("doubles", ["Ann", "Bob"], seed=5)
    while g.to_act() == [CHANCE]:
        g.apply(CHANCE, g.chance_action())
    pres = g.presenter
    acts = g.legal_actions(g.to_act()[0])
    labels = [pres.label(g, g.to_act()[0], a) for a in acts]
    assert any(re.fullmatch(r"add a (crosshatched|dotted|plain|black) \d on [a-f]\d, facing (lower|upper)-(left|right)",
                            lab) for lab in labels)
    assert len({pres.group(g, 0, a) for a in acts}) < len(acts)


def test_doubles_results_name_the_winners():
    g = games.new("doubles", ["Ann", "Bob"], seed=4)
    games.play_random(g, random.Random(4))
    assert g.over
    r = g.presenter.picture(g, None)["result"]
    assert set(r["winners"]) <= {"Ann", "Bob"} and r["winners"]


def test_wildwest_end_says_why_the_winner_won():
    g = games.new("wildwest", ["Ann", "Bob"], seed=1)
    games.play_random(g, random.Random(1))
    text = g.presenter.picture(g, None)["result"]["text"]
    assert "bought the ranch" in text and "first player to buy the ranch" in text


def test_wildwest_money_bag_says_the_trade_up():
    pres = _new("wildwest").presenter
    t = pres.event_text({"type": "money_bag", "text": "Someone dropped a bag of money! Everyone gets 1 silver"})
    assert "trades them up for 1 gold" in t


def test_wildwest_has_a_map_of_the_ring_with_the_marble():
    g = _new("wildwest")
    ring = g.presenter.picture(g, None)["sections"][0]
    assert ring["kind"] == "ring" and len(ring["spaces"]) == g.side.n
    assert [s["id"] for s in ring["spaces"] if s["highlight"]] == [g.state["marble"]]
    assert {"Saloon", "Ranch", "Bank"} <= {s["label"] for s in ring["spaces"]}


def test_chance_status_says_what_the_table_must_do():
    g = games.new("wildwest", ["Ann", "Bob"], seed=3)
    rng = random.Random(3)
    for _ in range(500):
        if g.to_act() == [CHANCE]:
            st = g.presenter.picture(g, None)["status"]
            assert g.capabilities.chance_prompt in st and "To act: chance" not in st
            return
        s = g.to_act()[0]
        g.apply(s, rng.choice(g.legal_actions(s)))
    raise AssertionError("no chance step")


def test_screen_draws_any_picture_with_colour_only_when_asked():
    from ringside.app.screen import Screen, colour_wanted
    for name in GAMES:
        g = _new(name)
        pic = g.presenter.picture(g, None)
        plain = Screen(colour=False).render(pic)
        assert "\x1b[" not in plain and pic["status"] in plain
        assert "\x1b[" in Screen(colour=True).render(pic)
    assert not colour_wanted(open("/dev/null", "w"))


def test_screen_draws_the_ring_as_a_ring():
    from ringside.app.screen import Screen
    g = _new("darts")
    lines = Screen().section(g.presenter.picture(g, None)["sections"][0])
    top = next(i for i, ln in enumerate(lines) if ln.strip() and i > 0)
    # 7 is at the top of the ring, 18 at the bottom: they are drawn on different lines
    row = {sid: next(i for i, ln in enumerate(lines) if re.search(r"(^|[ (])%s( |\)|$)" % sid, ln))
           for sid in ("7", "18", "9", "2")}
    assert row["7"] <= top + 1 and row["18"] > row["9"] > row["7"]


def test_doubles_end_by_agreement_reads_as_words():
    """The end-by-agreement actions (docs/rules/doubles.md) are offered in words, not as data."""
    from ringside.games.doubles import present
    g = games.new("doubles", ["Ann", "Bob"], seed=1)
    for t in ("propose_end", "accept_end", "refuse_end"):
        words = present.label(g, 0, {"type": t})
        assert "end the game" in words and "_" not in words and "{" not in words
