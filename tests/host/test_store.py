"""Saves (ringside.store, docs/saves.md): every damaged save is one line that names the file
and the fault and leaves the file as it was; writes are durable; the last good save is kept
beside the new one and the error says how to go back to it (issue 17 items 8 and 9)."""
from __future__ import annotations

import json
import os
import random
import stat

import pytest

from ringside import games, store
from ringside.app import cli
from ringside.errors import RingsideError, user_message
from ringside.table import Table, read_save


def a_table_save(name="darts", players=("Ann", "Bob"), seed=5, steps=14) -> dict:
    g = games.new(name, list(players), seed=seed)
    games.play_random(g, random.Random(seed), max_actions=steps)
    return json.loads(store.table_json(g, {0: "human", 1: "good"}, {"board": "typed"}))


GOOD = a_table_save()
FIRST_LANDING = next(i for i, (s, a) in enumerate(GOOD["game"]["log"]) if a["type"] == "landed")


def with_(path_and_value):
    """A copy of the good save with one value replaced: (("game", "seed"), 1.5)."""
    def make():
        d = json.loads(json.dumps(GOOD))
        cur = d
        path, value = path_and_value
        for p in path[:-1]:
            cur = cur[p]
        if value is _DELETE:
            del cur[path[-1]]
        else:
            cur[path[-1]] = value
        return json.dumps(d).encode()
    return make


_DELETE = object()
TEXT = json.dumps(GOOD)
LOG = ("game", "log")


def _raw(s):
    return lambda: s if isinstance(s, bytes) else s.encode()


def _replace(old, new, count=1):
    def make():
        assert old in TEXT
        return TEXT.replace(old, new, count).encode()
    return make


def _landing(field, raw):
    """The first landing's field written as raw JSON text (1e400, NaN, a 400-digit integer)."""
    def make():
        d = json.loads(TEXT)
        d["game"]["log"][FIRST_LANDING][1][field] = "@@"
        return json.dumps(d).replace('"@@"', raw).encode()
    return make


def _bad_replay():
    d = json.loads(TEXT)
    log = d["game"]["log"]
    log[FIRST_LANDING][1] = {"type": "landed", "space": "7", "travel": 3000.0}   # cannot end on 7
    return json.dumps(d).encode()


def _moves_out_of_turn():
    d = json.loads(TEXT)
    s, a = d["game"]["log"][FIRST_LANDING]
    d["game"]["log"][FIRST_LANDING] = [1 - s, a]
    return json.dumps(d).encode()


# (name, the damaged file's bytes, what the one line must say)
CORRUPTIONS = [
    ("empty file", _raw(b""), "empty"),
    ("only spaces", _raw(b"   \n\n"), "empty"),
    ("binary garbage", _raw(bytes(random.Random(1).randrange(256) for _ in range(300))), "not text|not valid JSON"),
    ("not UTF-8", _raw(b'{"ringside_table": 1, "game": "\xff\xfe"}'), "not text"),
    ("NUL bytes", _raw(b"\x00" * 64), "not valid JSON"),
    ("truncated in half", lambda: TEXT[: len(TEXT) // 2].encode(), "cut short"),
    ("truncated by one byte", lambda: TEXT[:-1].encode(), "cut short"),
    ("plain text", _raw("my game, saved"), "not valid JSON"),
    ("a JSON list", _raw("[1, 2, 3]"), "not a Ringside save"),
    ("a JSON string", _raw('"save"'), "not a Ringside save"),
    ("a JSON number", _raw("42"), "not a Ringside save"),
    ("null", _raw("null"), "not a Ringside save"),
    ("an empty object", _raw("{}"), "not a Ringside save"),
    ("a newer table format", with_((("ringside_table",), 2)), "ringside_table should be 1"),
    ("game is a list", with_((("game",), [])), "game should be an object"),
    ("game has no format", with_((("game", "format"), _DELETE)), "has no 'format'"),
    ("a newer game format", with_((("game", "format"), 2)), "format should be 1"),
    ("a game this version lacks", with_((("game", "game"), "chess")), "game called \"chess\""),
    ("game name is a number", with_((("game", "game"), 5)), "game.game should be text"),
    ("no players", with_((("game", "players"), _DELETE)), "has no 'players'"),
    ("players is text", with_((("game", "players"), "Ann,Bob")), "players should be a list"),
    ("players is empty", with_((("game", "players"), [])), "players has 0 entries"),
    ("a player's name is a number", with_((("game", "players"), [1, 2])), r"players\[\d\] should be text"),
    ("two players of one name", with_((("game", "players"), ["Ann", "Ann"])), "same name"),
    ("too many players", with_((("game", "players"), list("ABCDEFG"))), "players"),
    ("no seed", with_((("game", "seed"), _DELETE)), "has no 'seed'"),
    ("seed 1.5", with_((("game", "seed"), 1.5)), "seed should be a whole number"),
    ("seed as text", with_((("game", "seed"), "7")), "seed should be a whole number"),
    ("seed true", with_((("game", "seed"), True)), "seed should be a whole number"),
    ("options as a list", with_((("game", "options"), [])), "options should be an object"),
    ("options as a string", with_((("game", "options"), "ages")), "options should be an object"),
    ("an unknown option", with_((("game", "options"), {"colour": "red"})), "no option 'colour'"),
    ("an option of the wrong type", with_((("game", "options"), {"data": 5})), "data option"),
    ("meta as a list", with_((("meta",), [])), "meta should be an object"),
    ("meta as a string", with_((("meta",), "sim")), "meta should be an object"),
    ("seats as a list", with_((("seats",), ["human"])), "seats should be an object"),
    ("a seat key that is no seat", with_((("seats",), {"x": "human"})), "seats has a key"),
    ("a seat out of range in seats", with_((("seats",), {"5": "human"})), "seat 5"),
    ("a seat's level is a number", with_((("seats", "1"), 3)), "should be text"),
    ("log is an object", with_(((*LOG,), {})), "log should be a list"),
    ("a log entry is not a pair", with_(((*LOG, 0), [0])), r"log\[0\] has 1 entries"),
    ("a seat out of range in the log", with_(((*LOG, FIRST_LANDING, 0), 5)), "seat 5"),
    ("a seat false in the log", with_(((*LOG, FIRST_LANDING, 0), False)), "not a seat"),
    ("a seat 1.0 in the log", with_(((*LOG, FIRST_LANDING, 0), 1.0)), "not a seat"),
    ("a seat as text in the log", with_(((*LOG, FIRST_LANDING, 0), "0")), "not a seat"),
    ("an action without a type", with_(((*LOG, FIRST_LANDING, 1, "type"), _DELETE)), "has no 'type'"),
    ("an action with an unknown key", with_(((*LOG, FIRST_LANDING, 1, "zz"), 1)), "no field 'zz'"),
    ("an action that is a list", with_(((*LOG, FIRST_LANDING, 1), [])), "should be an object"),
    ("travel 1e400", _landing("travel", "1e400"), "too large"),
    ("travel NaN", _landing("travel", "NaN"), "NaN, which is not a JSON number"),
    ("travel Infinity", _landing("travel", "-Infinity"), "Infinity, which is not a JSON number"),
    ("travel 10**400", _landing("travel", "1" + "0" * 400), "out of range"),
    ("a 5000-digit number", _landing("travel", "9" * 5000), "not one"),
    ("a log that does not replay", _bad_replay, "does not replay: entry %d" % FIRST_LANDING),
    ("a move out of turn", _moves_out_of_turn, "does not replay"),
    ("100,000-deep nesting", _raw("[" * 100000 + "]" * 100000), "nested more than"),
    ("nesting inside an action", with_(((*LOG, FIRST_LANDING, 1, "alt"), [[[[[[[[[1]]]]]]]]])), "nested more than"),
    ("a key twice", _replace('"seed":', '"seed": 1, "seed":'), "key 'seed' twice"),
    ("an unknown top-level field", with_((("extra",), 1)), "field 'extra'"),
    ("a game save without its format", lambda: json.dumps({"game": "darts"}).encode(), "not a Ringside save"),
]


def test_the_table_holds_39_and_more_corruptions():
    assert len(CORRUPTIONS) >= 39 and len({c[0] for c in CORRUPTIONS}) == len(CORRUPTIONS)


@pytest.mark.parametrize("name,make,fault", CORRUPTIONS, ids=[c[0] for c in CORRUPTIONS])
def test_a_damaged_save_is_one_line_naming_the_file_and_the_fault_and_the_file_stays(tmp_path, name, make, fault):
    p = tmp_path / "last-game.json"
    data = make()
    p.write_bytes(data)
    before = os.stat(p)
    with pytest.raises(store.SaveError) as e:
        read_save(p)
    msg = user_message(e.value)
    assert isinstance(e.value, RingsideError) and isinstance(e.value, games.GameError)
    assert msg == str(e.value) and "\n" not in msg and msg.startswith(str(p) + ": ")
    assert e.value.path == p
    import re
    assert re.search(fault, msg), msg
    assert p.read_bytes() == data and os.stat(p).st_mtime_ns == before.st_mtime_ns   # left as it was
    assert sorted(x.name for x in tmp_path.iterdir()) == ["last-game.json"]          # nothing written beside it


def test_the_good_save_itself_reads():
    g, seats, meta = store.load_table(TEXT)
    assert seats == {0: "human", 1: "good"} and meta == {"board": "typed"}
    assert json.loads(g.to_json()) == GOOD["game"]


def test_a_save_too_large_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "MAX_BYTES", 100)
    p = tmp_path / "big.json"
    p.write_text(TEXT)
    with pytest.raises(store.SaveError, match="more than any save"):
        read_save(p)


def test_a_folder_is_not_a_save(tmp_path):
    with pytest.raises(store.SaveError, match="a folder, not a save"):
        read_save(tmp_path)


# ----- the backup, and the way back -----------------------------------------------------

def _table(tmp_path, seed=3):
    g = games.new("darts", ["Ann", "Bob"], seed=seed)
    return Table(g, None, save_path=tmp_path / "autosave.json", seats={0: "human", 1: "human"})


def test_each_save_keeps_the_one_before_it_and_a_damaged_save_says_how_to_go_back(tmp_path):
    t = _table(tmp_path)
    rng = random.Random(3)
    for _ in range(4):
        seat = t.game.to_act()[0]
        t.apply(seat, t.game.chance_action() if seat == games.CHANCE else rng.choice(t.game.legal_actions(seat)))
    p, prev = tmp_path / "autosave.json", tmp_path / "autosave.json.prev"
    assert len(read_save(p)[0].log) == 4 and len(read_save(prev)[0].log) == 3
    assert sorted(x.name for x in tmp_path.iterdir()) == ["autosave.json", "autosave.json.prev"]
    p.write_bytes(p.read_bytes()[:40])                         # a damaged disk, a bad edit
    with pytest.raises(store.SaveError) as e:
        read_save(p)
    msg = str(e.value)
    assert "\n" not in msg and "cut short" in msg and "ringside resume %s" % prev in msg
    assert len(read_save(prev)[0].log) == 3                     # and that way back works


def test_a_damaged_save_is_never_kept_as_the_last_good_one(tmp_path):
    p, prev = tmp_path / "autosave.json", tmp_path / "autosave.json.prev"
    t = _table(tmp_path)
    t.save()
    t.save()
    good_prev = prev.read_bytes()
    p.write_text("{ damaged")
    store._good.clear()                                          # a new process
    t.save()
    assert prev.read_bytes() == good_prev                       # the damaged file did not replace it
    assert read_save(p)[0].log == t.game.log


def test_a_missing_save_says_so_in_plain_words(tmp_path):
    with pytest.raises(store.SaveError) as e:
        read_save(tmp_path / "nothing.json")
    msg = str(e.value)
    assert "there is no saved game there" in msg and "No such file" not in msg and "ringside play" in msg


def test_resume_with_no_save_is_one_plain_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert cli.main(["resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "there is no saved game there" in err and "No such file" not in err
    assert str(tmp_path / "ringside" / "last-game.json") in err


def test_resume_of_a_damaged_save_is_one_line_and_the_file_stays(tmp_path, capsys):
    p = tmp_path / "s.json"
    p.write_bytes(with_((("game", "options"), []))())
    data = p.read_bytes()
    assert cli.main(["resume", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(p) in err and "options should be an object" in err
    assert p.read_bytes() == data


# ----- durable writes ---------------------------------------------------------------------

def test_a_save_is_fsynced_before_the_rename_and_the_folder_after_it(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", "dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"))
        real_fsync(fd)

    def replace(a, b):
        events.append(("replace", os.path.basename(b)))
        real_replace(a, b)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    t = _table(tmp_path)
    t.save()
    assert events == [("fsync", "file"), ("replace", "autosave.json"), ("fsync", "dir")]
    events.clear()
    t.save()       # the second keeps the first as .prev (a hard link), then the same
    assert events == [("fsync", "file"), ("replace", "autosave.json.prev"), ("replace", "autosave.json"),
                      ("fsync", "dir")]


def test_a_write_cut_off_before_the_rename_leaves_the_old_save(tmp_path, monkeypatch):
    t = _table(tmp_path)
    t.save()
    before = (tmp_path / "autosave.json").read_bytes()
    seat = t.game.to_act()[0]
    t.game.apply(seat, t.game.legal_actions(seat)[0])

    def power_cut(a, b):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(store.SaveError, match="autosave.json: it cannot be written: Input/output error"):
        t.save()
    assert (tmp_path / "autosave.json").read_bytes() == before
    assert not (tmp_path / "autosave.json.tmp").exists()


def test_what_is_written_is_strict_json(tmp_path):
    g = games.new("circleville", ["Ann", "Bob"], seed=2)
    games.play_random(g, random.Random(2), max_actions=300)
    text = store.table_json(g, {}, {})

    def refuse(c):
        raise AssertionError("not JSON: %s" % c)
    json.loads(text, parse_constant=refuse)


def test_the_written_schema_is_the_one_the_reader_applies():
    """store.TABLE_SCHEMA (docs/saves.md) accepts the good save and refuses what the reader
    refuses for its shape, log entries included (the reader checks those in a quicker way)."""
    full = store._Validator(store.TABLE_SCHEMA)
    assert full.is_valid(GOOD)
    for name, make, _fault in CORRUPTIONS:
        if name in ("a seat false in the log", "a seat 1.0 in the log", "a log entry is not a pair",
                    "an action without a type", "an action that is a list", "seed 1.5", "options as a list"):
            assert not full.is_valid(json.loads(make())), name
