"""The time wheel on the 60-LED ring (host/ringside/games/circle/wheel.py)."""
import random

import pytest

from ringside import games
from ringside.games import CHANCE
from ringside.games.circle import wheel


def view_with(spies_at):
    """A view whose wheel holds spies_at = {number: [(owner, colour), ...]}."""
    return {"wheel": [{"number": k, "spies": [{"card": "c%d%d" % (k, i), "owner": o, "colour": c}
                                              for i, (o, c) in enumerate(spies_at.get(k, []))]}
                      for k in range(1, 9)]}


def test_eight_segments_of_seven_or_eight_leds_cover_the_ring_once():
    segs = [wheel._segment_leds(k, wheel.DEFAULT_LEDS) for k in range(1, 9)]
    assert sorted(i for s in segs for i in s) == list(range(60))
    assert all(len(s) in (7, 8) for s in segs)


def test_square_8_is_marked_gold_at_the_top():
    f = wheel.led_frame(view_with({}))
    gold = [i for i, c in enumerate(f) if c == wheel.GOLD]
    assert len(gold) == 2
    angles = [wheel.led_angle(i) for i in gold]
    assert all(60 <= a <= 120 for a in angles) and min(angles) < 90 < max(angles)
    assert all(c == wheel.OFF for i, c in enumerate(f) if i not in gold)


def test_spies_in_owner_colour_or_grey_in_queue_order():
    f = wheel.led_frame(view_with({3: [(None, "grey"), (1, "blue"), (0, "red")]}))
    seg = wheel._segment_leds(3, wheel.DEFAULT_LEDS)
    assert [f[i] for i in seg[1:4]] == [wheel.RGB["grey"], wheel.RGB["blue"], wheel.RGB["red"]]
    assert f[seg[0]] == wheel.OFF
    c3 = wheel.number_centre_deg(3)
    assert c3 == pytest.approx((90 - 5 * 45) % 360)


def test_a_long_queue_shows_white_on_its_last_led():
    f = wheel.led_frame(view_with({5: [(0, "red")] * 12}))
    seg = wheel._segment_leds(5, wheel.DEFAULT_LEDS)
    assert f[seg[-2]] == wheel.MORE


def test_the_turn_animation_glides_clockwise_and_ends_on_the_turned_wheel():
    g = games.new("circle", ["a", "b", "c", "d"], seed=4)
    rng = random.Random(4)
    for _ in range(300):
        s = g.to_act()[0]
        g.apply(s, g.chance_action() if s == CHANCE else rng.choice(g.legal_actions(s)))
    v = g.view()
    frames = wheel.turn_frames(v, steps=6)
    assert len(frames) == 6 and all(len(f) == 60 for f in frames)
    assert frames[-1] == wheel.led_frame(wheel.turned(v))
    assert len({tuple(f) for f in frames}) > 1
    with pytest.raises(ValueError):
        wheel.turn_frames(v, steps=0)


def test_the_engines_view_drives_the_frame():
    g = games.new("circle", ["a", "b", "c"], seed=2)
    while g.to_act() == [CHANCE] or g.state["phase"] == "agency":
        s = g.to_act()[0]
        g.apply(s, g.chance_action() if s == CHANCE else g.legal_actions(s)[0])
    cid = g.state["faceup"][0]
    g.apply(g.to_act()[0], {"type": "free_neutral", "card": cid})
    v = g.view()
    t = g.card[cid]["time"]
    assert v["wheel"][t - 1]["spies"][-1] == {"card": cid, "owner": None, "colour": "grey", "rec": None}
    f = wheel.led_frame(v)
    assert wheel.RGB["grey"] in f
