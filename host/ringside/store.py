"""Saves: the one reader and the one writer of game saves and table saves (docs/saves.md).

A game save is what Game.to_json() gives; a table save wraps one with the seats (who is a
person, which computer level) and a little meta (how the board was reached):

    {"format": 1, "game": "darts", "players": ["Ann", "Bob"], "seed": 7, "options": {},
     "log": [[0, {"type": "landed", "space": "12", "travel": 214.5}], ["chance", {...}], ...]}
    {"ringside_table": 1, "game": {<a game save>}, "seats": {"0": "human", "1": "good"},
     "meta": {"board": "sim"}}

Reading checks, in order, and stops at the first fault with one line that names the file
and the fault: the bytes (size, UTF-8), the JSON (no NaN or Infinity, no number too large for
a float, no key twice, nesting at most MAX_DEPTH deep), the shape (SCHEMA, JSON Schema
2020-12, checked with jsonschema before anything is built), what the shape cannot say (the
game exists, seats are in range), and last the replay of the log through Game.apply, which
refuses what the rules refuse. A fault never changes the file.

Writing is durable: the text goes to a temporary file that is fsync'ed, the save it replaces
is kept beside it as <name>.prev (when it was a good save), the temporary file is renamed over
the save, and the directory is fsync'ed so that the rename itself survives a power cut.
"""
from __future__ import annotations

import copy
import json
import math
import os
from pathlib import Path

import jsonschema
from jsonschema import Draft202012Validator

from ringside.games import CHANCE, Game, GameError

SAVE_FORMAT = 1          # a game save's "format"
TABLE_SAVE_FORMAT = 1    # a table save's "ringside_table"
MAX_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 12           # the deepest action Game.apply takes makes a table save 9 deep
MAX_SEATS = 8
BACKUP_SUFFIX = ".prev"


class SaveError(GameError):
    """A save that cannot be read or written. path: the file (or None); fault: what is wrong."""

    def __init__(self, fault: str, path: str | Path | None = None, hint: str = ""):
        self.path = None if path is None else Path(path)
        self.fault = fault
        text = fault if path is None else "%s: %s" % (path, fault)
        super().__init__(text + ("; " + hint if hint else ""))


# ----- the schema --------------------------------------------------------------------------

_SEAT = {"anyOf": [{"type": "integer", "minimum": 0, "maximum": MAX_SEATS - 1}, {"const": CHANCE}]}
_ACTION = {"type": "object", "required": ["type"],
           "properties": {"type": {"type": "string", "minLength": 1, "maxLength": 40}},
           "propertyNames": {"maxLength": 40}}
_NAME = {"type": "string", "minLength": 1, "maxLength": 100}
_ENTRY = {"type": "array", "minItems": 2, "maxItems": 2, "prefixItems": [_SEAT, _ACTION]}

GAME_SCHEMA = {
    "type": "object",
    "required": ["format", "game", "players", "seed", "log"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": SAVE_FORMAT},
        "game": {"type": "string", "minLength": 1, "maxLength": 40},
        "players": {"type": "array", "minItems": 1, "maxItems": MAX_SEATS, "items": _NAME},
        "seed": {"type": "integer", "minimum": -(2 ** 63), "maximum": 2 ** 63 - 1},
        "options": {"type": "object", "propertyNames": {"maxLength": 40}},
        "log": {"type": "array", "maxItems": 1000000, "items": _ENTRY},
    },
}

TABLE_SCHEMA = {
    "type": "object",
    "required": ["ringside_table", "game"],
    "additionalProperties": False,
    "properties": {
        "ringside_table": {"const": TABLE_SAVE_FORMAT},
        "game": GAME_SCHEMA,
        "seats": {"type": "object", "propertyNames": {"pattern": "^[0-7]$"},
                  "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 40}},
        "meta": {"type": "object", "propertyNames": {"maxLength": 40},
                 "additionalProperties": {"type": ["string", "integer", "boolean", "null"]}},
    },
}

# JSON Schema 2020-12 counts 1.0 as an integer; a save's seeds and seats are whole numbers
# as written, so integers here are exactly that (and never true/false).
_types = Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda checker, v: isinstance(v, int) and not isinstance(v, bool))
_Validator = jsonschema.validators.extend(Draft202012Validator, type_checker=_types)
Draft202012Validator.check_schema(TABLE_SCHEMA)
_ENTRY_CHECK = _Validator(_ENTRY)


def _without_log_items(schema: dict) -> dict:
    """The schema with the log's entries left to _check_log (jsonschema takes about a third of
    a millisecond per entry; a long Circleville game has thousands)."""
    s = copy.deepcopy(schema)
    game = s["properties"]["game"] if "ringside_table" in s["properties"] else s
    del game["properties"]["log"]["items"]
    return s


_GAME_CHECK = _Validator(_without_log_items(GAME_SCHEMA))
_TABLE_CHECK = _Validator(_without_log_items(TABLE_SCHEMA))

_TYPE_WORDS = {"object": "an object {...}", "array": "a list [...]", "string": "text",
               "integer": "a whole number", "number": "a number", "boolean": "true or false",
               "null": "null"}


def _json_type(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true or false"
    if isinstance(v, int):
        return "a whole number"
    if isinstance(v, float):
        return "a number with a fraction"
    if isinstance(v, str):
        return "text"
    return "a list" if isinstance(v, list) else "an object"


def _where(path) -> str:
    out = ""
    for p in path:
        out += "[%d]" % p if isinstance(p, int) else ("." if out else "") + str(p)
    return out or "the save"


def _short(v) -> str:
    r = json.dumps(v) if not isinstance(v, (dict, list)) else ("{...}" if isinstance(v, dict) else "[...]")
    return r if len(r) <= 40 else r[:37] + "..."


def _plain(err: jsonschema.ValidationError) -> str:
    """One schema fault in plain words, with where it is (game.log[3][0])."""
    where = _where(err.absolute_path)
    v = err.instance
    k = err.validator
    if k == "type":
        want = err.validator_value
        want = " or ".join(_TYPE_WORDS[t] for t in (want if isinstance(want, list) else [want]))
        return "%s should be %s, not %s" % (where, want, _json_type(v))
    if k == "required":
        missing = [r for r in err.validator_value if r not in v]
        return "%s has no %r" % (where, missing[0] if missing else "?")
    if k == "additionalProperties":
        extra = sorted(set(v) - set(err.schema.get("properties", {})))
        return "%s has a field %r that a save does not have" % (where, extra[0] if extra else "?")
    if k == "const":
        return "%s should be %s, not %s" % (where, json.dumps(err.validator_value), _short(v))
    if k in ("minimum", "maximum"):
        return "%s is out of range (%s)" % (where, _short(v))
    if k in ("minItems", "maxItems"):
        return "%s has %d entries, which is too %s" % (where, len(v), "few" if k == "minItems" else "many")
    if k in ("minLength", "maxLength"):
        return "%s is %s" % (where, "empty" if k == "minLength" and not v else "too long")
    if k == "anyOf" and err.absolute_path and err.absolute_path[-1] == 0:
        return "%s is not a seat (a seat number from 0, or \"chance\"): %s" % (where, _short(v))
    if k in ("propertyNames", "pattern"):
        return "%s has a key that is not allowed (%s)" % (where, _short(v))
    return "%s is wrong: %s" % (where, err.message[:80])


def _check_shape(d, validator) -> None:
    err = jsonschema.exceptions.best_match(validator.iter_errors(d))
    if err is not None:
        raise SaveError(_plain(err))
    log = d["game"]["log"] if "ringside_table" in d else d["log"]
    _check_log(log, ["game", "log"] if "ringside_table" in d else ["log"])


def _check_log(log: list, where: list) -> None:
    """Each entry against _ENTRY: a quick look first, the schema itself for any entry that the
    quick look doubts (so the schema decides, and says what is wrong)."""
    for i, e in enumerate(log):
        if type(e) is list and len(e) == 2:
            s, a = e
            if ((type(s) is int and 0 <= s < MAX_SEATS) or s == CHANCE) and type(a) is dict \
                    and type(a.get("type")) is str and 0 < len(a["type"]) <= 40 and all(len(k) <= 40 for k in a):
                continue
        err = jsonschema.exceptions.best_match(_ENTRY_CHECK.iter_errors(e))
        if err is not None:
            err.path.extendleft(reversed(where + [i]))
            raise SaveError(_plain(err))


# ----- parsing -----------------------------------------------------------------------------

def _no_constant(name):
    raise SaveError("it holds %s, which is not a JSON number" % name)


def _finite(text):
    v = float(text)
    if not math.isfinite(v):
        raise SaveError("it holds the number %s, which is too large" % (text[:20],))
    return v


def _unique_keys(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise SaveError("it has the key %r twice in one object" % (k[:40],))
        d[k] = v
    return d


def _depth_ok(d) -> None:
    """Refuse nesting deeper than MAX_DEPTH (iteratively: any depth is safe to look at)."""
    stack = [(d, 1)]
    while stack:
        v, n = stack.pop()
        if isinstance(v, (dict, list)):
            if n > MAX_DEPTH:
                raise SaveError("it is nested more than %d deep, which no save is" % MAX_DEPTH)
            stack.extend((c, n + 1) for c in (v.values() if isinstance(v, dict) else v))


def parse(text: str | bytes) -> object:
    """The JSON value of a save's text (str or bytes), or SaveError saying what is wrong."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_BYTES:
            raise SaveError("it is %d bytes, more than any save (%d)" % (len(text), MAX_BYTES))
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise SaveError("it is not text (byte %d is not UTF-8): not a save, or damaged" % e.start) from None
    if not isinstance(text, str):
        raise SaveError("a save is text, not %s" % type(text).__name__)
    if not text.strip():
        raise SaveError("it is empty (nothing was saved in it)")
    if len(text) > MAX_BYTES:
        raise SaveError("it is %d characters, more than any save (%d)" % (len(text), MAX_BYTES))
    try:
        d = json.loads(text, parse_constant=_no_constant, parse_float=_finite,
                       object_pairs_hook=_unique_keys)
    except RecursionError:      # the parser's own recursion: far deeper than any save
        raise SaveError("it is nested more than %d deep, which no save is" % MAX_DEPTH) from None
    except json.JSONDecodeError as e:
        cut = e.pos >= len(text.rstrip())
        raise SaveError("it is not valid JSON%s (line %d column %d: %s)" % (
            ": it is cut short" if cut else "", e.lineno, e.colno, e.msg)) from None
    except ValueError as e:      # an integer with more digits than Python converts
        raise SaveError("it holds a number that is not one: %s" % str(e)[:60]) from None
    _depth_ok(d)
    return d


# ----- reading -----------------------------------------------------------------------------

def _build_game(d: dict):
    """A game from a save's dict (its shape already checked): set up, then replay the log."""
    from ringside import games
    from ringside.games import IllegalAction
    try:
        cls = games.game_class(d["game"])
    except GameError:
        raise SaveError("it is a save of a game called %s, which this version does not have (it has: %s)"
                        % (_short(d["game"]), ", ".join(games.names()))) from None
    n = len(d["players"])
    for i, (seat, _) in enumerate(d["log"]):
        if seat != CHANCE and seat >= n:
            raise SaveError("game.log[%d] is a move by seat %d, but the game has %d players" % (i, seat, n))
    try:
        g = cls(d["players"], seed=d["seed"], options=d.get("options") or {})
    except GameError as e:
        raise SaveError("it does not set up a game: %s" % e) from None
    for i, (seat, action) in enumerate(d["log"]):
        try:
            g.apply(seat, action)
        except IllegalAction as e:
            raise SaveError("its log does not replay: entry %d (%s by %s) is refused: %s"
                            % (i, _short(action.get("type")), g.seat_name(seat), e)) from None
    return g


def load_game(text: str | bytes) -> Game:
    """A game from a game save's text, its log replayed. SaveError (a GameError) if not."""
    d = parse(text)
    if isinstance(d, dict) and "ringside_table" in d:
        raise SaveError("it is a table save, not a game save")
    _check_shape(d, _GAME_CHECK)
    return _build_game(d)


def load_table(text: str | bytes) -> tuple:
    """(game, seats, meta) from a table save or a plain game save. SaveError if damaged."""
    d = parse(text)
    if not (isinstance(d, dict) and "ringside_table" in d):
        if isinstance(d, dict) and "format" in d:
            _check_shape(d, _GAME_CHECK)
            return _build_game(d), {}, {}
        raise SaveError("it is not a Ringside save (no \"ringside_table\" or \"format\" in it)")
    _check_shape(d, _TABLE_CHECK)
    n = len(d["game"]["players"])
    seats = {}
    for k, v in (d.get("seats") or {}).items():
        if int(k) >= n:
            raise SaveError("seats names seat %s, but the game has %d players" % (k, n))
        seats[int(k)] = v
    g = _build_game(d["game"])
    return g, seats, dict(d.get("meta") or {})


def backup_path(path: str | Path) -> Path:
    p = Path(path)
    return p.with_name(p.name + BACKUP_SUFFIX)


def read_save(path: str | Path) -> tuple:
    """(game, seats, meta) from the save at path. Every fault is one SaveError line naming the
    file, with the way back to the save before it when one is kept. The file is not changed."""
    p = Path(path)
    prev = backup_path(p)
    try:
        st = os.stat(p)
        if st.st_size > MAX_BYTES:
            raise SaveError("it is %d bytes, more than any save (%d)" % (st.st_size, MAX_BYTES))
        with open(p, "rb") as f:
            data = f.read(MAX_BYTES + 1)
        out = load_table(data)
    except FileNotFoundError:
        hint = ("the save before it is %s: continue from it with `ringside resume %s`" % (prev, prev)
                if prev.is_file() else "games are saved as they are played: start one with `ringside play GAME`")
        raise SaveError("there is no saved game there", p, hint) from None
    except IsADirectoryError:
        raise SaveError("it is a folder, not a save", p) from None
    except OSError as e:
        raise SaveError("it cannot be read: %s" % (e.strerror or e), p) from None
    except SaveError as e:
        hint = ""
        if prev.is_file() and prev != p:
            hint = ("it is left as it was; the save before it is kept: `ringside resume %s` continues from there"
                    % prev)
        raise SaveError(e.fault, p, hint) from None
    _remember(p)
    return out


# ----- writing -----------------------------------------------------------------------------

def game_json(game: Game) -> str:
    """A game's save text. Strict JSON: a value JSON cannot hold is a bug, and raises."""
    return json.dumps({"format": SAVE_FORMAT, "game": game.name, "players": game.players,
                       "seed": game.seed, "options": game.options,
                       "log": [[s, a] for s, a in game.log]}, allow_nan=False)


def table_json(game: Game, seats: dict, meta: dict) -> str:
    return json.dumps({"ringside_table": TABLE_SAVE_FORMAT, "game": json.loads(game_json(game)),
                       "seats": {str(k): v for k, v in seats.items()}, "meta": meta}, allow_nan=False)


_good: dict = {}     # path -> the stat of the good save this process last wrote or read there


def _stat_key(p: Path):
    try:
        st = os.stat(p)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _remember(p: Path) -> None:
    _good[str(p.absolute())] = _stat_key(p)


def _is_good(p: Path) -> bool:
    """Whether the file at p is a good save: the one this process wrote or read there, or,
    the first time, one that passes every check short of the replay (which can take seconds
    for a long game, and a save that passes them was written by Ringside)."""
    key = _stat_key(p)
    if key is None:
        return False
    if _good.get(str(p.absolute())) == key:
        return True
    try:
        with open(p, "rb") as f:
            d = parse(f.read(MAX_BYTES + 1))
        if not isinstance(d, dict):
            return False
        _check_shape(d, _TABLE_CHECK if "ringside_table" in d else _GAME_CHECK)
    except (OSError, GameError):
        return False
    _good[str(p.absolute())] = key
    return True


def fsync_dir(d: Path) -> None:
    """Make a rename in d durable. (Platforms that cannot open a folder have nothing to do.)"""
    try:
        fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _keep_backup(p: Path) -> None:
    """Keep the good save at p as p.prev (a hard link: p is never missing, even for a moment)."""
    if not _is_good(p):
        return
    prev, tmp = backup_path(p), p.with_name(p.name + ".prev.tmp")
    try:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.link(p, tmp)
    except OSError:               # a file system without hard links: copy it, durably
        with open(p, "rb") as src, open(tmp, "wb") as dst:
            dst.write(src.read())
            dst.flush()
            os.fsync(dst.fileno())
    os.replace(tmp, prev)


def write_text(path: str | Path, text: str) -> Path:
    """Write a save durably: temporary file, fsync, keep the last good save as .prev, rename,
    fsync the folder. SaveError (one line, naming the file) if the disk refuses."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        _keep_backup(p)
        os.replace(tmp, p)
        fsync_dir(p.parent)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise SaveError("it cannot be written: %s" % (e.strerror or e), p) from None
    _remember(p)
    return p


def write_table(path: str | Path, game: Game, seats: dict, meta: dict) -> Path:
    return write_text(path, table_json(game, seats, meta))


def write_game(path: str | Path, game: Game) -> Path:
    return write_text(path, game_json(game))
