"""`ringside bench page`: the table page measured in Debian's chromium through Playwright.

    landed_to_shown_ms_*   from the moment the host read the simulated board's `landed` (or
                           `off_ring`) frame to the frame in which each page shows it: the marble
                           at rest on its space, the space marked, the words in the status line
                           (the `landed` message; the page's own clock, on this wall clock)
    landed_to_scored_ms_*  the same to the frame that draws the whole table that scores it (a
                           simulated flick first waits CONFIRM_MS of ring time, CONFIRM_MS/speed
                           of wall time, to see that the marble stays)
    first_load_ms          a fresh browser context opening a table: navigation start to the
                           table drawn (the page's performance marks); load_ms_p50 over --loads
    viewers                browsers watching one game (three computer players flicking on the
                           simulated ring, who wait until every viewer has its table), viewers_in_order: every viewer got every update
                           from its first on, each exactly once and in order
"""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from ringside.web import browser as browser_



def _pct(xs: list, q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return round(xs[k], 1)


def run(viewers: int = 8, landings: int = 20, loads: int = 5, seed: int = 1, speed: float = 4.0,
        sensor_model: str = "physical", calibrate: bool = True, timeout_s: float = 240.0) -> dict:
    from playwright.sync_api import sync_playwright

    from ringside.errors import UsageError
    from ringside.web import lobby as LB
    from ringside.web.live import LiveServer
    import os
    browser_.require()
    if not 1 <= viewers <= 32 or landings < 1 or loads < 1:
        raise UsageError("--viewers takes 1 to 32, --landings and --loads at least 1")
    save = Path(tempfile.mkdtemp(prefix="ringside-bench-page-"))
    st = LB.Settings(save_dir=save, speed=speed, bot_delay=0.3, calibrate=calibrate, sensor_model=sensor_model)
    srv = LiveServer(st).start()
    out: dict = {"viewers": viewers, "seed": seed, "speed": speed, "sensor_model": sensor_model}
    try:
        # first loads: a table where nothing moves (two people, typed results)
        quiet = srv.new_room({"game": "darts", "players": [{"name": "Ann"}, {"name": "Bob"}], "ring": "typed",
                              "seed": seed})
        with sync_playwright() as p:
            b = browser_.launch(p)
            try:
                times = []
                for _ in range(loads):
                    ctx = b.new_context()
                    pg = ctx.new_page()
                    pg.goto(srv.url(quiet))
                    pg.wait_for_function("performance.getEntriesByName('ringside-drawn').length > 0", timeout=30000)
                    times.append(pg.evaluate("performance.getEntriesByName('ringside-drawn')[0].startTime"))
                    ctx.close()
                out["first_load_ms"] = round(times[0], 1)
                out["load_ms_p50"] = round(statistics.median(times), 1)
                out["load_ms_max"] = round(max(times), 1)
                # many viewers on one game that plays itself on the simulated ring
                # three computer players, so one game gives the landings to time; they wait
                # until every viewer has its table, so every landing is seen by all of them
                room = srv.new_room({"game": "darts", "players": [{"name": "Cy", "plays": "good"},
                                                                   {"name": "Dee", "plays": "good"},
                                                                   {"name": "Eve", "plays": "good"}],
                                     "ring": "sim", "seed": seed})
                room.paused = True
                ctxs, pages = [], []
                for _ in range(viewers):
                    ctx = b.new_context()
                    pg = ctx.new_page()
                    pg.goto(srv.url(room))
                    ctxs.append(ctx)
                    pages.append(pg)
                for pg in pages:
                    pg.wait_for_selector("body[data-seq]", state="attached", timeout=30000)
                room.paused = False
                # landings the board gave before every viewer had its table are not timed (none)
                t_all = time.time() * 1000.0
                all_in = sum(1 for x in list(room.landings) if x[0] <= t_all)
                end = time.monotonic() + timeout_s
                while len(room.landings) < all_in + landings and not room.game.over and time.monotonic() < end:
                    time.sleep(0.2)
                target = room.seq
                for pg in pages:       # every viewer has caught up with the last update
                    pg.wait_for_function("(s) => Number(document.body.dataset.seq) >= s", arg=target, timeout=30000)
                shown = [pg.evaluate("window.ringside.shown") for pg in pages]
                landed = [pg.evaluate("window.ringside.landed") for pg in pages]
                landed_rx = [pg.evaluate("window.ringside.landed_received") for pg in pages]
                received = [pg.evaluate("window.ringside.received") for pg in pages]
                render_ms = [x for pg in pages for x in pg.evaluate("window.ringside.render_ms")]
                marks = [pg.evaluate("window.ringside.messages.filter((m) => m.type === 'state').map((m) => m.seq)")
                         for pg in pages]
                for c in ctxs:
                    c.close()
            finally:
                b.close()
        lat, table, recv, lrx = [], [], [], []
        missing = 0
        unseen = set()
        timed = [x for x in list(room.landings) if x[0] > t_all and x[1] <= target]   # every page has these
        for at, seq, n in timed:
            for sh, rc, ld, lr in zip(shown, received, landed, landed_rx, strict=True):
                q = next((t for s, t in lr if s == n), None)
                if q is not None:
                    lrx.append(q - at)
                t = next((t for s, t in sh if s == seq), None)
                r = next((t for s, t in rc if s == seq), None)
                k = next((t for s, t in ld if s == n), None)
                if k is not None:
                    lat.append(k - at)
                else:
                    missing += 1
                    unseen.add(n)
                if t is not None:
                    table.append(t - at)
                if r is not None:
                    recv.append(r - at)
        in_order = all(m == list(range(m[0], m[0] + len(m))) and m[-1] >= target for m in marks if m)
        # the `landed` messages too: each viewer got every one from its first on, once, in order
        ns = [[n for n, _ in ld] for ld in landed]
        in_order = in_order and all(v == list(range(v[0], v[0] + len(v))) for v in ns if v)
        out.update({"landings": len(timed), "updates": target,
                    "landed_to_shown_ms_p50": _pct(lat, 0.5), "landed_to_shown_ms_p95": _pct(lat, 0.95),
                    "landed_to_shown_ms_max": _pct(lat, 1.0), "samples": len(lat), "landings_not_shown": missing,
                    "unseen_landings": sorted(unseen),
                    "landed_to_scored_ms_p50": _pct(table, 0.5), "landed_to_scored_ms_p95": _pct(table, 0.95),
                    "render_ms_p50": _pct(render_ms, 0.5), "render_ms_p95": _pct(render_ms, 0.95),
                    "landed_to_received_ms_p50": _pct(lrx, 0.5), "landed_to_received_ms_p95": _pct(lrx, 0.95),
                    "scored_received_ms_p50": _pct(recv, 0.5), "scored_received_ms_p95": _pct(recv, 0.95),
                    "viewers_in_order": bool(marks) and in_order and all(marks),
                    "targets": {"landed_to_shown_ms_p95": 100, "first_load_ms": 1000}})
        try:
            out["load_average"] = round(os.getloadavg()[0], 2)
        except OSError:
            pass
        return out
    finally:
        srv.stop()
