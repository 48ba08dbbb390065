"""The rulebook beside the table: the text a game declares in `Game.rulebook` (a file in
seeds/, the heading its part starts at, the heading after it). The package ships a copy of
seeds/' rulebooks in web/rulebooks/ (as it ships ring.json), so an installed ringside has
them; a test holds the copies to seeds/. No game is named here."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

SEEDS = Path(__file__).with_name("rulebooks")


def rulebook(game: Game | type, seeds: Path | None = None) -> dict:
    """{"title", "source", "lines": [...]}: the game's part of its rulebook, or a line
    saying why there is none."""
    title = getattr(game, "title", "") or getattr(game, "name", "")
    decl = getattr(game, "rulebook", None)
    if not decl:
        return {"title": title, "source": None, "lines": ["This game declares no rulebook."]}
    fname, start, end = (list(decl) + [None, None])[:3]
    path = (seeds or SEEDS) / fname
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {"title": title, "source": fname,
                "lines": ["The rulebook %s is not installed here (the project's seeds/ has it)." % fname]}
    i = 0
    if start:
        hits = [k for k, ln in enumerate(lines) if ln.strip() == start]
        i = hits[0] if hits else 0
    j = len(lines)
    if end:
        hits = [k for k, ln in enumerate(lines) if k > i and ln.strip() == end]
        j = hits[0] if hits else j
    part = [ln.rstrip() for ln in lines[i:j]]
    while part and not part[-1]:
        part.pop()
    return {"title": title, "source": fname, "lines": part}
