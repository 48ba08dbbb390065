"""The table page's server: a Starlette app (docs/web.md).

    GET  /                       the lobby
    GET  /table/{room}           a table's page (?t=TOKEN: the table's or a seat's)
    GET  /static/...             the page's files (shipped in the package, no CDN)
    GET  /api/lobby              games, levels, saves, boards, open rooms
    POST /api/rooms              a new game, or {"resume": PATH}
    GET  /api/rooms/{room}       the room, its links and their QR codes
    GET  /api/rooms/{room}/rules the game's rulebook
    WS   /ws/{room}              the table, pushed; moves back (the protocol: hub.py, docs/web.md)

Safe by default: on 127.0.0.1 only this machine can reach it, and the Host header must name
this machine (a web page elsewhere cannot rebind a name to it). With `lan` every request
needs a token: the lobby's, the room's table token or a seat's; a seat's token is that seat's
view and nothing more. WebSocket and POST origins must be this server's own.
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.games import GameError
from ringside.web import lobby as LB
from ringside.web.hub import Screen
from ringside.web.tokens import TABLE, new_token, qr_svg, same

if TYPE_CHECKING:
    from starlette.requests import HTTPConnection, Request

STATIC = Path(__file__).with_name("static")
COOKIE = "ringside_t"
MAX_MESSAGE = 16384          # bytes in one message from a page
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


class Config:
    """What the server was started with. base: the URL the links name (the LAN address with
    lan). lobby_token: the lobby's token (kept in the save folder, so links outlive a restart)."""

    def __init__(self, settings: LB.Settings, *, lan: bool = False, base: str = "http://127.0.0.1:8765",
                 lobby_token: str | None = None):
        self.settings = settings
        self.lan = lan
        self.base = base.rstrip("/")
        self.lobby_token = lobby_token or _lobby_token(settings.save_dir)


def _lobby_token(save_dir: Path) -> str:
    p = Path(save_dir) / "lobby-token"
    try:
        t = p.read_text().strip()
        if len(t) >= 16:
            return t
    except OSError:
        pass
    t = new_token()
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(t + "\n")
        p.chmod(0o600)
    except OSError:
        pass
    return t


def _token(conn: HTTPConnection) -> str | None:
    return conn.query_params.get("t") or conn.cookies.get(COOKIE)


def _host_ok(cfg: Config, conn: HTTPConnection) -> bool:
    """On 127.0.0.1 the Host header must name this machine (DNS rebinding)."""
    if cfg.lan:
        return True
    host = conn.headers.get("host", "")
    name = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
    return name in LOCAL_HOSTS


def _origin_ok(conn: HTTPConnection) -> bool:
    """A browser's Origin must be this very server (scheme://host:port); no Origin (a
    script, curl) is let through to the token check."""
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    host = conn.headers.get("host", "")
    return origin in ("http://%s" % host, "https://%s" % host)


class _Refused(Exception):
    """A request refused: `response` is the answer (a handler wrapped by `answers`)."""

    def __init__(self, response: Response):
        super().__init__()
        self.response = response


def create_app(cfg: Config, rooms: LB.Rooms | None = None) -> Starlette:
    rooms = rooms or LB.Rooms(cfg.settings)

    def refuse(text: str, status: int = 403) -> Response:
        return PlainTextResponse(text + "\n", status_code=status)

    def lobby_allowed(conn) -> bool:
        return not cfg.lan or same(_token(conn), cfg.lobby_token)

    def viewer(conn, room) -> tuple | None:
        """(role, seat) the request may see in room, or None."""
        tok = _token(conn)
        if tok:
            role = room.tokens.role(tok)
            if role is not None:
                return role
            if same(tok, cfg.lobby_token):
                return (TABLE, None)
            if conn.query_params.get("t"):
                return None          # a wrong token is refused, even on this machine
        if cfg.lan:
            return None
        seat = conn.query_params.get("seat")
        if seat is not None:
            if not seat.isdigit() or int(seat) >= len(room.game.players):
                return None
            return ("seat", int(seat))
        return (TABLE, None)

    def guard(request) -> Response | None:
        if not _host_ok(cfg, request):
            return refuse("this server answers to 127.0.0.1 or localhost only (start it with --lan for the LAN)")
        return None

    def answers(handler):
        """A handler that may raise _Refused(response): that response is the answer."""
        @functools.wraps(handler)
        async def run(request: Request):
            try:
                return await handler(request)
            except _Refused as e:
                return e.response
        return run

    def lobby_for(request, refused: str = "403: the lobby needs its pairing token", post: bool = False) -> None:
        """The checks every lobby request passes (the Host; a POST's Origin; the lobby's
        token with --lan), or _Refused with the answer."""
        bad = guard(request)
        if bad is None and post and not _origin_ok(request):
            bad = refuse("403: a request from another site's page")
        if bad is None and not lobby_allowed(request):
            bad = refuse(refused)
        if bad is not None:
            raise _Refused(bad)

    async def room_for(request, missing: str = "there is no game %r here",
                       refused: str = "403: a token is needed") -> tuple:
        """(room, (role, seat)) for a request naming a room (path {rid}) that may see it, or
        _Refused with the answer: the Host checked, the room found (or resumed from its
        save: 404 `missing` if not), the token checked (403 `refused`)."""
        bad = guard(request)
        if bad is not None:
            raise _Refused(bad)
        rid = request.path_params["rid"]
        try:
            room = await asyncio.to_thread(rooms.get, rid)
        except LB.RoomUnavailable as e:
            raise _Refused(refuse(str(e), 503)) from None
        if room is None:
            raise _Refused(refuse(missing % (rid,), 404))
        v = viewer(request, room)
        if v is None:
            raise _Refused(refuse(refused))
        return room, v

    def with_cookie(resp: Response, request) -> Response:
        t = request.query_params.get("t")
        if t:
            resp.set_cookie(COOKIE, t, httponly=True, samesite="strict")
        return resp

    @answers
    async def lobby_page(request: Request):
        lobby_for(request, "403: this lobby needs its pairing token (the link `ringside serve --lan` printed)")
        return with_cookie(FileResponse(STATIC / "lobby.html", headers={"Cache-Control": "no-store"}), request)

    @answers
    async def table_page(request: Request):
        await room_for(request, "there is no game %r here (it may have been deleted): go to the lobby",
                       "403: this table needs its token: open the link the lobby or the terminal shows")
        return with_cookie(FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"}), request)

    static_files = StaticFiles(directory=str(STATIC))

    async def static(scope, receive, send):
        from starlette.requests import Request as Req
        req = Req(scope, receive)
        resp = guard(req)
        if resp is None and cfg.lan:
            tok = _token(req)
            ok = same(tok, cfg.lobby_token) or any(r.tokens.role(tok) for r in list(rooms.rooms.values()))
            if not ok:
                resp = refuse("403: a token is needed")
        if resp is not None:
            await resp(scope, receive, send)
            return
        await static_files(scope, receive, send)

    @answers
    async def api_lobby(request: Request):
        lobby_for(request)
        data = await asyncio.to_thread(lambda: {
            "games": LB.games_offered(), "rings": [{"ring": m, "words": LB.MODE_WORDS[m]} for m in LB.MODES],
            "boards": LB.boards_found(), "saves": LB.saves(cfg.settings.save_dir),
            "rooms": [dict(r.summary(), links=r.links(cfg.base)) for r in list(rooms.rooms.values())],
            "lan": cfg.lan, "lobby": "%s/?t=%s" % (cfg.base, cfg.lobby_token),
            "lobby_qr": qr_svg("%s/?t=%s" % (cfg.base, cfg.lobby_token)) if cfg.lan else None})
        return JSONResponse(data)

    @answers
    async def api_new_room(request: Request):
        lobby_for(request, post=True)
        body = await request.body()
        if len(body) > MAX_MESSAGE:
            return JSONResponse({"error": "that request is too long"}, status_code=400)
        try:
            spec = json.loads(body or b"{}")
        except ValueError as e:
            return JSONResponse({"error": "that request is not JSON: %s" % e}, status_code=400)
        try:
            if isinstance(spec, dict) and spec.get("resume"):
                path = str(spec["resume"])
                known = {s["path"] for s in LB.saves(cfg.settings.save_dir)}
                if path not in known:
                    raise GameError("there is no save %s in the lobby's list" % path)
                room = await asyncio.to_thread(LB.resume_room, cfg.settings, path,
                                               Path(path).stem if Path(path).parent == Path(cfg.settings.save_dir)
                                               else None)
            else:
                room = await asyncio.to_thread(LB.make_room, cfg.settings, spec)
        except Exception as e:
            from ringside.errors import bug_line, user_message
            return JSONResponse({"error": user_message(e) or bug_line(e)}, status_code=400)
        old = rooms.rooms.get(room.rid)
        if old is not None:
            old.stop()
        rooms.add(room)
        return JSONResponse(await asyncio.to_thread(room_json, room))

    def room_json(room) -> dict:
        links = room.links(cfg.base)
        links["table_qr"] = qr_svg(links["table"])
        for s in links["seats"]:
            s["qr"] = qr_svg(s["url"])
        return dict(room.summary(), links=links)

    @answers
    async def api_room(request: Request):
        room, v = await room_for(request)
        if v[0] != TABLE:        # a seat sees its own link only
            data = room.summary()
            data["links"] = {"seats": [s for s in room.links(cfg.base)["seats"] if s["seat"] == v[1]]}
            return JSONResponse(data)
        return JSONResponse(await asyncio.to_thread(room_json, room))

    @answers
    async def api_rules(request: Request):
        room, _ = await room_for(request)
        return JSONResponse(await asyncio.to_thread(room.rules))

    async def ws_table(ws: WebSocket):
        if not _host_ok(cfg, ws) or not _origin_ok(ws):
            await ws.close(code=1008)        # before accept: the client gets 403
            return
        try:
            room = await asyncio.to_thread(rooms.get, ws.path_params["rid"])
        except LB.RoomUnavailable:
            room = None          # its board is away: the page tries again
        v = viewer(ws, room) if room is not None else None
        if v is None:
            await ws.close(code=1008)
            return
        await ws.accept()
        loop = asyncio.get_running_loop()
        out: asyncio.Queue = asyncio.Queue()

        def push(text: str) -> None:
            try:
                loop.call_soon_threadsafe(out.put_nowait, text)
            except RuntimeError:       # the loop is closing: the page is gone
                pass

        screen = Screen(v[0], v[1], push)

        async def sender():
            while True:
                text = await out.get()
                await ws.send_text(text)

        task = asyncio.create_task(sender())
        room.attach(screen)
        try:
            while True:
                text = await ws.receive_text()
                if len(text) > MAX_MESSAGE:
                    push(json.dumps({"type": "error", "text": "that message is too long", "seq": room.seq}))
                    continue
                try:
                    msg = json.loads(text)
                except ValueError as e:
                    push(json.dumps({"type": "error", "text": "that message is not JSON (%s): nothing was changed" % e,
                                     "seq": room.seq}))
                    continue
                if not isinstance(msg, dict):
                    push(json.dumps({"type": "error", "text": "a message is a JSON object with an op",
                                     "seq": room.seq}))
                    continue
                room.submit(screen, msg)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            room.detach(screen)
            task.cancel()

    async def health(request: Request):
        return JSONResponse({"ok": True})

    routes = [
        Route("/", lobby_page),
        Route("/table/{rid}", table_page),
        Route("/api/lobby", api_lobby),
        Route("/api/rooms", api_new_room, methods=["POST"]),
        Route("/api/rooms/{rid}", api_room),
        Route("/api/rooms/{rid}/rules", api_rules),
        Route("/healthz", health),
        WebSocketRoute("/ws/{rid}", ws_table),
        Mount("/static", app=static),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        await asyncio.to_thread(rooms.close)    # every game saved, every board closed

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.rooms = rooms
    app.state.cfg = cfg
    return app
