"""Computer players for Doubles. A bot is `choose(game, seat) -> action` for a player seat
after the die roll (the chance seat is the game's: game.chance_action()).

    RandomBot(seed)   a uniformly random legal action
    GreedyBot(seed)   the action that scores most now (a win first, the -10 penalty counted);
                      ties broken at random
    (greedy and strong accept every proposal to end the game by agreement, and propose it
    when they may, none of their moves scores now and the game is stuck: no circle can be
    made any more, or PROPOSE_LATE times the rounds went by: option agree_end)
    StrongBot(seed, budget_s=0.8, depth=2, sharp=0.5)
                      expectimax through the die. For each of its moves (with the die it
                      rolled): the expectation over the next player's four faces of that
                      player's reply, each reply valued by what it then leaves the bot (the
                      best it could score next turn, averaged over its four faces). The
                      opponent is modelled as taking the most points it can, defending
                      perfectly with probability `sharp`, and taking circles at the rate it
                      has shown in this game so far (followed from the log). Depth 1 (the
                      opponent's best immediate reply only) always finishes; depth 2 is kept
                      if it finishes within the per-move budget (seconds of wall time). On a
                      locked board (only turns for STALL_ACTIONS log entries) it spends a
                      remove if one is nearly as good as its best move.

The search works on rules.Pos copies (the same rules code the engine runs), never on the
game itself.
"""
from __future__ import annotations

import random
import time

from ringside.games import CHANCE, IllegalAction, possessive

from . import rules
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from ringside.games import Game
    from ringside.games.doubles.board import Geometry
    from ringside.games.doubles.rules import Pos

WIN = 1000.0          # value of a won game, in points
REMOVE_VALUE = 0.5    # a remove kept in hand is a defence for later (points, strong bot's eval)
STALL_ACTIONS = 24    # this many log entries of nothing but rolls and turns: the board is locked
STALL_MARGIN = 2.0    # a remove then wins over a quiet move worth up to this many points more
PROPOSE_LATE = 3      # with circles still possible, propose the end only after this many times agree_end


def _action(game, move) -> dict:
    kind, s, p = move
    a = {"type": kind, "square": game.geo.squares[s]}
    if kind == "add":
        a["pattern"] = p
    return a


def _check_turn(game, seat):
    if game.over or game.to_act() != [seat] or seat == CHANCE:
        raise IllegalAction("it is not %s move" % possessive(game.seat_name(seat)))


def _agreement(game, seat):
    """The end by agreement (option agree_end, docs/rules/doubles.md reading 10): a computer
    player accepts every proposal. It proposes the end when it may, no move of its own scores
    now, and the game is stuck: no circle can ever be made again (only a remove nobody will
    make keeps it going, reading 8), or the quiet run has lasted PROPOSE_LATE times the
    option's rounds (a locked board where nobody completes a circle). None when that is not
    the question."""
    if game.state["phase"] == "agree":
        return {"type": "accept_end"}
    if game.may_propose_end():
        geo, pos, die = game.geo, game.pos(), game.state["die"]
        late = game.state["quiet"] >= PROPOSE_LATE * game.options["agree_end"] * len(game.players)
        if ((late or not rules.circle_possible(geo, pos))
                and all(move_gain(geo, pos, seat, m, die)[1] <= 0 for m in rules.legal_moves(geo, pos, seat, die))):
            return {"type": "propose_end"}
    return None


class RandomBot:
    """A uniformly random legal action (for fuzzing and as the weakest opponent)."""
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int) -> dict:
        _check_turn(game, seat)
        return self.rng.choice(game.legal_actions(seat))


def move_gain(geo: Geometry, pos: Pos, mover: int, move: tuple[str, int, int], die: int) -> tuple:
    """Make `move` on a copy of pos. Returns (new pos, points gained now, ended)
    where a win counts WIN and a dead game counts +-WIN (0 for a shared win)."""
    p2 = pos.copy()
    kind, s, pat = move
    circle, covered, penalty = rules.play(geo, p2, mover, kind, s, pat, die)
    gain = (circle[2] if circle else 0) - (rules.EMPTY_BOARD_PENALTY if penalty else 0)
    if p2.scores[mover] >= rules.WIN_POINTS:
        return p2, WIN, True
    if kind != "turn" and rules.dead(geo, p2):
        return p2, gain + _final(p2, mover), True
    return p2, gain, False


def _removes_ahead(pos, me) -> int:
    """My removes left, less the most any other player has left."""
    return pos.removes[me] - max(r for i, r in enumerate(pos.removes) if i != me)


def _ended_value(pos, mover, me) -> float:
    """The value for `me` of a game that `mover`'s move just ended (pos after it)."""
    if pos.scores[mover] >= rules.WIN_POINTS:
        return WIN if mover == me else -WIN
    return _final(pos, me)


def _final(pos, me) -> float:
    mine = pos.scores[me]
    best_other = max(v for i, v in enumerate(pos.scores) if i != me)
    return WIN if mine > best_other else (-WIN if mine < best_other else 0.0)


class GreedyBot:
    """The action that gains most points now (a win above all); random among equals."""
    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int) -> dict:
        _check_turn(game, seat)
        agreed = _agreement(game, seat)
        if agreed:
            return agreed
        geo, pos, die = game.geo, game.pos(), game.state["die"]
        best, best_moves = None, []
        for m in rules.legal_moves(geo, pos, seat, die):
            _, g, _ = move_gain(geo, pos, seat, m, die)
            if best is None or g > best:
                best, best_moves = g, [m]
            elif g == best:
                best_moves.append(m)
        return _action(game, self.rng.choice(best_moves))


def _corner_gains(board, four, yellow, hand, score, on_board):
    """What the mover can score round one corner (see best_gains), per die face, or None
    if no two pieces of one pattern face it."""
    (q0, f0), (q1, f1), (q2, f2), (q3, f3) = four
    a, b, c, d = board[q0], board[q1], board[q2], board[q3]
    # the pattern of each piece that faces this corner, else 0
    pa = a[1] if a is not None and a[2] == f0 else 0
    pb = b[1] if b is not None and b[2] == f1 else 0
    pc = c[1] if c is not None and c[2] == f2 else 0
    pd = d[1] if d is not None and d[2] == f3 else 0
    if pa and (pa == pb or pa == pc or pa == pd):
        pat = pa
    elif pb and (pb == pc or pb == pd):
        pat = pb
    elif pc and pc == pd:
        pat = pc
    else:
        return None
    facing = (pa, pb, pc, pd)
    pair_yellow = any(yellow[q] for (q, _), p in zip(four, facing, strict=True) if p == pat)
    out = None
    for (q, f), p in zip(four, facing, strict=True):
        if p == pat:
            continue
        piece = board[q]
        if piece is None:
            if not hand[pat - 1]:
                continue
            die = f if f else 4                    # add_facing(die) == f
            left = on_board + 1 - 3
        elif piece[1] == pat:
            die = (f - piece[2]) % 4               # 1-3: it does not face here yet
            left = on_board - 3
        else:
            continue
        pts = 3 * pat * (2 if pair_yellow or yellow[q] else 1)
        if left == 0:
            pts -= rules.EMPTY_BOARD_PENALTY
        if score + pts >= rules.WIN_POINTS:
            pts = WIN
        if out is None:
            out = [0.0, 0.0, 0.0, 0.0]
        if pts > out[die - 1]:
            out[die - 1] = pts
    return out


def best_gains(geo: Geometry, pos: Pos, mover: int) -> list:
    """The most `mover` can score with one move, for each die face 1-4 (index 0-3): a circle
    completed by an add or a turn, less the penalty if it empties the board, WIN if it
    reaches 25. Found from the corners where two pieces of one pattern already face."""
    board = pos.board
    hand = pos.hands[mover]
    score = pos.scores[mover]
    on_board = sum(1 for x in board if x is not None)
    out = [0.0, 0.0, 0.0, 0.0]
    for four in geo.corners:
        g = _corner_gains(board, four, geo.yellow, hand, score, on_board)
        if g is not None:
            out = [x if x > y else y for x, y in zip(out, g, strict=True)]
    return out


def _quiet_actions(log) -> int:
    """How many of the last log entries were only rolls, turns and timeouts."""
    n = 0
    for _, a in reversed(log):
        if a["type"] not in ("roll", "turn", "timeout"):
            break
        n += 1
    return n


class _OutOfTime(Exception):
    pass


class StrongBot:
    """Expectimax through the die within a per-move time budget (see the module docstring)."""
    name = "strong"

    def __init__(self, seed: int = 0, budget_s: float = 0.8, depth: int = 2, sharp: float = 0.5):
        self.rng = random.Random(seed)
        self.sharp = float(sharp)
        self.budget_s = float(budget_s)
        self.depth = int(depth)
        self.last = {}     # statistics of the last choice: depth reached, moves, time
        self._watch = None
        self.p_take = 1.0  # the modelled opponent's chance of taking a circle it can take

    # --- the opponents, as seen so far in this game ---
    def _observe(self, game, me):
        """Follow the game's log since the last call on a private copy of the position, and
        count, for each other player, the turns where they could score a circle and the
        turns they did. Returns {seat: (taken, could)}."""
        w = self._watch
        log = game.log
        if (w is None or w["game"] != id(game) or w["n"] > len(log)
                or w["prefix"] != (log[w["n"] - 1] if w["n"] else None)):
            w = {"game": id(game), "n": 0, "prefix": None, "die": None, "stats": {}, "ok": True,
                 "pos": rules.new_pos(game.geo, len(game.players), game.layout["hand"])}
            self._watch = w
        geo = game.geo
        pos = w["pos"]
        for seat, a in log[w["n"]:]:
            t = a["type"]
            if t == "roll":
                w["die"] = a["value"]
            elif t in ("add", "turn", "remove") and w["ok"]:
                m = (t, geo.index[a["square"]], a.get("pattern", 0))
                if rules.check_move(geo, pos, seat, *m):
                    w["ok"] = False          # the position was set some other way: stop counting
                    continue
                could = seat != me and max(best_gains(geo, pos, seat)[w["die"] - 1], 0) > 0
                circle, _, _ = rules.play(geo, pos, seat, *m, w["die"])
                if could:
                    taken, n = w["stats"].get(seat, (0, 0))
                    w["stats"][seat] = (taken + (circle is not None), n + 1)
        w["n"] = len(log)
        w["prefix"] = log[-1] if log else None
        if w["ok"] and pos.board != game.state["board"]:
            w["ok"] = False
        return w["stats"]

    def _take_rate(self, stats, opp) -> float:
        """The chance that `opp` takes a circle it can take: 1 at first (a sharp opponent),
        learned from its turns (Laplace-style prior of 4 takes in 4)."""
        taken, could = stats.get(opp, (0, 0))
        return (taken + 4.0) / (could + 4.0)

    # leaf: the position after a move, `nxt` to roll next
    def _leaf(self, geo, pos, me, nxt) -> float:
        """Static value for `me`: the next mover's expected best immediate gain counts for
        them (against me if they are someone else), plus kept removes."""
        g = sum(best_gains(geo, pos, nxt)) / 4.0
        return (g if nxt == me else -g) + REMOVE_VALUE * _removes_ahead(pos, me)

    def _reply_value(self, geo, pos, me, opp, deadline) -> float:
        """Expected value for `me` after the opponent `opp` rolls and moves.

        The opponent chooses by its own values (its gain, less what the player after it may
        take); `me` counts every other player's gain against itself. The opponent is modelled
        as taking the most points it can now, and with probability `sharp` also picking, among
        those, the reply best for itself (a perfect defender when there are two players);
        otherwise any of them (the defence it may miss). With probability 1 - p_take (learned
        from its play in this game, see _observe) it plays any legal move instead.

        A reply that only sets a piece down or turns it (no circle, no remove) changes the
        corners round one square: those are recomputed, the rest reused (exact once four or
        more pieces are on the board, when the empty-board penalty cannot arise next turn;
        such a reply's chance of ending a dead game is not looked at)."""
        n = len(pos.scores)
        nxt = (opp + 1) % n
        board = pos.board
        corners = geo.corners
        yellow = geo.yellow
        corner_of = geo.corner_of
        square_corners = geo.square_corners
        on_board = sum(1 for x in board if x is not None)
        fast = on_board >= 4
        if fast:
            hand_n, score_n = pos.hands[nxt], pos.scores[nxt]
            quiet_opp = REMOVE_VALUE * _removes_ahead(pos, opp)
            quiet_me = REMOVE_VALUE * _removes_ahead(pos, me)
            vecs = [_corner_gains(board, four, yellow, hand_n, score_n, on_board) for four in corners]
            excl = {}
        total = 0.0
        count = 0
        for die in rules.DIE_FACES:
            best_g = None
            best = []             # (value for opp, value for me) of the replies that gain most
            all_me = 0.0
            moves = rules.legal_moves(geo, pos, opp, die)
            for m in moves:
                count += 1
                if count & 15 == 0 and time.perf_counter() > deadline:
                    raise _OutOfTime
                kind, s, pat = m
                quiet = False
                if fast and kind != "remove":
                    old = board[s]
                    if kind == "add":
                        piece = [opp, pat, rules.add_facing(die)]
                    else:
                        piece = [old[0], old[1], rules.turn_facing(old[2], die)]
                    k = corner_of[s][piece[2]]
                    quiet = True
                    if k >= 0:
                        same = 0
                        for q, f in corners[k]:
                            o = board[q]
                            if q != s and o is not None and o[1] == piece[1] and o[2] == f:
                                same += 1
                        quiet = same < 2
                if quiet:
                    ex = excl.get(s)
                    if ex is None:
                        ex = [0.0, 0.0, 0.0, 0.0]
                        touch = square_corners[s]
                        for ki, vec in enumerate(vecs):
                            if vec is not None and ki not in touch:
                                ex = [x if x > y else y for x, y in zip(ex, vec, strict=True)]
                        excl[s] = ex
                    board[s] = piece
                    tot = ex
                    for ki in square_corners[s]:
                        vec = _corner_gains(board, corners[ki], yellow, hand_n, score_n, on_board)
                        if vec is not None:
                            tot = [x if x > y else y for x, y in zip(tot, vec, strict=True)]
                    board[s] = old
                    t = sum(tot) / 4.0
                    g = 0
                    v_opp = -t + quiet_opp
                    v_me = (t if nxt == me else -t) + quiet_me
                else:
                    p2, g, ended = move_gain(geo, pos, opp, m, die)
                    if ended:
                        v_opp = g
                        v_me = _ended_value(p2, opp, me)
                    else:
                        t = sum(best_gains(geo, p2, nxt)) / 4.0
                        v_opp = g - t + REMOVE_VALUE * _removes_ahead(p2, opp)
                        v_me = -g + (t if nxt == me else -t) + REMOVE_VALUE * _removes_ahead(p2, me)
                all_me += v_me
                if best_g is None or g > best_g:
                    best_g, best = g, [(v_opp, v_me)]
                elif g == best_g:
                    best.append((v_opp, v_me))
            top = max(v for v, _ in best)
            chosen = [vm for v, vm in best if v >= top - 1e-9]
            taking = (self.sharp * sum(chosen) / len(chosen)
                      + (1.0 - self.sharp) * sum(vm for _, vm in best) / len(best))
            total += self.p_take * taking + (1.0 - self.p_take) * all_me / len(moves)
        return total / 4.0

    def choose(self, game: Game, seat: int) -> dict:
        _check_turn(game, seat)
        agreed = _agreement(game, seat)
        if agreed:
            self.last = {"depth": 0, "out_of_time": False, "moves": 0, "ms": 0.0}
            return agreed
        t0 = time.perf_counter()
        deadline = t0 + self.budget_s
        geo, pos, die = game.geo, game.pos(), game.state["die"]
        n = len(game.players)
        opp = (seat + 1) % n
        self.p_take = self._take_rate(self._observe(game, seat), opp)
        moves = rules.legal_moves(geo, pos, seat, die)
        # depth 1: my gain and the next mover's expected best immediate reply
        first = []
        for m in moves:
            p2, g, ended = move_gain(geo, pos, seat, m, die)
            if ended and g >= WIN:
                self.last = {"depth": 0, "out_of_time": False, "moves": len(moves),
                             "ms": (time.perf_counter() - t0) * 1000}
                return _action(game, m)
            v = g if ended else g + self._leaf(geo, p2, seat, opp)
            first.append((v, m, p2, g, ended))
        values = {m: v for v, m, _, _, _ in first}
        reached = 1
        if self.depth >= 2:
            first.sort(key=lambda t: -t[0])
            deeper = {}
            try:
                for _v, m, p2, g, ended in first:
                    deeper[m] = g if ended else g + self._reply_value(geo, p2, seat, opp, deadline)
                values = deeper
                reached = 2
            except _OutOfTime:
                pass
        top = max(values.values())
        best = [m for m in moves if values[m] >= top - 1e-9]
        if _quiet_actions(game.log) >= STALL_ACTIONS:
            # a locked board where only turns happen: a remove (within STALL_MARGIN of the best
            # move) frees a square, to make new chances, or spends a remove that keeps a won
            # game from ending
            removes = [m for m in moves if m[0] == "remove" and values[m] >= top - STALL_MARGIN]
            if removes:
                top = max(values[m] for m in removes)
                best = [m for m in removes if values[m] >= top - 1e-9]
        self.last = {"depth": reached, "out_of_time": reached < self.depth, "moves": len(moves),
                     "ms": (time.perf_counter() - t0) * 1000}
        return _action(game, self.rng.choice(best))


def play_game(bots: list, seed: int, players: list[str] | None = None, options: dict | None = None, max_actions: int = 20000,
              stall_actions: int | None = None) -> Game:
    """Play one game of Doubles with a bot per seat (chance from the game's seeded RNG).
    Returns the game; it is unfinished if max_actions ran out, or if `stall_actions` actions
    in a row were only turns and rolls (nothing added, removed or scored). It plays the
    seed's rules: the end by agreement is off unless `options` turn it on ("agree_end")."""
    import ringside.games as games
    names = players or ["P%d" % (i + 1) for i in range(len(bots))]
    opts = {"computer": list(range(len(bots))), "agree_end": None}
    opts.update(options or {})
    game = games.new("doubles", names, seed=seed, options=opts)
    n = 0
    quiet = 0
    while not game.over and n < max_actions:
        seat = game.to_act()[0]
        if seat == CHANCE:
            events = game.apply(seat, game.chance_action())
        else:
            events = game.apply(seat, bots[seat].choose(game, seat))
        n += 1
        quiet = quiet + 1 if all(e["type"] in ("roll", "turn", "turn_start") for e in events) else 0
        if stall_actions is not None and quiet >= stall_actions:
            break
    return game


BOTS = {"random": RandomBot, "greedy": GreedyBot, "strong": StrongBot}


def make(name: str, seed: int = 0, **kw: Any) -> RandomBot | GreedyBot | StrongBot:
    """A bot by name: random, greedy or strong."""
    if name not in BOTS:
        raise ValueError("no Doubles bot called %r (there are: %s)" % (name, ", ".join(BOTS)))
    return BOTS[name](seed, **kw)


# ----- the levels of the table contract (ringside.bots): weakest first --------------------
# Measured with `ringside bench bots doubles` (docs/table-contract.md): greedy-half-the-time
# against greedy ended mostly 0-0 (the board dies with nothing scored); so did the search cut
# to one ply (it only blocks), and so did a search on a short clock on a busy machine (it falls
# back to one ply). Good is the two-ply search given time to finish: it scores against a
# beginner, and with the same seed it plays the same moves on any machine.
EASY_CARE = 0.3       # easy sees the greedy (most points now) move 3 times in 10, else any legal move
GOOD_BUDGET_S = 10.0  # good: the strong search with a clock it does not reach in play (a cap only)


def _levels():
    from ringside import bots as B
    return {
        "random": lambda seed=0: B.Wrapped("random", RandomBot(seed), seed),
        "easy": lambda seed=0: B.Sloppy("easy", B.Wrapped("greedy", GreedyBot(seed), seed), EASY_CARE, seed),
        "good": lambda seed=0: B.Wrapped("good", StrongBot(seed, budget_s=GOOD_BUDGET_S), seed),
        "strong": lambda seed=0: B.Wrapped("strong", StrongBot(seed), seed),
    }


LEVELS = _levels()
