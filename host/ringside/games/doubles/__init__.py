"""Doubles (seed 003): engine, board layout, computer players and a text rendering.

    import ringside.games as games
    g = games.new("doubles", ["Ann", "Bob"], seed=7)
    g.apply("chance", g.chance_action())        # the coin toss, then each turn's d4
    g.legal_actions(g.to_act()[0])
    print(render(g.view()))
"""
from .board import BoardError, default_layout, read_layout, validate_layout  # noqa: F401
from .engine import Doubles, SEAT_COLOURS, SEAT_LETTERS, TURN_SECONDS  # noqa: F401
from .render import render  # noqa: F401
