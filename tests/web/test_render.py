"""The table page's drawing (host/ringside/web/static/render.js) in a real browser, fed real
pictures (ringside.web.gallery: games played a few seeded steps through their presenters).
What is checked is what a player at the table would check."""
from __future__ import annotations

import json

import pytest

from ringside import ring
from ringside.games import present as P

DRAW = """([pic, opts]) => {
  window.clicked = [];
  const root = document.getElementById("root");
  R.renderPicture(root, pic, Object.assign({}, opts, {onPlace: (id) => window.clicked.push(id)}));
  return root.querySelectorAll("*").length;
}"""


def _sample(samples, sid):
    return next(s for s in samples if s["id"] == sid)


def draw(page, pic, **opts):
    n = page.evaluate(DRAW, [pic, opts])
    assert n > 10
    return n


@pytest.mark.parametrize("sid,side", [("darts", "darts"), ("wildwest", "wildwest")])
def test_every_space_of_the_side_is_drawn_with_its_id_and_label(harness, gallery_samples, sid, side):
    draw(harness, _sample(gallery_samples, sid)["picture"])
    want = ring.ring_dict()["sides"][side]["spaces"]
    drawn = harness.eval_on_selector_all(
        "#root [data-space]", "els => els.map(e => [e.dataset.space, e.querySelector('.rs-space-label').textContent])")
    assert sorted(d[0] for d in drawn) == sorted(s["id"] for s in want)
    labels = dict(drawn)
    for s in want:
        assert labels[s["id"]].replace(" ", "") == s["label"].replace(" ", "")   # a long label may wrap
    assert harness.errors == []


def test_a_cube_shows_its_players_colour_and_glyph(harness, gallery_samples):
    pic = _sample(gallery_samples, "darts")["picture"]
    draw(harness, pic)
    ring_sec = pic["sections"][0]
    checked = 0
    for sp in ring_sec["spaces"]:
        for m in sp["marks"]:
            tokens = harness.eval_on_selector_all(
                '#root [data-space="%s"] .rs-token' % sp["id"],
                "els => els.map(e => [e.dataset.colour, e.querySelector('text').textContent, e.dataset.seat])")
            assert [P.COLOUR_RGB[m["colour"]], m["text"], str(m["seat"])] in tokens
            checked += 1
    assert checked >= 3
    # and seats differ by pattern as well as colour (colour-blind players)
    fills = harness.evaluate("""() => {
      const out = {};
      for (const t of document.querySelectorAll('#root .rs-ring .rs-token')) {
        const over = t.querySelectorAll('rect')[1];
        out[t.dataset.seat] = over ? over.getAttribute('fill').replace(/^url\\(#rs\\d+-/, '').replace(/\\)$/, '') : 'solid';
      }
      return out;
    }""")
    assert len(set(fills.values())) == len(fills) >= 3


def test_clicking_a_place_calls_on_place_with_its_id(harness, gallery_samples):
    s = _sample(gallery_samples, "darts")
    assert len(s["places"]) >= 4
    places = s["places"][:3]          # the page may offer fewer than every space
    draw(harness, s["picture"], places=places)
    assert harness.locator("#root .rs-clickable").count() == len(places)
    harness.click('#root [data-space="%s"]' % places[1])
    assert harness.evaluate("window.clicked") == [places[1]]
    # a space not in places does nothing
    other = next(sp["id"] for sp in s["picture"]["sections"][0]["spaces"] if sp["id"] not in places)
    harness.click('#root [data-space="%s"]' % other, force=True)
    assert harness.evaluate("window.clicked") == [places[1]]
    # by keyboard too
    harness.focus('#root [data-space="%s"]' % places[0])
    harness.keyboard.press("Enter")
    assert harness.evaluate("window.clicked") == [places[1], places[0]]
    assert harness.errors == []


def test_an_ambiguous_landing_offers_exactly_its_two_spaces(harness, gallery_samples):
    pic = _sample(gallery_samples, "darts")["picture"]
    draw(harness, pic, choices=["17", "3"], highlight=None)
    chosen = harness.eval_on_selector_all("#root .rs-choice", "els => els.map(e => e.dataset.space)")
    assert sorted(chosen) == ["17", "3"]
    assert harness.locator("#root .rs-choice-badge").count() == 2
    harness.click('#root [data-space="3"]')
    assert harness.evaluate("window.clicked") == ["3"]


def test_the_landing_awaiting_correction_is_highlighted(harness, gallery_samples):
    draw(harness, _sample(gallery_samples, "darts")["picture"], highlight="20")
    assert harness.eval_on_selector_all("#root .rs-highlight", "els => els.map(e => e.dataset.space)") == ["20"]


def test_the_timer_ring_empties_over_time_and_null_stops_it(harness):
    harness.evaluate("""() => R.renderTimer(document.getElementById('timer'),
        {seconds_total: 20, deadline_ms: Date.now() + 3000, seat: 0, text: "Ann has 20 seconds"})""")
    first = harness.evaluate("() => [document.querySelector('.rs-timer').dataset.remainingMs, "
                             "document.querySelector('.rs-timer-arc').getAttribute('stroke-dashoffset')]")
    words = harness.inner_text(".rs-timer-words")
    assert words == "3 seconds left"
    harness.wait_for_timeout(1200)
    later = harness.evaluate("() => [document.querySelector('.rs-timer').dataset.remainingMs, "
                             "document.querySelector('.rs-timer-arc').getAttribute('stroke-dashoffset')]")
    assert int(later[0]) < int(first[0]) - 900
    assert float(later[1]) > float(first[1])           # less arc left
    assert harness.inner_text(".rs-timer-words") in ("2 seconds left", "1 second left")
    harness.evaluate("() => R.renderTimer(document.getElementById('timer'), null)")
    assert harness.locator(".rs-timer").count() == 0
    assert harness.errors == []


def test_the_led_mirror_has_every_led_in_its_colour(harness, gallery_samples):
    s = _sample(gallery_samples, "circle")
    harness.evaluate("([px, ring]) => R.renderLeds(document.getElementById('leds'), px, ring)",
                     [s["leds"]["pixels"], s["leds"]["ring"]])
    want = ring.leds()["count"]
    got = harness.eval_on_selector_all("#leds .rs-led", "els => els.map(e => e.dataset.colour)")
    assert len(got) == want
    assert got == [p.rstrip("*") for p in s["leds"]["pixels"]]


def test_the_palette_is_the_hosts(harness):
    assert harness.evaluate("R.PALETTE") == P.COLOUR_RGB


def test_every_gallery_picture_draws_without_errors(page, static_server, gallery_samples):
    page.goto(static_server + "/gallery.html")
    page.wait_for_selector("body[data-ready]", state="attached")
    shown = page.eval_on_selector_all("[data-sample]", "els => els.map(e => e.dataset.sample)")
    assert shown == [s["id"] for s in gallery_samples]
    for s in gallery_samples:
        box = '[data-sample="%s"]' % s["id"]
        assert page.inner_text(box + " .rs-status") == s["picture"]["status"]
        assert page.locator(box + " .rs-section").count() == len(s["picture"]["sections"])
        assert page.locator(box + " .rs-player").count() == len(s["picture"]["players"])
    assert page.errors == []
    json.dumps(gallery_samples)


def test_on_a_phone_every_picture_fits_the_width(browser, static_server, gallery_samples):
    """Readable on a phone: no picture makes the page scroll sideways (a wide table scrolls in
    its own box), and the ring still fills most of the width."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    try:
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(static_server + "/gallery.html")
        page.wait_for_selector("body[data-ready]", state="attached")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        ring_w = page.evaluate("document.querySelector('[data-sample=darts] .rs-ring').getBoundingClientRect().width")
        assert ring_w > 300
        assert errors == []
    finally:
        ctx.close()
