"""Wild West (Circles rulebook): the engine registers itself as "wildwest"; bots live in bots.py."""
from ringside.games.wildwest.engine import WildWest, load_data  # noqa: F401 (registers the game)
