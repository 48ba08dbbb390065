"""The physical sensor model is the simulated board's default on every path (issue 14); the
ideal one only behind an explicit --ideal, which a command without a simulated ring refuses."""
import pytest

from ringside.app.cli import main
from ringside.sim import board as board_mod
from ringside.sim.board import SimBoard


def test_the_simulated_board_is_physical_unless_asked():
    assert board_mod.BOARD_DEFAULT_MODEL == "physical"
    assert SimBoard(seed=1).sensor_model == "physical"
    assert SimBoard(seed=1, sensor_model="ideal").model.model == "ideal"
    assert board_mod.model_of(False) == "physical" and board_mod.model_of(True) == "ideal"
    with pytest.raises(ValueError, match="sensor model"):
        SimBoard(seed=1, sensor_model="kind")


def test_play_ring_and_calibrate_take_ideal(capsys):
    assert main(["play-ring", "--no-calibrate", "--script", "quit"]) == 0
    assert main(["play-ring", "--ideal", "--no-calibrate", "--script", "quit"]) == 0
    capsys.readouterr()
    from ringside.app import cmd_ring
    made = []
    real = cmd_ring.RingSession

    class Spy(real):
        def __init__(self, *a, **kw):
            made.append(kw.get("sensor_model"))
            super().__init__(*a, **kw)
    cmd_ring.RingSession = Spy
    try:
        main(["play-ring", "--ideal", "--no-calibrate", "--script", "quit"])
        main(["play-ring", "--no-calibrate", "--script", "quit"])
    finally:
        cmd_ring.RingSession = real
    assert made == ["ideal", "physical"]


@pytest.mark.parametrize("argv", [
    ["play", "darts", "--players", "Ann,Bob", "--typed", "--ideal"],
    ["calibrate", "--port", "/dev/null", "--ideal"],
])
def test_ideal_without_a_simulated_ring_is_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--ideal" in err[0], err
