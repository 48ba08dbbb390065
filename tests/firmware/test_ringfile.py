"""ring.json read into a geometry.Ring (ringfw.ringfile): what a good file gives, what every
kind of bad file is told, and the calibration written back."""
import binascii
import copy
import json
import math
import sys
from pathlib import Path

import pytest

from ringfw import calfile, geometry, ringfile
from ringfw.geometry import RingError
from ringfw.power import brightness_cap

ROOT = Path(__file__).resolve().parents[2]
RING_JSON = ROOT / "hardware" / "ring.json"
RING = json.loads(RING_JSON.read_text())


def loads(d):
    return geometry.loads(json.dumps(d).encode())


def edited(change):
    d = copy.deepcopy(RING)
    change(d)
    return d


def test_the_shipped_ring_reads_into_integer_tables():
    data = RING_JSON.read_bytes()
    r = geometry.loads(data)
    assert r.digest == binascii.crc32(data) & 0xFFFFFFFF
    assert r.sensor_count == len(RING["sensors"]) == 12
    for i, s in enumerate(RING["sensors"]):
        assert r.sensor_angle[i] == round(s["angle_deg"] * 100) % 36000
        assert r.view_min[i] == round(s["view_deg"][0] * 100)
        assert r.sensor_address[i] == s["i2c_address"] and r.xshut_pin[i] == s["xshut_pin"]
    assert r.led_cap == brightness_cap(RING)
    assert r.side_names == sorted(RING["sides"])
    darts = ringfile.side(r, "darts")
    want = [str(sp.get("id", sp["label"])) for sp in RING["sides"]["darts"]["spaces"]]
    assert darts.ids.split(b" ") == [w.encode() for w in want]       # a word list
    ww = ringfile.side(r, "wildwest")
    assert ww.labels.split(b"\n")[5] == b"Money bag"                  # labels keep their spaces
    assert ringfile.space_index(darts, "7") == want.index("7")


def test_reading_from_a_file_gives_the_same_ring(tmp_path):
    p = tmp_path / "ring.json"
    p.write_bytes(RING_JSON.read_bytes())
    a, b = geometry.load(str(p)), geometry.loads(RING_JSON.read_bytes())
    assert a.digest == b.digest and bytes(a.offset_table) == bytes(b.offset_table)


@pytest.mark.parametrize("change, words", [
    (lambda d: d.pop("track"), "missing 'track'"),
    (lambda d: d["sensors"].clear(), "lists no sensors"),
    (lambda d: d["sensors"][0].update(aim="up"), "sensor 0: aim must be 'ccw' or 'cw'"),
    (lambda d: d["sensors"][1].update(view_deg=[40, 10]), "sensor 1: view_deg must be 0 < near < far < 90"),
    (lambda d: d["sensors"][2].update(calibration={"scale": 3.0}), "sensor 2: calibration scale"),
    (lambda d: d["sensors"][2].update(calibration={"offset_mm": 5000}), "offset_mm must be within -1000..1000"),
    (lambda d: d["sensors"][3].update(i2c_address=300), "sensor 3: i2c_address must be a 7-bit address"),
    (lambda d: d["sensors"][4].update(xshut_pin=200), "sensor 4: xshut_pin must be a GPIO number"),
    (lambda d: d["sensors"][11].update(xshut_pin=14), "gives GP14 two jobs: pins.safe and sensor 11's xshut_pin"),
    (lambda d: d["sensors"][5].update(xshut_pin=3), "gives GP3 two jobs: sensor 1's xshut_pin and sensor 5's xshut_pin"),
    (lambda d: d["leds"].update(pin=0), "gives GP0 two jobs: pins.sda and leds.pin"),
    (lambda d: d["sides"]["darts"]["spaces"][0].update(id="bull seye"), "space id 'bull seye' must be printable"),
    (lambda d: d["sides"]["darts"]["spaces"][1].update(id="5"), "space id '5' appears twice"),
    (lambda d: d["sides"]["darts"]["spaces"][2].update(label="a=b"), "label 'a=b' must be printable"),
    (lambda d: d["sides"]["darts"]["spaces"][0].update(to_deg=1.0), "must end where"),
    (lambda d: d["sides"]["darts"].update(start="99"), "start space '99' is not one of its spaces"),
    (lambda d: d["sides"].update({"two words": d["sides"]["darts"]}), "side name 'two words'"),
    (lambda d: d["detection"].update(still_ms_tilted=60000), "still_ms and still_ms_tilted"),
    (lambda d: d["detection"].update(calibration_sigma_by_offset=[[30, 0.5], [20, 0.7]]),
     "calibration_sigma_by_offset must be"),
    (lambda d: d["detection"].update(calibration_sigma_by_offset=[[30, 12]]), "sigma_deg under 10"),
    (lambda d: d["leds"].pop("budget_ma"), "budget_ma"),
    (lambda d: d["track"].update(radius_mm="wide"), "wrong type"),
])
def test_a_bad_ring_json_is_refused_with_the_reason(change, words):
    with pytest.raises(RingError, match=words.replace("(", r"\(").replace(")", r"\)")):
        loads(edited(change))


def test_not_json_at_all_is_refused(tmp_path):
    with pytest.raises(RingError, match="not valid JSON"):
        geometry.loads(b"{ not json")
    p = tmp_path / "ring.json"
    p.write_text("[1, 2")
    with pytest.raises(RingError, match="not valid JSON"):
        geometry.load(str(p))
    with pytest.raises(OSError):
        geometry.load(str(tmp_path / "missing.json"))


def test_a_calibration_is_written_to_its_own_file_and_read_again(tmp_path):
    p = tmp_path / "ring.json"
    p.write_text(RING_JSON.read_text())
    before = p.read_bytes()
    r = geometry.load(str(p))
    assert r.calibrated is False                      # no calibration.json yet
    r.off16[3] = 40          # 2.5 mm
    r.scale_q12[3] = 4100
    which = bytearray(r.sensor_count)
    which[3] = 1
    dest = calfile.save_calibration(str(p), r, which)
    assert dest == str(tmp_path / "calibration.json")
    assert p.read_bytes() == before                   # ring.json is never rewritten
    again = geometry.load(str(p))
    assert again.calibrated is True
    assert again.off16[3] == 40 and again.scale_q12[3] == 4100
    assert again.off16[4] == r.off16[4] and not (tmp_path / "calibration.json.tmp").exists()
    d = json.loads((tmp_path / "calibration.json").read_text())
    assert d["format"] == 1
    assert d["sensors"]["3"] == {"offset_mm": 2.5, "scale": 4100 / 4096}
    assert d["sensors"]["4"] == {"offset_mm": 0, "scale": 1.0}


def test_the_empty_ring_calibration_learnt_is_saved_with_it_and_read_again(tmp_path):
    # (the tracker starts from it at boot: a cone knocked after the boot is then found out)
    from ringfw import tracker as T
    p = tmp_path / "ring.json"
    p.write_text(RING_JSON.read_text())
    r = geometry.load(str(p))
    assert list(r.bg_saved) == [-1] * 4 * r.sensor_count      # nothing saved yet
    tr = T.Tracker(r)
    tr.bg_n[5] = T._BG_WARM
    tr.bg_r16[5], tr.bg_sig[5], tr.bg_vsig[5], tr.bg_valid[5] = 1408, 24, 33, 40
    tr.bg_n[6] = T._BG_WARM - 1                                # still learning: not saved
    tr.save_background(r.bg_saved)
    calfile.save_calibration(str(p), r, bytearray(r.sensor_count))
    d = json.loads((tmp_path / "calibration.json").read_text())
    assert d["sensors"]["5"]["background"] == {"range_mm16": 1408, "signal": 24,
                                               "valid_signal": 33, "valid_share": 40}
    assert "background" not in d["sensors"]["6"]
    again = geometry.load(str(p))
    fresh = T.Tracker(again)
    assert fresh.bg_n[5] == T._BG_WARM and fresh.bg_r16[5] == 1408 and fresh.bg_sig[5] == 24
    assert fresh.bg_vsig[5] == 33 and fresh.bg_valid[5] == 40 and fresh.kv[5] == 0
    assert fresh.bg_n[6] == 0


def test_the_calibration_file_wins_over_ring_json_blocks(tmp_path):
    ring = json.loads(RING_JSON.read_text())
    ring["sensors"][2]["calibration"] = {"offset_mm": 1.0, "scale": 1.0}   # an old board's
    (tmp_path / "ring.json").write_text(json.dumps(ring))
    r = geometry.load(str(tmp_path / "ring.json"))
    assert r.off16[2] == 16 and not r.calibrated     # no file: ring.json's block counts
    (tmp_path / "calibration.json").write_text(json.dumps(
        {"format": 1, "sensors": {"2": {"offset_mm": -3.0, "scale": 1.5}}}))
    r = geometry.load(str(tmp_path / "ring.json"))
    assert r.calibrated and r.off16[2] == -48 and r.scale_q12[2] == 6144


@pytest.mark.parametrize("text, why", [
    ("{not json", "not valid JSON"),
    ('{"format": 2, "sensors": {}}', "not a calibration file of format 1"),
    ('{"format": 1, "sensors": {"12": {"offset_mm": 0, "scale": 1}}}',
     "sensor 12 is not in ring.json (it has 12 sensors)"),
    ('{"format": 1, "sensors": {"1": {"offset_mm": 0, "scale": 3}}}',
     "sensor 1: calibration scale must be within 0.5..2.0"),
    ('{"format": 1, "sensors": {"1": {"offset_mm": "x"}}}', "sensor 1: calibration must hold"),
    ('{"format": 1, "sensors": {"1": {"offset_mm": 0, "scale": 1, "background": {"signal": 3}}}}',
     "sensor 1: calibration background must hold the numbers"),
    ('{"format": 1, "sensors": {"1": {"offset_mm": 0, "scale": 1, "background": '
     '{"range_mm16": 1400, "signal": 24, "valid_signal": 30, "valid_share": 300}}}}',
     "sensor 1: calibration background out of range"),
])
def test_a_bad_calibration_file_is_refused_with_its_name(tmp_path, text, why):
    (tmp_path / "ring.json").write_text(RING_JSON.read_text())
    plain = geometry.load(str(tmp_path / "ring.json"))
    (tmp_path / "calibration.json").write_text(text)
    with pytest.raises(RingError) as e:
        ringfile.read_calibration(str(tmp_path / "calibration.json"),
                                  geometry.load(str(tmp_path / "ring.json")))
    assert str(e.value).startswith(str(tmp_path / "calibration.json") + ": ")
    assert why in str(e.value)
    # the board still starts: on ring.json's starting values, saying why (cal=-1 in its hello)
    r = geometry.load(str(tmp_path / "ring.json"))
    assert r.cal_error == str(e.value) and not r.calibrated
    assert list(r.off16) == list(plain.off16) and list(r.scale_q12) == list(plain.scale_q12)
    assert list(r.bg_saved) == list(plain.bg_saved)
    assert _hello_of(r)["cal"] == -1


def test_a_calibration_file_refused_halfway_leaves_no_sensor_with_its_values(tmp_path):
    (tmp_path / "ring.json").write_text(RING_JSON.read_text())
    plain = geometry.load(str(tmp_path / "ring.json"))
    bg = {"range_mm16": 1408, "signal": 24, "valid_signal": 33, "valid_share": 40}
    (tmp_path / "calibration.json").write_text(json.dumps({"format": 1, "sensors": {
        "1": {"offset_mm": 2.0, "scale": 1.01, "background": bg},     # good, applied first
        "2": {"offset_mm": 0, "scale": 7}}}))                          # refused
    r = geometry.load(str(tmp_path / "ring.json"))
    assert "sensor 2: calibration scale must be within 0.5..2.0" in r.cal_error
    assert r.off16[1] == plain.off16[1] and r.scale_q12[1] == plain.scale_q12[1]
    assert list(r.bg_saved) == [-1] * 4 * r.sensor_count


def test_a_calsave_over_an_unusable_file_makes_the_board_calibrated_again(tmp_path):
    (tmp_path / "ring.json").write_text(RING_JSON.read_text())
    (tmp_path / "calibration.json").write_text("{not json")
    r = geometry.load(str(tmp_path / "ring.json"))
    assert r.cal_error
    calfile.save_calibration(str(tmp_path / "ring.json"), r, bytearray(r.sensor_count))
    again = geometry.load(str(tmp_path / "ring.json"))
    assert again.calibrated and again.cal_error is None


def test_cal_path_sits_beside_ring_json():
    assert calfile.cal_path("ring.json") == "calibration.json"
    assert calfile.cal_path("/flash/ring.json") == "/flash/calibration.json"


def test_dropping_a_module_frees_it_for_good(monkeypatch):
    # board_rp2040.drop_modules must also remove the package attribute: sys.modules alone
    # leaves ringfw.ringfile reachable, and its bytecode in the board's heap
    from ringside.sim.vl53l0x_regs import FakeI2C, fake_modules
    for name, mod in fake_modules(FakeI2C()).items():
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.delitem(sys.modules, "ringfw.board_rp2040", raising=False)
    import importlib
    import ringfw
    board = importlib.import_module("ringfw.board_rp2040")
    geometry.loads(RING_JSON.read_bytes())           # imports ringfw.ringfile
    assert "ringfw.ringfile" in sys.modules and hasattr(ringfw, "ringfile")
    saved = sys.modules["ringfw.ringfile"]
    try:
        board.drop_modules(("ringfw.ringfile",))
        assert "ringfw.ringfile" not in sys.modules and not hasattr(ringfw, "ringfile")
        assert geometry.loads(RING_JSON.read_bytes()).sensor_count == 12   # loads it again
    finally:
        sys.modules["ringfw.ringfile"] = saved
        ringfw.ringfile = saved
        sys.modules.pop("ringfw.board_rp2040", None)


def test_the_range_table_inverts_the_lens_in_the_outer_wall():
    # ring.json's mount: the lens 192 mm from the centre, 10 mm up; the marble's centre on
    # the 180 mm centre line, 8 mm up. A range from the host's geometry (what calibration
    # takes as the truth) comes back as its angle within 0.05 deg over the whole window.

    from ringside.ring import lens_range_mm
    data = (Path(__file__).resolve().parents[2] / "hardware" / "ring.json").read_bytes()
    ring = geometry.loads(data)
    rd = json.loads(data)
    assert (ring.lens_r, ring.lens_h) == (192, 2)
    for d10 in range(80, 461, 15):
        mm = lens_range_mm(rd, d10 / 10)
        whole = int(mm)
        tab = ring.offset_table
        off = tab[whole] + (tab[whole + 1] - tab[whole]) * (mm - whole)
        assert abs(off / 100 - d10 / 10) < 0.05, (d10 / 10, mm, off / 100)
    # the chord (the lens on the centre line) is 3.5-5 mm shorter: 1-1.5 deg near the sensor
    chord = 2 * 180 * math.sin(math.radians(15 / 2)) - 8
    assert lens_range_mm(rd, 15) - chord > 3.0


def test_a_ring_without_a_mount_has_its_lenses_on_the_centre_line():

    rd = json.loads((Path(__file__).resolve().parents[2] / "hardware" / "ring.json").read_bytes())
    del rd["mount"]
    ring = geometry.loads(json.dumps(rd).encode())
    assert (ring.lens_r, ring.lens_h, ring.bg_mm) == (180, 0, 0)
    mm = 2 * 180 * math.sin(math.radians(30 / 2)) - 8          # the chord at 30 deg
    whole = int(mm)
    off = ring.offset_table[whole] + (ring.offset_table[whole + 1] - ring.offset_table[whole]) * (mm - whole)
    assert abs(off / 100 - 30) < 0.05


def test_a_lens_inside_the_track_is_refused():

    rd = json.loads((Path(__file__).resolve().parents[2] / "hardware" / "ring.json").read_bytes())
    rd["mount"]["lens_radius_mm"] = 150
    with pytest.raises(ringfile.RingError, match="lens_radius_mm"):
        geometry.loads(json.dumps(rd).encode())


def _hello_of(ring):
    """The hello a board built on ring sends at boot (the simulated board's controller)."""
    from ringside.sim.board import SimBoard
    b = SimBoard(seed=1)
    b.fw_ring = ring
    b.reboot()
    b.advance(50)
    return b.frames_of("hello")[-1][2]


def test_the_hello_says_whether_a_calibration_is_kept_and_with_how_many_empty_rings(tmp_path):
    p = tmp_path / "ring.json"
    p.write_text(RING_JSON.read_text())
    h = _hello_of(geometry.load(str(p)))
    assert h["cal"] == 0 and h["bg"] == 0                     # ring.json's starting values
    # a calibration.json saved by a version before stop 41: no empty ring in it
    (tmp_path / "calibration.json").write_text(json.dumps(
        {"format": 1, "sensors": {str(i): {"offset_mm": 0.5, "scale": 1.0} for i in range(12)}}))
    h = _hello_of(geometry.load(str(p)))
    assert h["cal"] == 1 and h["bg"] == 0
    # one saved with the empty ring of all but sensor 4 (knocked when it was saved)
    bg = {"range_mm16": 1408, "signal": 24, "valid_signal": 33, "valid_share": 40}
    (tmp_path / "calibration.json").write_text(json.dumps(
        {"format": 1, "sensors": {str(i): dict({"offset_mm": 0.5, "scale": 1.0},
                                               **({} if i == 4 else {"background": bg}))
                                  for i in range(12)}}))
    h = _hello_of(geometry.load(str(p)))
    assert h["cal"] == 1 and h["bg"] == 11


def test_a_calsave_makes_the_board_say_it_keeps_its_calibration_and_empty_ring():
    from ringside.app.cmd_play import calibrate_sim
    from ringside.sim.board import SimBoard
    b = SimBoard(seed=2)
    b.advance(100)
    assert b.frames_of("hello")[-1][2]["cal"] == 0
    b.fw_ring.cal_error = "calibration.json: not valid JSON"     # as load leaves it
    b.send("status")
    b.advance(50)
    assert b.frames_of("hello")[-1][2]["cal"] == -1
    calibrate_sim(b, "darts", log=lambda *a: None)
    b.send("status")
    b.advance(50)
    h = b.frames_of("hello")[-1][2]
    assert h["cal"] == 1 and h["bg"] == 12
    b.reboot()                            # the simulated board keeps its ring across a reset
    b.advance(50)
    h = b.frames_of("hello")[-1][2]
    assert h["cal"] == 1 and h["bg"] == 12


def test_a_calsave_that_cannot_write_is_refused_and_keeps_the_calibration_in_use(monkeypatch):
    # a full or failing flash: the board NACKs (the host says so in words), keeps using the
    # calibration it was given, and does not claim to keep it across a reset
    import errno

    from ringside.link.messages import nack_text
    from ringside.sim import board as sim_board
    from ringside.sim.board import SimBoard

    def full(self, ring, which):
        raise OSError(errno.ENOSPC)
    monkeypatch.setattr(sim_board._Storage, "save_calibration", full)
    b = SimBoard(seed=3)
    b.advance(100)
    b.send("cal", id=4, off=24, scale=4200)
    b.send("calsave")
    b.advance(50)
    nacks = b.frames_of("nack")
    assert len(nacks) == 1 and nacks[0][2]["why"] == "save_failed"
    assert "could not write its calibration file" in nack_text(nacks[0][2])
    assert not b.frames_of("error")                       # refused, not a crash of the step
    assert b.fw_ring.off16[4] == 24 and b.fw_ring.scale_q12[4] == 4200   # still in use
    b.send("status")
    b.advance(50)
    assert b.frames_of("hello")[-1][2]["cal"] == 0
