"""What the host has told the board to show and do, so a board that restarts (or a cable
that was pulled) gets it all back: side, LED scene (painted spaces and ground, the LEDs
painted one by one with `px`, the player, a pulse still running), effects, brightness, the
armed flick and the turn timer at the time it has left. Only the blink of `flash` is not
kept: it is over before a board is back.

The Link records a command here once the board has acknowledged it, and feeds it the
board's events (a verdict disarms, an expiry ends the timer, heartbeats carry the timer's
remaining ms). commands(now) lists what to send to a fresh board, in order.
Times are time.monotonic() seconds; timer durations are ms.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TimerState:
    colour: str
    total_ms: int
    left_ms: int          # ms left at `at`
    at: float             # monotonic time of that reading
    paused: bool = False
    expired: bool = False
    show: int = 1

    def left_now(self, now: float) -> int:
        if self.expired:
            return 0
        if self.paused:
            return self.left_ms
        return max(0, self.left_ms - int(round((now - self.at) * 1000)))


# commands that are part of the scene, and the key under which the last one is kept
_SINGLE = ("side", "raw", "bright", "fx")
PULSE_S = 1.5           # a `pulse` lasts this long on the board
PULSE_RESTORE_S = 1.0   # a pulse started less than this long ago is shown again after a restore


class Scene:
    def __init__(self):
        self.single: dict[str, dict] = {}       # side/raw/bright/fx -> fields (merged for fx)
        self.paints: dict[str, dict] = {}       # "sp:<id>" / "label:<l>" / "all" -> fields
        self.player: dict | None = None
        self.arm: dict | None = None
        self.timer: TimerState | None = None
        self.leds = 60                          # LEDs on the ring (the board's hello says)
        self.px: dict[int, tuple[str, int]] = {}   # LED -> (colour, pulse) painted by `px`
        self.pulse: tuple[dict, float] | None = None   # the last `pulse` and when

    def record(self, kind: str, fields: dict, now: float) -> None:
        """A command the board acknowledged."""
        f = dict(fields)
        if kind in _SINGLE:
            if kind == "fx":
                merged = dict(self.single.get("fx", {}))
                merged.update(f)
                f = merged
            if kind == "side":  # a new side: space colours and pulses start afresh
                self.paints = {k: v for k, v in self.paints.items() if k == "all"}
                self.pulse = None
            self.single[kind] = f
        elif kind == "clear":
            self.paints.clear()
            self.player = None
            self.px.clear()
            self.pulse = None
        elif kind == "px":
            n = max(1, int(f.get("n", 1)))
            c = str(f.get("c", "off"))
            p = 1 if int(f.get("pulse", 0)) else 0
            for k in range(min(n, self.leds)):
                i = (int(f["i"]) + k) % self.leds
                if c in ("off", "000000"):   # black unpaints, as on the board
                    self.px.pop(i, None)
                else:
                    self.px[i] = (c, p)
        elif kind == "pulse":
            self.pulse = (f, now)
        elif kind == "paint":
            if "sp" in f:
                key = "sp:%s" % f["sp"]
            elif "label" in f:
                key = "label:%s" % f["label"]
            else:
                key = "all"
            self.paints.pop(key, None)  # re-inserted last: later paints win, as on the board
            self.paints[key] = f
        elif kind == "player":
            self.player = f
        elif kind == "arm":
            self.arm = f
        elif kind == "disarm":
            self.arm = None
        elif kind == "timer_start":
            ms = int(f["ms"]) if "ms" in f else int(f.get("s", 0)) * 1000
            total = max(int(f.get("total", 0)), ms)
            self.timer = TimerState(str(f.get("c", "white")), total, ms, now,
                                    paused=bool(f.get("paused", 0)), expired=ms <= 0,
                                    show=int(f.get("show", 1)))
        elif kind == "timer_pause" and self.timer:
            if not self.timer.paused and not self.timer.expired:
                self.timer.left_ms = self.timer.left_now(now)
                self.timer.at = now
                self.timer.paused = True
        elif kind == "timer_resume" and self.timer:
            if self.timer.paused:
                self.timer.at = now
                self.timer.paused = False
        elif kind == "timer_cancel":
            self.timer = None

    def on_event(self, kind: str, fields: dict, now: float) -> None:
        """A frame from the board that changes what must be restored."""
        if kind == "verdict":
            self.arm = None
        elif kind == "timer_expired" and self.timer:
            self.timer.expired = True
            self.timer.left_ms = 0
        elif kind == "hb" and self.timer and not self.timer.expired and "tmr" in fields:
            self.timer.left_ms = int(fields["tmr"])
            self.timer.at = now
            self.timer.paused = bool(fields.get("tps", 0))

    def timer_left_ms(self, now: float) -> int | None:
        return None if self.timer is None else self.timer.left_now(now)

    def empty(self) -> bool:
        return not (self.single or self.paints or self.player or self.arm or self.timer
                    or self.px or self.pulse)

    def px_runs(self) -> list[dict]:
        """The LEDs painted by `px`, as few runs of one colour as there can be."""
        out: list[dict] = []
        i = 0
        n = self.leds
        while i < n:
            v = self.px.get(i)
            if v is None:
                i += 1
                continue
            j = i + 1
            while j < n and self.px.get(j) == v:
                j += 1
            f = {"i": i, "n": j - i, "c": v[0]}
            if v[1]:
                f["pulse"] = 1
            out.append(f)
            i = j
        return out

    def commands(self, now: float) -> list[tuple[str, dict]]:
        """What a fresh board needs, in order: side first (spaces depend on it), then the
        scene, the timer at the time it has left, the armed flick. Nothing at all when this
        host has set nothing (it must not clear what another host left on the board)."""
        out: list[tuple[str, dict]] = []
        if self.empty():
            return out
        if "side" in self.single:
            out.append(("side", self.single["side"]))
        out.append(("clear", {}))
        for k in ("bright", "fx", "raw"):
            if k in self.single:
                out.append((k, self.single[k]))
        out.extend(("paint", f) for f in self.paints.values())
        out.extend(("px", f) for f in self.px_runs())
        if self.player:
            out.append(("player", self.player))
        if self.pulse is not None and now - self.pulse[1] < PULSE_RESTORE_S:
            out.append(("pulse", self.pulse[0]))
        t = self.timer
        if t is not None:
            f = {"ms": t.left_now(now), "total": t.total_ms, "c": t.colour}
            if t.paused and not t.expired:
                f["paused"] = 1
            if not t.show:
                f["show"] = 0
            out.append(("timer_start", f))
        if self.arm:
            out.append(("arm", self.arm))
        return out
