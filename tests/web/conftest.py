"""The shared browser for the table page's tests (tests/web/): Debian's /usr/bin/chromium
driven by Playwright, one browser for the whole session.

Without a browser (no /usr/bin/chromium, or no playwright package) these tests are skipped
with the reason said, unless RINGSIDE_REQUIRE_BROWSER=1, when they fail instead (CI sets it,
so a missing browser is never a silent pass).

    browser        a session-scoped playwright Browser (launch_chromium)
    static_server  the base URL of host/ringside/web/static/ served by a local http.server in
                   a thread, with /gallery.json (ringside.web.gallery's samples) and
                   /_harness.html (an empty page that loads render.js as window.R)
    page           a fresh page whose console errors and page errors are collected in
                   page.errors (a test asserts it is empty)
    new_page       new_page() -> such a page, each in a context of its own (two seats'
                   screens, a second browser), all closed after the test

The two helpers every browser test goes through, one way for all:

    launch_chromium(playwright) -> Browser     /usr/bin/chromium, headless, ARGS
    open_page(browser) -> (context, page)      a 1280x900 context, page.errors collected
    harness        a page with render.js as window.R and sound.js as window.S (shared, emptied
                   before each test); fresh_harness: one of its own
"""
from __future__ import annotations

import functools
import http.server
import json
import os
import contextlib
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ringside.web.browser import ARGS, CHROMIUM  # noqa: F401 (ARGS: the flags every browser test runs with)
STATIC = Path(__file__).resolve().parents[2] / "host" / "ringside" / "web" / "static"

HARNESS = b"""<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<link rel="stylesheet" href="render.css"><title>harness</title></head>
<body style="background:#15171c"><div id="root"></div><div id="leds"></div><div id="timer"></div>
<script type="module">
import * as R from "./render.js";
import * as S from "./sound.js";
window.R = R; window.S = S; document.body.dataset.ready = "1";
</script></body></html>"""


def _missing() -> str | None:
    if not os.path.exists(CHROMIUM):
        return "no browser: %s is not installed (apt-get install chromium)" % CHROMIUM
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "no browser driver: the playwright package is not installed (pip install -r requirements.txt)"
    return None


def launch_chromium(playwright):
    """Debian's chromium, headless, as every browser test runs it."""
    from ringside.web import browser
    return browser.launch(playwright)


def open_page(browser):
    """(context, page): a fresh context with one page whose console errors and page errors
    are collected in page.errors."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    pg.errors = []
    pg.on("console", lambda m: pg.errors.append("console %s: %s" % (m.type, m.text)) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append("page error: %s" % e))
    return ctx, pg


@pytest.fixture(scope="session")
def browser():
    why = _missing()
    if why:
        if os.environ.get("RINGSIDE_REQUIRE_BROWSER") == "1":
            pytest.fail("RINGSIDE_REQUIRE_BROWSER=1 but " + why)
        pytest.skip(why)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = launch_chromium(p)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def gallery_samples():
    from ringside.web import gallery
    return gallery.samples()


@pytest.fixture(scope="session")
def static_server(gallery_samples):
    data = json.dumps(gallery_samples).encode()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            extra = {"/gallery.json": (data, "application/json"), "/_harness.html": (HARNESS, "text/html")}
            if path in extra:
                body, kind = extra[path]
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            super().do_GET()

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(STATIC)))
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield "http://127.0.0.1:%d" % srv.server_port
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.fixture
def page(browser):
    ctx, pg = open_page(browser)
    try:
        yield pg
    finally:
        ctx.close()


@pytest.fixture
def new_page(browser):
    """new_page() -> a fresh page (open_page) in a context of its own; all closed after."""
    made = []

    def make():
        ctx, pg = open_page(browser)
        made.append(ctx)
        return pg
    try:
        yield make
    finally:
        for c in made:
            c.close()


def _open_harness(pg, base):
    pg.goto(base + "/_harness.html")
    pg.wait_for_selector("body[data-ready]", state="attached")
    return pg


@pytest.fixture
def fresh_harness(page, static_server):
    """A page of its own with render.js loaded as window.R (and sound.js as window.S), for a
    test that changes the page's globals."""
    return _open_harness(page, static_server)


@pytest.fixture(scope="session")
def _shared_harness(browser, static_server):
    ctx, pg = open_page(browser)
    _open_harness(pg, static_server)
    try:
        yield pg
    finally:
        ctx.close()


@pytest.fixture
def harness(_shared_harness):
    """The harness page (render.js as window.R, sound.js as window.S), shared by the tests
    that only draw (a new page per test costs a second on a busy machine): emptied, and its
    errors cleared, before each."""
    pg = _shared_harness
    pg.evaluate("""() => { for (const id of ["root", "leds", "timer"]) {
        const e = document.getElementById(id); R.renderTimer(e, null); e.replaceChildren(); }
      window.clicked = []; }""")
    pg.errors = []
    return pg


@contextlib.contextmanager
def ringside_serve(tmp_path, *args):
    """`ringside serve ARGS` as a process, as a user starts it (no display, its state in
    tmp_path); whatever happens in the block, it is killed if it is still running after."""
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path), DISPLAY="")
    p = subprocess.Popen([sys.executable, "-m", "ringside.app.cli", "serve", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        yield p
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


def ctrl_c(p) -> tuple:
    """Ctrl-C to a `ringside serve` process: (its stdout, its stderr) once it has stopped."""
    p.send_signal(signal.SIGINT)
    return p.communicate(timeout=30)
