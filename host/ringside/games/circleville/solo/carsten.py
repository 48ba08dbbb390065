"""Solo player Carsten (rulebook "Solo Player: Carsten"): collects equipment tiles whether or not
he ever uses them. His mat (the solo action rondel) is data/carsten.json; the readings are in
docs/rules/circleville-solo.md.

State (game.state["solo"][seat]): {"space": 0-3 (his supervisor on his solo action rondel),
"tiles": the action tile colour beside each space or None}.
"""
from __future__ import annotations

from ringside.games import event

from ..data import COLOURS
from .framework import (FINISHING, LOWEST, SoloDataError, SoloPlayer, _int, check_spaces, do_action,
                        mine, move_assistant, next_step, register, rondel_colour, say, score, stack_top,
                        tile_beside_supervisor, tiles_settled)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game


@register
class Carsten(SoloPlayer):
    name = "carsten"
    title = "Carsten"
    her = "his"
    setup_draw = True

    @classmethod
    def validate_mat(cls, data: dict, source: str) -> dict:
        rondel = check_spaces(data, "rondel", source)
        pv = data.get("pair_vp")
        if not isinstance(pv, dict) or set(pv) != set(COLOURS):
            raise SoloDataError("%s: 'pair_vp' must give the VP of each pair: %s" % (source, ", ".join(COLOURS)))
        return {"rondel": rondel, "level": _int(data, "action_level", 1, 5, source),
                "impossible_vp": _int(data, "impossible_vp", 0, 50, source),
                "no_stack_vp": _int(data, "no_stack_vp", 0, 50, source),
                "pair_vp": {c: _int(pv, c, 0, 50, source + ": pair_vp") for c in COLOURS},
                "triple_vp": _int(data, "triple_vp", 0, 50, source)}

    def initial_state(self, game: Game, seat: int) -> dict:
        return {"space": 0, "tiles": [None] * len(self.mat["rondel"])}

    def colour_at(self, game: Game, seat: int, i: int) -> str:
        t = mine(game, seat)["tiles"][i]
        return t or self.mat["rondel"][i]["colour"]

    # --- set-up
    def setup(self, game: Game, seat: int, colour: str) -> list:
        st = mine(game, seat)
        i = next(k for k, s in enumerate(self.mat["rondel"]) if s["colour"] == colour)
        st["space"] = i
        return [say(game, seat, "Carsten's set-up: the drawn tile is %s, so his supervisor starts on the %s quadrant "
                                "icon of his solo action rondel (space %d, quadrant %d); his assistant starts with "
                                "yours on rondel space %d."
                    % (colour, colour, i + 1, self.mat["rondel"][i]["quadrant"],
                       game.state["players"][seat]["assistant"]))]

    # --- step 1
    def move_assistant(self, game: Game, seat: int) -> list[dict]:
        here = game.state["players"][seat]["assistant"]
        return move_assistant(game, seat, (here + 1) % 8, "Carsten's assistant always advances one space")

    # --- step 2
    def take_actions(self, game: Game, seat: int) -> list[dict]:
        S = game.state
        st = mine(game, seat)
        m = self.mat
        q = m["rondel"][st["space"]]["quadrant"]
        sp = S["players"][seat]["assistant"]
        a, b, c = rondel_colour(game, sp), stack_top(game, sp), self.colour_at(game, seat, st["space"])
        lvl, fail = m["level"], m["impossible_vp"]

        def level1(colour, label):
            return do_action(game, seat, colour, lvl, q, LOWEST, fail, label)["events"]

        head = ("Carsten acts in quadrant %d, the quadrant outlined by his supervisor's space %d, always in the "
                "lowest-numbered section available there. His three colours: rondel space %s, stack %s, his mat %s"
                % (q, st["space"] + 1, a, b or "none (no stack)", c))
        if b is None:
            ev = [say(game, seat, head + ".")]
            ev.append(say(game, seat, "There is no action tile stack beside rondel space %d: the stack's action is "
                                      "missed." % sp))
            ev += score(game, seat, m["no_stack_vp"], "no stack beside his rondel space (the missed action)")
            if a != c:
                ev.append(say(game, seat, "The two colours left differ: a level %d %s action, then %s." % (lvl, a, c)))
                return ev + level1(a, "the rondel space's colour") + level1(c, "his mat's colour")
            ev.append(say(game, seat, "The two colours left match (two %s)." % a))
            return ev + self.pair(game, seat, a, q)
        cols = [a, b, c]
        if len(set(cols)) == 3:
            ev = [say(game, seat, head + ": all three differ, so three level %d actions in that order, 1 VP for any "
                                         "that cannot be done at all." % lvl)]
            return (ev + level1(a, "the rondel space's colour") + level1(b, "the stack's colour")
                    + level1(c, "his mat's colour"))
        if len(set(cols)) == 1:
            ev = [say(game, seat, head + ": all three match, so he removes the lowest-numbered %s achievement "
                                         "tile from the achievements table." % a)]
            return ev + self.triple(game, seat, a)
        odd = next(x for x in cols if cols.count(x) == 1)
        pair = next(x for x in cols if cols.count(x) == 2)
        ev = [say(game, seat, head + ": two %s and one %s, so first the odd colour out, %s, as a level %d action, "
                                     "then the %s pair." % (pair, odd, odd, lvl, pair))]
        return ev + level1(odd, "the odd colour out") + self.pair(game, seat, pair, q)

    def pair(self, game: Game, seat: int, colour: str, q: int) -> list[dict]:
        """The matching pair's special action."""
        S = game.state
        st = mine(game, seat)
        m = self.mat
        vp = m["pair_vp"][colour]
        if colour == "red":
            held = [t["id"] for t in S["players"][seat]["tiles"] if t["kind"] == "equipment"]
            if len(held) >= game.board["tile_slots"]:
                ev = [say(game, seat, "Two red: Carsten already holds %d equipment tiles, so he takes none."
                          % len(held))]
            elif not S["equipment"]:
                ev = [say(game, seat, "Two red: no equipment tile is left unclaimed, so he takes none.")]
            else:
                tid = min(S["equipment"])
                ev = [say(game, seat, "Two red: the alternate level 2 action, the lowest-numbered unclaimed equipment "
                                      "tile, %d (he never uses it)." % tid)]
                ev += game.take_tile(seat, "equipment", tid, None)
            return ev + score(game, seat, vp, "the red pair")
        if colour in ("blue", "orange"):
            kind = "improve" if colour == "blue" else "beautify"
            return do_action(game, seat, kind, 1, q, LOWEST, vp, "the %s pair" % colour)["events"]
        n = len(m["rondel"])
        st["space"] = (st["space"] + 1) % n
        ev = [say(game, seat, "Two green: Carsten's supervisor advances one space on his solo action rondel, to "
                              "space %d (quadrant %d)." % (st["space"] + 1, m["rondel"][st["space"]]["quadrant"]))]
        return ev + score(game, seat, vp, "the green pair")

    def triple(self, game: Game, seat: int, colour: str) -> list[dict]:
        S = game.state
        on_table = sorted(t for row in S["table"].values() for t in row if game.tiles["achievements"][t]["colour"] == colour)
        if not on_table:
            return [say(game, seat, "No %s achievement tile is left on the achievements table." % colour)] + score(
                game, seat, self.mat["triple_vp"], "three matching colours and no %s achievement tile left" % colour)
        tid = on_table[0]
        for row in S["table"].values():
            if tid in row:
                row.remove(tid)
        return [event("solo", "Carsten returns achievement tile %d (%s), the lowest-numbered %s one on the table, "
                              "to the box." % (tid, colour, colour), seat=seat, tile=tid)]

    # --- what he can still do (the end for a town that cannot be finished)
    def placeable_colours(self, game: Game, seat: int) -> set:
        """While tiles can still come, any colour may still turn up. Once every stack, the
        upcoming stack and the bag are empty (framework.tiles_settled) his turns are fixed: his
        assistant advances one space, there is never a stack (so the missed action, then his two
        colours left: two level 1 actions, or their pair), and his supervisor advances one space,
        two after a green pair. Follow his assistant and supervisor round until a turn repeats and
        collect the level 1 actions he takes (a red pair takes equipment, not a road cube)."""
        if not tiles_settled(game):
            return set(FINISHING)
        S = game.state
        spaces, m = len(S["stacks"]), len(self.mat["rondel"])
        pos, space, step = S["players"][seat]["assistant"], mine(game, seat)["space"], next_step(game, seat)
        seen, out = set(), set()
        while (pos, space, step) not in seen:
            seen.add((pos, space, step))
            if step == 1:
                pos, step = (pos + 1) % spaces, 2
            elif step == 2:
                a, c = rondel_colour(game, pos), self.colour_at(game, seat, space)
                if a != c:
                    out |= {a, c}
                elif a == "green":
                    space = (space + 1) % m
                step = 4
            else:
                space, step = (space + 1) % m, 1
        return out & set(FINISHING)

    # --- step 4
    def step4(self, game: Game, seat: int) -> list[dict]:
        st = mine(game, seat)
        m = self.mat
        i = st["space"]
        ev = tile_beside_supervisor(game, seat, "beside his supervisor")
        st["space"] = (i + 1) % len(m["rondel"])
        ev.append(say(game, seat, "His supervisor advances one space clockwise on his solo action rondel, to space "
                                  "%d (quadrant %d)." % (st["space"] + 1, m["rondel"][st["space"]]["quadrant"])))
        return ev

    def view(self, game: Game, seat: int) -> dict:
        st = mine(game, seat)
        return {"solo_player": self.title, "supervisor_space": st["space"] + 1,
                "quadrant": self.mat["rondel"][st["space"]]["quadrant"],
                "action_spaces": [self.colour_at(game, seat, i) + ("" if st["tiles"][i] else " (printed)")
                                  for i in range(len(st["tiles"]))],
                "equipment": [t["id"] for t in game.state["players"][seat]["tiles"] if t["kind"] == "equipment"]}
