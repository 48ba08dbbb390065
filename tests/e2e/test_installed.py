"""A non-editable install (the wheel `pip install .` builds, in a fresh venv, run outside the
source tree) carries its ring and data and plays Darts on the simulated ring.

The wheel is built once (`pip wheel --no-deps`, about 8 s); the venv gets the wheel and
pyserial only (--no-deps), so nothing of the source tree or of the test venv can stand in
for what the package lacks. Skipped only when no wheel can be built here."""
from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                         capture_output=True, text=True, timeout=300)
    wheels = sorted(out.glob("ringside-*.whl"))
    if res.returncode != 0 or not wheels:
        pytest.skip("cannot build a wheel here: %s" % (res.stderr.strip().splitlines() or ["?"])[-1])
    return wheels[0]


def test_the_wheel_carries_the_ring_every_data_file_and_the_firmware(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    z = zipfile.ZipFile(wheel)
    assert z.read("ringside/ring.json") == (ROOT / "hardware" / "ring.json").read_bytes()
    data = sorted("ringside/" + p.relative_to(ROOT / "host" / "ringside").as_posix()
                  for p in (ROOT / "host" / "ringside").rglob("*.json"))
    assert data and not [d for d in data if d not in names]
    fw = sorted("ringfw/" + p.name for p in (ROOT / "firmware" / "ringfw").glob("*.py"))
    assert not [f for f in fw if f not in names]
    assert "ringside/sim/fw_replay.py" in names


# what the installed package needs at run time (pyproject's dependencies and theirs), at the
# versions requirements.txt pins, so the fresh venv holds nothing the package does not ask for
_RUNTIME = ("pyserial", "numpy", "jsonschema", "attrs", "jsonschema-specifications", "referencing",
            "rpds-py", "typing_extensions")


def _runtime_pins() -> list[str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        name, _, ver = line.split("#")[0].strip().partition("==")
        if ver:
            pins[name.lower()] = "%s==%s" % (name, ver)
    return [pins[n.lower()] for n in _RUNTIME]


def test_an_installed_ringside_plays_darts_on_the_simulated_ring(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    res = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
                          str(wheel), *_runtime_pins()], capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        pytest.skip("cannot install into a fresh venv here: %s" % res.stderr.strip()[-300:])
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    where = subprocess.run([str(py), "-c", "import ringside, ringfw; print(ringside.__file__); print(ringfw.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    for line in where.stdout.split():
        assert line.startswith(str(venv)), where.stdout      # not the source tree
    play = subprocess.run([str(venv / "bin" / "ringside"), "play", "darts", "--players", "Ann", "--bots", "Cy",
                           "--sim", "--seed", "3"], input="cw 200\nccw 250\nquit\n",
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    out = play.stdout + play.stderr
    assert play.returncode == 0, out[-2000:]
    assert "Traceback" not in out and "cannot read the ring" not in out, out[-2000:]
    # the game went on: both of Ann's flicks were read off the ring and are in the save
    save = json.loads((tmp_path / "state" / "ringside" / "last-game.json").read_text())
    mine = [a for seat, a in save["game"]["log"] if seat == 0]
    assert [a["type"] for a in mine[:2]] == ["landed", "landed"], mine
    assert mine[0]["travel"] < 0 < mine[1]["travel"]     # cw then ccw, as typed
