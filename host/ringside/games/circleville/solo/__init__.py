"""Squaring Circleville solo mode: one person against 1-3 rule-driven solo players.

    import ringside.games as G
    g = G.new("circleville", ["Ann", "Bertha", "Denzel"], seed=7,
              options={"solo": ["bertha", "denzel"], "difficulty": 4})

Seat 0 is the person (always first); seats 1.. are the solo players in the order given. A solo
player's seat has exactly one legal action at a time ({"type": "solo", "step": 1 | 2 | 4 |
"final"}): the printed rules leave it no choice, so applying it plays that step, and its events
say in plain words what happened and why. The framework (set-up, the quadrant search, the
shared action machinery, completions, final scoring) is framework.py; each solo player is a
module here that subclasses framework.SoloPlayer and registers itself with @register. Every
module of this package except framework and bench is imported here, so a new solo player is
added by adding its file (and its mat, data/<name>.json).
"""
from __future__ import annotations

import importlib
import pkgutil

from .framework import PLAYERS, SoloPlayer, register  # noqa: F401

_NOT_PLAYERS = {"framework", "bench"}

for _m in pkgutil.iter_modules(__path__):
    if not _m.ispkg and not _m.name.startswith("_") and _m.name not in _NOT_PLAYERS:
        importlib.import_module(__name__ + "." + _m.name)
