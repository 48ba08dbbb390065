"""The lobby: what can be played (every game, its players and the computer's levels), where
(the simulated ring, a board on a port found by its USB id, typed results), the saves to
resume, and the rooms that are open. Rooms are made here from a plain request, so the page,
`ringside serve` and the tests make them the same way."""
from __future__ import annotations

import json
import random
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ringside import bots as B
from ringside import games
from ringside.errors import RingsideError
from ringside.games import GameError
from ringside.table import default_autosave
from ringside.web.hub import MODES, MODE_WORDS, PacedSimPort, Room, RoomError
from ringside.web.tokens import RoomTokens

if TYPE_CHECKING:
    from typing import Any


@dataclass
class Settings:
    """How rooms are made. speed: the simulated ring's clock against the wall's (the tests
    and the bench run it faster); bot_delay: seconds the computer waits before it plays, so
    people can follow; calibrate: calibrate a simulated ring before its first game."""
    save_dir: Path
    speed: float = 1.0
    bot_delay: float = 0.8
    calibrate: bool = True
    sensor_model: str | None = None
    skill: float = 0.6


def default_save_dir() -> Path:
    return default_autosave().parent / "web"


def games_offered() -> list[dict]:
    out = []
    for name in games.names():
        cls = games.game_class(name)
        opts = cls.default_options
        solo = []
        if "solo" in opts:
            from ringside.games.circleville.solo.framework import PLAYERS
            solo = [{"key": k, "name": PLAYERS[k].title} for k in sorted(PLAYERS)]
        out.append({"name": name, "title": cls.title or name, "min_players": cls.min_players,
                    "max_players": cls.max_players, "levels": list(B.levels(cls)),
                    "default_level": cls.capabilities.default_level,
                    "on_ring": bool(cls.capabilities.ring_side),
                    "timed": cls.capabilities.turn_seconds, "hard": "hard" in opts, "solo": solo})
    return out


def boards_found() -> list[dict]:
    """Picos plugged in (USB vendor id; ringside.link.ports)."""
    try:
        from ringside.link.ports import find_picos
        return [{"device": p.device, "description": p.description, "serial": p.serial_number}
                for p in find_picos()]
    except Exception:       # listing ports is best effort: no board found
        return []


def saves(save_dir: Path) -> list[dict]:
    """The saves a game can be resumed from: the web's rooms and the terminal's autosave."""
    cands = sorted(Path(save_dir).glob("*.json")) if Path(save_dir).is_dir() else []
    term = default_autosave()
    if term.exists():
        cands.append(term)
    out = []
    for p in cands:
        try:
            d = json.loads(p.read_text())
            g = d.get("game", d)
            meta = d.get("meta") or {}
            out.append({"path": str(p), "game": g.get("name"), "players": g.get("players"),
                        "moves": len(g.get("log") or []), "when": time.strftime(
                            "%Y-%m-%d %H:%M", time.localtime(p.stat().st_mtime)),
                        "board": meta.get("board"), "room": meta.get("web_room")})
        except (OSError, ValueError, AttributeError):
            continue
    return out


def new_room_id(game: str) -> str:
    return "%s-%s" % (game, secrets.token_hex(4))


def make_room(settings: Settings, spec: dict) -> Room:
    """A room from a lobby request:
        {"game": "darts", "players": [{"name": "Ann", "plays": "human" | LEVEL | "solo"}],
         "ring": "sim" | "typed" | "screen" | "board", "port": PATH (board, optional),
         "seed": N, "hard": bool, "difficulty": N}
    GameError (one line) for anything wrong."""
    if not isinstance(spec, dict):
        raise RoomError("a new game is a JSON object")
    name = spec.get("game")
    if not isinstance(name, str):
        raise RoomError("which game? (%s)" % ", ".join(games.names()))
    cls = games.game_class(name)
    mode = str(spec.get("ring") or "sim")
    if mode not in MODES:
        raise RoomError("the ring is one of: %s" % "; ".join("%s (%s)" % (m, MODE_WORDS[m]) for m in MODES))
    plist = spec.get("players")
    if not isinstance(plist, list) or not plist:
        raise RoomError("no players: add people or computer players")
    names, seats, solo = [], {}, []
    for i, p in enumerate(plist):
        if not isinstance(p, dict) or not isinstance(p.get("name", ""), str):
            raise RoomError("player %d needs a name" % (i + 1))
        plays = p.get("plays") or "human"
        pname = (p.get("name") or "").strip()[:40]
        if plays == "solo":
            from ringside.games.circleville.solo.framework import PLAYERS
            if "solo" not in cls.default_options:
                raise RoomError("%s has no solo players" % (cls.title or name))
            key = pname.lower()
            if key not in PLAYERS:
                raise RoomError("there is no solo player called %r (there are: %s)" % (
                    pname, ", ".join(PLAYERS[k].title for k in sorted(PLAYERS))))
            solo.append(key)
            pname = PLAYERS[key].title
        elif plays != "human":
            plays = B.check_level(cls, plays)
        if not pname:
            pname = "Player %d" % (i + 1) if plays == "human" else "Computer %d" % (i + 1)
        if pname in names:
            raise RoomError("two players are called %s: give each a name of their own" % pname)
        names.append(pname)
        seats[i] = plays
    opts: dict = {}
    if solo:
        if [s for s, lv in seats.items() if lv == "solo"] != list(range(1, 1 + len(solo))) or seats[0] != "human" \
                or len(seats) != 1 + len(solo):
            raise RoomError("a solo game seats one person first, then 1 to 3 solo players")
        opts["solo"] = solo
        d = spec.get("difficulty", 0)
        if not isinstance(d, int) or isinstance(d, bool) or not 0 <= d <= 19:
            raise RoomError("difficulty is a whole number from 0 to 19 (4 suggested)")
        opts["difficulty"] = d
    if spec.get("hard"):
        if "hard" not in cls.default_options:
            raise RoomError("%s has no harder variant" % (cls.title or name))
        opts["hard"] = True
    if "computer" in cls.default_options:
        opts["computer"] = [s for s, lv in seats.items() if lv not in ("human", "solo")]
    seed = spec.get("seed")
    if seed is None:
        seed = random.SystemRandom().randrange(2 ** 31)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 63:
        raise RoomError("seed is a whole number")
    game = games.new(name, names, seed=seed, options=opts)
    return open_room(settings, game, seats, mode, port_path=spec.get("port"),
                     seed=seed)


def open_room(settings: Settings, game: Any, seats: dict, mode: str, *, port_path: str | None = None,
              seed: int | None = None, rid: str | None = None, tokens: RoomTokens | None = None,
              meta: dict | None = None) -> Room:
    """A room for a game on a ring (mode), its board opened and (simulated) calibrated."""
    if mode not in MODES:
        raise RoomError("the ring is one of: %s" % "; ".join("%s (%s)" % (m, MODE_WORDS[m]) for m in MODES))
    seed = game.seed if seed is None else seed
    port, closer = None, None
    if mode == "sim":
        from ringside.sim.board import SimBoard
        board = SimBoard(seed=seed, sensor_model=settings.sensor_model)
        port = PacedSimPort(board, speed=settings.speed)
        side = game.capabilities.ring_side
        if side and settings.calibrate:
            from ringside.app.cmd_play import calibrate_sim
            calibrate_sim(board, side, log=lambda *a: None)
            port.calibrated_at = time.time()
    elif mode == "board":
        from ringside.link import Link
        from ringside.table import LinkPort
        if port_path is not None and not isinstance(port_path, str):
            raise RoomError("port is a device path")
        meta = dict(meta or {})
        if port_path:
            meta["board_port"] = port_path       # a resumed room opens the same port
        link = Link(port_path or None).open()
        port = LinkPort(link, simulated=False)
        closer = link.close
    rid = rid or new_room_id(game.name)
    save_dir = Path(settings.save_dir)
    save_dir.mkdir(parents=True, exist_ok=True)
    try:
        room = Room(rid, game, seats, mode, port=port, save_path=save_dir / ("%s.json" % rid), tokens=tokens,
                    speed=settings.speed, bot_delay=settings.bot_delay, skill=settings.skill, seed=seed,
                    closer=closer, meta=meta)
    except BaseException:
        if closer:
            closer()
        raise
    return room


def resume_room(settings: Settings, path: str | Path, rid: str | None = None) -> Room:
    """A room from a save (a web room's, or the terminal's): same room id and tokens when it
    was a web room, so its pages and links find it again."""
    from ringside.table import read_save
    game, seats, meta = read_save(path)
    saved_rid = meta.get("web_room")
    try:
        saved_tokens = json.loads(meta.get("web_tokens") or "{}")
    except ValueError:
        saved_tokens = {}
    mode = meta.get("board")
    mode = {"sim-pty": "sim", None: "typed"}.get(mode, mode)
    if mode not in MODES:
        mode = "typed"
    for s, level in list(seats.items()):
        if level not in ("human", "solo"):
            seats[s] = B.check_level(game, level)
    port = meta.get("board_port") if mode == "board" else None
    keep = {k: v for k, v in meta.items() if k not in ("web_room", "web_tokens", "board", "board_port")}
    room_id = rid or saved_rid or new_room_id(game.name)
    tokens = RoomTokens(len(game.players), saved_tokens if saved_rid == room_id and isinstance(saved_tokens, dict)
                        else None)
    return open_room(settings, game, seats, mode, rid=room_id, tokens=tokens, meta=keep,
                     port_path=port if isinstance(port, str) and port else None)


class RoomUnavailable(RingsideError):
    """A saved room that cannot be opened now (its board cannot be reached); says why."""


class Rooms:
    """The open rooms, found by id; a room not open is looked for among the saves (a server
    that restarted finds its games again)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.rooms: dict[str, Room] = {}

    def add(self, room: Room) -> Room:
        self.rooms[room.rid] = room
        room.start()
        return room

    def get(self, rid: str) -> Room | None:
        room = self.rooms.get(rid)
        if room is not None:
            return room
        if not rid or not all(c.isalnum() or c in "-_" for c in rid) or len(rid) > 60:
            return None
        path = Path(self.settings.save_dir) / ("%s.json" % rid)
        if not path.exists():
            return None
        try:
            return self.add(resume_room(self.settings, path, rid=rid))
        except GameError:
            return None
        except RingsideError as e:       # the board it is played on is not there (LinkError)
            raise RoomUnavailable("the game %s is played on a board that cannot be reached now (%s): "
                                  "connect the board and reload this page" % (rid, e)) from None

    def close(self) -> None:
        for r in list(self.rooms.values()):
            r.stop()
        self.rooms.clear()
