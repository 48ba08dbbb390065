"""Wild West money: silver, gold and rubies as the physical discs of the box.

A holding is a dict {"silver": n, "gold": n, "ruby": n}. Every move of a disc goes from
one holding to another (a player's purse, the reserve, the bag, a mine space, a bank
space, a donation-bowl space, a wager), so the discs of the box are conserved.

    3 silver = 1 gold, 3 gold = 1 ruby, and back ("Exchanging money").
    A player trades up whenever the reserve can give the bigger piece (settle()).
    Change comes from the reserve; when it cannot give it, the payment cannot be made.
    At most `limit` rubies each: money beyond what the limit allows goes back to the reserve.
"""
from __future__ import annotations

KINDS = ("silver", "gold", "ruby")
VALUE = {"silver": 1, "gold": 3, "ruby": 9}
_BIGGER = {"silver": "gold", "gold": "ruby", "ruby": None}
_SMALLER = {"ruby": "gold", "gold": "silver", "silver": None}
RATE = 3


def empty() -> dict:
    return {"silver": 0, "gold": 0, "ruby": 0}


def value(h: dict) -> int:
    """Worth in silver."""
    return sum(VALUE[k] * h.get(k, 0) for k in KINDS)


def count(h: dict) -> int:
    return sum(h.get(k, 0) for k in KINDS)


def text(h: dict) -> str:
    """Plain words: "1 ruby, 2 gold" ("nothing" when empty)."""
    return ", ".join(_piece_text(k, h.get(k, 0)) for k in ("ruby", "gold", "silver") if h.get(k, 0)) or "nothing"


def _piece_text(kind, n):
    if kind == "ruby":
        return "%d rub%s" % (n, "y" if n == 1 else "ies")
    return "%d %s" % (n, kind)


def move(src: dict, dst: dict, kind: str, n: int = 1) -> None:
    """Move n discs of kind from src to dst (ValueError when src has fewer)."""
    if src.get(kind, 0) < n:
        raise ValueError("not enough %s to move" % kind)
    src[kind] -= n
    dst[kind] = dst.get(kind, 0) + n


def move_all(src: dict, dst: dict) -> None:
    for k in KINDS:
        n = src.get(k, 0)
        if n:
            move(src, dst, k, n)


def _break(purse, reserve, kind) -> bool:
    """Change one disc of `kind` in the purse into 3 of the next smaller kind from the reserve."""
    small = _SMALLER[kind]
    if small is None or purse.get(kind, 0) < 1 or reserve.get(small, 0) < RATE:
        return False
    move(purse, reserve, kind)
    move(reserve, purse, small, RATE)
    return True


def obtain(purse: dict, reserve: dict, kind: str) -> bool:
    """Make sure the purse holds a disc of `kind`, changing a bigger one at the reserve if
    needed. Returns False (and changes nothing) when it cannot."""
    if purse.get(kind, 0) >= 1:
        return True
    big = _BIGGER[kind]
    if big is None:
        return False
    p, r = dict(purse), dict(reserve)
    if not obtain(p, r, big) or not _break(p, r, big):
        return False
    purse.update(p)
    reserve.update(r)
    return True


def can_pay(purse: dict, reserve: dict, kind: str, n: int = 1) -> bool:
    p, r = dict(purse), dict(reserve)
    for _ in range(n):
        if not obtain(p, r, kind):
            return False
        move(p, r, kind)
    return True


def pay(purse: dict, reserve: dict, kind: str, dst: dict, n: int = 1) -> bool:
    """Pay n discs of kind from the purse to dst (which may be the reserve itself), with
    change from the reserve. Returns False and changes nothing when it cannot."""
    p, r = dict(purse), dict(reserve)
    for _ in range(n):
        if not obtain(p, r, kind):
            return False
        p[kind] -= 1
    purse.update(p)
    reserve.update(r)
    dst[kind] = dst.get(kind, 0) + n
    return True


def receive(purse: dict, reserve: dict, amount: int) -> int:
    """Give the purse `amount` (in silver) from the reserve, in the biggest discs it has;
    returns the worth actually given (less when the reserve runs short)."""
    given = 0
    for k in ("ruby", "gold", "silver"):
        while amount - given >= VALUE[k] and reserve.get(k, 0) > 0:
            move(reserve, purse, k)
            given += VALUE[k]
    return given


def receive_piece(purse: dict, reserve: dict, kind: str) -> int:
    """One disc of kind from the reserve, or its worth in smaller discs when it has none."""
    if reserve.get(kind, 0) > 0:
        move(reserve, purse, kind)
        return VALUE[kind]
    return receive(purse, reserve, VALUE[kind])


def settle(purse: dict, reserve: dict, limit: int) -> int:
    """Trade up as far as the reserve allows, then put back what the ruby limit forbids.

    Returns the worth (in silver) put back into the reserve."""
    while purse["silver"] >= RATE and reserve["gold"] >= 1:
        move(purse, reserve, "silver", RATE)
        move(reserve, purse, "gold")
    while purse["gold"] >= RATE and purse["ruby"] < limit and reserve["ruby"] >= 1:
        move(purse, reserve, "gold", RATE)
        move(reserve, purse, "ruby")
        while purse["silver"] >= RATE and reserve["gold"] >= 1:
            move(purse, reserve, "silver", RATE)
            move(reserve, purse, "gold")
    back = 0
    if purse["ruby"] > limit:
        n = purse["ruby"] - limit
        move(purse, reserve, "ruby", n)
        back += n * VALUE["ruby"]
    if purse["ruby"] >= limit:
        # at the limit, anything that would make another ruby is more than a player may keep
        while purse["silver"] >= RATE and reserve["gold"] >= 1 and purse["gold"] < RATE - 1:
            move(purse, reserve, "silver", RATE)
            move(reserve, purse, "gold")
        if purse["gold"] >= RATE:
            n = purse["gold"] - (RATE - 1)
            move(purse, reserve, "gold", n)
            back += n * VALUE["gold"]
        if purse["silver"] >= RATE:
            n = purse["silver"] - (RATE - 1)
            move(purse, reserve, "silver", n)
            back += n
    return back


def highest(purse: dict) -> str | None:
    """The kind of the purse's highest coin, or None when it holds none."""
    for k in ("ruby", "gold", "silver"):
        if purse.get(k, 0) > 0:
            return k
    return None
