"""`ringside bench ring --save-traces DIR`: the traces a bench run saves replay to the verdict
the bench saw, and saving them changes nothing in the bench's own results."""
from __future__ import annotations

import json

from ringside.app.cli import main
from ringside.bench import ring
from ringside.sim import traces

_KEYS = ("accuracy", "primary_accuracy", "misreported", "ambiguous_rate", "no_verdict",
         "false_off_ring", "off_ring_missed", "travel_error_deg_p95", "latency_ms_p50",
         "latency_ms_p95", "sim_seconds", "turning_point_landings")


def _same_verdict(got, saw):
    assert got["verdict"] == saw["verdict"]
    if got["verdict"] == "landed":
        assert (got["space"], got.get("alt")) == (saw["sp"], saw.get("alt"))
        assert abs(round(got["travel_deg"] * 100) - saw["trv"]) <= 200


def test_saved_traces_replay_to_what_the_bench_saw(tmp_path):
    plain = ring.run(flicks=4, seed=5, sensor_model="physical")
    res = ring.run(flicks=4, seed=5, sensor_model="physical", save_traces=str(tmp_path),
                   save_flicks=(0, 2, 3))
    # the bench goes on unchanged while it saves (the tails run on copies of the board)
    assert {k: res[k] for k in _KEYS} == {k: plain[k] for k in _KEYS}
    saved = res["saved_traces"]
    assert {s["flick"] for s in saved} >= {0, 2, 3}
    for s in saved:
        tr = traces.load(s["file"])
        assert tr.head["reproduced"] is True, s
        assert tr.head["source"]["seed"] == 5 and tr.head["source"]["flick"] == s["flick"]
        assert tr.head["source"]["command"].startswith("ringside bench ring --flicks 4 --seed 5")
        got = traces.verdict(tr, traces.replay(tr)["frames"])
        _same_verdict(got, tr.head["bench_saw"])
        # its status says whether today's firmware gets it right
        ok, _ = traces.check(tr, traces.replay(tr))
        assert ok == (tr.head["status"] == "ok")
        assert traces.ring_bytes(tr)


def test_the_cli_takes_save_traces(tmp_path, capsys):
    rc = main(["bench", "ring", "--ideal", "--flicks", "2", "--seed", "2", "--save-traces",
               str(tmp_path), "--save-flick", "1", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    files = [s["file"] for s in out["saved_traces"]]
    assert files and all(f.startswith(str(tmp_path)) for f in files)
    tr = traces.load(files[-1])
    assert tr.head["source"]["sensor_model"] == "ideal"
    assert "--ideal" in tr.head["source"]["command"]
    ok, msg = traces.check(tr, traces.replay(tr))
    assert ok == (tr.head["status"] == "ok"), msg


def test_several_seeds_save_their_traces_into_one_directory(tmp_path, capsys):
    # (--seeds once dropped --save-traces without a word: a sweep's wrong answers were lost)
    rc = main(["bench", "ring", "--ideal", "--flicks", "2", "--seeds", "2-3", "--jobs", "2",
               "--save-traces", str(tmp_path), "--save-flick", "1", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    for seed in ("2", "3"):
        files = [s["file"] for s in out["seeds"][seed]["saved_traces"]]
        assert files and all(("-s%s-f" % seed) in f for f in files), files
        for f in files:
            assert traces.ring_bytes(traces.load(f))
    assert not list((tmp_path / "rings").glob("*.tmp"))


def test_a_copy_of_a_register_board_drives_its_own_bus():
    # The fake `machine` module's I2C and Pin are closures over one bus: a copy of the board
    # (a trace's tail, a warm-up) that rebooted made its RangeSensors on the original's bus,
    # and ranged with the original's chips (--save-traces changed the bench's results).
    from ringside.sim.board import SimBoard
    b = SimBoard(None, seed=1, bus="register")
    b.place(10.0)
    b.advance(500)
    twin = traces._copy_board(b)
    n = b.hw.bus.transfers
    twin.reboot()
    twin.advance(300)
    assert b.hw.bus.transfers == n
    assert twin.hw.machine is not b.hw.machine
    rs = twin.sensors.rs
    assert rs._machine is twin.hw.machine and type(rs._sda) is twin.hw.machine.Pin
    # the original's pins stay the original's
    assert b.sensors.rs._machine is b.hw.machine and type(b.sensors.rs._sda) is b.hw.machine.Pin


def test_saving_traces_under_a_fault_changes_nothing(tmp_path):
    # seed 1, stuck:3: before the copies had buses of their own, flick 14's warm-up
    # rebooted a copy on the original's bus and every flick after it came out otherwise
    # (flick 14 is saved whether or not today's firmware gets it wrong)
    kw = dict(flicks=16, seed=1, fault_specs=[("stuck", 3)])
    plain = ring.run(**kw)
    res = ring.run(save_traces=str(tmp_path), save_flicks=(14,), **kw)
    assert [t["flick"] for t in res["saved_traces"]][-1:] == [14]
    assert {k: res[k] for k in _KEYS} == {k: plain[k] for k in _KEYS}
    assert res["firmware_bus"] == plain["firmware_bus"]


def test_wrong_answers_are_saved_apart_from_lesser_cases_and_asked_flicks_always(tmp_path):
    # a dead-sensor run's first 20 travel errors once filled the limit and left its one
    # misreport (flick 875) unsaved
    from ringside.sim.board import SimBoard
    saver = traces.BenchSaver(SimBoard(seed=1), tmp_path, source={}, side="darts", spaces=None,
                              limit=2, save_flicks=(9,))
    whys = ["travel_error", "travel_error", "travel_error", "misreport", "false_off_ring",
            "no_verdict", "turning_point", "missed_off_ring", None, "travel_error"]
    saved = []
    saver._why = lambda k, *a: whys[k]
    saver._save = lambda k, frame, rest_t, why, *a: saved.append((k, why))
    for k in range(len(whys)):
        saver.flick_end(k, None, None, True, None, 1, 30000)
    assert saved == [(0, "travel_error"), (1, "travel_error"), (3, "misreport"),
                     (4, "false_off_ring"), (9, "travel_error")]
    assert saver.skipped == 4


def test_an_unanswered_flick_is_kept_long_enough_for_a_blind_landing(tmp_path):
    # A blind landing comes 4 s after the marble went into the arc; a 3 s tail after it
    # stopped cut a fixed tracker's answer off (stop 30: stuck:5 s3 f727 still read "none")
    from ringside.ring import load_side
    from ringside.sim.board import SimBoard
    b = SimBoard(seed=1)
    b.advance(1000)
    saver = traces.BenchSaver(b, tmp_path, source={"seed": 1}, side="darts",
                              spaces=load_side("darts", b.ring_dict), tail_ms=3000)
    ends = []
    for k, answered in enumerate((True, False)):
        saver.flick_start(k)
        frame, rest_t = b.run_flick(150.0)
        assert frame is not None and rest_t is not None
        b.advance(8000)
        saver._save(k, frame if answered else None, rest_t, "asked", 1, 30000)
        tr = traces.load(saver.saved[-1]["file"])
        ends.append(tr.head["end_ms"] - max(rest_t, frame[0] if answered else 0))
        saver.flick_end(k, frame, rest_t, True, None, 1, 30000)
    assert 3000 - b.loop_ms <= ends[0] <= 3000
    assert traces.UNANSWERED_TAIL_MS - b.loop_ms <= ends[1] <= traces.UNANSWERED_TAIL_MS
    assert traces.UNANSWERED_TAIL_MS >= 6000


def test_the_cli_keeps_a_longer_tail_when_asked(tmp_path, capsys):
    # --trace-tail: room for a late answer (a noisy sensor flagged 9 s after the marble
    # stopped in its arc, then 4 s to a blind landing: stop 35's noisy:2 s2 f36)
    ends = {}
    for tail in (3000, 9000):
        d = tmp_path / str(tail)
        rc = main(["bench", "ring", "--ideal", "--flicks", "1", "--seed", "2", "--save-traces",
                   str(d), "--save-flick", "0", "--trace-tail", str(tail), "--json"])
        assert rc == 0
        out = json.loads(capsys.readouterr().out)
        tr = traces.load(out["saved_traces"][-1]["file"])
        ends[tail] = tr.head["end_ms"]
        ok, msg = traces.check(tr, traces.replay(tr))
        assert ok == (tr.head["status"] == "ok"), msg
    assert 6000 - 100 <= ends[9000] - ends[3000] <= 6000 + 100


def test_the_cli_refuses_a_tail_without_traces(capsys):
    assert main(["bench", "ring", "--flicks", "1", "--trace-tail", "5000"]) == 2
    assert "--trace-tail" in capsys.readouterr().err
    assert main(["bench", "ring", "--flicks", "1", "--save-traces", "x", "--trace-tail", "0"]) == 2


def test_a_trace_from_a_board_booted_from_its_saved_calibration_replays_from_its_empty_ring(
        tmp_path):
    # the board started from the empty ring saved with its calibration: the trace keeps it,
    # and the replayed ring.json carries it, so the replay's tracker starts from it too
    from ringfw import geometry
    res = ring.run(flicks=1, seed=5, saved_calibration=True, save_traces=str(tmp_path),
                   save_flicks=(0,))
    tr = traces.load(res["saved_traces"][0]["file"])
    cal = tr.head["calibration"]
    assert len(cal) == 12 and all(len(c) == 3 and len(c[2]) == 4 for c in cal)
    replayed = geometry.loads(traces.replay_ring(tr))
    assert [replayed.bg_saved[4 * i:4 * i + 4].tolist() for i in range(12)] == [c[2] for c in cal]
    assert replayed.bg_saved[0] != -1
    # a board calibrated just now: the fit alone, and the ring file as it is
    plain = ring.run(flicks=1, seed=5, save_traces=str(tmp_path / "plain"), save_flicks=(0,))
    tr2 = traces.load(plain["saved_traces"][0]["file"])
    assert all(len(c) == 2 for c in tr2.head["calibration"])
    assert traces.replay_ring(tr2) == traces.ring_bytes(tr2)


def test_a_trace_whose_calibration_is_malformed_is_refused(tmp_path):
    import pytest
    src = sorted((traces.Path(__file__).parent.parent / "traces").glob("physical-s5-*.jsonl"))[0]
    lines = src.read_text().split("\n")
    head = json.loads(lines[0])
    head["calibration"][3] = [40, 4096, [1, 2, 3]]
    bad = tmp_path / src.name
    bad.write_text("\n".join([json.dumps(head)] + lines[1:]))
    with pytest.raises(traces.TraceError, match="calibration must be one"):
        traces.load(bad)


def test_replaying_a_directory_whose_trace_lost_its_ring_file_says_so_without_a_traceback(
        tmp_path, capsys):
    from pathlib import Path
    src = sorted(Path("tests/traces").glob("physical-*.jsonl"))[0]
    (tmp_path / src.name).write_bytes(src.read_bytes())     # no rings/ beside it
    assert traces.main([str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "is missing" in err and src.name in err
    assert "Traceback" not in err
