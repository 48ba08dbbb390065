"""Sample pictures of every game for the table page's drawing (static/gallery.html, the
render tests, `ringside screenshots`): real games played a few seeded steps by seeded
computer players, shown through their presenters (games/<game>/present.py) exactly as the
server sends them.

    samples()                      -> [{"id", "game", "seat", "about", "picture", "leds", "places", ...}]
    python -m ringside.web.gallery [OUT.json]   # the samples as JSON (stdout without OUT)

Nothing here knows a game by name beyond the list of what to play (SETUPS): which game, its
players, options, seed and how many steps; the pictures, the places and the LEDs come
through the table contract only.
"""
from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from ringside import bots, games
from ringside.games import CHANCE
from ringside.games import present as P
from ringside.web import leds

if TYPE_CHECKING:
    from ringside.games import Game

# (id, game, players, options, seed, steps, the seat whose view is shown (None: spectator), about)
SETUPS = (
    ("darts", "darts", ["Ann", "Bob", "Cy"], {}, 3, 14, None, "Darts after a few flicks each: cubes in three colours"),
    ("darts-start", "darts", ["Ann", "Bob"], {}, 1, 0, None, "Darts at the start: the flick-off"),
    ("darts-over", "darts", ["Ann", "Bob"], {}, 1, 100, None, "Darts at its end: the winner and the scores"),
    ("wildwest", "wildwest", ["Ann", "Bob", "Cy"], {}, 2, 16, None, "Wild West a few turns in"),
    ("doubles", "doubles", ["Ann", "Bob"], {}, 5, 16, None, "Doubles with pieces on the board, a turn timed"),
    ("doubles-3", "doubles", ["Ann", "Bob", "Cy"], {}, 7, 10, None, "Doubles for three: three rows in play"),
    ("circle", "circle", ["Ann", "Bob", "Cy"], {}, 4, 60, 0, "The Circle as Ann sees it"),
    ("circleville", "circleville", ["Ann", "Bob"], {}, 3, 100, None, "Squaring Circleville, two players"),
    ("circleville-solo", "circleville", ["Ann", "Bertha"], {"solo": ["bertha"]}, 2, 140, None,
     "Squaring Circleville solo against Bertha"),
)


def play(name: str, players: list[str], options: dict, seed: int, steps: int) -> Game:
    """A game `steps` seeded steps in: chance from the game's own RNG, seats by random bots
    seeded from `seed`, so a sample is the same on every machine."""
    g = games.new(name, players=list(players), seed=seed, options=dict(options))
    players_bots = [bots.make(g, "random", seed=seed * 31 + i) for i in range(len(players))]
    for _ in range(steps):
        if g.over:
            break
        act = g.to_act()
        if act == [CHANCE]:
            g.apply(CHANCE, g.chance_action())
            continue
        seat = act[0]
        g.apply(seat, players_bots[seat].choose(g, seat))
    return g


def _ids(pic: dict) -> set:
    """Every id a picture lets a viewer click: ring spaces, grid cells, track steps."""
    out = set()
    for s in pic["sections"]:
        if s["kind"] == "ring":
            out |= {str(sp["id"]) for sp in s["spaces"]}
        elif s["kind"] == "grid":
            out |= {str(c.get("id", c.get("square"))) for r in s["rows"] for c in r["cells"]
                    if c.get("id", c.get("square")) is not None}
        elif s["kind"] == "track":
            out |= {str(st["label"]) for st in s["steps"]}
    return out


def places(game: Game, pic: dict) -> list:
    """The picture's ids that a legal action of the seat to act names (a space, a square, a section):
    what the page would let that player click."""
    act = game.to_act()
    if not act or act == [CHANCE] or game.over:
        return []
    ids = _ids(pic)
    found = []
    for a in game.legal_actions(act[0]):
        for k in ("space", "square", "section"):
            v = a.get(k)
            if v is not None and str(v) in ids and str(v) not in found:
                found.append(str(v))
    return found


def sample(sid: str, name: str, players: list[str], options: dict, seed: int, steps: int,
           seat: int | None, about: str) -> dict:
    g = play(name, players, options, seed, steps)
    pic = P.check_picture(g.presenter.picture(g, seat))
    out = {"id": sid, "game": name, "seat": seat, "about": about, "steps": steps, "seed": seed,
           "picture": pic, "places": places(g, pic),
           "leds": {"pixels": leds.pixels(g, pulse=True), "ring": leds.ring_info()},
           "timer": None}
    t = pic.get("timer")
    if t:
        out["timer"] = {"seconds_total": t["seconds"], "seat": t["seat"], "text": t["text"]}
    return out


def samples() -> list:
    return [sample(*s) for s in SETUPS]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    text = json.dumps(samples(), indent=1)
    if argv:
        with open(argv[0], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
