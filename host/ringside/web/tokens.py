"""Pairing tokens. A room has one token for the table's screen (everything the table may
see: view(None)) and one per seat (that seat's view only); the server has one for its lobby.
With `--lan` every page and socket must carry one; on 127.0.0.1 they are still made, so the
links printed are the same either way.

Tokens are 128 random bits (secrets.token_urlsafe), compared in constant time.
"""
from __future__ import annotations

import functools
import hmac
import secrets

TABLE = "table"


def new_token() -> str:
    return secrets.token_urlsafe(16)


def same(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(str(a), str(b))


class RoomTokens:
    """The tokens of one room: {"table": t, "0": t0, "1": t1, ...} (kept in its save)."""

    def __init__(self, seats: int, saved: dict | None = None):
        saved = dict(saved or {})
        self.table = str(saved.get(TABLE) or new_token())
        self.seat = {i: str(saved.get(str(i)) or new_token()) for i in range(seats)}

    def to_json(self) -> dict:
        d = {TABLE: self.table}
        d.update({str(i): t for i, t in self.seat.items()})
        return d

    def role(self, token: str | None) -> tuple | None:
        """("table", None) or ("seat", i) for a valid token, else None."""
        if same(token, self.table):
            return (TABLE, None)
        for i, t in self.seat.items():
            if same(token, t):
                return ("seat", i)
        return None


@functools.lru_cache(maxsize=256)
def qr_svg(text: str) -> str | None:
    """The text as a QR code, an SVG string (segno); None if segno is missing."""
    try:
        import segno
    except ImportError:
        return None
    import io
    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="svg", scale=4, border=2, xmldecl=False, svgns=True)
    return buf.getvalue().decode("utf-8")


def qr_text(text: str) -> str:
    """The QR code for a terminal (two rows a line, block characters); '' if segno is missing."""
    try:
        import segno
    except ImportError:
        return ""
    import io
    buf = io.StringIO()
    segno.make(text, error="m").terminal(out=buf, compact=True, border=2)
    return buf.getvalue()
