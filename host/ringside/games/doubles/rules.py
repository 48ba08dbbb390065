"""The rules of Doubles on plain lists, shared by the engine and the computer players.

A position is four lists (the engine keeps the very same lists in its state):
    board[square]    None, or a piece [owner seat, pattern (its points 1-4), corner it faces 0-3]
    hands[seat]      [count of pattern 1, 2, 3, 4] in that player's hand
    scores[seat]     points (may go below zero)
    removes[seat]    removes left (3 at the start)
Pieces on the board are never changed in place, only replaced, so a shallow copy of the
board list is a full copy.
"""
from __future__ import annotations

from .board import LR
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games.doubles.board import Geometry

REMOVES = 3
WIN_POINTS = 25
EMPTY_BOARD_PENALTY = 10
DIE_FACES = (1, 2, 3, 4)


def add_facing(die: int) -> int:
    """The corner a new piece faces: set down facing lower-right, then `die` corners clockwise."""
    return (LR + die) % 4


def turn_facing(facing: int, die: int) -> int:
    """Turning is always clockwise; a 4 is a full turn."""
    return (facing + die) % 4


class Pos:
    """A position: board, hands, scores, removes left (see the module docstring)."""
    __slots__ = ("board", "hands", "scores", "removes")

    def __init__(self, board: list, hands: list[list], scores: list[int], removes: list[int]):
        self.board = board
        self.hands = hands
        self.scores = scores
        self.removes = removes

    def copy(self) -> Pos:
        return Pos(self.board[:], [h[:] for h in self.hands], self.scores[:], self.removes[:])


def new_pos(geo: Geometry, players: int, hand: dict) -> Pos:
    counts = [hand[str(p)] for p in (1, 2, 3, 4)]
    return Pos([None] * len(geo.squares), [counts[:] for _ in range(players)],
               [0] * players, [REMOVES] * players)


def legal_moves(geo: Geometry, pos: Pos, mover: int, die: int) -> list:
    """Every move for `mover` with this die: ("add", square, pattern), ("turn", square, 0),
    ("remove", square, 0). Never empty: an empty board means every piece is in hand."""
    board = pos.board
    hand = pos.hands[mover]
    held = [p for p in (1, 2, 3, 4) if hand[p - 1]]
    can_remove = pos.removes[mover] > 0
    moves = []
    for s, piece in enumerate(board):
        if piece is None:
            for p in held:
                moves.append(("add", s, p))
        else:
            moves.append(("turn", s, 0))
            if can_remove and hand[piece[1] - 1]:
                moves.append(("remove", s, 0))
    return moves


def check_move(geo: Geometry, pos: Pos, mover: int, kind: str, s: int, pattern: int) -> str | None:
    """Return None if the move is legal, else the reason in plain words."""
    piece = pos.board[s]
    name = geo.squares[s]
    if kind == "add":
        if piece is not None:
            return "%s is not empty" % name
        if pattern not in (1, 2, 3, 4):
            return "a pattern is 1, 2, 3 or 4 (its points), not %r" % (pattern,)
        if not pos.hands[mover][pattern - 1]:
            return "no piece worth %d is left in hand" % pattern
        return None
    if piece is None:
        return "%s is empty: there is no piece to %s" % (name, kind)
    if kind == "turn":
        return None
    if kind == "remove":
        if pos.removes[mover] <= 0:
            return "all %d removes are used" % REMOVES
        if not pos.hands[mover][piece[1] - 1]:
            return "covering the piece on %s needs a piece worth %d in hand, and there is none" % (name, piece[1])
        return None
    return "unknown move %r" % kind


def play(geo: Geometry, pos: Pos, mover: int, kind: str, s: int, pattern: int, die: int) -> tuple:
    """Make a legal move (see check_move). Returns (circle, covered, penalty):
    circle  None, or (corner id, [(square, piece), ...] of its three pieces, points, doubled)
    covered the piece a remove took off (the remover's own piece went straight back), or None
    penalty True if this move left the board empty (the mover lost 10 after any circle's points)
    """
    board = pos.board
    circle = None
    covered = None
    if kind == "remove":
        covered = board[s]
        board[s] = None
        pos.hands[covered[0]][covered[1] - 1] += 1
        pos.removes[mover] -= 1
    else:
        if kind == "add":
            pos.hands[mover][pattern - 1] -= 1
            piece = [mover, pattern, add_facing(die)]
        else:
            old = board[s]
            piece = [old[0], old[1], turn_facing(old[2], die)]
        board[s] = piece
        k = geo.corner_of[s][piece[2]]
        if k >= 0:
            p = piece[1]
            three = []
            for q, f in geo.corners[k]:
                other = board[q]
                if other is not None and other[1] == p and other[2] == f:
                    three.append((q, other))
            if len(three) >= 3:
                doubled = any(geo.yellow[q] for q, _ in three)
                points = sum(pc[1] for _, pc in three) * (2 if doubled else 1)
                for q, pc in three:
                    board[q] = None
                    pos.hands[pc[0]][pc[1] - 1] += 1
                pos.scores[mover] += points
                circle = (k, three, points, doubled)
    penalty = False
    if (circle is not None or covered is not None) and not any(board):
        pos.scores[mover] -= EMPTY_BOARD_PENALTY
        penalty = True
    return circle, covered, penalty


def circle_possible(geo: Geometry, pos: Pos) -> bool:
    """Can some corner still get three pieces of one pattern round it, from the pieces there,
    its empty squares and the pieces in hand? (Any piece there can be turned to face it.)"""
    board = pos.board
    in_hand = [sum(h[p] for h in pos.hands) for p in range(4)]
    for four in geo.corners:
        there = [0, 0, 0, 0]
        empty = 0
        for q, _ in four:
            piece = board[q]
            if piece is None:
                empty += 1
            else:
                there[piece[1] - 1] += 1
        for p in range(4):
            if there[p] + min(empty, in_hand[p]) >= 3:
                return True
    return False


def remove_possible(geo: Geometry, pos: Pos) -> bool:
    """Can anybody make a remove, now or after more pieces are added?"""
    board = pos.board
    on_board = [False] * 4
    has_empty = False
    for piece in board:
        if piece is None:
            has_empty = True
        else:
            on_board[piece[1] - 1] = True
    in_hand = [sum(h[p] for h in pos.hands) for p in range(4)]
    for seat, hand in enumerate(pos.hands):
        if pos.removes[seat] <= 0:
            continue
        for p in range(4):
            if hand[p] and (on_board[p] or (has_empty and in_hand[p] >= 2)):
                return True
    return False


def dead(geo: Geometry, pos: Pos) -> bool:
    """No circle can ever be made again (the seed's end of the game)."""
    return not remove_possible(geo, pos) and not circle_possible(geo, pos)
