"""Debian's Chromium, driven by Playwright, as the bench, the screenshots and the tests use it.

The path is Debian's package (`apt-get install chromium`), never a browser Playwright downloads:
the table may have no internet. The flags keep a headless Chromium off the network (this machine
has none) and let it run as root in a container."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ringside.errors import UsageError

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def require() -> None:
    """One line, not a traceback, when the browser is not installed."""
    if not os.path.exists(CHROMIUM):
        raise UsageError("no browser: %s is not installed (apt-get install chromium)" % CHROMIUM)


def launch(playwright: Playwright) -> Browser:
    """Chromium, headless, from a running sync_playwright()."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
