"""The trace corpus in the MicroPython VM: the whole corpus in one VM run (every controller
step under micropython.heap_lock()), the same bytes out as under CPython, and each trace's
verdict as recorded (open traces expected to fail, strictly, as under CPython)."""
from __future__ import annotations

import time

import pytest

from ringside.sim import traces

from test_traces import FILES, params


@pytest.fixture(scope="module")
def runs():
    trs = [traces.load(p) for p in FILES]
    t0 = time.perf_counter()
    vm = traces.replay_vm(trs)
    wall = time.perf_counter() - t0
    return {str(p): (tr, r, traces.replay(tr)) for p, tr, r in zip(FILES, trs, vm, strict=True)}, wall


def test_the_vm_gives_the_bytes_cpython_gives_and_never_allocates(runs):
    res, wall = runs
    for tr, mp, cp in res.values():
        assert mp["stats"]["step_allocations"] == 0, tr.path
        assert mp["stats"]["out_overflow"] == 0 and not mp["stats"]["marks_full"], tr.path
        assert mp["out"] == cp["out"], "%s: the VM's output differs from CPython's" % tr.path
        assert mp["stats"]["marks"] == cp["stats"]["marks"], tr.path
    # the corpus stays a fast part of make test (docs/traces.md: about 60 s at most)
    assert wall < 120, "the VM took %.0f s over the corpus" % wall


@pytest.mark.parametrize("path", params())
def test_trace_replays_to_its_verdict_in_the_vm(runs, path):
    tr, mp, _ = runs[0][str(path)]
    ok, msg = traces.check(tr, mp)
    assert ok, "MicroPython VM: " + msg
