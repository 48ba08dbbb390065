"""`ringside serve`: the table page (a local web app; docs/web.md).

    ringside serve                      the lobby on http://127.0.0.1:8765, in a browser
    ringside serve --game darts --players You --bots Cy:good --sim
                                        straight to a game's table (what `make run` starts)
    ringside serve --lan                every screen on the LAN, each with its token
"""
from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ringside.errors import UsageError

if TYPE_CHECKING:
    import argparse

    from ringside.web.hub import Room
    from ringside.web.server import Config

DEFAULT_PORT = 8765


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="the table page: a local web app (lobby, every game, the LED ring)",
                       description="Serve the table page: the lobby, a table view for every game, updates "
                                   "pushed to any number of screens. Binds 127.0.0.1 unless --lan.")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="the port (default %d)" % DEFAULT_PORT)
    p.add_argument("--lan", action="store_true",
                   help="serve the LAN; every page then needs its pairing token (printed, with a QR code)")
    p.add_argument("--host", default=None, help="the address to bind (default 127.0.0.1; with --lan 0.0.0.0)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--game", help="start this game at once and open its table")
    p.add_argument("--players", default="", metavar="A,B", help="with --game: the people")
    p.add_argument("--bots", default="", metavar="NAME[:LEVEL],...", help="with --game: computer players")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--sim", action="store_true", help="with --game: the simulated ring (the default)")
    where.add_argument("--typed", action="store_true", help="with --game: a real table, results entered on the page")
    where.add_argument("--board", metavar="PATH", nargs="?", const="", help="with --game: a board on a port "
                       "(found by its USB id when no PATH)")
    p.add_argument("--seed", type=int, default=None, help="with --game: the seed")
    p.add_argument("--speed", type=float, default=1.0, help="the simulated ring's clock against the wall's")
    p.add_argument("--bot-delay", type=float, default=0.8, help="seconds the computer waits before it plays")
    p.add_argument("--no-calibrate", action="store_true", help="do not calibrate the simulated ring first")
    p.add_argument("--saves", metavar="DIR", default=None, help="where the web's games are saved")
    p.set_defaults(func=_serve)


def lan_address() -> str:
    """This machine's address on the LAN (the route a datagram socket would take; nothing
    is sent), else 127.0.0.1."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def _display() -> bool:
    """A browser can be shown: not Linux, or Linux with a display (without one, webbrowser
    would start a text browser in this very terminal)."""
    import os
    return not sys.platform.startswith("linux") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def lan_text(cfg: Config, room: Room | None = None) -> str:
    """What --lan prints: the lobby's link and its QR code, and for a game started with
    --game its table's link and each seat's own link, each with its QR code (a phone
    scans the one for its seat: that seat's view and nothing more)."""
    from ringside.web.tokens import qr_text

    lobby = "%s/?t=%s" % (cfg.base, cfg.lobby_token)
    out = ["On the LAN: every page needs its token. The lobby (a phone can scan this): %s" % lobby,
           qr_text(lobby)]
    if room is not None:
        links = room.links(cfg.base)
        out += ["The table's screen (everything the table may see): %s" % links["table"], qr_text(links["table"])]
        for s in links["seats"]:
            if s["plays"] != "human":       # the computer's seat: its secrets stay off every screen
                out.append("(%s plays for the computer: no screen of its own)" % s["name"])
                continue
            out += ["%s's own screen (only %s's view): %s" % (s["name"], s["name"], s["url"]), qr_text(s["url"])]
    return "\n".join(x.rstrip("\n") for x in out) + "\n"


def game_spec(args: argparse.Namespace) -> dict:
    players = [{"name": n.strip(), "plays": "human"} for n in args.players.split(",") if n.strip()]
    for b in [x.strip() for x in args.bots.split(",") if x.strip()]:
        name, _, level = b.partition(":")
        players.append({"name": name.strip(), "plays": level.strip() or "easy"})
    if not players:
        raise UsageError("--game needs --players and/or --bots")
    ring = "typed" if args.typed else "board" if args.board is not None else "sim"
    return {"game": args.game, "players": players, "ring": ring, "port": args.board or None, "seed": args.seed}


def _serve(args: argparse.Namespace) -> int:
    import webbrowser

    import uvicorn

    from ringside.web import lobby as LB
    from ringside.web.server import Config, create_app

    if not 0 < args.port < 65536:
        raise UsageError("--port takes 1 to 65535")
    if args.speed <= 0 or args.speed > 100:
        raise UsageError("--speed takes more than 0, up to 100")
    host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
    shown = lan_address() if args.lan and host in ("0.0.0.0", "") else host
    base = "http://%s:%d" % (shown, args.port)
    settings = LB.Settings(save_dir=Path(args.saves) if args.saves else LB.default_save_dir(),
                           speed=args.speed, bot_delay=args.bot_delay, calibrate=not args.no_calibrate)
    cfg = Config(settings, lan=args.lan, base=base)
    rooms = LB.Rooms(settings)
    url = "%s/?t=%s" % (base, cfg.lobby_token) if args.lan else base + "/"
    first = None
    if args.game:
        print("setting up %s%s..." % (args.game, " on the simulated ring (calibrating it)" if not (
            args.typed or args.board is not None) else ""), flush=True)
        first = rooms.add(LB.make_room(settings, game_spec(args)))
        url = first.links(base)["table"] if args.lan else "%s/table/%s" % (base, first.rid)
    # bind first, so a port in use is one clear line
    try:
        probe = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, args.port))
        probe.close()
    except OSError as e:
        rooms.close()
        raise UsageError("cannot serve on %s:%d: %s (another `ringside serve`? try --port)"
                         % (host, args.port, e.strerror or e)) from None
    print("Ringside table page: %s" % url)
    if args.lan:
        print(lan_text(cfg, first), end="")
    else:
        print("(only this computer can open it; --lan serves the LAN, with tokens)")
    print("Ctrl-C stops the server; every game is saved as it is played.", flush=True)
    app = create_app(cfg, rooms)
    if not args.no_browser:
        if not _display():
            print("(no display here to open a browser in: open the link above)")
        else:
            try:
                webbrowser.open(url)
            except Exception:       # no browser here: the URL is printed
                pass
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=args.port, log_level="warning",
                                           access_log=False, ws_max_size=1 << 16))
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        rooms.close()
    print("stopped: the games are saved (the lobby's Resume list has them)", file=sys.stderr)
    return 0
