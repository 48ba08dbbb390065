"""Bots and the Circleville solo players use the engines' public methods only (issue 15,
"What to build" 4): no `game._x` reach into an engine, and the Circleville engine never
imports the solo framework that drives it."""
from __future__ import annotations

import ast
from pathlib import Path

import ringside.games as G
from ringside.games import CHANCE

GAMES = Path(__file__).resolve().parents[3] / "host" / "ringside" / "games"
SCANNED = sorted(GAMES.glob("*/bots.py")) + sorted((GAMES / "circleville" / "solo").glob("*.py"))


def private_reaches(source: str) -> list[str]:
    """`x._name` for any x but self and cls (a module's own helpers are called bare)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            out.append("line %d: %s" % (node.lineno, ast.unparse(node)))
    return out


def test_the_scan_finds_a_private_call():
    assert private_reaches("def f(game):\n    return game._sec(3)['done']\n") == ["line 2: game._sec"]
    assert private_reaches("class B:\n    def f(self, g):\n        return self._x + g.section(1)\n") == []


def test_bots_and_solo_players_make_no_private_engine_calls():
    assert len(SCANNED) >= 10
    bad = {p.relative_to(GAMES).as_posix(): private_reaches(p.read_text()) for p in SCANNED}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, bad


def test_the_circleville_engine_does_not_import_the_solo_framework():
    tree = ast.parse((GAMES / "circleville" / "engine.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert "solo" not in (node.module or ""), "engine.py line %d imports %s" % (node.lineno, node.module)
        if isinstance(node, ast.Import):
            assert not any("solo" in a.name for a in node.names)


def test_the_public_town_layer_is_what_a_human_action_runs():
    """Building through the public method gives the town what the human's build action gives."""
    g = G.new("circleville", ["Ann", "Bertha"], seed=3, options={"solo": ["bertha"]})
    while g.to_act() == [CHANCE]:
        g.apply(CHANCE, g.chance_action())
    empty = next(n for n in range(1, 21) if any(pl["kind"] is None for pl in g.section(n)["plots"]))
    before = sum(1 for pl in g.section(empty)["plots"] if pl["kind"] is None)
    ev = g.build(1, empty, "natural")
    assert isinstance(ev, list)
    assert sum(1 for pl in g.section(empty)["plots"] if pl["kind"] is None) == before - 1
    assert g.section(empty) is g.state["sections"][empty - 1]
