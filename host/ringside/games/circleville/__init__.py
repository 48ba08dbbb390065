"""Squaring Circleville (seed 000): the multiplayer engine, its board and tiles as data, bots.

    import ringside.games as games
    g = games.new("circleville", ["Ann", "Bob", "Cy"], seed=7, options={"start": 10})
    while g.to_act() == ["chance"]:
        g.apply("chance", g.chance_action())      # set-up deals and bag draws
    g.legal_actions(g.to_act()[0])                 # small choices: rondel space, action, square, ...
"""
from .data import DataError, load as load_data  # noqa: F401
from .engine import Circleville  # noqa: F401
from .solo import framework as _solo_rules

Circleville.solo_rules = _solo_rules   # the engine drives solo seats through this, never imports it
