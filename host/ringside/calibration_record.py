"""When each real board was last calibrated from this computer, by its identity (the hello's
`uid=`, `machine.unique_id()` on the Pico).

The board keeps its calibration in its own `calibration.json` but has no clock that knows the
date, so the host that ran `ringside calibrate --port P` keeps the date: the lobby's board
health then says "calibrated 3 days ago". One small JSON file in the state folder
(`$XDG_STATE_HOME/ringside/calibrations.json`); a missing or unreadable file is "never" (this
is a note for people, not game state: it is never worth a traceback).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ringside.table import default_autosave

KEEP = 64          # boards remembered; the oldest are forgotten first


def record_path() -> Path:
    return default_autosave().parent / "calibrations.json"


def _read(path: Path) -> dict:
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in d.items() if isinstance(k, str) and isinstance(v, dict)
            and isinstance(v.get("at"), (int, float)) and not isinstance(v.get("at"), bool)} \
        if isinstance(d, dict) else {}


def record(uid: str | None, sensors: int, rolled: int = 0, path: Path | None = None,
           now: float | None = None) -> bool:
    """Note that the board `uid` was calibrated now (sensors fitted, placements that rolled
    away). False (nothing written) for a board with no uid or a folder that cannot be written."""
    if not uid:
        return False
    path = Path(path) if path else record_path()
    d = _read(path)
    d[str(uid)] = {"at": float(time.time() if now is None else now), "sensors": int(sensors), "rolled": int(rolled)}
    d = dict(sorted(d.items(), key=lambda kv: kv[1]["at"])[-KEEP:])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(d, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        return False
    return True


def last(uid: str | None, path: Path | None = None) -> dict | None:
    """{"at": unix seconds, "sensors", "rolled"} of the board's last calibration from this
    computer, or None."""
    if not uid:
        return None
    return _read(Path(path) if path else record_path()).get(str(uid))
