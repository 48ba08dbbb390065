"""Issue 15 item 11 (words a new player reads): a player's name is kept whole in Doubles'
turn line, and Wild West speaks of the ring's spaces by the names printed on the map, never
by their ids ("ranch-1", "bank-1")."""
import os
import re
import subprocess
import sys

from ringside import games
from ringside.app.screen import Screen
from ringside.games import CHANCE
from ringside.games.doubles import present as DP
from ringside.games.wildwest import present as WP

SPACE_ID = re.compile(r"\b[a-z_]+-\d+\b")


def test_doubles_says_anns_turn_not_ann_blues():
    g = games.new("doubles", ["Ann", "Cy"], seed=3)
    words = [DP.event_text(e) for e in g.apply(CHANCE, g.chance_action())]
    assert any(w.startswith("Ann's turn (Blue)") or w.startswith("Cy's turn (Yellow)") for w in words), words
    assert not any(")'s turn" in w for w in words)


def test_wild_west_names_spaces_as_the_map_does():
    g = games.new("wildwest", ["Ann", "Bob"], seed=3)
    text = Screen(colour=False).render(WP.picture(g, 0))
    assert "the marble is on Ranch" in text and not SPACE_ID.search(text), SPACE_ID.findall(text)
    ev = g.apply(0, {"type": "landed", "space": "bank-1", "travel": -100.0})
    words = " ".join(WP.event_text(e) for e in ev)
    assert "Bank" in words and not SPACE_ID.search(words), words


def test_wild_west_flick_prompt_names_the_space(tmp_path):
    env = dict(os.environ, NO_COLOR="1", XDG_STATE_HOME=str(tmp_path))     # its save goes here
    p = subprocess.run([sys.executable, "-m", "ringside.app.cli", "play", "wildwest", "--players", "Ann,Bob",
                        "--sim", "--seed", "3", "--no-calibrate"], input=b"quit\n", capture_output=True,
                       env=env, timeout=120)
    out = p.stdout.decode()
    assert "Ann, flick from Ranch (" in out and "ranch-1" not in out, out[-1500:]
