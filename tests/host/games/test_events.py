"""Every event of every engine carries structured fields beside its text, so a client (the
table, a screen, a bot, a test) never parses prose: "type", a non-empty "text", and at least
one field more (seat, space, card, section, amount ...), all plain JSON data."""
import ast
import json
import random
from pathlib import Path

import pytest

from ringside import games
from ringside.games import CHANCE

ENGINES = Path(games.__file__).resolve().parent

# (game, players, options): every game, the player counts that change the rules, and
# Circleville's solo mode with each solo player.
CONFIGS = [
    ("darts", ["Ann", "Bob"], {}), ("darts", ["Ann", "Bob", "Cy"], {}),
    ("wildwest", ["Ann", "Bob"], {}), ("wildwest", ["Ann", "Bob", "Cy", "Di"], {}),
    ("doubles", ["Ann", "Bob"], {}), ("doubles", ["Ann", "Bob", "Cy"], {}),
    ("circle", ["Ann", "Bob", "Cy"], {}), ("circle", ["Ann", "Bob", "Cy", "Di", "Ed"], {}),
    ("circleville", ["Ann", "Bob"], {}), ("circleville", ["Ann", "Bob", "Cy"], {}),
    ("circleville", ["Ann", "Bertha"], {"solo": ["Bertha"]}),
    ("circleville", ["Ann", "Carsten", "Denzel", "Katherine"], {"solo": ["Carsten", "Denzel", "Katherine"]}),
]
SEEDS = (1, 2)
MAX_ACTIONS = 3000

# Events that may carry nothing but their text; an entry needs its reason beside it.
TEXT_ONLY: set = set()   # none today: every event carries fields
# the fields that say which seat(s) an event is about
WHO = {"seat", "seats", "winners", "owner", "loser", "victim", "winner", "first", "starter"}


def play(name, players, options, seed):
    g = games.new(name, players, seed=seed, options=options)
    rng = random.Random(seed)
    out = []
    for _ in range(MAX_ACTIONS):   # a random Circleville town may stick (rules issue 16): stop there
        if g.over:
            break
        seats = g.to_act()
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        a = g.chance_action() if seat == CHANCE else rng.choice(g.legal_actions(seat))
        out += g.apply(seat, a)
    return g, out


@pytest.mark.parametrize("name,players,options", CONFIGS, ids=lambda x: x if isinstance(x, str) else None)
def test_every_event_has_structured_fields_beside_its_text(name, players, options):
    kinds = set()
    for seed in SEEDS:
        g, events = play(name, players, options, seed)
        for e in events:
            where = "%s seed %d event %r" % (name, seed, e)
            assert isinstance(e.get("type"), str) and e["type"], where
            assert isinstance(e.get("text"), str) and e["text"].strip(), where
            extra = set(e) - {"type", "text"}
            assert extra or (name, e["type"], e["text"]) in TEXT_ONLY, "%s has only text" % where
            json.dumps(e)      # plain data a client can send on
            if isinstance(e.get("seat"), int):
                assert 0 <= e["seat"] < len(g.players), where
            if any(e["text"].startswith(n + " ") or e["text"].startswith(n + "'s ") for n in g.players):
                assert WHO & set(e), "%s names a player but has no seat field" % where
            kinds.add(e["type"])
    assert len(kinds) >= 5     # the games really were played, not stopped at the set-up


def _event_calls():
    files = sorted(ENGINES.glob("*/engine.py")) + sorted(ENGINES.glob("*/money.py")) + \
        sorted(ENGINES.glob("*/solo/*.py"))
    for f in files:
        src = f.read_text()
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "event":
                yield f, node
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "_say":   # Doubles' event + history
                yield f, node


def _kind(call):
    """(type, text) of an event call when both are written out, else what can be read."""
    args = call.args if getattr(call.func, "id", None) == "event" else call.args[1:]
    return tuple(a.value if isinstance(a, ast.Constant) else None for a in args[:2])


def test_every_event_call_in_the_engines_passes_fields():
    """The same rule read from the source, so an event on a path random play rarely takes
    (a reserve running short, a full column) is held to it as well."""
    calls = list(_event_calls())
    assert len(calls) > 150
    bare = ["%s:%d" % (f.relative_to(ENGINES), n.lineno) for f, n in calls
            if not n.keywords and (f.relative_to(ENGINES).parts[0],) + _kind(n) not in TEXT_ONLY]
    assert bare == [], "event(...) calls with only a text: %s" % ", ".join(bare)
