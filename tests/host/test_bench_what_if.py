"""The ring bench's what-ifs (docs/simulator.md, "Stop 38"): a calibration no builder can make
(--exact-calibration), a marble always on the groove's centre line (--centred), another signal
constant than the datasheet's (--signal-k, "Stop 39", "Stop 40"). They find what
limits a landing; they are not a design, and the JSON says which were on."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from ringside.bench import ring as bench
from ringside.ring import lens_range_mm
from ringside.sim.board import SimBoard, default_ring_bytes
from ringside.sim.sensors import SensorArray

ROOT = Path(__file__).resolve().parents[2]
RING = json.loads(default_ring_bytes())


def test_what_the_firmware_makes_of_a_reading_lies_past_the_near_surface():
    # The device reads past the marble's near surface, and the firmware takes out all of the
    # empty ring's light though the marble hides part of it: over a window the two leave
    # 0.4-1.4 mm, unevenly (the shape a calibration's offset and scale cannot take up).
    arr = SensorArray(RING, rng=random.Random(0), model="physical")
    arr.scale[0], arr.bias_mm[0] = 1.0, 0.0
    past = [arr.unblended_mm(0, d) - lens_range_mm(RING, d) for d in range(10, 45)]
    assert 0.3 < min(past) < 0.6 and 1.2 < max(past) < 1.5, past
    assert max(past) - min(past) > 0.7
    # with the sensor's own scale and bias, as its readings carry them (a little more: the
    # background taken out at the design's distance does not carry them)
    plain = arr.unblended_mm(0, 30.0)
    arr.scale[0], arr.bias_mm[0] = 1.02, 3.0
    assert 1.02 * plain + 3.0 < arr.unblended_mm(0, 30.0) < 1.02 * plain + 3.5
    assert arr.unblended_mm(0, 0.0) is None            # the cone misses it at the lens


def test_an_exact_calibration_fits_each_sensor_to_its_noise_free_readings():
    b = SimBoard(seed=3)
    b.place(90.0)
    b.advance(1000)
    table = bench.SimTable(b)
    bench.exact_fits(table, b, [2, 7])
    fw = b.fw_ring
    for i in (2, 7):
        lo, hi = b.model.window_deg(i)
        err = []
        for d in range(int(lo) + 2, int(hi) - 3):
            got = b.model.unblended_mm(i, d)
            mm = ((int(got * 16) - fw.off16[i]) * fw.scale_q12[i] >> 12) / 16.0
            err.append(mm - lens_range_mm(RING, d))
        # what is left is the range model's shape, not the sensor's scale and bias
        assert max(abs(e) for e in err) < 0.6, (i, err)
        assert sum(abs(e) for e in err) / len(err) < 0.3, (i, err)
    untouched = [i for i in range(fw.sensor_count) if i not in (2, 7)]
    assert all(fw.off16[i] == 0 and fw.scale_q12[i] == 4096 for i in untouched)


def test_a_centred_board_keeps_the_marble_on_the_centre_line_and_its_streams():
    runs = []
    for centred in (False, True):
        b = SimBoard(seed=4)
        b.centred = centred
        lateral = []
        for angle in (30.0, 140.0, 250.0):
            b.place(angle)
            lateral.append(b.model.lateral_mm)
            b.flick(300.0)
            lateral.append(b.model.lateral_mm)
            b.advance(4000)
        runs.append((lateral, round(b.marble.position_deg, 6)))
    assert any(abs(x) > 0.5 for x in runs[0][0])
    assert runs[1][0] == [0.0] * 6
    assert runs[0][1] == runs[1][1]        # the marble rolls the same: only the readings differ


def test_the_json_names_the_what_ifs_and_the_ideal_model_refuses_an_exact_calibration():
    res = bench.run(flicks=2, seed=5, exact_calibration=True, centred=True)
    assert res["what_if"] == ["exact_calibration", "centred"]
    assert res["calibrated_sensors"] == 12
    assert bench.run(flicks=1, seed=5, calibrate_first=False)["what_if"] == []
    r = subprocess.run([sys.executable, "-m", "ringside.app.cli", "bench", "ring", "--flicks",
                        "1", "--ideal", "--exact-calibration"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 2 and "needs the physical model" in r.stderr
    assert "Traceback" not in r.stderr


def test_the_signal_constant_what_if_reaches_the_model_and_scales_every_return():
    """--signal-k: the model's K is the datasheet's 0.83 (docs/simulator.md, "Datasheet and
    API constants"); the what-if runs any other, such as the 0.5 the model had until stop 40:
    the JSON names it, the model's parameters carry it, and the empty ring returns the same
    scene 0.5/0.83 times as strongly."""
    res = bench.run(flicks=1, seed=5, calibrate_first=False, signal_k=0.5)
    assert res["what_if"] == ["signal_k"]
    assert res["model"]["params"]["signal_k_mcps_m2"] == 0.5
    base = bench.run(flicks=1, seed=5, calibrate_first=False)
    assert base["what_if"] == []
    assert base["model"]["params"]["signal_k_mcps_m2"] == 0.83
    s50 = res["model"]["empty_ring_signal_mcps"][0]
    s83 = base["model"]["empty_ring_signal_mcps"][0]
    assert s83 / s50 == pytest.approx(0.83 / 0.5, rel=0.02)
    for bad in (["--signal-k", "0"], ["--signal-k", "0.8", "--ideal"]):
        r = subprocess.run([sys.executable, "-m", "ringside.app.cli", "bench", "ring", "--flicks",
                            "1", *bad], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert r.returncode == 2 and "--signal-k takes" in r.stderr


def test_a_trace_saved_under_a_what_if_names_it_in_its_command(tmp_path):
    """The trace's command must make the very same feed again: the what-ifs are in it."""
    bench.run(flicks=1, seed=5, calibrate_first=False, signal_k=0.83, centred=True,
              save_traces=str(tmp_path), save_flicks=(0,))
    saved = sorted(tmp_path.glob("*.jsonl"))
    assert saved
    head = json.loads(saved[0].read_text().split("\n", 1)[0])
    assert head["source"]["command"].endswith("--centred --signal-k 0.83")
    assert head["source"]["model"]["params"]["signal_k_mcps_m2"] == 0.83


def test_a_board_booted_from_its_saved_calibration_keeps_the_fit_and_the_empty_ring(monkeypatch):
    """--saved-calibration: after calibrating, the board is reset, as at every later session:
    it boots with the calibration it saved (calsave), each sensor's empty ring as calibration
    learnt it included, and nothing else it learnt (the marble's brightness)."""
    seen = []
    reboot = SimBoard.reboot

    def spy(board):
        fit = [(board.fw_ring.off16[i], board.fw_ring.scale_q12[i]) for i in range(12)]
        old = board.controller.tracker
        learnt = [(old.bg_r16[i], old.bg_sig[i], old.bg_valid[i]) for i in range(12)]
        reboot(board)
        tr = board.controller.tracker
        seen.append((fit, board.saved_ring, list(tr.bg_n), tr.k_rest, learnt,
                     [(tr.bg_r16[i], tr.bg_sig[i], tr.bg_valid[i]) for i in range(12)]))

    monkeypatch.setattr(SimBoard, "reboot", spy)
    res = bench.run(flicks=3, seed=5, saved_calibration=True)
    assert res["booted_from_saved_calibration"] is True and res["calibrated_sensors"] == 12
    assert len(seen) == 1
    fit, saved, bg_n, k_rest, learnt, after = seen[0]
    assert any(f != (0, 4096) for f in fit)                # a fitted calibration...
    assert saved is not None                               # ... that was saved
    assert all("background" in c["calibration"] for c in saved["sensors"])
    # the empty ring calibration learnt, as it was when saved; the marble's brightness not
    assert bg_n == [32] * 12 and after == learnt and k_rest == -1
    assert res["flicks"] == 3 and res["misreported"] == 0
    plain = bench.run(flicks=1, seed=5)
    assert plain["booted_from_saved_calibration"] is False


def test_a_trace_saved_from_a_board_booted_from_its_saved_calibration_says_so(tmp_path):
    """Its name (the bench's tag) and its command: the very same feed again, and no clash
    with a trace of the same flick on a board calibrated just now."""
    bench.run(flicks=1, seed=5, saved_calibration=True, save_traces=str(tmp_path),
              save_flicks=(0,))
    saved = sorted(tmp_path.glob("*.jsonl"))
    assert saved and all(p.name.startswith("physical-saved-") for p in saved), saved
    head = json.loads(saved[0].read_text().split("\n", 1)[0])
    assert head["source"]["command"].endswith("--saved-calibration")


def test_faults_before_boot_strike_between_the_calibration_and_the_reset(monkeypatch, tmp_path):
    """--faults-before-boot: a ring knocked in the cupboard. The fault is on before the board
    starts again (its first readings have it), not from the first flick after the boot."""
    seen = []
    reboot = SimBoard.reboot

    def spy(board):
        seen.append(dict(board.faults))
        reboot(board)

    monkeypatch.setattr(SimBoard, "reboot", spy)
    res = bench.run(flicks=2, seed=5, saved_calibration=True, fault_specs=[("misaimed", 2)],
                    faults_before_boot=True, save_traces=str(tmp_path), save_flicks=(0,))
    assert seen[0] == {2: "misaimed"}                 # already knocked when it resets
    assert res["faults_before_boot"] is True and res["faults"][0]["kind"] == "misaimed"
    del seen[:]
    after = bench.run(flicks=2, seed=5, saved_calibration=True, fault_specs=[("misaimed", 2)])
    assert seen[0] == {} and after["faults_before_boot"] is False
    head = json.loads(sorted(tmp_path.glob("*.jsonl"))[0].read_text().split("\n", 1)[0])
    assert head["name"].startswith("physical-saved-off-misaimed2-")
    assert head["source"]["command"].endswith("--saved-calibration --faults-before-boot")
    with pytest.raises(ValueError, match="needs --saved-calibration"):
        bench.run(flicks=1, seed=5, fault_specs=[("misaimed", 2)], faults_before_boot=True)
