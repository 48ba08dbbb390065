"""What the host link remembers for a board that comes back (ringside.link.scene)."""
from ringside.link.scene import Scene


def test_nothing_set_means_nothing_sent():
    assert Scene().commands(0.0) == []


def test_restore_order_side_first_then_scene_timer_and_arm():
    s = Scene()
    s.record("paint", {"c": "red", "sp": "7"}, 0.0)      # on the old side: forgotten by side
    s.record("side", {"name": "wildwest"}, 0.0)
    s.record("bright", {"v": 100}, 0.0)
    s.record("fx", {"trail": 0}, 0.0)
    s.record("fx", {"flash": 0}, 0.0)
    s.record("paint", {"c": "ffc000", "label": "Gold"}, 0.0)
    s.record("paint", {"c": "blue", "sp": "bank-1"}, 0.0)
    s.record("paint", {"c": "green", "label": "Gold"}, 0.0)  # replaces the first Gold, now last
    s.record("player", {"c": "green", "w": 3}, 0.0)
    s.record("arm", {"dir": "ccw", "min": 18000}, 0.0)
    s.record("timer_start", {"ms": 30000, "c": "white"}, 10.0)
    kinds = s.commands(12.5)
    assert kinds == [
        ("side", {"name": "wildwest"}), ("clear", {}), ("bright", {"v": 100}),
        ("fx", {"trail": 0, "flash": 0}),
        ("paint", {"c": "blue", "sp": "bank-1"}), ("paint", {"c": "green", "label": "Gold"}),
        ("player", {"c": "green", "w": 3}),
        ("timer_start", {"ms": 27500, "total": 30000, "c": "white"}),
        ("arm", {"dir": "ccw", "min": 18000}),
    ]


def test_clear_forgets_paints_and_player_but_not_the_timer():
    s = Scene()
    s.record("paint", {"c": "red", "all": 1}, 0.0)
    s.record("player", {"c": "red"}, 0.0)
    s.record("timer_start", {"s": 10}, 0.0)
    s.record("clear", {}, 0.0)
    assert [k for k, _ in s.commands(1.0)] == ["clear", "timer_start"]


def test_timer_follows_pause_resume_heartbeats_and_expiry():
    s = Scene()
    s.record("timer_start", {"ms": 10000, "c": "green"}, 100.0)
    assert s.timer_left_ms(102.0) == 8000
    s.record("timer_pause", {}, 103.0)
    assert s.timer_left_ms(150.0) == 7000
    assert s.commands(150.0)[-1] == ("timer_start", {"ms": 7000, "total": 10000, "c": "green",
                                                     "paused": 1})
    s.record("timer_resume", {}, 200.0)
    assert s.timer_left_ms(201.0) == 6000
    s.on_event("hb", {"tmr": 5400}, 201.5)  # the board's own count wins
    assert s.timer_left_ms(202.0) == 4900
    s.on_event("timer_expired", {"total": 10000}, 206.0)
    assert s.timer_left_ms(300.0) == 0
    assert s.commands(300.0)[-1] == ("timer_start", {"ms": 0, "total": 10000, "c": "green"})
    s.record("timer_cancel", {}, 301.0)
    assert s.timer is None and s.commands(302.0) == []


def test_a_timer_restored_while_running_out_keeps_counting_real_time():
    s = Scene()
    s.record("timer_start", {"s": 3, "c": "red", "show": 0}, 0.0)
    assert s.commands(2.0)[-1] == ("timer_start", {"ms": 1000, "total": 3000, "c": "red",
                                                   "show": 0})
    assert s.commands(5.0)[-1][1]["ms"] == 0


def test_a_verdict_disarms():
    s = Scene()
    s.record("arm", {"dir": "any", "min": 0}, 0.0)
    s.on_event("verdict", {"ok": 1}, 1.0)
    assert s.arm is None and s.empty()


def test_px_pictures_are_part_of_the_scene_as_few_runs():
    s = Scene()
    s.record("px", {"i": 58, "n": 4, "c": "ff0000"}, 0.0)          # wraps: 58 59 0 1
    s.record("px", {"i": 10, "n": 3, "c": "00ff00", "pulse": 1}, 0.0)
    s.record("px", {"i": 11, "c": "off"}, 0.0)                      # unpaints one
    s.record("px", {"i": 20, "c": "000000"}, 0.0)                   # black unpaints too
    s.record("side", {"name": "darts"}, 0.0)                        # a side keeps them
    assert s.commands(1.0) == [
        ("side", {"name": "darts"}), ("clear", {}),
        ("px", {"i": 0, "n": 2, "c": "ff0000"}),
        ("px", {"i": 10, "n": 1, "c": "00ff00", "pulse": 1}),
        ("px", {"i": 12, "n": 1, "c": "00ff00", "pulse": 1}),
        ("px", {"i": 58, "n": 2, "c": "ff0000"}),
    ]
    s.record("clear", {}, 2.0)
    assert s.px == {} and s.commands(3.0) == [("side", {"name": "darts"}), ("clear", {})]


def test_a_pulse_still_running_is_shown_again_one_that_is_over_is_not():
    s = Scene()
    s.record("pulse", {"sp": "7", "c": "ffffff"}, 10.0)
    assert s.commands(10.5)[-1] == ("pulse", {"sp": "7", "c": "ffffff"})
    assert s.commands(12.0) == [("clear", {})]
