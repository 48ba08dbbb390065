"""The Circle's 60 spy cards: load data/cards.json (or a user's own deck) and validate it.

A card is a dict: id (str), colour (INT, SUP, REC, OPS or neutral), type (one of the 16 spy
actions, e.g. "int_gain"), time (turns of preparation, 1-7: the number on the time wheel),
vp (victory points when it infiltrates), homeland (a nation or null), moth (the quarter of the
moth on its back: its colour, or null for a neutral joker) and auction (the colour of the
middle VP symbol: which secrets buy it at auction; "grey" = any division).
The counts checked are the rulebook's (docs/rules/circle.md, "The cards").
"""
from __future__ import annotations

import json
from pathlib import Path

from ringside.games import GameError

DATA_PATH = Path(__file__).parent / "data" / "cards.json"
COLOURS = ("INT", "SUP", "REC", "OPS")
NEUTRAL = "neutral"
GREY = "grey"
NATIONS = ("USA", "ENG", "RUS", "PRU", "FRA", "JPN")
TYPES = {
    "INT": ("int_gain", "int_destroy", "int_auction", "int_attack"),
    "SUP": ("sup_gain", "sup_lose", "sup_warp", "sup_infiltrate"),
    "REC": ("rec_division", "rec_neutral", "rec_quit", "rec_guard"),
    "OPS": ("ops_capture", "ops_remove", "ops_double", "ops_foil"),
}
ALL_TYPES = tuple(t for c in COLOURS for t in TYPES[c])
MAX_TIME = 7


def _fail(where, msg):
    raise GameError("%s: %s" % (where, msg))


def load(override: dict | str | None = None) -> list[dict]:
    """The deck: the default file, or override (a path or the parsed file / card list), validated."""
    where = "The Circle cards"
    if override is None:
        d = json.loads(DATA_PATH.read_text())
        where = str(DATA_PATH.name)
    elif isinstance(override, (str, Path)):
        where = str(override)
        try:
            d = json.loads(Path(override).read_text())
        except OSError as e:
            _fail(where, "cannot read it (%s)" % e.strerror)
        except ValueError as e:
            _fail(where, "not valid JSON (%s)" % e)
    else:
        d = override
    cards = d.get("cards") if isinstance(d, dict) else d
    if not isinstance(cards, list):
        _fail(where, "needs a list 'cards' of 60 spy cards")
    validate(cards, where)
    return [dict(c) for c in cards]


def validate(cards: list, where: str = "The Circle cards") -> None:
    """Raise GameError naming the first card or count that breaks the rulebook's make-up."""
    if len(cards) != 60:
        _fail(where, "the game has 60 spy cards, this deck has %d" % len(cards))
    ids = set()
    for i, c in enumerate(cards):
        w = "card %d" % (i + 1)
        if not isinstance(c, dict):
            _fail(where, "%s is not an object" % w)
        cid = c.get("id")
        if not isinstance(cid, str) or not cid:
            _fail(where, "%s has no 'id' (a name)" % w)
        w = "card %r" % cid
        if cid in ids:
            _fail(where, "two cards are called %r" % cid)
        ids.add(cid)
        col = c.get("colour")
        if col not in COLOURS + (NEUTRAL,):
            _fail(where, "%s: colour must be one of %s, not %r" % (w, ", ".join(COLOURS + (NEUTRAL,)), col))
        typ = c.get("type")
        if typ not in ALL_TYPES:
            _fail(where, "%s: type must be a spy action (%s), not %r" % (w, ", ".join(ALL_TYPES), typ))
        if col != NEUTRAL and typ not in TYPES[col]:
            _fail(where, "%s: a %s spy's action is one of %s, not %r" % (w, col, ", ".join(TYPES[col]), typ))
        for key, hi in (("time", MAX_TIME), ("vp", 10)):
            v = c.get(key)
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
                _fail(where, "%s: %s must be a whole number 1-%d, not %r" % (w, key, hi, v))
        home = c.get("homeland")
        if home is not None and home not in NATIONS:
            _fail(where, "%s: homeland must be null or one of %s, not %r" % (w, ", ".join(NATIONS), home))
        moth = c.get("moth")
        auc = c.get("auction")
        if col == NEUTRAL:
            if home is not None:
                _fail(where, "%s: neutral spies have no homeland (the 12 homeland spies are in the colour stacks)" % w)
            if moth is not None:
                _fail(where, "%s: a neutral spy has no moth quarter (it is a joker), so moth must be null" % w)
            if auc not in COLOURS + (GREY,):
                _fail(where, "%s: auction must be one of %s, not %r" % (w, ", ".join(COLOURS + (GREY,)), auc))
        else:
            if moth != col:
                _fail(where, "%s: every %s spy shows the %s quarter of the moth (moth %r)" % (w, col, col, moth))
            if auc != col:
                _fail(where, "%s: a %s spy's VP symbol is %s (auction %r)" % (w, col, col, auc))
    for col in COLOURS:
        n = sum(1 for c in cards if c["colour"] == col)
        if n != 10:
            _fail(where, "there are 10 %s spies, this deck has %d" % (col, n))
        for typ in TYPES[col]:
            stack = [c for c in cards if c["type"] == typ and c["colour"] == col]
            if not stack:
                _fail(where, "the %s stack %s is empty (16 stacks: 4 colours x 4 spy types)" % (col, typ))
            if len({(c["time"], c["vp"]) for c in stack}) != 1:
                _fail(where, "the %s %s spies must share their time and VP values (one spy type)" % (col, typ))
            if sum(1 for c in stack if c["homeland"]) > 1:
                _fail(where, "the %s %s stack has more than one homeland spy" % (col, typ))
    n = sum(1 for c in cards if c["colour"] == NEUTRAL)
    if n != 20:
        _fail(where, "there are 20 neutral spies, this deck has %d" % n)
    homes = [c["homeland"] for c in cards if c["homeland"]]
    if len(homes) != 12:
        _fail(where, "there are 12 homeland spies (in 12 of the 16 stacks), this deck has %d" % len(homes))
    for nat in NATIONS:
        if homes.count(nat) != 2:
            _fail(where, "each nation has 2 homeland spies; %s has %d" % (nat, homes.count(nat)))
