"""Which exceptions are the user's to fix, and how to say so in one line."""
from __future__ import annotations


def user_message(e: BaseException) -> str | None:
    """A one-line message for an expected error, or None for a bug (which should surface)."""
    from ringfw.geometry import RingError
    from ringside.link.frames import WireError
    from ringside.calibration import CalibrationError
    from ringside.games import GameError
    expected = (RingError, WireError, CalibrationError, GameError, OSError, ValueError)
    try:
        from ringside.link import LinkError  # the serial link's errors, when present
        expected = expected + (LinkError,)
    except ImportError:
        pass
    try:
        from ringside.sim.vm import VMError
        expected = expected + (VMError,)
    except ImportError:
        pass
    if isinstance(e, expected):
        return str(e) or type(e).__name__
    if type(e).__name__ == "UserError":
        return str(e)
    return None
