"""Darts (Circles rulebook): the engine registers itself as "darts"; bots live in bots.py."""
from ringside.games.darts.engine import Darts, load_data  # noqa: F401 (registers the game)
