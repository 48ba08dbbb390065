"""`ringside`: the command line. Each command lives in its own module; this file only
wires them up, turns expected errors into one clear line, and never shows a traceback
for bad input."""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

# (module, what it adds). Each module has register(subparsers).
_COMMANDS = [
    "ringside.app.cmd_ring",      # play-ring, calibrate
    "ringside.app.cmd_bench",     # bench ring | firmware | link | games
    "ringside.app.cmd_link",      # sim, monitor, flick (the serial link)
    "ringside.app.cmd_play",      # play <game> (games on the ring or the terminal)
    "ringside.app.cmd_bringup",   # bringup (check a newly built ring's sensors)
    "ringside.app.cmd_serve",     # serve (the table page)
    "ringside.app.cmd_screenshots",  # screenshots DIR (README's pictures of the table page)
]


from ringside.errors import RingsideError  # noqa: E402


class UserError(RingsideError):
    """An error the user can fix; printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ringside", description="Ringside: a smart Circles ring and its games.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for mod in _COMMANDS:
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as missing:
            if missing.name != mod:
                raise
            continue  # a command group not built yet
        m.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # expected errors carry a message for the user; the rest are bugs
        from ringside.errors import bug_line, user_message
        msg = user_message(e)
        if msg is None:
            print("ringside: %s" % bug_line(e), file=sys.stderr)
            return 70
        print("ringside: %s" % msg, file=sys.stderr)
        return 2


def leave(rc: int) -> NoReturn:
    """End the process with exit status rc, as the `ringside` command does.

    The MicroPython VM (bench firmware) is wasmtime's, whose worker threads (tokio's) outlive
    its runs. Torn down at a normal exit, after Python's own finalisation, one of them often
    calls back into Python then and dies: a Rust backtrace on stderr ("thread
    'tokio-rt-worker' panicked ... panic in a function that cannot unwind") after every result
    was printed (`ringside bench firmware`: every time). os._exit, once the output is flushed,
    skips that teardown. A process that never loaded wasmtime exits as usual (atexit and all)."""
    if "wasmtime" not in sys.modules:
        sys.exit(rc)
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except (OSError, ValueError):   # a closed pipe or stream: nothing more to say
            pass
    os._exit(rc)


def entry() -> None:
    """The `ringside` command: main(), then an exit that a VM run cannot spoil (leave)."""
    leave(main())


if __name__ == "__main__":
    entry()
