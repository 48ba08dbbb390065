"""`ringside play` over the table contract, driven as a player would (issue 15's terminal
items, issue 17 item 6): scripted input in-process, and real pipes through a subprocess."""
import os
import subprocess
import sys
import time

import pytest

from ringside import games
from ringside.app import cli
from ringside.table import read_save


def _cli(monkeypatch, capsys, argv, lines=()):
    feed = iter(lines)

    def fake_input(prompt=""):
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None
    monkeypatch.setattr("builtins.input", fake_input)
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _one_line(err):
    return "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_doubles_ends_with_the_winners_named_and_resumes(monkeypatch, capsys, tmp_path):
    """Item 1: the end of a Doubles game (winners are seats there) and resume afterwards."""
    save = str(tmp_path / "d.json")
    code, out, err = _cli(monkeypatch, capsys, ["play", "doubles", "--bots", "Ann:random,Cy:good", "--sim",
                                                "--seed", "4", "--save", save])
    assert code == 0 and "Game over:" in out and "Traceback" not in err
    g = read_save(save)[0]
    assert g.over
    winners = [g.players[w] for w in g.result["winners"]]
    assert " and ".join(winners) in out.split("Game over:")[-1]
    code, out, err = _cli(monkeypatch, capsys, ["resume", save])
    assert code == 0 and "Game over:" in out


def test_doubles_undo_on_the_simulated_ring(monkeypatch, capsys, tmp_path):
    """Item 2: undo in a game off the ring, with --sim (a square's group, then its first move)."""
    save = str(tmp_path / "d.json")
    code, out, err = _cli(monkeypatch, capsys, ["play", "doubles", "--players", "Ann", "--bots", "Cy", "--sim",
                                                "--seed", "5", "--save", save], ["1", "1", "undo", "quit"])
    assert code == 0 and "Traceback" not in err and "undone" in out


def test_undo_against_the_computer_takes_back_your_own_flick(monkeypatch, capsys, tmp_path):
    """Item 4: Ann's flick (and Cy's reply after it) is undone, not Cy's alone."""
    save = str(tmp_path / "u.json")
    code, out, err = _cli(monkeypatch, capsys, ["play", "darts", "--players", "Ann", "--bots", "Cy", "--sim",
                                                "--no-calibrate", "--seed", "11", "--save", save],
                          ["ccw 360", "ccw 200", "ccw 200", "quit"])
    before = read_save(save)[0].log
    ann = [i for i, (s, _) in enumerate(before) if s == 0]
    code, out, err = _cli(monkeypatch, capsys, ["resume", save, "--sim", "--no-calibrate"], ["undo", "quit"])
    after = read_save(save)[0]
    assert code == 0 and after.log == before[:ann[-1]]
    assert after.to_act() == [0]                      # Ann flicks again; Cy did not flick at once


def test_help_is_written_for_players(monkeypatch, capsys, tmp_path):
    """Item 7."""
    code, out, err = _cli(monkeypatch, capsys, ["play", "darts", "--players", "Ann,Bob", "--typed", "--seed", "1",
                                                "--save", str(tmp_path / "h.json")], ["help", "quit"])
    assert "How to play from the terminal" in out and "cw 200" in out and "undo" in out
    assert "legal_actions" not in out and "renders the game" not in out


def test_the_default_level_exists_in_every_game_and_a_missing_one_lists_the_levels(monkeypatch, capsys, tmp_path):
    """Item 8."""
    code, out, err = _cli(monkeypatch, capsys, ["play", "doubles", "--players", "Ann", "--bots", "Cy", "--sim",
                                                "--seed", "2", "--save", str(tmp_path / "a.json")], ["quit"])
    assert code == 0 and "Traceback" not in err
    code, out, err = _cli(monkeypatch, capsys, ["play", "darts", "--players", "Ann", "--bots", "Cy:strong",
                                                "--typed"])
    assert code == 2 and _one_line(err) and "random, easy (default), good" in err


def test_darts_cubes_are_told_apart_on_screen(monkeypatch, capsys, tmp_path):
    """Item 9: Ann, Amy and Al."""
    code, out, err = _cli(monkeypatch, capsys, ["play", "darts", "--players", "Ann,Amy", "--bots", "Al",
                                                "--typed", "--seed", "3", "--save", str(tmp_path / "c.json")],
                          ["quit"])
    assert "A1 Ann's cube, A2 Amy's cube, A3 Al's cube" in out


def test_doubles_screen_shows_words_a_folded_menu_and_no_data(monkeypatch, capsys, tmp_path):
    """Item 10: no JSON menu lines, the board drawn, the menu folded by square."""
    code, out, err = _cli(monkeypatch, capsys, ["play", "doubles", "--players", "Ann,Bob", "--typed",
                                                "--seed", "6", "--save", str(tmp_path / "d.json")],
                          ["1", "3", "quit"])
    assert '{"type"' not in out and "'type'" not in out
    assert "The board" in out and "pick a group first" in out
    assert "players: [" not in out


def test_the_circle_screen_does_not_reprint_its_data(monkeypatch, capsys, tmp_path):
    """Item 10 (the generic part: a picture, not the view's data, whatever presenter the game has)."""
    code, out, err = _cli(monkeypatch, capsys, ["play", "circle", "--players", "Ann,Bob,Cy", "--typed",
                                                "--seed", "6", "--save", str(tmp_path / "c.json")],
                          ["r", "1", "quit"])
    assert code == 0 and 'players: [{"name"' not in out


def test_words_at_the_table(monkeypatch, capsys, tmp_path):
    """Item 11: chance names what the table does; undo before anything says so."""
    code, out, err = _cli(monkeypatch, capsys, ["play", "doubles", "--players", "Ann,Bob", "--typed",
                                                "--seed", "6", "--save", str(tmp_path / "w.json")],
                          ["undo", "quit"])
    assert "To act: chance" not in out and "toss the coin" in out
    assert "nothing to undo yet" in out and "cannot undo 1 of 0" not in out


@pytest.mark.parametrize("argv,msg", [
    (["--skill", "5"], "outside 0"), (["--skill", "-1"], "outside 0"), (["--skill", "x"], "not a number")])
def test_skill_is_checked_when_the_command_is_read(monkeypatch, capsys, argv, msg):
    """Items 12 and 14: --skill 5 no longer dies at the first flick."""
    with pytest.raises(SystemExit) as e:
        cli.main(["play", "darts", "--players", "Ann", "--bots", "Cy", "--sim"] + argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and msg in err and "Traceback" not in err


def test_difficulty_is_checked_when_the_command_is_read(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["play", "circleville", "--solo", "bertha", "--difficulty", "99", "--typed"])
    assert e.value.code == 2 and "outside 0 to 19" in capsys.readouterr().err


def test_loading_a_save_of_another_game_is_refused(monkeypatch, capsys, tmp_path):
    save = str(tmp_path / "darts.json")
    _cli(monkeypatch, capsys, ["play", "darts", "--players", "Ann,Bob", "--typed", "--seed", "1", "--save", save],
         ["quit"])
    code, out, err = _cli(monkeypatch, capsys, ["play", "doubles", "--load", save, "--typed"])
    assert code == 2 and _one_line(err) and "holds a game of Darts, not doubles" in err


def test_ctrl_c_saves_and_says_how_to_resume(monkeypatch, capsys, tmp_path):
    def interrupt(prompt=""):
        raise KeyboardInterrupt
    monkeypatch.setattr("builtins.input", interrupt)
    save = str(tmp_path / "k.json")
    code = cli.main(["play", "darts", "--players", "Ann,Bob", "--typed", "--seed", "1", "--save", save])
    out = capsys.readouterr().out
    assert code == 130 and "ringside resume %s" % save in out and read_save(save)


def test_flick_ranges_and_directions_before_the_first_flick(monkeypatch, capsys, tmp_path):
    """Items 12 and 14: the ranges come with the first prompt; Wild West says clockwise only."""
    code, out, err = _cli(monkeypatch, capsys, ["play", "wildwest", "--players", "Ann,Bob", "--sim",
                                                "--no-calibrate", "--seed", "1", "--save", str(tmp_path / "w.json")],
                          ["ccw 100", "quit"])
    first = out.index("Ann, flick from")
    assert "1 to " in out[first:first + 300] and "harder leaves the ring" in out[first:first + 300]
    assert "Type cw and degrees" in out and "cw|ccw" not in out
    assert "this flick goes cw only" in out


def test_a_beginner_level_loses_to_good():
    """Item 13: the easy level exists and the good one beats it (Darts: 8 games)."""
    from ringside.bench import bots as bench
    r = bench.run_game("darts", 8, seed=1)
    assert r["finished"] == 8 and r["easy_lost"] >= 6


def test_play_help_lists_every_games_levels(capsys):
    """Item 14."""
    with pytest.raises(SystemExit):
        cli.main(["play", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for name in games.names():
        assert "%s: random" % name in out
    assert "strong" in out


def _ringside(args, stdin_lines, timeout, env=None):
    e = dict(os.environ, NO_COLOR="1", **(env or {}))
    p = subprocess.Popen([sys.executable, "-m", "ringside.app.cli"] + args, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
    try:
        out, err = p.communicate("".join(line + "\n" for line in stdin_lines).encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise AssertionError("ringside did not finish: %s" % out.decode()[-2000:]) from None
    return p.returncode, out.decode(), err.decode()


def test_doubles_from_a_pipe_reads_every_line(tmp_path):
    """Item 14: a script's lines are read one per prompt, not left behind while the 20 s run out
    (each move is two lines: a square's group, then its first move)."""
    save = str(tmp_path / "p.json")
    t0 = time.monotonic()
    code, out, err = _ringside(["play", "doubles", "--players", "Ann", "--bots", "Cy", "--sim", "--seed", "3",
                                "--save", save], ["1", "1"] * 4 + ["quit"], timeout=60)
    assert code == 0 and "Traceback" not in err, err
    g = read_save(save)[0]
    moves = [a for s, a in g.log if s == 0]
    assert len(moves) >= 4 and not any(a["type"] == "timeout" for a in moves)
    assert time.monotonic() - t0 < 40


def test_end_of_input_on_a_board_prompt_saves_and_quits(tmp_path):
    """Issue 17 item 6: --port (here the simulated board on a pty) with stdin at its end."""
    from ringside.sim.serve import SimServer
    server = SimServer(seed=1, speed=20, out=open(os.devnull, "w")).start()
    try:
        save = str(tmp_path / "e.json")
        code, out, err = _ringside(["play", "darts", "--players", "Ann,Bob", "--port", server.port, "--save", save],
                                   [], timeout=60)
    finally:
        server.stop()
    assert code == 0 and "ringside resume" in out and out.count("type a result") < 3


def test_lines_that_arrive_together_are_all_read_one_by_one():
    from ringside.app.cmd_play import LineReader
    r, w = os.pipe()
    os.write(w, b"1\n2\nquit\n")
    os.close(w)
    reader = LineReader(r)
    assert [reader.poll(0), reader.poll(0), reader.poll(0)] == ["1", "2", "quit"]
    with pytest.raises(EOFError):
        reader.poll(0)
    os.close(r)


def test_a_timed_turn_counts_down_on_screen_and_passes(monkeypatch, tmp_path):
    """The Doubles countdown: the seconds are said at the turn's start and called out, and
    the turn passes when they run out (no board: this computer keeps the time)."""
    from ringside.app import cmd_play
    from ringside.app.cmd_play import LineReader, Session
    from ringside.table import Table
    monkeypatch.setattr("ringside.games.doubles.engine.TURN_SECONDS", 2)
    monkeypatch.setattr(cmd_play, "COUNTDOWN", (1,))
    g = games.new("doubles", ["Ann", "Bob"], seed=4)
    t = Table(g, None, save_path=tmp_path / "t.json", seats={0: "human", 1: "human"})
    said = []
    s = Session(t, {0: "human", 1: "human"}, mode="screen", out=said.append)
    r, w = os.pipe()                    # a player who types nothing
    s.reader = LineReader(r)
    while t.game.to_act() == ["chance"]:
        s.step()
    turn = t.game.turn_timer()["turn_no"]
    t0 = time.monotonic()
    s.step()
    text = "\n".join(said)
    assert "2 seconds for this turn" in text and "1 seconds left" in text and "time is up" in text
    assert t.game.turn_timer()["turn_no"] == turn + 1 and 1.5 < time.monotonic() - t0 < 6
    os.close(r)
    os.close(w)
