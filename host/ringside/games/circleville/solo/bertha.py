"""Solo player Bertha (rulebook "Solo Player: Bertha"): beautifying finished sections and
improving newly built structures. Her mat is data/bertha.json; the readings are in
docs/rules/circleville-solo.md.

State (game.state["solo"][seat]): {"space": 0-3 (her supervisor on her track), "tiles": the
action tile colour beside each track space or None, "extra": 0-3 (the white extra-action
marker, beside that action space)}.
"""
from __future__ import annotations

from .framework import (HIGHEST, SoloDataError, SoloPlayer, _int, check_spaces, do_action, mine,
                        move_assistant, register, rondel_colour, say, score, stack_top,
                        tile_beside_supervisor)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game


@register
class Bertha(SoloPlayer):
    name = "bertha"
    title = "Bertha"
    her = "her"
    setup_draw = True

    @classmethod
    def validate_mat(cls, data: dict, source: str) -> dict:
        track = check_spaces(data, "track", source)
        ex = data.get("extra_track")
        if not isinstance(ex, dict):
            raise SoloDataError("%s: 'extra_track' must be an object with its start space" % source)
        return {"track": track, "extra_start": _int(ex, "start", 0, len(track) - 1, source + ": extra_track"),
                "level": _int(data, "action_level", 1, 5, source),
                "impossible_vp": _int(data, "impossible_vp", 0, 50, source),
                "no_stack_vp": _int(data, "no_stack_vp", 0, 50, source),
                "extra_fail_vp": _int(data, "extra_action_fail_vp", 0, 50, source)}

    def initial_state(self, game: Game, seat: int) -> dict:
        return {"space": 0, "tiles": [None] * len(self.mat["track"]), "extra": self.mat["extra_start"]}

    # --- the mat
    def colour_at(self, game: Game, seat: int, i: int) -> str:
        """The colour of action space i: its tile, or the printed colour while it has none."""
        t = mine(game, seat)["tiles"][i]
        return t or self.mat["track"][i]["colour"]

    def quadrant_of(self, colour: str) -> int:
        """The quadrant of the mat's quadrant icon in that colour."""
        return next(s["quadrant"] for s in self.mat["track"] if s["colour"] == colour)

    # --- set-up
    def setup(self, game: Game, seat: int, colour: str) -> list:
        st = mine(game, seat)
        i = next(k for k, s in enumerate(self.mat["track"]) if s["colour"] == colour)
        st["space"] = i
        st["extra"] = self.mat["extra_start"]
        return [say(game, seat, "Bertha's set-up: the drawn tile is %s, so her supervisor starts on the %s quadrant "
                                "icon of her mat (space %d, quadrant %d). The white cube goes on the topmost space "
                                "of her extra action track; her assistant starts with yours on rondel space %d."
                    % (colour, colour, i + 1, self.mat["track"][i]["quadrant"],
                       game.state["players"][seat]["assistant"]))]

    # --- step 1
    def move_assistant(self, game: Game, seat: int) -> list[dict]:
        S = game.state
        st = mine(game, seat)
        c = self.colour_at(game, seat, st["space"])
        here = S["players"][seat]["assistant"]
        for d in range(1, 8):
            k = (here + d) % 8
            if stack_top(game, k) == c:
                return move_assistant(game, seat, k, "the next space clockwise whose stack shows %s, the colour "
                                                     "beside her supervisor" % c)
        return move_assistant(game, seat, (here + 1) % 8, "no stack shows %s, the colour beside her supervisor, "
                                                           "so she advances one space" % c)

    # --- step 2
    def take_actions(self, game: Game, seat: int) -> list:
        S = game.state
        st = mine(game, seat)
        m = self.mat
        q = m["track"][st["space"]]["quadrant"]
        sp = S["players"][seat]["assistant"]
        first, second = rondel_colour(game, sp), stack_top(game, sp)
        ev = [say(game, seat, "Bertha acts in quadrant %d, the quadrant outlined on her supervisor's space %d, "
                              "always in the highest-numbered section available there: first %s (her rondel "
                              "space), then %s, both at level %d."
                  % (q, st["space"] + 1, first, second or "nothing (no stack beside the space)", m["level"]))]
        ev += do_action(game, seat, first, m["level"], q, HIGHEST, m["impossible_vp"], "first action")["events"]
        if second is None:
            ev.append(say(game, seat, "There is no action tile stack beside rondel space %d: Bertha misses her "
                                      "second action." % sp))
            ev += score(game, seat, m["no_stack_vp"], "no stack beside her rondel space (the missed action)")
        else:
            ev += do_action(game, seat, second, m["level"], q, HIGHEST, m["impossible_vp"], "second action")["events"]
        return ev

    # --- step 4
    def step4(self, game: Game, seat: int) -> list[dict]:
        st = mine(game, seat)
        m = self.mat
        i = st["space"]
        ev = tile_beside_supervisor(game, seat, "in the action space beside her supervisor")
        n = len(m["track"])
        if i + 1 < n:
            st["space"] = i + 1
            ev.append(say(game, seat, "Her supervisor advances to space %d (quadrant %d)."
                          % (i + 2, m["track"][i + 1]["quadrant"])))
            return ev
        # off the fourth space: the two extra actions, then the marker advances, the track restarts
        x = st["extra"]
        mark = self.colour_at(game, seat, x)
        q = self.quadrant_of(mark)
        ev.append(say(game, seat, "Her supervisor leaves the fourth space: Bertha takes two extra actions, Improve "
                                  "a Structure and Beautify a Completed Section, in quadrant %d, marked by the %s "
                                  "tile beside the white extra-action marker (space %d)." % (q, mark, x + 1)))
        for kind in ("improve", "beautify"):
            ev += do_action(game, seat, kind, 1, q, HIGHEST, m["extra_fail_vp"], "extra action")["events"]
        st["extra"] = (x + 1) % n
        st["space"] = 0
        ev.append(say(game, seat, "The white marker advances to space %d and her supervisor restarts on space 1 "
                                  "(quadrant %d)." % (st["extra"] + 1, m["track"][0]["quadrant"])))
        return ev

    def view(self, game: Game, seat: int) -> dict:
        st = mine(game, seat)
        return {"solo_player": self.title, "supervisor_space": st["space"] + 1,
                "quadrant": self.mat["track"][st["space"]]["quadrant"],
                "action_spaces": [self.colour_at(game, seat, i) + ("" if st["tiles"][i] else " (printed)")
                                  for i in range(len(st["tiles"]))],
                "extra_marker": st["extra"] + 1}

