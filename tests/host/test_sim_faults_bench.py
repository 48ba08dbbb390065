"""`ringside bench ring --fault KIND:SENSOR / --faults random / --idle SECONDS`: the JSON a
builder reads, per fault: what the firmware said about it and when, how the flicks went
while it lasted, and how soon the board got over each strike."""
import json

import pytest

from ringside.app import cli
from ringside.bench import ring
from ringside.sim.board import FAULT_KINDS

FIELDS = {"kind", "sensor", "from_flick", "to_flick", "from_s", "to_s", "flagged_at_ms",
          "trusted_again_at_ms", "flag_changes", "firmware_said", "results", "firmware"}


@pytest.mark.parametrize("argv,says", [
    (["--fault", "melted:3"], "KIND:SENSOR"),
    (["--fault", "stuck"], "KIND:SENSOR"),
    (["--fault", "stuck:12"], "no sensor 12"),
    (["--faults", "sometimes"], "--faults takes random"),
    (["--idle", "0"], "--idle takes"),
    (["--dead", "3", "--fault", "stuck:2"], "--dead"),
])
def test_bad_fault_options_are_one_line(capsys, argv, says):
    assert cli.main(["bench", "ring", "--flicks", "1"] + argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and says in err and "Traceback" not in err


def test_fault_and_idle_report_what_the_firmware_said_and_the_flicks_under_it():
    res = ring.run(flicks=4, seed=2, sensor_model="ideal", calibrate_first=False,
                   fault_specs=[("bus-stuck", 5), ("dead", 8)], idle_s=20)
    json.dumps(res)
    assert res["bus"] == "register"
    bs, dead = res["faults"]
    assert FIELDS <= set(bs) and FIELDS <= set(dead)
    assert (bs["kind"], bs["sensor"], dead["kind"], dead["sensor"]) == ("bus-stuck", 5, "dead", 8)
    assert bs["from_flick"] == 0 and bs["to_flick"] is None          # the whole run
    # the stuck bus struck at once and was cleared by the firmware, fast
    assert bs["strikes"] >= 1 and bs["recovered"] == bs["strikes"]
    assert bs["recovery_ms_max"] < 2000 and bs["firmware"]["bus_clears"] >= 1
    # the dead sensor: the firmware flagged it, said why, and kept trying to bring it back
    assert dead["flagged_at_ms"] is not None and dead["firmware_said"][0]["said"] == "sensor_fault"
    assert dead["firmware"]["recovery_fails"] >= 1
    assert dead["results"]["flicks"] == 4 and "accuracy" in dead["results"]
    idle = res["idle"]
    assert idle["idle_s"] == 20 and idle["marble_moved_deg"] == 0
    assert {"phantom_moving", "phantom_landed", "phantom_off_ring", "phantoms"} <= set(idle)
    assert res["firmware_bus"]["bus_clears"] == bs["firmware"]["bus_clears"]


def test_random_faults_come_from_the_seed():
    def faults(seed):
        r = ring.run(flicks=2, seed=seed, sensor_model="ideal", calibrate_first=False,
                     random_faults=True)
        return [(f["kind"], f["sensor"], f["from_flick"]) for f in r["faults"]], r
    a, res = faults(3)
    assert a == faults(3)[0] and len(a) == 1 and a[0][0] in FAULT_KINDS and a[0][2] == 0
    assert res["faults_random"]["every_flicks"] == list(ring.RANDOM_EVERY)


def test_flicks_stay_right_while_the_bus_sticks_and_a_sensor_browns_out():
    kw = dict(flicks=5, seed=4, sensor_model="ideal", calibrate_first=False, bus="register")
    clean = ring.run(**kw)
    res = ring.run(fault_specs=[("bus-stuck", 6), ("brownout", 2)], **kw)
    bs, br = res["faults"]
    assert bs["strikes"] >= 1 and br["strikes"] >= 1
    assert bs["recovered"] == bs["strikes"] and br["recovered"] == br["strikes"]
    assert max(bs["recovery_ms"] + br["recovery_ms"]) < 2000
    assert br["firmware"]["recoveries"] == br["strikes"]
    assert bs["firmware"]["bus_clears"] == bs["strikes"]
    # the board got over every strike: the flicks went as they do with no fault at all
    r = bs["results"]
    assert r["misreported"] == 0 and r["false_off_ring"] == 0
    for k in ("accuracy", "no_verdict", "misreported", "false_off_ring", "off_ring_flicks"):
        assert res[k] == clean[k], k


def test_every_flick_that_accuracy_counts_against_is_named_with_why():
    # three neighbouring sensors out: some flicks get no verdict or a wrong one, and the
    # JSON says which and why, one entry for each flick the accuracy counts against
    res = ring.run(flicks=20, seed=2, sensor_model="ideal", calibrate_first=False,
                   fault_specs=[("dead", 3), ("dead", 4), ("stuck", 5)])
    landings = res["flicks"] - res["off_ring_flicks"]
    wrong = res["wrong_landings"]
    assert wrong and len(wrong) == round(landings * (1 - res["accuracy"]))
    whys = {"no verdict", "off the ring", "blind, not among its candidates",
            "neither of the two spaces", "misreported"}
    assert all(w["why"] in whys and "true_angle" in w for w in wrong)
    assert sum(w["why"] == "no verdict" for w in wrong) <= res["no_verdict"]
    assert sum(w["why"] == "off the ring" for w in wrong) == res["false_off_ring"]
    assert sum(w["why"] == "misreported" for w in wrong) == res["misreported"]
