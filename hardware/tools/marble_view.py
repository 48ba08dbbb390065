#!/usr/bin/env python3
"""Write ring.json's mount.marble_view: what each sensor's cone makes of the marble, from the
design's own ray cast (host/ringside/sim/optics.py), for the firmware's range table and its
un-blending (docs/firmware.md, "What the marble hides").

    python hardware/tools/marble_view.py [ring.json]          write the table into ring.json
    python hardware/tools/marble_view.py --check [ring.json]  exit 1 if the table is stale

Row k is the marble k * step_deg ahead of a sensor on the groove's centre line:
[range_mm, hidden, hidden_mm] - the marble's own range (the signal-weighted distance of the
part of it the cone sees), the share of the empty ring's light it hides, and the
signal-weighted distance of that light. Every sensor has the mount ring.json's "mount" gives;
the table is the first sensor's (a test holds the others to it). Needs the host package
(numpy): run it from the repository with `make docs`, which calls it.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_RING = HERE.parent / "ring.json"
STEP_DEG = 1.0
PAST_DEG = 5.0     # rows this far past the furthest window's end (the firmware needs 3)
NOTE = ("Generated from this file's design by hardware/tools/marble_view.py (make docs): row k "
        "is the marble k * step_deg ahead of a sensor, [its own range (mm: the signal-weighted "
        "distance of the part of it the cone sees), the share of the empty ring's light it "
        "hides, that light's distance (mm)]. The firmware's range table inverts the first; "
        "its un-blending takes out only the light the marble leaves (docs/firmware.md). "
        "Edit the mount, the build or the marble, then run the tool again.")


def table(ring: dict) -> dict:
    for p in (ROOT / "host", ROOT / "firmware"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    from ringside.sim.sensors import SensorArray
    ring = json.loads(json.dumps(ring))
    (ring.get("mount") or {}).pop("marble_view", None)      # the table is not an input
    arr = SensorArray(ring, rng=random.Random(0), model="physical")
    far = max(float(s["view_deg"][1]) for s in ring["sensors"])
    n = int(math.ceil((far + PAST_DEG) / STEP_DEG)) + 1
    seen = [arr.marble_view(0, k * STEP_DEG) for k in range(n)]
    first = next(k for k, v in enumerate(seen) if v is not None)
    if any(v is None for v in seen[first:]):
        raise SystemExit("the cone loses the marble inside the table: is the design right?")
    rows = []
    a, b = seen[first][0], seen[first + 1][0]
    for k in range(n):
        if k < first:     # too near for the cone: never ranged, held rising for the table
            rows.append([round(a - (b - a) * (first - k), 2), 0.0, round(seen[first][2], 1)])
        else:
            own, hidden, hidden_mm = seen[k]
            rows.append([round(own, 2), round(hidden, 3), round(hidden_mm, 1)])
    return {"note": NOTE, "step_deg": STEP_DEG, "rows": rows}


def render(text: str, mv: dict) -> str:
    """ring.json's text with mount.marble_view set to mv, everything else as it was."""
    dec = json.JSONDecoder()
    key = text.index('"mount"')
    start = text.index("{", key)
    mount, end = dec.raw_decode(text, start)
    mount = dict(mount)
    mount["marble_view"] = dict(mv, rows="@ROWS@")
    body = json.dumps(mount, indent=1)
    body = body.replace("\n", "\n ")          # the mount sits one level in
    rows = "[\n" + ",\n".join("    [%s]" % ", ".join(repr(x) for x in r) for r in mv["rows"]) + "\n   ]"
    return text[:start] + body.replace('"@ROWS@"', rows) + text[end:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    ap.add_argument("ring", nargs="?", default=str(DEFAULT_RING))
    a = ap.parse_args(argv)
    path = Path(a.ring)
    text = path.read_text()
    new = render(text, table(json.loads(text)))
    if a.check:
        if new != text:
            print("%s: mount.marble_view is stale: run python hardware/tools/marble_view.py" % path)
            return 1
        return 0
    if new != text:
        path.write_text(new)
        print("wrote %s mount.marble_view" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
