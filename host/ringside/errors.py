"""The one base of every error a user may see, and how the command line reports the rest.

Every error that is the user's to fix (a bad option, a damaged save, an illegal move, a
board that does not answer) is a RingsideError, or one of the few foreign classes named in
user_message() (the firmware's RingError lives in MicroPython code that cannot import the
host; OSError is a file or a port the user named). The command line prints those as one
line. Anything else is a bug: it is not the user's fault, so it is not dressed up as an
input error; bug_line() saves the traceback to a file and says where.
"""
from __future__ import annotations

import os
import time
import traceback
from pathlib import Path


class RingsideError(Exception):
    """An error the user can fix or must know about; its message is one line that says why."""


class UsageError(RingsideError, ValueError):
    """A value the user gave that cannot be used (an option out of range). A ValueError as
    well, so that a prompt which catches ValueError to ask again still does."""


def user_message(e: BaseException) -> str | None:
    """A one-line message for an expected error, or None for a bug (which must surface)."""
    if isinstance(e, RingsideError):
        return _one_line(str(e) or type(e).__name__)
    from ringfw.geometry import RingError   # the firmware's own (MicroPython cannot import ours)
    if isinstance(e, RingError):
        return _one_line(str(e))
    if isinstance(e, OSError):
        # a file or port the user named: say which, and the system's words for what is wrong
        what = e.strerror or str(e) or type(e).__name__
        return _one_line("%s: %s" % (e.filename, what) if e.filename else what)
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def crash_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "ringside" / "crashes"


def bug_line(e: BaseException) -> str:
    """Save e's traceback to a file and return the line to show: a bug, please report it, and
    where its traceback is. If the file cannot be written, the line says so instead."""
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    where = crash_dir()
    try:
        where.mkdir(parents=True, exist_ok=True)
        path = where / ("crash-%s-%d.txt" % (time.strftime("%Y%m%d-%H%M%S"), os.getpid()))
        path.write_text(text)
        saved = "the details are in %s" % path
    except OSError as err:
        saved = "its details could not be saved (%s)" % (err.strerror or err)
    return ("this is a bug in Ringside, not something you did (%s); please report it: %s"
            % (type(e).__name__, saved))
