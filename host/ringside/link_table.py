"""A board over the serial link, as calibration (and any procedure of that shape) uses it.

    send(kind, **fields)   a command, acknowledged (LinkError with the board's reason if not)
    advance(ms)            wait, collecting the board's frames
    frames                 [(t_ms, kind, fields), ...] received so far
    place(angle, space)    ask the person at the table to set the marble down there
    lift()                 ask them to take the marble off the ring (calibration begins so)

`ringside calibrate --port PATH` runs on this; on the simulated board the simulator places
the marble itself (`ringside.sim.board.SimTable`).
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable
    from ringside.link.link import Link



class LinkTable:
    def __init__(self, link: Link, ring_dict: dict, ask: Callable[[str], str] = input, say: Callable[..., None] = print):
        self.link = link
        self.ring_dict = ring_dict
        self.frames: list = []
        self._t0 = time.monotonic()
        self.ask = ask
        self.say = say

    @classmethod
    def open(cls, port: str | None, ring_path: Path | None = None, **kw: Any) -> LinkTable:
        from ringside import ring as ring_mod
        from ringside.link import Link
        ring_path = ring_path if ring_path is not None else ring_mod.default_path()
        ring = json.loads(Path(ring_path).read_text())
        link = Link(port, ring=Path(ring_path)).open()
        return cls(link, ring, **kw)

    def close(self) -> None:
        self.link.close()

    def _drain(self) -> None:
        while True:
            ev = self.link.next_event(0)
            if ev is None:
                return
            self.frames.append((int((ev.t - self._t0) * 1000), ev.kind, dict(ev.fields)))

    def send(self, kind: str, **fields: Any) -> None:
        self.link.command(kind, **fields)
        self._drain()

    def advance(self, ms: int) -> None:
        end = time.monotonic() + ms / 1000.0
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            ev = self.link.next_event(min(left, 0.1))
            if ev is not None:
                self.frames.append((int((ev.t - self._t0) * 1000), ev.kind, dict(ev.fields)))
        self._drain()

    def lift(self) -> None:
        self.ask("Take the marble off the ring and keep your hands away from it, then press Enter: ")
        self._drain()

    def place(self, angle_deg: float, space_id: str | None = None) -> None:
        self.ask("Set the marble down on %s (%.0f deg) and take your hand away, then press Enter: "
                 % (space_id if space_id is not None else "the ring", angle_deg))
        self._drain()

