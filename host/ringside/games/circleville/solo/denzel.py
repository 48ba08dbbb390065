"""Solo player Denzel (rulebook "Solo Player: Denzel"): finishing sections ahead of everyone
else's schedule. His mat (four colour columns) is data/denzel.json; the readings are in
docs/rules/circleville-solo.md ("Denzel").

State (game.state["solo"][seat]): {"columns": {colour: tiles in that column}, "acted": whether
he took an actual action this turn (not only VP), "supervisor": None while his supervisor pawn is
beside his mat, then the section it marks (where he last worked)}.
"""
from __future__ import annotations

from ringside.games import event

from ..data import COLOURS
from ..engine import _rank_values
from .framework import (LOWEST, SoloDataError, SoloPlayer, _int, completion_tiles, do_action, mine,
                        move_assistant, quadrant_of_colour, register, rondel_colour, say, score,
                        stack_top, take_stack_tile, tiles_settled, to_box, who)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game


@register
class Denzel(SoloPlayer):
    name = "denzel"
    title = "Denzel"
    her = "his"
    setup_draw = False

    @classmethod
    def validate_mat(cls, data: dict, source: str) -> dict:
        cols = data.get("columns")
        if not isinstance(cols, dict) or set(cols) != set(COLOURS):
            raise SoloDataError("%s: 'columns' must give the number of action spaces of each colour column: %s, not %r"
                                % (source, ", ".join(COLOURS), cols))
        return {"columns": {c: _int(cols, c, 1, 16, source + ": columns") for c in COLOURS},
                "level": _int(data, "action_level", 1, 5, source),
                "rondel_actions": _int(data, "rondel_actions", 0, 5, source),
                "stack_actions": _int(data, "stack_actions", 0, 5, source),
                "impossible_vp": _int(data, "impossible_vp", 0, 50, source),
                "no_stack_vp": _int(data, "no_stack_vp", 0, 50, source),
                "first_factor": _int(data, "forced_first_factor", 1, 10, source),
                "no_completion_vp": _int(data, "no_completion_vp", 0, 50, source)}

    def initial_state(self, game: Game, seat: int) -> dict:
        return {"columns": {c: 0 for c in COLOURS}, "acted": False, "supervisor": None}

    def mat_tiles(self, game: Game, seat: int) -> int:
        return sum(mine(game, seat)["columns"].values())

    # --- set-up
    def setup(self, game: Game, seat: int, colour: str) -> list:
        S = game.state
        mine(game, seat)["supervisor"] = None
        return [say(game, seat, "Denzel's set-up: his assistant starts with yours on rondel space %d; his supervisor "
                                "waits beside his solo mat, not on the board." % S["players"][seat]["assistant"])]

    # --- step 1
    def fewest(self, game: Game, seat: int) -> list:
        """The colours with the fewest tiles on his mat (all tied ones, in the usual colour order)."""
        cols = mine(game, seat)["columns"]
        low = min(cols[c] for c in COLOURS)
        return [c for c in COLOURS if cols[c] == low]

    def move_assistant(self, game: Game, seat: int) -> list[dict]:
        cols = mine(game, seat)["columns"]
        tied = self.fewest(game, seat)
        here = game.state["players"][seat]["assistant"]
        n = cols[tied[0]]
        few = ("%s is the colour he has fewest tiles of on his mat (%d)" % (tied[0], n) if len(tied) == 1 else
               "%s are tied for the fewest tiles on his mat (%d each)" % (_and(tied), n))
        for d in range(1, 8):
            k = (here + d) % 8
            top = stack_top(game, k)
            if top in tied:
                if len(tied) == 1:
                    why = "%s; the next space clockwise whose stack shows %s" % (few, top)
                else:
                    why = "%s; going clockwise, the first stack showing one of them shows %s" % (few, top)
                return move_assistant(game, seat, k, why)
        return move_assistant(game, seat, (here + 1) % 8,
                              "%s, but no stack shows %s on top, so he advances one space"
                              % (few, "that colour" if len(tied) == 1 else "any of them"))

    # --- step 2
    def take_actions(self, game: Game, seat: int) -> list:
        S = game.state
        st = mine(game, seat)
        m = self.mat
        sp = S["players"][seat]["assistant"]
        own, top = rondel_colour(game, sp), stack_top(game, sp)
        q = quadrant_of_colour(game, own)
        lvl, fail = m["level"], m["impossible_vp"]
        plan = [own] * m["rondel_actions"] + ([top] * m["stack_actions"] if top else [])
        ev = [say(game, seat, "Denzel acts in quadrant %d, the quadrant of his rondel space's printed colour (%s), "
                              "always in the lowest-numbered section available, with his structure priority (%s). "
                              "His actions, each at level %d: %s."
                  % (q, own, ", ".join(self.priority), lvl,
                     _and(["%s (the rondel space)" % own] * m["rondel_actions"]
                          + (["%s (the stack's top)" % top] * m["stack_actions"] if top else
                             ["none from the stack (there is no stack beside space %d)" % sp]))))]
        acted = False
        for i, colour in enumerate(plan):
            label = "the rondel space's colour" if i < m["rondel_actions"] else "the stack's colour"
            r = do_action(game, seat, colour, lvl, q, LOWEST, fail, label)
            ev += r["events"]
            acted = acted or not r["impossible"]
            if r["section"] is not None:
                st["supervisor"] = r["section"]   # the pawn marks where his work happens
        if not top and m["stack_actions"]:
            ev.append(say(game, seat, "There is no action tile stack beside rondel space %d: Denzel misses the "
                                      "stack's action." % sp))
            ev += score(game, seat, m["no_stack_vp"], "no stack beside his rondel space (the missed action)")
        st["acted"] = acted
        return ev

    # --- what he can still do (the end for a town that cannot be finished)
    def completes_without_cubes(self, game: Game, seat: int) -> bool:
        """A filled column forces a completion: possible while a tile can still reach him."""
        return not tiles_settled(game)

    # --- step 4
    def step4(self, game: Game, seat: int) -> list:
        S = game.state
        st = mine(game, seat)
        sp = S["players"][seat]["assistant"]
        c = take_stack_tile(game, seat)
        if c is None:
            st["acted"] = False
            return [say(game, seat, "The stack at rondel space %d is empty: Denzel takes no tile." % sp)]
        st["columns"][c] += 1
        k, room = st["columns"][c], self.mat["columns"][c]
        ev = [say(game, seat, "Denzel places the %s tile from the stack at rondel space %d in his %s column "
                              "(%d of %d)." % (c, sp, c, k, room), colour=c)]
        if k >= room:
            ev += self.forced_completion(game, seat, c)
            st["columns"][c] = 0
            for _ in range(k):
                to_box(game, c)
            ev.append(say(game, seat, "Denzel returns the %d %s tiles from his mat to the box." % (k, c)))
        st["acted"] = False
        return ev

    def forced_target(self, game: Game, seat: int) -> tuple:
        """(section or None, why in words) for the forced completion."""
        sup = mine(game, seat)["supervisor"]
        if not mine(game, seat)["acted"]:
            return None, "Denzel took no actual action this turn (he only scored VP)"
        if sup is None:
            return None, "his supervisor has not yet been on the board"
        if not game.section(sup)["done"]:
            return sup, "section %d, where his supervisor sits (where he last placed cubes)" % sup
        q = game.board["sections"][sup]["quadrant"]
        higher = [n for n in range(sup + 1, 21) if game.board["sections"][n]["quadrant"] == q and not game.section(n)["done"]]
        if not higher:
            return None, ("section %d, where his supervisor sits, is already complete and quadrant %d has no "
                          "higher-numbered unfinished section" % (sup, q))
        return higher[0], ("section %d, where his supervisor sits, is already complete, so the next higher-numbered "
                           "unfinished section of quadrant %d, section %d" % (sup, q, higher[0]))

    def forced_completion(self, game: Game, seat: int, colour: str) -> list[dict]:
        """The third tile of a colour: Denzel completes a section at once (or scores 8 VP)."""
        num, why = self.forced_target(game, seat)
        ev = [say(game, seat, "That is his %s column's last space (the third %s tile): Denzel immediately completes "
                              "a section." % (colour, colour))]
        if num is None:
            ev.append(say(game, seat, "No section to complete: %s." % why))
            return ev + score(game, seat, self.mat["no_completion_vp"], "no section for his forced completion")
        ev.append(say(game, seat, "He completes %s." % why, section=num))
        return ev + self.complete(game, seat, num)

    def complete(self, game: Game, seat: int, num: int) -> list:
        """Force section num complete: Denzel first (double the first-place value whatever his cubes),
        everyone else ranked from second place; the tiles' VP; structures still standing go to the queue
        in his order, any overflow built at once; clean-up with his cube beside the number and his marker."""
        S = game.state
        n = len(game.players)
        sec, b = game.section(num), game.board["sections"][num]
        cubes = game.section_cubes(num)
        values = _rank_values(b["score"], n, game.board["highlighted_rank"])
        ev = []
        first = values[0] * self.mat["first_factor"]
        S["players"][seat]["score"] += first
        mine_c = cubes.get(seat, (0, 0))[0]
        ev.append(say(game, seat, "Section %d is complete (forced). Denzel always takes first place here, whatever "
                                  "his cubes (%d): %d times the first-place value of %d." % (num, mine_c, self.mat["first_factor"], values[0])))
        ev.append(event("score", "%s places 1 in section %d and scores %d VP." % (who(game, seat), num, first),
                        seat=seat, vp=first))
        others = sorted((x for x in cubes if x != seat), key=lambda x: (-cubes[x][0], -cubes[x][1], (x - seat) % n))
        for rank, x in enumerate(others, 1):
            vp = values[rank] if rank < len(values) else 0
            S["players"][x]["score"] += vp
            ev.append(event("score", "%s places %d in section %d (everyone else scores from second place) "
                                     "and scores %d VP." % (who(game, x), rank + 1, num, vp), seat=x, vp=vp))
        ev += completion_tiles(game, seat, num)
        # the structures still standing there: onto the queue in his order, the overflow built at once
        standing = sorted((i["kind"] for i in sec["icons"] if not i["cubes"]), key=self.priority.index)
        sec["icons"] = [i for i in sec["icons"] if i["cubes"]]
        room = max(0, game.board["queue_slots"] - len(S["queue"]))
        queued, overflow = standing[:room], standing[room:]
        if queued:
            S["queue"].extend(queued)
            ev.append(say(game, seat, "The structure%s still standing in section %d (%s) join%s the end of the "
                                      "structures queue in Denzel's structure order (%s)."
                          % ("s" if len(queued) > 1 else "", num, _and(queued), "" if len(queued) > 1 else "s",
                             ", ".join(self.priority))))
        ev += game.clean_up_section(seat, num, seat)
        if overflow:
            ev.append(say(game, seat, "The structures queue is full, so %s ha%s nowhere to go: Denzel builds %s in "
                                      "section %d at once, with his cubes." % (
                                          _and(overflow), "ve" if len(overflow) > 1 else "s",
                                          "them" if len(overflow) > 1 else "it", num)))
            for kind in overflow:
                ev += self.build_now(game, seat, num, kind)
        return ev

    def build_now(self, game: Game, seat: int, num: int, kind: str) -> list[dict]:
        """Build an overflow structure in section num (or elsewhere in its completed large section)."""
        spots = [x for x in [num] + game.area(num) if any(p["kind"] is None for p in game.section(x)["plots"])]
        if not spots:
            return [say(game, seat, "No empty build plot is left in section %d: the %s structure leaves the game."
                        % (num, kind))]
        return game.build(seat, spots[0], kind)

    def view(self, game: Game, seat: int) -> dict:
        st = mine(game, seat)
        sup = st["supervisor"]
        return {"solo_player": self.title,
                "columns": {c: "%d/%d" % (st["columns"][c], self.mat["columns"][c]) for c in COLOURS},
                "supervisor": "beside his mat" if sup is None else "section %d" % sup}


def _and(items) -> str:
    items = [str(x) for x in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
