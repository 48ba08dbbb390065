"""The command line after issue 15 item 3: a ValueError is no longer taken for the user's fault,
so every input the user gives that the code refuses must be a RingsideError (or argparse's own
one-line usage error). These were one line before through `except ValueError`; they still are."""
from __future__ import annotations

import pytest

from ringside import games
from ringside.app import cli


@pytest.mark.parametrize("content,fault", [("nope", "not valid JSON"), ('{"sides": 5}', "missing 'track'")])
def test_sim_with_a_bad_ring_file_is_one_line_naming_it(tmp_path, capsys, content, fault):
    p = tmp_path / "ring.json"
    p.write_text(content)
    assert cli.main(["sim", "--ring", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(p) in err and fault in err and "bug" not in err


@pytest.mark.parametrize("argv", [["bench", "games", "darts", "-n", "0"], ["bench", "doubles", "-n", "-1"],
                                  ["bench", "solo", "-n", "x"]])
def test_a_bench_with_no_games_is_a_usage_error(capsys, argv):
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "number of games" in err and "bug" not in err and "Traceback" not in err


@pytest.mark.parametrize("seed", [1.5, "7", True, None.__class__])
def test_a_seed_is_a_whole_number(seed):
    with pytest.raises(games.GameError, match="a seed is a whole number"):
        games.new("darts", ["Ann", "Bob"], seed=seed)


@pytest.mark.parametrize("argv,words", [
    (["--noise", "-1"], "--noise takes a scale of 0 or more"),
    (["--tilt", "50"], "--tilt takes degrees from 0 to under 45"),
    (["--tilt", "-1"], "--tilt takes degrees"),
    (["--flicks", "-5"], "--flicks takes 0 or more"),
    (["--dead", "40"], "--dead: no sensor 40 (there are 12, 0 to 11)"),
    (["--dead", "x"], "--dead takes sensor numbers"),
    (["--sensors", "30"], "sensors must be 4..16"),
    (["--marble-mm", "30"], "between 0 and the groove's 24 mm"),
    (["--marble", "pink"], "unknown marble 'pink' (use one of glass, opaque, steel, white"),
    (["--sweep", "marble=pink"], "sweep: unknown marble 'pink'"),
    (["--sweep", "sensors=12,40"], "sensors must be 4..16"),
])
def test_a_ring_bench_the_ring_cannot_run_is_refused_in_one_line(capsys, argv, words):
    """Each of these was a "this is a bug in Ringside" line (a ValueError deep in the model)
    until stop 39: the bench now refuses them before the first flick, naming what would do."""
    few = [] if "--flicks" in argv else ["--flicks", "1"]   # if it ran after all: quickly
    assert cli.main(["bench", "ring", *argv, *few]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and words in err and "bug" not in err


@pytest.mark.parametrize("argv,what", [(["bench", "firmware", "--seconds", "0"], "simulated seconds"),
                                       (["bench", "bots", "-n", "-1"], "games"),
                                       (["bench", "page", "--viewers", "0"], "viewers"),
                                       (["bench", "page", "--landings", "x"], "landings")])
def test_a_bench_count_under_one_is_a_usage_error(capsys, argv, what):
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert ("number of %s" % what) in err and "bug" not in err and "Traceback" not in err
