"""`ringside play-ring` and `ringside calibrate` as a new player meets them (issue 15 items 3,
12's play-ring part, 14's first point): one line for a bad side, plain words for bad input,
the flick range before the first flick, one sign convention."""
from __future__ import annotations

import re

import pytest

from ringside import ring
from ringside.app.cli import main
from ringside.app.cmd_ring import RingSession
from ringside.flicks import max_travel_deg


@pytest.fixture(scope="module")
def session():
    lines: list[str] = []
    s = RingSession(seed=2, out=lines.append, auto_calibrate=False)
    return s, lines


def _run(s, lines, cmd):
    n = len(lines)
    try:
        s.command(cmd)
    except ValueError as e:
        lines.append(str(e))
    return "\n".join(lines[n:])


@pytest.mark.parametrize("command", ["play-ring", "calibrate"])
def test_an_unknown_side_is_one_line_naming_the_sides(command, capsys):
    assert main([command, "--side", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["ringside: no side 'nope' on the ring (there are: darts, wildwest)"]


def test_the_flick_range_is_shown_before_the_first_flick(session):
    s, lines = session
    top = max(int(max_travel_deg(ring.ring_dict())), 1)
    assert s.max_deg == top
    start = "\n".join(lines[:4])
    assert "from 1 to %d" % top in start and "degrees" in start
    assert "1 to %d" % top in s.help_text()


def test_a_bad_fault_lists_the_real_fault_kinds(session):
    s, lines = session
    msg = _run(s, lines, "fault 3 melted")
    assert "None" not in msg
    for kind in ("dead", "stuck", "noisy", "ok"):
        assert kind in msg
    assert "0 to 11" in _run(s, lines, "fault x dead")


def test_words_instead_of_numbers_get_a_plain_message(session):
    s, lines = session
    for cmd in ("cw abc", "ccw 1e999", "tilt level"):
        msg = _run(s, lines, cmd)
        assert "could not convert" not in msg and "float" not in msg, msg
    assert "cw needs the degrees to aim, from 1 to %d" % s.max_deg in _run(s, lines, "cw abc")
    assert "aim between 1 and %d degrees" % s.max_deg in _run(s, lines, "ccw 600")


def test_one_sign_convention_for_the_board_and_the_simulator(session):
    s, lines = session
    out = _run(s, lines, "cw 120")
    board = re.search(r"landed on .* travelled ([\d.]+) deg (\w+)", out)
    truth = re.search(r"\(simulator: .* travelled ([^ ]+) deg (\w+)\)", out)
    assert board and truth, out
    assert board.group(2) == truth.group(2) == "clockwise"
    assert not truth.group(1).startswith("-")
    assert abs(float(board.group(1)) - float(truth.group(1))) < 5


def test_an_unknown_space_names_the_spaces(session):
    s, lines = session
    msg = _run(s, lines, "place 99")
    assert "no space '99' on the darts side (it has:" in msg and " 17 " in msg


def test_an_uncalibrated_board_that_never_saw_the_stop_says_so_and_calibrate_cures_it():
    """--no-calibrate, seed 1: at 330 deg two uncalibrated sensors disagree by about 6 degrees,
    so the board never sees the marble still and gives no verdict (its next travel would then
    run from the last landing, across flicks: how a 199.8 deg flick read 19.5 deg). The session
    says so and points to calibrate, after which the travel is right again."""
    lines: list[str] = []
    # The ideal model, on purpose: this is the session's answer to a board that gave no
    # verdict, and the ideal world at seed 1 makes one (two sensors 6 deg apart). The
    # physical model's board learns each sensor's scene and lands this flick uncalibrated.
    s = RingSession(seed=1, out=lines.append, auto_calibrate=False, sensor_model="ideal")
    assert "not calibrated" in "\n".join(lines)
    _run(s, lines, "cw 200")
    _run(s, lines, "ccw 200")
    out = _run(s, lines, "cw 120")
    assert "has not seen the marble stop" in out and "type calibrate" in out, out
    _run(s, lines, "calibrate")
    out = _run(s, lines, "ccw 150")
    board = re.search(r"landed on .* travelled ([\d.]+) deg (\w+)", out)
    truth = re.search(r"\(simulator: .* travelled ([\d.]+) deg (\w+)\)", out)
    assert board and truth, out
    assert board.group(2) == truth.group(2) == "anticlockwise"
    assert abs(float(board.group(1)) - float(truth.group(1))) < 10, out
