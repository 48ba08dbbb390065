"""The corpus of recorded traces (tests/traces/, docs/traces.md): every trace replayed through
the firmware's Controller under CPython, from a freshly booted controller, must give the
verdict recorded with it. An open trace (a case the firmware still gets wrong) is expected to
fail, strictly: once a fix makes it pass, this test turns red until the trace is marked ok."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ringside.sim import traces

CORPUS = Path(__file__).resolve().parents[1] / "traces"
FILES = sorted(CORPUS.glob("*.jsonl"))


def params():
    out = []
    for p in FILES:
        tr = traces.load(p)
        marks = ()
        if tr.is_open:
            marks = pytest.mark.xfail(strict=True, reason="open: issue %s (%s)" % (
                tr.head.get("issue"), tr.head["what"]))
        out.append(pytest.param(p, marks=marks, id=p.stem))
    return out


def test_the_corpus_is_there():
    assert len(FILES) >= 3
    for p in FILES:
        tr = traces.load(p)
        assert tr.steps and tr.head["source"].get("command"), p.name
        traces.ring_bytes(tr)        # the ring it was recorded on is beside it, by hash


@pytest.mark.parametrize("path", params())
def test_trace_replays_to_its_verdict(path):
    tr = traces.load(path)
    ok, msg = traces.check(tr, traces.replay(tr))
    assert ok, msg


def test_a_wrong_verdict_names_the_file_the_expected_and_the_actual():
    right = [traces.load(p) for p in FILES if not traces.load(p).is_open
             and traces.load(p).expect["verdict"] == "landed"]
    assert right, "the corpus needs a landing the firmware gets right"
    tr = right[0]
    res = traces.replay(tr)
    got = traces.verdict(tr, res["frames"])
    other = "1" if got["space"] != "1" and got.get("alt") != "1" else "2"
    tr.head["expect"] = dict(tr.expect, space=other)
    ok, msg = traces.check(tr, res)
    assert not ok
    assert str(tr.path) in msg and ("expected landed on %s" % other) in msg
    assert ("landed sp=%s" % got["space"]) in msg and ("expected %s" % other) in msg


@pytest.mark.parametrize("change, why", [
    (lambda lines: lines[:0], "empty file"),
    (lambda lines: ["{not json"] + lines[1:], "line 1 is not JSON"),
    (lambda lines: [json.dumps(dict(json.loads(lines[0]), status="open", issue=None) | {"issue": 18}
                               | {"expect": {"verdict": "landed"}})] + lines[1:],
     "a landed expectation names its space"),
    (lambda lines: lines + ["[3, [0, 8190, 2]]"], "is not a step between"),
    (lambda lines: lines[:1] + [lines[2], lines[1]] + lines[3:], "out of order"),
])
def test_a_broken_trace_file_is_refused_in_one_line(tmp_path, change, why):
    src = next(p for p in FILES)
    lines = src.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(change(lines)) + "\n")
    with pytest.raises(traces.TraceError) as e:
        traces.load(bad)
    assert why in str(e.value) and str(bad) in str(e.value) and "\n" not in str(e.value)


def test_a_trace_without_its_ring_file_says_so(tmp_path):
    src = FILES[0]
    (tmp_path / src.name).write_text(src.read_text())
    tr = traces.load(tmp_path / src.name)
    with pytest.raises(traces.TraceError, match="ring file .* is missing"):
        traces.ring_bytes(tr)
