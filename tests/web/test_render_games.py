"""The table page's drawing of each game's own things (issue 19 item 2): Doubles' board,
the loops (The Circle's time wheel, Circleville's rondel), Wild West's shop, bank, bowl,
mine, purses and sheriff's star, the marble moving, the timer leaking nothing, the sounds."""
from __future__ import annotations

from ringside.games import present as P

from .test_render import _sample, draw


def test_doubles_board_shows_each_piece_pattern_facing_and_the_yellow_squares(harness, gallery_samples):
    pic = _sample(gallery_samples, "doubles")["picture"]
    draw(harness, pic, places=["a2"])
    grid = pic["sections"][0]
    cells = [c for r in grid["rows"] for c in r["cells"]]
    ids = [c["id"] for c in cells if "id" in c]
    assert sorted(harness.eval_on_selector_all("#root [data-cell]", "els => els.map(e => e.dataset.cell)")) == sorted(ids)
    pieces = [c for c in cells if c.get("piece")]
    assert len(pieces) >= 3
    for c in pieces:
        got = harness.eval_on_selector('#root [data-cell="%s"] .rs-piece' % c["id"],
                                       "e => [e.dataset.pattern, e.dataset.facing, e.querySelector('rect:nth-of-type(1)') && "
                                       "e.querySelectorAll('rect')[1].getAttribute('fill'), e.querySelector('text').textContent]")
        assert got == [c["piece"]["pattern"], c["piece"]["facing"], "#" + P.COLOUR_RGB[c["colour"]],
                       "%s%d" % (c["glyph"], c["piece"]["points"])]
    yellow = sorted(c["id"] for c in cells if c.get("fill") == "yellow")
    assert yellow and sorted(harness.eval_on_selector_all("#root .rs-cell.rs-filled", "els => els.map(e => e.dataset.cell)")) == yellow
    off_rows = [r for r in grid["rows"] if not r["in_play"]]
    assert harness.locator("#root .rs-cell.rs-off").count() == sum(len(r["cells"]) for r in off_rows) > 0
    harness.click('#root [data-cell="a2"]')
    assert harness.evaluate("window.clicked") == ["a2"]
    assert harness.errors == []


def test_the_circles_time_wheel_is_a_wheel_with_the_time_warp_beside(harness, gallery_samples):
    pic = _sample(gallery_samples, "circle")["picture"]
    wheel = pic["sections"][0]
    assert wheel["loop"] is True
    wheel = dict(wheel, steps=wheel["steps"] + [P.step("Time Warp", [P.mark("X (A)", 0, "red")], True, beside=True)])
    draw(harness, dict(pic, sections=[wheel]))
    on_wheel = harness.eval_on_selector_all("#root .rs-wheel [data-step]", "els => els.map(e => e.dataset.step)")
    assert on_wheel == [str(n) for n in (8, 7, 6, 5, 4, 3, 2, 1)]
    assert harness.eval_on_selector_all("#root .rs-track-line [data-step]", "els => els.map(e => e.dataset.step)") == ["Time Warp"]
    # 8 sits at the top of the wheel, 7 next clockwise (as wheel.py puts them on the LEDs)
    pos = harness.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#root .rs-wheel [data-step]')]
        .map(g => { const b = g.querySelector('path').getBBox(); return [g.dataset.step, [b.x + b.width / 2, b.y + b.height / 2]]; }))""")
    assert pos["8"][1] < min(p[1] for k, p in pos.items() if k != "8")
    assert pos["7"][0] > pos["8"][0] and pos["1"][0] < pos["8"][0]
    # a spy on the wheel: a token in its owner's colour with the owner's glyph (grey and bare when unowned)
    for st in wheel["steps"][:8]:
        toks = harness.eval_on_selector_all('#root .rs-wheel [data-step="%s"] .rs-token' % st["label"],
                                            "els => els.map(e => [e.dataset.colour, e.dataset.glyph])")
        want = [[P.COLOUR_RGB[m["colour"]], "" if m["seat"] is None else pic["players"][m["seat"]]["glyph"]]
                for m in st["marks"]][:9]
        assert toks == want
    assert harness.errors == []


def test_circlevilles_rondel_is_a_loop_in_its_spaces_colours(harness, gallery_samples):
    pic = _sample(gallery_samples, "circleville")["picture"]
    rondel = pic["sections"][0]
    assert rondel["loop"] is True and all("short" in s for s in rondel["steps"])
    draw(harness, pic, places=[rondel["steps"][2]["label"]])
    got = harness.eval_on_selector_all("#root .rs-wheel [data-step]",
                                       "els => els.map(e => [e.dataset.step, e.querySelector('text').textContent])")
    assert got == [[s["label"], s["short"]] for s in rondel["steps"]]
    assert harness.locator("#root .rs-wheel .rs-step.rs-highlight").count() == sum(s["highlight"] for s in rondel["steps"])
    harness.click('#root .rs-wheel [data-step="%s"]' % rondel["steps"][2]["label"])
    assert harness.evaluate("window.clicked") == [rondel["steps"][2]["label"]]


def test_wild_west_shows_the_shop_bank_bowl_mine_purses_and_the_sheriffs_star(harness, gallery_samples):
    pic = _sample(gallery_samples, "wildwest")["picture"]
    draw(harness, pic)
    text = harness.inner_text("#root")
    for words in ("Shop:", "The donation bowl", "The mine", "purse", "bank", "Reserve:"):
        assert words in text, words
    sheriff = [p for p in pic["players"] if p.get("badges")]
    assert len(sheriff) == 1
    badge = harness.eval_on_selector_all("#root .rs-badge", "els => els.map(e => [e.closest('[data-seat]').dataset.seat, e.textContent])")
    assert badge == [[str(sheriff[0]["seat"]), "\u2605the sheriff's star"]]
    for sp in pic["sections"][0]["spaces"]:
        assert harness.locator('#root [data-space="%s"]' % sp["id"]).count() == 1


def test_the_marble_glides_from_its_old_space_to_the_new(harness, gallery_samples):
    pic = _sample(gallery_samples, "darts")["picture"]
    ring = pic["sections"][0]

    def at(space):
        sp = next(s for s in ring["spaces"] if s["id"] == space)
        deg = (sp["start_deg"] + ((sp["end_deg"] - sp["start_deg"]) % 360) / 2) % 360
        return dict(pic, sections=[dict(ring, marble={"space": space, "deg": deg})] + pic["sections"][1:]), deg

    first, d0 = at("20")        # 306 degrees
    second, d1 = at("11")       # 36 degrees: 90 degrees on, the short way
    draw(harness, first)
    harness.wait_for_function("Math.abs(Number(document.querySelector('#root .rs-marble').dataset.deg) - %f) < 0.01" % d0,
                              timeout=3000)
    draw(harness, second)
    harness.wait_for_timeout(120)
    mid = float(harness.get_attribute("#root .rs-marble", "data-deg"))
    assert mid not in (d0, d1)
    assert (mid - d0) % 360 < 90                                           # on its way, anticlockwise
    harness.wait_for_function("Math.abs(Number(document.querySelector('#root .rs-marble').dataset.deg) - %f) < 0.01" % d1,
                              timeout=3000)
    harness.evaluate("([d]) => R.setMarble(document.getElementById('root'), d, '5')", [d0 + 18])
    harness.wait_for_function("Math.abs(Number(document.querySelector('#root .rs-marble').dataset.deg) - %f) < 0.01"
                              % ((d0 + 18) % 360), timeout=3000)
    assert harness.errors == []


def test_the_timer_leaves_no_interval_running(fresh_harness):
    harness = fresh_harness
    harness.evaluate("""() => {
      window.live = new Set();
      const si = window.setInterval, ci = window.clearInterval;
      window.setInterval = (f, t) => { const id = si(f, t); window.live.add(id); return id; };
      window.clearInterval = (id) => { window.live.delete(id); ci(id); };
    }""")
    t = "{seconds_total: 20, deadline_ms: Date.now() + %d, seat: 1, text: 'Bob has 20 seconds'}"
    harness.evaluate("() => R.renderTimer(document.getElementById('timer'), %s)" % (t % 20000))
    harness.evaluate("() => R.renderTimer(document.getElementById('timer'), %s)" % (t % 20000))
    assert harness.evaluate("window.live.size") == 1
    harness.evaluate("() => R.renderTimer(document.getElementById('timer'), null)")
    assert harness.evaluate("window.live.size") == 0
    harness.evaluate("() => R.renderTimer(document.getElementById('timer'), %s)" % (t % 300))
    harness.wait_for_timeout(600)
    assert harness.evaluate("window.live.size") == 0                 # it stopped itself at the deadline
    assert harness.inner_text(".rs-timer-words") == "time is up"


def test_sounds_never_throw_and_the_switch_is_remembered(fresh_harness):
    harness = fresh_harness
    assert harness.evaluate("S.isEnabled()") is True
    assert harness.evaluate("[S.play('landing'), S.play('turn'), S.play('nonsense')]")[2] is False
    harness.evaluate("S.setEnabled(false)")
    assert harness.evaluate("[S.isEnabled(), S.play('landing'), localStorage.getItem('ringside.sound')]") == [False, False, "off"]
    harness.reload()
    harness.wait_for_selector("body[data-ready]", state="attached")
    assert harness.evaluate("S.isEnabled()") is False
    harness.evaluate("S.setEnabled(true)")
    # no WebAudio at all: still silent, still no error
    harness.evaluate("() => { delete window.AudioContext; delete window.webkitAudioContext; }")
    harness.reload()
    harness.wait_for_selector("body[data-ready]", state="attached")
    harness.evaluate("() => { window.AudioContext = undefined; window.webkitAudioContext = undefined; }")
    assert harness.evaluate("S.play('turn')") is False
    assert harness.errors == []


def test_a_finished_game_names_its_winners(harness, gallery_samples):
    pic = _sample(gallery_samples, "darts-over")["picture"]
    assert pic["result"]
    draw(harness, pic)
    banner = harness.inner_text("#root .rs-result")
    assert " and ".join(pic["result"]["winners"]) in banner and pic["result"]["text"] in banner
    assert harness.locator("#root .rs-turn-badge").count() == 0          # nobody is to play
