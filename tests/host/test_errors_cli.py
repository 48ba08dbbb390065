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
