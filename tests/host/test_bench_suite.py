"""`ringside bench suite`: README's measurements as data, run into a directory (resumable), and
checked seed by seed against the targets."""
import json

import pytest

from ringside.app.cli import main
from ringside.bench import suite


def test_the_packaged_suite_is_the_set_readme_publishes():
    runs = suite.plan(suite.load_spec())
    by_part = {}
    for r in runs:
        by_part.setdefault(r["part"], []).append(r)
    assert [r["file"] for r in by_part["level"]] == ["level"]
    assert suite.command_line(by_part["level"][0]["args"]) == \
        "ringside bench ring --flicks 2000 --seeds 1-10 --jobs 2 --json"
    assert suite.command_line(by_part["tilt"][0]["args"]) == \
        "ringside bench ring --flicks 300 --seeds 1-3 --tilt 1.0 --jobs 2 --json"
    faults = {r["file"] for r in by_part["faults"]}
    assert len(faults) == 21 and {"f-dead-2", "f-bus-stuck-9", "f-intermittent-5"} <= faults
    assert len(by_part["saved"]) == 12 and len(by_part["before-boot"]) == 12
    bb = [r for r in by_part["before-boot"] if r["file"] == "o-misaimed-2"][0]
    assert suite.command_line(bb["args"]) == (
        "ringside bench ring --flicks 1000 --seeds 1-3 --fault misaimed:2 --saved-calibration "
        "--faults-before-boot --jobs 2 --json")
    assert bb["kind"] == "misaimed"
    assert [r["part"] for r in suite.plan(suite.load_spec(), ["tilt"])] == ["tilt"]


def _seed(**kw):
    base = {"accuracy": 1.0, "primary_accuracy": 0.99, "ambiguous_rate": 0.04, "misreported": 0,
            "false_off_ring": 0, "off_ring_missed": 0, "no_verdict": 0,
            "travel_error_deg_p95": 1.2, "latency_ms_p50": 250, "latency_ms_p95": 480}
    base.update(kw)
    return base


SPEC = {
    "format": suite.FORMAT,
    "parts": [
        {"name": "level", "file": "level", "args": {"flicks": 10, "seeds": "1-2"}, "targets": "ring"},
        {"name": "faults", "file": "f-{kind}-{sensor}",
         "expand": {"kind": ["dead", "noisy", "brownout"], "sensor": [2]},
         "args": {"flicks": 10, "seeds": "1", "fault": "{kind}:{sensor}"}, "targets": "faults"}],
    "targets": {
        "ring": {"primary_accuracy": [">=", 0.98], "latency_ms_p95": ["<=", 500],
                 "misreported": ["<=", 0]},
        "faults": {"accuracy": [">=", 0.999], "accuracy@dead": [">=", 0.99],
                   "misreported": ["<=", 0], "recovery_ms_max@brownout": ["<=", 2000]}}}


def _put(d, name, seeds, fp=None):
    data = {"seeds": seeds}
    if fp is not None:
        data["suite"] = {"fingerprint": fp}
    (d / (name + ".json")).write_text(json.dumps(data))


def test_the_summary_checks_every_seed_and_names_the_ones_that_miss(tmp_path):
    _put(tmp_path, "level", {"1": _seed(), "2": _seed(primary_accuracy=0.977, latency_ms_p95=560)})
    _put(tmp_path, "f-dead-2", {"1": _seed(accuracy=0.995)})        # dead: 0.99 is enough
    _put(tmp_path, "f-noisy-2", {"1": _seed(accuracy=0.995, misreported=2)})
    # f-brownout-2 not run yet
    got = suite.summarize(tmp_path, SPEC)
    lv = got["parts"]["level"]["targets"]
    assert lv["primary_accuracy"]["met"] == 1 and lv["primary_accuracy"]["of"] == 2
    assert lv["primary_accuracy"]["worst"] == 0.977
    assert lv["primary_accuracy"]["missed"] == ["level s2: 0.977"]
    assert lv["latency_ms_p95"]["worst"] == 560 and lv["misreported"]["all_met"]
    f = got["parts"]["faults"]
    assert f["missing"] == ["f-brownout-2"] and f["runs"] == 2 and f["of"] == 3
    assert f["targets"]["accuracy"]["missed"] == ["f-noisy-2 s1: 0.995"]
    assert f["targets"]["accuracy"]["targets"] == [">= 0.99", ">= 0.999"]
    assert f["sums"]["misreported"] == 2 and f["targets"]["misreported"]["worst"] == 2
    assert "recovery_ms_max" not in f["targets"]       # no strike measured: nothing to check
    assert not got["complete"]
    assert got["parts"]["level"]["means"]["primary_accuracy"] == pytest.approx(0.9835)
    # files the suite did not make say so: their firmware is not known to be this one
    assert got["parts"]["level"]["fingerprints"] == [None] and not got["parts"]["level"]["made_now"]
    assert any(s.startswith("level primary_accuracy: 1 of 2 seeds (worst 0.977") for s in got["not_met"])
    md = suite.markdown(got)
    assert "| level | primary_accuracy >= 0.98 | 1 of 2 | 0.977 | level s2: 0.977 |" in md


def test_recovery_is_checked_where_a_fault_strikes(tmp_path):
    brown = _seed()
    brown["faults"] = [{"kind": "brownout", "recovery_ms_max": 2400, "flagged_at_ms": 300}]
    _put(tmp_path, "f-brownout-2", {"1": brown})
    got = suite.summarize(tmp_path, SPEC, ["faults"])
    rec = got["parts"]["faults"]["targets"]["recovery_ms_max"]
    assert (rec["met"], rec["of"], rec["worst"]) == (0, 1, 2400)
    assert list(got["parts"]) == ["faults"]


def test_a_run_is_written_with_what_made_it_and_not_run_again(tmp_path, monkeypatch):
    from ringside.bench import ring
    calls = []

    def fake_run_seeds(seeds, jobs=1, **kw):
        calls.append((tuple(seeds), kw["flicks"], tuple(kw["fault_specs"])))
        return {"seeds": {str(s): _seed() for s in seeds}}
    monkeypatch.setattr(ring, "run_seeds", fake_run_seeds)
    got = suite.run(tmp_path, SPEC, jobs=2)
    assert calls == [((1, 2), 10, ()), ((1,), 10, (("dead", 2),)), ((1,), 10, (("noisy", 2),)),
                     ((1,), 10, (("brownout", 2),))]
    assert got["complete"] and got["parts"]["level"]["made_now"]
    saved = json.loads((tmp_path / "f-dead-2.json").read_text())
    assert saved["suite"]["args"] == {"flicks": 10, "seeds": "1", "fault": "dead:2"}
    assert saved["suite"]["fingerprint"] == suite.fingerprint()
    assert saved["suite"]["command"] == "ringside bench ring --flicks 10 --seeds 1 --fault dead:2 --jobs 2 --json"
    assert not list(tmp_path.glob("*.part"))
    calls.clear()
    suite.run(tmp_path, SPEC)                          # everything there: nothing runs
    assert calls == []
    # a file another firmware made is run again; so is a damaged one
    saved["suite"]["fingerprint"] = dict(saved["suite"]["fingerprint"], firmware="0" * 12)
    (tmp_path / "f-dead-2.json").write_text(json.dumps(saved))
    (tmp_path / "level.json").write_text("{ cut off")
    suite.run(tmp_path, SPEC)
    assert calls == [((1, 2), 10, ()), ((1,), 10, (("dead", 2),))]


def test_a_tiny_suite_runs_the_real_bench(tmp_path):
    spec = {"format": suite.FORMAT,
            "parts": [{"name": "faults", "file": "f-{kind}-{sensor}",
                       "expand": {"kind": ["brownout"], "sensor": [2]},
                       "args": {"flicks": 2, "seeds": "1", "fault": "{kind}:{sensor}"},
                       "targets": "faults"}],
            "targets": {"faults": {"misreported": ["<=", 0], "accuracy": [">=", 0.5]}}}
    got = suite.run(tmp_path, spec)
    res = json.loads((tmp_path / "f-brownout-2.json").read_text())["seeds"]["1"]
    assert res["flicks"] == 2 and res["faults"][0]["kind"] == "brownout"
    t = got["parts"]["faults"]["targets"]
    assert t["accuracy"]["of"] == 1 and t["accuracy"]["worst"] == res["accuracy"]
    assert t["misreported"]["worst"] == res["misreported"]


@pytest.mark.parametrize("change, says", [
    (lambda s: s.update(format="x"), "not a ringside-bench-suite/1 file"),
    (lambda s: s["parts"][0]["args"].update(speed=3), "unknown args speed"),
    (lambda s: s["targets"]["ring"].update(happiness=[">=", 1]), "names no figure"),
    (lambda s: s["targets"]["ring"].update(accuracy=["==", 1]), "must be [\">=\" or \"<=\""),
    (lambda s: s["parts"][0].update(targets="nope"), "names target set 'nope'"),
    (lambda s: s["parts"][1].update(file="f-{kind}-{colour}"), "cannot fill in"),
    (lambda s: s["parts"][1].update(file="../{kind}"), "a plain name"),
])
def test_a_bad_spec_is_refused_with_its_reason(tmp_path, change, says):
    spec = json.loads(json.dumps(SPEC))
    change(spec)
    p = tmp_path / "spec.json"
    p.write_text(json.dumps(spec))
    with pytest.raises(suite.SuiteError) as e:
        suite.plan(suite.load_spec(p))
    assert says in str(e.value)


def test_the_command_refuses_bad_input_without_a_traceback(tmp_path, capsys):
    assert main(["bench", "suite", "--parts", "level,nope", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no part 'nope'" in err and "Traceback" not in err
    assert main(["bench", "suite", "--spec", str(tmp_path / "missing.json")]) == 2
    assert "cannot read the suite spec" in capsys.readouterr().err
    assert main(["bench", "suite", "--out", str(tmp_path), "--summary-only", "--parts", "tilt",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["parts"]["tilt"]["missing"] == ["tilt"] and not out["complete"]
    # without --json: the table of targets, and what has not been run
    _put(tmp_path, "level", {"1": _seed(latency_ms_p95=560)})
    assert main(["bench", "suite", "--out", str(tmp_path), "--summary-only",
                 "--parts", "level,tilt"]) == 0
    text = capsys.readouterr().out
    assert "| level | latency_ms_p95 <= 500 | 0 of 1 | 560 | level s1: 560 |" in text
    assert "not run yet (ring 1 deg off level): tilt" in text
