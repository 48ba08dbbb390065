"""A table-page server running in a thread of this process, for the browser tests and
`ringside bench page`: uvicorn on 127.0.0.1 (a free port, or the one given), stopped and
started again at will (the restart test), its rooms made directly."""
from __future__ import annotations

import socket
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.web.hub import Room
    from ringside.web.lobby import Settings


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class LiveServer:
    """start() serves, stop() stops (every room saved); base is the URL."""

    def __init__(self, settings: Settings, *, port: int | None = None, lan: bool = False):
        self.settings = settings
        self.port = port or free_port()
        self.lan = lan
        self.base = "http://127.0.0.1:%d" % self.port
        self.server = None
        self.thread = None
        self.rooms = None
        self.cfg = None

    def start(self) -> LiveServer:
        import uvicorn

        from ringside.web import lobby as LB
        from ringside.web.server import Config, create_app
        self.cfg = Config(self.settings, lan=self.lan, base=self.base)
        self.rooms = LB.Rooms(self.settings)
        app = create_app(self.cfg, self.rooms)
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error",
                                                    access_log=False, lifespan="on"))
        self.server.install_signal_handlers = lambda: None   # a thread has no signals
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        end = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > end or not self.thread.is_alive():
                raise RuntimeError("the table page's server did not start on port %d" % self.port)
            time.sleep(0.02)
        return self

    def new_room(self, spec: dict) -> Room:
        from ringside.web import lobby as LB
        return self.rooms.add(LB.make_room(self.settings, spec))

    def url(self, room: Room, token: str | None = None) -> str:
        return "%s/table/%s?t=%s" % (self.base, room.rid, token or room.tokens.table)

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
            self.thread.join(15)
            self.rooms.close()
            self.server = None
