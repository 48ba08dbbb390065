"""`ringside screenshots DIR`: one PNG of the table page per game, so README's pictures stay
true (docs/web.md).

It starts the table page's server on a free port of 127.0.0.1 with a simulated ring, plays
each game a few seeded steps (ringside.web.gallery's setups: the same game on every machine),
opens it in Debian's Chromium through Playwright and saves DIR/<game>.png. Nothing is
downloaded: no chromium, or no playwright package, is said in one line.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ringside.errors import UsageError
from ringside.web import browser as browser_

if TYPE_CHECKING:
    import argparse

    from ringside.web.live import LiveServer

# one picture per game: the gallery's sample of that id
SHOTS = ("darts", "wildwest", "doubles", "circle", "circleville")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("screenshots", help="save a PNG of the table page for every game (README's pictures)",
                       description="Start the table page on a free port with a simulated ring, play each game a "
                                   "few seeded steps and save one PNG per game page in DIR.")
    p.add_argument("dir", metavar="DIR", help="where the PNGs go (docs/img/web for README)")
    p.add_argument("--only", metavar="GAME", action="append", help="only this game (may be repeated)")
    p.add_argument("--width", type=int, default=1280, help="the page's width in pixels (default 1280)")
    p.add_argument("--height", type=int, default=900, help="the window's height (the PNG is the whole page)")
    p.set_defaults(func=_run)


def _need_browser():
    browser_.require()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise UsageError("the playwright package is not installed (make venv installs it)") from None
    return sync_playwright


def room_for(srv: LiveServer, setup: tuple) -> tuple:
    """(room, url) for a gallery setup: its game played its steps, every seat a person's (so
    nothing moves while the picture is taken), on the simulated ring when it is a ring game."""
    from ringside.web import gallery
    from ringside.web import lobby as LB
    sid, name, players, options, seed, steps, seat, _about = setup
    g = gallery.play(name, players, options, seed, steps)
    seats = {i: "human" for i in range(len(players))}
    if options.get("solo"):
        seats.update({i: "solo" for i in range(1, 1 + len(options["solo"]))})
    mode = "sim" if g.capabilities.ring_side else "screen"
    room = srv.rooms.add(LB.open_room(srv.settings, g, seats, mode, seed=seed, rid="shot-%s" % sid))
    return room, srv.url(room, room.tokens.seat[seat] if seat is not None else None)


def take(out_dir: Path, only: list | None = None, width: int = 1280, height: int = 900) -> list[Path]:
    """Save DIR/<id>.png for each game page; the paths written."""
    from ringside.web import gallery
    wanted = list(only or SHOTS)
    setups = [s for s in gallery.SETUPS if s[0] in wanted]
    unknown = sorted(set(wanted) - {s[0] for s in setups})
    if unknown:
        raise UsageError("no sample called %s (there are: %s)" % (", ".join(unknown), ", ".join(s[0] for s in gallery.SETUPS)))
    sync_playwright = _need_browser()
    from ringside.web import lobby as LB
    from ringside.web.live import LiveServer  # noqa: F811 (the class itself, for starting one)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(prefix="ringside-shots-") as saves:
        settings = LB.Settings(save_dir=Path(saves), speed=1.0, bot_delay=0.0, calibrate=False,
                               sensor_model="physical")
        srv = LiveServer(settings).start()
        try:
            with sync_playwright() as p:
                browser = browser_.launch(p)
                try:
                    ctx = browser.new_context(viewport={"width": width, "height": height}, reduced_motion="reduce")
                    page = ctx.new_page()
                    for setup in setups:
                        sid = setup[0]
                        _room, url = room_for(srv, setup)    # made just now: a timed turn starts full
                        page.goto(url)
                        page.wait_for_selector("body[data-seq]", state="attached", timeout=20000)
                        page.wait_for_function("document.body.dataset.conn === 'live'", timeout=20000)
                        page.wait_for_timeout(1000)          # the marble's glide and the fonts settle
                        path = out_dir / ("%s.png" % sid)
                        page.screenshot(path=str(path), full_page=True)
                        written.append(path)
                    ctx.close()
                finally:
                    browser.close()
        finally:
            srv.stop()
    return written


def _run(args: argparse.Namespace) -> int:
    t0 = time.monotonic()
    paths = take(Path(args.dir), args.only, args.width, args.height)
    for p in paths:
        print(p)
    print("%d screenshots in %.1f s" % (len(paths), time.monotonic() - t0))
    return 0
