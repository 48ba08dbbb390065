"""The one gate every frame from the board passes before the host acts on it.

A frame that arrives whole (its CRC is right, frames.parse took it) can still carry a field
the host cannot use: `hb ... tmr=abc`, `ack re=x`, a `landed` whose travel is a word. Such a
frame is refused here with its reason, before any handler sees it; the link counts it
(Link.stats["refused_frames"], Link.refusals) and goes on. See docs/protocol.md, "The guard".

Each message type the host acts on declares its fields: INT (-?[0-9]{1,9}) or NAME (any
token, kept as str even when it looks like a number: space ids, the ring hash, the board's
uid). Fields not declared are typed by messages.typed's rule and passed on (a newer board
may add fields; the protocol says receivers ignore what they do not know). A message type
not declared here (a newer event) is passed on the same way.
"""
from __future__ import annotations

import re

from ringside.link import messages

INT = "int"
NAME = "name"

_INT = re.compile(r"-?[0-9]{1,9}\Z")

# message type -> {field: INT | NAME}; what the host reads from each (docs/protocol.md)
FIELDS: dict[str, dict[str, str]] = {
    "hello": {"fw": NAME, "proto": INT, "ring": NAME, "sensors": INT, "healthy": INT,
              "side": NAME, "leds": INT, "cap": INT, "uid": NAME},
    "ack": {"re": INT},
    "nack": {"re": INT, "why": NAME, "arg": NAME, "what": NAME},
    "hb": {"up": INT, "loop": INT, "drop": INT, "err": INT, "blind": INT, "tmr": INT, "tps": INT},
    "moving": {"ang": INT, "dir": INT},
    "landed": {"sp": NAME, "alt": NAME, "ang": INT, "trv": INT, "conf": INT, "blind": INT,
               "cands": NAME, "corrects": INT},
    "withdrawn": {"sp": NAME, "ang": INT, "trv": INT},
    "degraded": {"n": INT, "ids": NAME, "blind": INT},
    "verdict": {"ok": INT, "why": NAME, "trv": INT, "min": INT, "dir": NAME},
    "off_ring": {"ang": INT, "trv": INT},
    "placed": {"sp": NAME, "ang": INT},
    "lost": {"ang": INT},
    "sensor_fault": {"id": INT, "why": NAME, "blind": INT},
    "sensor_ok": {"id": INT, "blind": INT},
    "not_level": {"low": INT, "half_period": INT, "swings": INT},
    "timer_expired": {"total": INT, "late": INT},
    "raw": {"id": INT, "r": INT, "st": INT, "m": INT},
    "error": {"count": INT, "what": NAME},
    "led": {"i": INT, "r": INT, "g": INT, "b": INT},
    "burst": {"k": INT},
}

# fields without which the host cannot act on the message at all
REQUIRED: dict[str, tuple[str, ...]] = {
    "hello": ("proto",),
    "ack": ("re",),
    "nack": ("re",),
    "withdrawn": ("sp",),
    "degraded": ("n", "ids"),
}

# the link's own events: a board that sends one of these is not believed
LINK_EVENTS = frozenset({"link_lost", "link_restored", "link_error", "board_reset",
                         "board_changed"})


class FrameRefused(ValueError):
    """A whole frame whose content the host cannot use; the message says why."""


def check(kind: str, raw: dict) -> dict:
    """A frame's raw str fields (frames.parse(raw=True)) -> typed fields, or FrameRefused."""
    if kind in LINK_EVENTS:
        raise FrameRefused("%s is the link's own event, not one a board sends" % kind)
    spec = FIELDS.get(kind)
    if spec is None:
        return messages.typed(raw)
    out = {}
    for k, v in raw.items():
        t = spec.get(k)
        if t == INT:
            if not _INT.match(v):
                raise FrameRefused("%s=%s is not a whole number" % (k, v or "(empty)"))
            out[k] = int(v)
        elif t == NAME:
            out[k] = v
        elif k not in messages.TOKEN_FIELDS and _INT.match(v):
            out[k] = int(v)
        else:
            out[k] = v
    for k in REQUIRED.get(kind, ()):
        if k not in out:
            raise FrameRefused("it has no %s= field" % k)
    return out
