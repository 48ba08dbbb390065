"""Darts, wave 2 (issue 16): "The ball must at least reach the opposing space" is stated once
(engine._reaches_opposing) and holds both for the actions a seat is offered and for the turn
it plays. docs/rules/darts.md reading 6, rule 17."""
import copy

from ringside.games import circles_common as cc

from test_darts import started


def _result(g, seat, action):
    """What the action does, applied to a copy: ("placed", space), ("short",) or ("off",)."""
    h = copy.deepcopy(g)
    ev = h.apply(seat, action)
    if ev[0]["type"] == "invalid":
        return ("off",) if "left the ring" in ev[0]["text"] else ("short",)
    placed = [sid for sid in h.side.ids if h.state["board"][sid] != g.state["board"][sid]]
    return ("placed", placed[0])


def test_the_offered_flicks_are_exactly_the_opposing_space_rule():
    g = started(2)
    for origin in ("7", "20", "3"):
        g.state["marble"] = origin
        seat = g.to_act()[0]
        acts = g.legal_actions(seat)
        results = [_result(g, seat, x) for x in acts]
        # one action per distinct outcome, and every space can be hit by a long enough flick
        assert len(set(results)) == len(results)
        assert {r[1] for r in results if r[0] == "placed"} == set(g.side.ids)
        assert ("short",) in results and ("off",) in results
        for x, r in zip(acts, results, strict=True):
            if x["type"] != "landed":
                continue
            steps = cc.read_flick(g.side, origin, x).steps
            # placed exactly when the flick moved at least half the ring (10 of 20 spaces)
            assert (r[0] == "placed") == (steps >= g.side.n // 2), (origin, x, r, steps)


def test_nine_spaces_is_short_and_ten_reach_the_opposing_space():
    g = started(2)
    for k, ok in ((9, False), (10, True)):
        h = copy.deepcopy(g)
        sid = h.side.step("7", cc.CCW, k)
        r = _result(h, 0, {"type": "landed", "space": sid, "travel": h.side.travel_to("7", sid, cc.CCW)})
        assert (r == ("placed", sid)) is ok
        sid = h.side.step("7", cc.CW, k)
        r = _result(h, 0, {"type": "landed", "space": sid, "travel": h.side.travel_to("7", sid, cc.CW)})
        assert (r == ("placed", sid)) is ok
