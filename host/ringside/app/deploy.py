"""Copy the built firmware to a board without losing its calibration: `make deploy`.

    python -m ringside.app.deploy --port /dev/ttyACM0 [build/firmware]

What `make deploy` runs after `ringside release` has handed the port to the REPL. Over
mpremote's raw REPL (its own transport, as `mpremote fs cp` uses it) it:

1. keeps the calibration: it lives in calibration.json beside ring.json
   (ringfw.calfile.CAL_FILE), which the build never contains and this never writes,
   except once to migrate an old board whose calibration still sits inside its ring.json
   (before the new ring.json replaces it; written to a temporary file, then renamed);
2. copies every file of the build that differs (sha256 on the board, as mpremote does);
3. removes what would shadow the new files: a ringfw/X.py beside a new ringfw/X.mpy (a
   MicroPython import takes the .py first), old ringfw modules the build no longer has, and
   the copies of the Adafruit libraries a `mip install --target /` puts at the root (the
   root comes before /lib on sys.path);
4. resets the board, which starts the new firmware.

A board whose MicroPython has a ROMFS partition (`--romfs auto`, the default, when the
build's image fits it; `--romfs yes` to insist) gets the modules as the build's ROMFS image
instead (build_firmware.ROMFS_IMAGE, written with mpremote's own `romfs deploy` code and
read back by its sha256): their bytecode then runs in place from flash rather than from a
copy in the heap (docs/firmware.md "ROMFS"). Only main.py and ring.json go to the
filesystem, and the build's module files there are removed (a stale copy would be dead
weight; /rom comes first on sys.path). A filesystem deploy to a board whose ROMFS holds an
older firmware first clears that image, which would shadow the new files. The stock
RPI_PICO build has no ROMFS partition: `auto` then deploys to the filesystem, as before.

Exit status: 0 deployed, 1 it failed (one line says why; nothing the board had is lost
that the new files do not replace), 2 bad usage.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ringfw.calfile import CAL_FILE, CAL_FORMAT
from ringside.app.build_firmware import ROMFS_IMAGE

if TYPE_CHECKING:
    from collections.abc import Callable

    from mpremote.transport import Transport

ROOT = "/"
# the build's mip manifest and its ROMFS image stay on the host (the image goes to the ROMFS
# partition, never to the filesystem)
_HOST_ONLY = ("package.json", ROMFS_IMAGE)
# The Adafruit libraries as `mip install --target /` leaves them at the root; the build
# puts them in /lib, which comes after the root on the rp2 port's sys.path.
_ROOT_SHADOWS = ("adafruit_vl53l0x.py", "adafruit_vl53l0x.mpy")
_ROOT_SHADOW_DIRS = ("adafruit_bus_device",)


class DeployError(Exception):
    """A deploy step failed; the message is meant for the user."""


ROMFS_MODES = ("auto", "yes", "no")
ROM = "/rom"                 # where the board mounts its ROMFS partition
_ROM_ID = 0                  # its first (on rp2, its only) ROMFS partition


def _join(*parts: str) -> str:
    return "/" + "/".join(p.strip("/") for p in parts if p.strip("/"))


def calibration_from_ring(ring: dict, sensors: int | None = None) -> dict | None:
    """The calibration file an old board's ring.json implies: every sensor whose calibration
    block is not the identity, or None when there is nothing to keep. sensors limits it to
    the sensor indices the new ring.json has."""
    out = {}
    for i, s in enumerate(ring.get("sensors", [])):
        if sensors is not None and i >= sensors:
            break
        cal = s.get("calibration") or {}
        off = cal.get("offset_mm", 0)
        scale = cal.get("scale", 1.0)
        if not isinstance(off, (int, float)) or not isinstance(scale, (int, float)):
            continue
        if off != 0 or scale != 1.0:
            out[str(i)] = {"offset_mm": off, "scale": scale}
    if not out:
        return None
    return {"format": CAL_FORMAT, "sensors": out}


def build_files(build: Path) -> list[tuple[str, Path]]:
    """(board path, local file) for every file of the build, sorted; DeployError if the build
    is missing or holds a calibration file (it must never carry one over the board's)."""
    if not (build / "main.py").is_file() or not (build / "ring.json").is_file():
        raise DeployError("%s is not a firmware build (no main.py or ring.json): run "
                          "`make firmware`" % build)
    # the build's own mip manifest stays on the host
    files = sorted((p.relative_to(build).as_posix(), p) for p in build.rglob("*")
                   if p.is_file() and p.relative_to(build).as_posix() not in _HOST_ONLY)
    for rel, _ in files:
        if rel == CAL_FILE or rel.endswith("/" + CAL_FILE):
            raise DeployError("%s holds a %s: a deploy never overwrites the board's "
                              "calibration, remove it from the build" % (build, CAL_FILE))
    return [(_join(ROOT, rel), p) for rel, p in files]


def _exists(t, path: str) -> bool:
    return t.fs_exists(path)


def _mkdirs(t, path: str, made: set) -> None:
    parts = path.strip("/").split("/")[:-1]
    cur = ""
    for part in parts:
        cur += "/" + part
        if cur in made:
            continue
        if not t.fs_isdir(cur):
            t.fs_mkdir(cur)
        made.add(cur)


def _write_atomic(t, path: str, data: bytes) -> None:
    tmp = path + ".tmp"
    t.fs_writefile(tmp, data)
    t.exec("import os\nos.rename(%r, %r)" % (tmp, path))


def _rm_tree(t, path: str) -> None:
    for entry in t.fs_listdir(path):
        sub = path.rstrip("/") + "/" + entry.name
        if entry.st_mode & 0x4000:
            _rm_tree(t, sub)
        else:
            t.fs_rmfile(sub)
    t.fs_rmdir(path)


def migrate_calibration(t: Transport, new_ring: dict, log: Callable = print) -> str:
    """Before a new ring.json replaces the board's: an old board's calibration (inside its
    ring.json, no calibration.json yet) goes into calibration.json. Returns what was done."""
    cal_path = _join(ROOT, CAL_FILE)
    if _exists(t, cal_path):
        return "kept"
    ring_path = _join(ROOT, "ring.json")
    if not _exists(t, ring_path):
        return "none"
    try:
        old = json.loads(bytes(t.fs_readfile(ring_path)))
    except ValueError:
        log("deploy: the board's ring.json is not valid JSON: no calibration to keep in it")
        return "none"
    n = len(new_ring.get("sensors", []))
    cal = calibration_from_ring(old, n)
    if cal is None:
        return "none"
    dropped = len(old.get("sensors", [])) - n
    if dropped > 0:
        log("deploy: the new ring.json has %d sensors fewer: their calibration is dropped"
            % dropped)
    _write_atomic(t, cal_path, json.dumps(cal).encode())
    log("deploy: moved the calibration of %d sensor(s) from the board's ring.json into %s"
        % (len(cal["sensors"]), CAL_FILE))
    return "migrated"


class _State:
    """What mpremote's romfs command reads of its command-line state: the transport."""

    def __init__(self, t):
        self.transport = t

    def ensure_raw_repl(self):
        pass

    def did_action(self):
        pass


def rom_partition(t: Transport) -> int:
    """The size in bytes of the board's ROMFS partition, 0 when its MicroPython has none (no
    `vfs.rom_ioctl`, as on the stock RPI_PICO build, or no partition)."""
    from mpremote.transport import TransportError
    try:
        t.exec("import vfs")
        if not t.eval("hasattr(vfs,'rom_ioctl')") or t.eval("vfs.rom_ioctl(1)") < 1:
            return 0
        t.exec("_d=vfs.rom_ioctl(2,%d)" % _ROM_ID)
        if t.eval("isinstance(_d,int)"):
            return 0
        if t.eval("hasattr(_d,'ioctl')"):      # a block device: blocks x block size
            return t.eval("_d.ioctl(4,0)*_d.ioctl(5,0)")
        return t.eval("len(_d)")
    except TransportError:
        return 0


def write_rom(t: Transport, image: bytes, log: Callable = print) -> None:
    """Write a ROMFS image to the board's partition with mpremote's own `romfs deploy` code
    (which unmounts /rom first), then read it back by its sha256: DeployError if it differs."""
    import contextlib
    import io
    import tempfile
    from mpremote.commands import CommandError, _do_romfs_deploy
    with tempfile.TemporaryDirectory() as d:
        img = Path(d) / ROMFS_IMAGE
        img.write_bytes(image)
        args = argparse.Namespace(path=str(img), partition=_ROM_ID, mpy=False)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                _do_romfs_deploy(_State(t), args)
        except (SystemExit, CommandError) as e:   # mpremote exits on a bad or too big image
            said = out.getvalue().strip().splitlines()
            raise DeployError("the board refused the ROMFS image: %s"
                              % (e if isinstance(e, CommandError) else said[-1] if said
                                 else "no reason given")) from None
    if not _rom_holds(t, image):
        raise DeployError("the ROMFS partition does not read back what was written: deploy "
                          "again (the board's filesystem was not changed)")
    log("deploy: wrote the firmware's modules (%d B) to the board's ROMFS partition"
        % len(image))


def _rom_sha(t, n: int) -> bytes:
    t.exec("import hashlib")
    return t.eval("hashlib.sha256(memoryview(vfs.rom_ioctl(2,%d))[:%d]).digest()" % (_ROM_ID, n))


def _rom_holds(t, image: bytes) -> bool:
    """Does the partition already start with this image (whose header gives its length)?"""
    return _rom_sha(t, len(image)) == hashlib.sha256(image).digest()


def _use_rom(t, build: Path, romfs: str, log: Callable) -> bytes | None:
    """The ROMFS image to write, or None for a filesystem deploy (romfs: auto, yes, no)."""
    if romfs == "no":
        return None
    img = build / ROMFS_IMAGE
    if not img.is_file():
        if romfs == "yes":
            raise DeployError("%s has no %s: run `make firmware`" % (build, ROMFS_IMAGE))
        return None
    image = img.read_bytes()
    size = rom_partition(t)
    if size >= len(image):
        return image
    why = ("its MicroPython has no ROMFS partition (the stock RPI_PICO build has none)"
           if size == 0 else "its ROMFS partition (%d B) is smaller than the image (%d B)"
           % (size, len(image)))
    if romfs == "yes":
        raise DeployError("cannot deploy to ROMFS: %s; deploy with --romfs no" % why)
    log("deploy: the modules go to the filesystem: %s" % why)
    return None


def _is_module(rel: str) -> bool:
    """A module file of the build (what the ROMFS image holds), not main.py or ring.json."""
    return rel.startswith(("ringfw/", "lib/"))


def deploy(t: Transport, build: Path, log: Callable = print, romfs: str = "auto") -> dict:
    """Deploy the build through an mpremote transport t already in the raw REPL.
    Returns {"copied": [...], "same": [...], "removed": [...], "calibration": kept|migrated|none,
    "romfs": bytes written to the ROMFS partition (0: the modules went to the filesystem)}."""
    if romfs not in ROMFS_MODES:
        raise DeployError("--romfs is one of %s, not %r" % (", ".join(ROMFS_MODES), romfs))
    files = build_files(build)
    new_ring = json.loads((build / "ring.json").read_text())
    report = {"copied": [], "same": [], "removed": [], "calibration": "", "romfs": 0}
    image = _use_rom(t, build, romfs, log)
    report["calibration"] = migrate_calibration(t, new_ring, log)
    if image is not None:
        if _rom_holds(t, image):
            log("deploy: the board's ROMFS partition already holds this firmware's modules")
        else:
            write_rom(t, image, log)
        report["romfs"] = len(image)
        # the modules run from /rom now: their copies on the filesystem go
        modules = [path for path, _ in files if _is_module(path[1:])]
        files = [(path, src) for path, src in files if not _is_module(path[1:])]
        for path in modules:
            if _exists(t, path):
                t.fs_rmfile(path)
                report["removed"].append(path)
    elif t.fs_isdir(ROM + "/ringfw"):
        # an older firmware's image would shadow the files about to be copied (/rom comes
        # first on sys.path): clear it with an empty image
        from mpremote.romfs import VfsRomWriter
        write_rom(t, VfsRomWriter().finalise(), log=lambda *a: None)
        report["removed"].append(ROM + "/ringfw/")
        log("deploy: cleared the board's ROMFS partition: its older firmware would have "
            "shadowed the new files")
    made: set = set()
    wanted = {path for path, _ in files}
    for path, src in files:
        data = src.read_bytes()
        if _exists(t, path) and t.fs_hashfile(path, "sha256") == hashlib.sha256(data).digest():
            report["same"].append(path)
            continue
        _mkdirs(t, path, made)
        t.fs_writefile(path, data)
        report["copied"].append(path)
    # what would shadow the new files or is left over from an older build
    stale = []
    fw_dir = _join(ROOT, "ringfw")
    if t.fs_isdir(fw_dir):
        for entry in t.fs_listdir(fw_dir):
            path = fw_dir + "/" + entry.name
            if entry.st_mode & 0x4000 or path in wanted:
                continue
            if entry.name.endswith((".py", ".mpy")):
                stale.append(path)
    for name in _ROOT_SHADOWS:
        if _join(ROOT, name) not in wanted and _exists(t, _join(ROOT, name)):
            stale.append(_join(ROOT, name))
    for path in stale:
        t.fs_rmfile(path)
        report["removed"].append(path)
    for name in _ROOT_SHADOW_DIRS:
        path = _join(ROOT, name)
        if t.fs_isdir(path):
            _rm_tree(t, path)
            report["removed"].append(path + "/")
    if image is not None:      # the modules' folders, emptied, go too (not /lib itself)
        for d in sorted({path.rsplit("/", 1)[0] for path in modules}, key=len, reverse=True):
            if d != "/lib" and t.fs_isdir(d) and not list(t.fs_listdir(d)):
                t.fs_rmdir(d)
    if not _exists(t, _join(ROOT, CAL_FILE)):
        log("deploy: the board has no %s yet: run `ringside calibrate`" % CAL_FILE)
    return report


_PROMPTS = (b">>> ", b"raw REPL; CTRL-B to exit")
REPL_WAIT_S = 1.0


def repl_answers(dev: str, wait_s: float = REPL_WAIT_S) -> bool:
    """Does MicroPython's REPL answer on dev? Ctrl-C (which also stops an app still in its
    grace, or a fault blink) and look for a prompt."""
    import time

    from ringside.link import LinkError
    from ringside.link.ports import open_port
    try:
        port = open_port(dev)
    except LinkError:
        return False
    try:
        port.write(b"\r\x03\x03\r")
        got = b""
        end = time.monotonic() + wait_s
        while time.monotonic() < end:
            got += port.read(256)
            if any(p in got for p in _PROMPTS):
                return True
        return False
    except OSError:
        return False
    finally:
        port.close()


def release(port_spec: str | None, link_factory: Callable | None = None) -> str:
    """Hand a board's port to the REPL (what `make deploy` does first): the app's `repl`
    command, or nothing when the MicroPython REPL already answers (a new board, safe mode,
    a stopped app). Returns the line to print; LinkError with the reason if neither."""
    from ringside.link import Link, LinkError
    from ringside.link.ports import find_picos
    make = link_factory or (lambda spec: Link(spec, ring=None, reconnect=False))
    try:
        link = make(port_spec)
        link.open()
    except LinkError as e:
        dev = port_spec
        if dev is None:
            found = find_picos()
            dev = found[0].device if found else None
        if dev is not None and repl_answers(dev):
            return "%s: no app is running; the MicroPython REPL is free already" % dev
        raise LinkError("%s; and no MicroPython REPL answered Ctrl-C either (unplug and replug "
                        "the board, or start it in safe mode: docs/board.md)" % e) from None
    name = link.port_name
    link.release_repl()
    return "%s: the app stopped and the REPL is free (mpremote can connect now)" % name


def _open(port: str):
    from mpremote.transport_serial import SerialTransport
    t = SerialTransport(port, baudrate=115200)
    t.enter_raw_repl(soft_reset=True)
    return t


def _reset(t) -> None:
    t.exec_raw_no_follow("import machine\nmachine.reset()")


def main(argv: list[str] | None = None, open_board: Callable = _open) -> int:
    ap = argparse.ArgumentParser(prog="python -m ringside.app.deploy",
                                 description="Copy a firmware build to a board at the REPL "
                                             "(run `ringside release` first), keeping its "
                                             "calibration, then reset it.")
    ap.add_argument("build", nargs="?", default="build/firmware",
                    help="the firmware build (default: build/firmware, what `make firmware` makes)")
    ap.add_argument("--port", required=True, metavar="PATH", help="the board's serial port")
    ap.add_argument("--romfs", choices=ROMFS_MODES, default="auto",
                    help="the modules to the board's ROMFS partition, where their bytecode "
                         "runs from flash, not the heap: auto (default: when the board has "
                         "one the image fits), yes (or fail), no (the filesystem)")
    args = ap.parse_args(argv)
    from mpremote.transport import TransportError
    t = None
    try:
        build_files(Path(args.build))          # a bad build fails before the board is touched
        t = open_board(args.port)
        rep = deploy(t, Path(args.build), romfs=args.romfs)
        _reset(t)
    except DeployError as e:
        print("deploy: error: %s" % e, file=sys.stderr)
        return 1
    except (TransportError, OSError) as e:
        print("deploy: error: %s: %s (is the board at the REPL? `ringside release --port %s`)"
              % (args.port, e or type(e).__name__, args.port), file=sys.stderr)
        return 1
    finally:
        if t is not None:
            try:
                t.close()
            except Exception:
                pass
    print("deploy: %s%d file(s) copied, %d already up to date, %d removed; calibration %s; "
          "board reset" % ("modules to ROMFS (%d B), " % rep["romfs"] if rep["romfs"] else "",
                           len(rep["copied"]), len(rep["same"]), len(rep["removed"]),
                           {"kept": "kept", "migrated": "moved into " + CAL_FILE,
                            "none": "none on the board"}[rep["calibration"]]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
