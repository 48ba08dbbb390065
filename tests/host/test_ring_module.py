"""ringside.ring: the one model of the ring on the host, the ring.json it ships, and the user's
own file winning; games never import the simulator."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from ringfw import geometry, ringfile
from ringside import ring
from ringside.games import GameError

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "host" / "ringside"
HARDWARE_RING = ROOT / "hardware" / "ring.json"


@pytest.fixture(autouse=True)
def _no_override(monkeypatch):
    monkeypatch.delenv(ring.ENV, raising=False)
    ring.use_file(None)
    yield
    ring.use_file(None)


def test_the_packaged_ring_is_hardware_ring_json():
    assert ring.default_path() == ring.PACKAGED
    assert ring.PACKAGED.read_bytes() == HARDWARE_RING.read_bytes()
    assert ring.ring_dict() == json.loads(HARDWARE_RING.read_text())


def test_the_hash_is_the_one_the_board_says_hello_with():
    fw = geometry.load(str(HARDWARE_RING))
    assert ring.ring_hash() == fw.digest_hex.decode()


def test_every_angle_is_the_space_the_firmware_says():
    """The host's space_at is the firmware's (each side, every centidegree)."""
    fw = ring.fw_ring()
    for name in fw.side_names:
        side = ring.load_side(name)
        fside = ringfile.side(fw, name)
        ids = fside.ids.decode().split(" ")
        for cd in range(0, 36000, 7):
            assert side.space_at(cd / 100.0) == ids[fside.space_at(cd)], (name, cd)
        # and a whole turn later, or negative, the same space
        assert side.space_at(123.45 + 720) == side.space_at(123.45) == side.space_at(123.45 - 360)


def test_centres_and_steps_follow_ring_json():
    d = json.loads(HARDWARE_RING.read_text())
    side = ring.load_side("darts")
    sp = {s["id"]: s for s in d["sides"]["darts"]["spaces"]}
    for sid, c in side.centres():
        lo, hi = sp[sid]["from_deg"], sp[sid]["to_deg"]
        assert abs(c - (lo + ((hi - lo) % 360) / 2) % 360) < 1e-9
        assert side.space_at(c) == sid
    a = side.ids[0]
    assert side.step(side.step(a, ring.CCW), ring.CW) == a
    assert ring.leds()["count"] == d["leds"]["count"]


def test_the_users_ring_file_wins(tmp_path, monkeypatch):
    d = json.loads(HARDWARE_RING.read_text())
    d["leds"]["count"] = 24
    mine = tmp_path / "my-ring.json"
    mine.write_text(json.dumps(d))
    monkeypatch.setenv(ring.ENV, str(mine))
    assert ring.default_path() == mine
    assert ring.leds()["count"] == 24
    assert ring.ring_hash() != ring.ring_hash(HARDWARE_RING)
    other = tmp_path / "other.json"
    d["leds"]["count"] = 12
    other.write_text(json.dumps(d))
    ring.use_file(other)          # --ring FILE beats the environment
    assert ring.leds()["count"] == 12
    with pytest.raises(GameError, match="no ring description at"):
        ring.use_file(tmp_path / "missing.json")


def test_a_bad_ring_file_is_one_clear_error(tmp_path, monkeypatch):
    bad = tmp_path / "ring.json"
    bad.write_text("{not json")
    monkeypatch.setenv(ring.ENV, str(bad))
    with pytest.raises(GameError, match="not valid JSON"):
        ring.load_side("darts")
    with pytest.raises(GameError, match=r"no side 'nope' on the ring \(there are: darts, wildwest\)"):
        ring.check_side("nope", HARDWARE_RING)


def test_the_simulator_and_the_link_read_the_ring_in_use(tmp_path, monkeypatch):
    from ringside.sim.board import default_ring_bytes
    d = json.loads(HARDWARE_RING.read_text())
    d["name"] = "my own ring"
    mine = tmp_path / "ring.json"
    mine.write_text(json.dumps(d))
    monkeypatch.setenv(ring.ENV, str(mine))
    assert default_ring_bytes() == mine.read_bytes()
    from ringside.link import Link
    assert Link("/dev/null-ringside-test").expected_ring == ring.ring_hash(mine)


def test_no_module_finds_the_ring_through_the_source_tree():
    """Every ring.json / firmware lookup goes through ringside.ring (so an installed
    ringside works): no `parents[N]` path climbing in the package."""
    offenders = []
    for p in sorted(HOST.rglob("*.py")):
        for k, line in enumerate(p.read_text().splitlines(), 1):
            if re.search(r"parents\[\d\]", line):
                offenders.append("%s:%d: %s" % (p.relative_to(ROOT), k, line.strip()))
    assert not offenders, "\n".join(offenders)


def _imports(path: Path) -> set[str]:
    out = set()
    tree = ast.parse(path.read_text())
    pkg = ".".join(path.relative_to(HOST.parent).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                base = pkg.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([mod] if mod else []))
            out.add(mod)
            out.update(mod + "." + a.name for a in node.names)
    return out


def test_games_never_import_the_simulator():
    offenders = []
    for p in sorted((HOST / "games").rglob("*.py")):
        bad = sorted(m for m in _imports(p) if m == "ringside.sim" or m.startswith("ringside.sim."))
        if bad:
            offenders.append("%s imports %s" % (p.relative_to(ROOT), ", ".join(bad)))
    assert not offenders, "\n".join(offenders)


def test_the_import_scan_sees_a_simulator_import(tmp_path):
    """The scan above would catch both spellings (a check that the check can fail)."""
    games = tmp_path / "ringside" / "games"
    games.mkdir(parents=True)
    f = games / "x.py"
    f.write_text("from ringside.sim.physics import Flicker\nimport ringside.sim\n")
    global HOST
    old, HOST = HOST, tmp_path / "ringside"
    try:
        assert {"ringside.sim.physics", "ringside.sim"} <= _imports(f)
    finally:
        HOST = old


def test_the_simulator_flicks_with_the_players_model():
    """One level-ring model: the simulator's formulas are the computer players' ones."""
    from ringside import flicks
    from ringside.sim import physics
    assert physics.travel_for_speed is flicks.travel_for_speed
    assert physics.PhysicsParams is flicks.PhysicsParams
    d = ring.ring_dict()
    m = physics.Marble(d)
    m.place(10.0)
    v = flicks.speed_for_travel(d, 200.0)
    m.flick(v)
    m.run_until_rest()
    assert abs(m.travel_deg - 200.0) < 1.0
