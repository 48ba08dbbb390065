"""The Circle (seed 002): the engine registers itself as "circle"; cards.py holds the deck,
bots.py the computer players, wheel.py the time wheel on the 60-LED ring."""
from ringside.games.circle.engine import Circle  # noqa: F401 (registers the game)
