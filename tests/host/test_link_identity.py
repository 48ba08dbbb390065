"""Issue 17 items 2-4: every hello is checked (protocol, ring, board identity) whichever way it
comes; a different board on the same path is a new board, and gets nothing before it has
identified itself; a restore sends the whole scene, px pictures included, and the table
paints afresh after one."""
from __future__ import annotations

import io
import time

import pytest

from ringfw import ringfile
from ringside import games
from ringside.link import Link, LinkError
from ringside.sim.serve import SimServer
from ringside.table import LinkPort, Table

from test_link import FakeBoard, _until

SCENE_COMMANDS = ("side", "clear", "paint", "px", "player", "bright", "fx", "timer_start", "arm")


@pytest.fixture
def fakes():
    made = []

    def make(**kw):
        b = FakeBoard(**kw)
        made.append(b)
        return b
    yield make
    for b in made:
        b.close()


def _commands_after(board, mark):
    return [k for k, _ in board.received[mark:]]


# ----- item 3: every hello is checked -----
def test_an_unasked_hello_with_protocol_2_is_refused_and_nothing_is_restored_into_it(fakes):
    b = fakes(uid="e6614103e7452d2f")
    with Link(b.path, ring=None) as link:
        link.paint("ff0000", space="7")
        b.proto = 2                                   # reflashed: it restarts speaking 2
        mark = len(b.received)
        b.hello()
        lost = link.wait_for("link_lost", 2)
        assert lost is not None
        assert "speaks protocol 2; this ringside speaks 1: update ringside" in lost.fields["why"]
        assert link.board["proto"] == 1                # the refused hello is not the board's
        assert link.stats["hellos_refused"] == 1
        time.sleep(0.8)                               # the keeper tries again: hellos only
        assert set(_commands_after(b, mark)) <= {"hello"}
        assert not set(_commands_after(b, mark)) & set(SCENE_COMMANDS)
        with pytest.raises(LinkError, match="not connected \\(reconnecting: the board on .* "
                                            "speaks protocol 2"):
            link.paint("00ff00", space="7")


def _status_says_hello(board, seq, kind, f):
    if kind == "status":
        board.hello()
        board.send("ack", re=seq)
        return True
    return False


@pytest.mark.parametrize("change, said", [
    (("ring", "1a2b3c4d"), "different ring.json (crc 1a2b3c4d)"),
    (("proto", 2), "speaks protocol 2; this ringside speaks 1: update ringside"),
])
def test_a_status_reply_is_checked_like_the_handshakes_hello(fakes, change, said):
    b = fakes(uid="e6614103e7452d2f", on_command=_status_says_hello)
    with Link(b.path, ring=None) as link:
        link.expected_ring = b.ring                   # the host's copy is the board's
        assert link.status()["ring"] == b.ring
        setattr(b, *change)                           # the board changed under us
        with pytest.raises(LinkError):
            link.status()
        lost = link.wait_for("link_lost", 2)
        assert lost is not None and said in lost.fields["why"]
        assert link.board["proto"] == 1 and link.board["ring"] == "87b30cc1"


# ----- item 4: another board on the same path is a new board -----
def test_an_unasked_hello_from_another_board_gets_a_handshake_before_any_scene(fakes):
    b = fakes(uid="e6614103e7452d2f")
    with Link(b.path, ring=None) as link:
        link.paint("ff0000", space="7")
        assert link.board_uid == "e6614103e7452d2f"
        b.uid = "e66141040b5a2c2a"                    # another board answers on the same pty
        mark = len(b.received)
        b.hello()
        lost = link.wait_for("link_lost", 2)
        assert lost is not None
        assert lost.fields["why"] == (
            "a different board (uid e66141040b5a2c2a) answers on %s in place of the one this "
            "host was using (uid e6614103e7452d2f): it is treated as a new board" % b.path)
        changed = link.wait_for("board_changed", 3)
        assert changed is not None and changed.fields == {
            "port": b.path, "old": "e6614103e7452d2f", "new": "e66141040b5a2c2a"}
        assert link.wait_for("link_restored", 3) is not None
        sent = _commands_after(b, mark)
        assert sent[0] == "hello" and "paint" in sent    # identified first, then the scene
        assert link.board_uid == "e66141040b5a2c2a" and link.board["uid"] == "e66141040b5a2c2a"


def test_the_same_board_restarting_is_a_reset_not_a_new_board(fakes):
    b = fakes(uid="e6614103e7452d2f")
    with Link(b.path, ring=None) as link:
        link.paint("ff0000", space="7")
        mark = len(b.received)
        b.hello()
        assert link.wait_for("board_reset", 2) is not None
        assert _until(lambda: "paint" in _commands_after(b, mark), 2)
        assert link.stats["board_changes"] == 0 and link.connected


@pytest.fixture
def two_sims(tmp_path):
    made = []

    def make(seed):
        s = SimServer(seed=seed, out=io.StringIO(), link_path=str(tmp_path / "board"))
        made.append(s.start())
        return s
    yield make
    for s in made:
        s.stop()


def test_two_simulated_boards_on_one_path_are_two_boards(two_sims):
    a = two_sims(6)
    with Link(a.port) as link:
        assert link.board_uid == a.board.uid == "sim0000000000006"
        link.paint("0000ff", space="20")
        link.px(10, "ff0000", count=4)
        a.stop()                                      # killed; another board takes its path
        assert link.wait_for("link_lost", 4) is not None
        b = two_sims(7)
        assert b.board.uid != a.board.uid
        changed = link.wait_for("board_changed", 5)
        assert changed is not None
        assert (changed.fields["old"], changed.fields["new"]) == (a.board.uid, b.board.uid)
        assert changed.text == "another board is on %s now (uid %s, was %s): treated as a new " \
            "board" % (a.port, b.board.uid, a.board.uid)
        back = link.wait_for("link_restored", 3)
        assert back is not None and link.board_uid == b.board.uid
        leds = b.board.controller.leds               # the new board got the whole scene
        assert [i for i in range(leds.n) if leds.px[i] >= 0] == [10, 11, 12, 13]
        side = ringfile.side(b.board.fw_ring, "darts")
        assert leds.sp_col[ringfile.space_index(side, "20")] == 0x0000FF


# ----- item 2: the restore is complete, and the table paints afresh after one -----
def _lit_px(srv):
    leds = srv.board.controller.leds
    return {i: leds.px[i] for i in range(leds.n) if leds.px[i] >= 0}


def _wanted(table):
    pixels = table.game.presenter.led_frame(table.game)["pixels"]   # what the table paints
    return {i: int(c.rstrip("*"), 16) for i, c in enumerate(pixels)
            if c not in ("off", "000000")}


@pytest.fixture
def circle_table(tmp_path):
    srv = SimServer(seed=6, out=io.StringIO(), link_path=str(tmp_path / "board")).start()
    link = Link(srv.port).open()
    link.brightness(200)     # the app's own setting: part of the scene, so a restore clears first
    game = games.new("circle", ["Ann", "Bob", "Cy"], seed=3)
    table = Table(game, LinkPort(link, simulated=True))
    # play on until the wheel shows four spies (the picture the issue lost)
    while len(_wanted(table)) < 4:
        seat = game.to_act()[0]
        table.apply(seat, game.legal_actions(seat)[0])
    yield srv, link, table
    link.close()
    srv.stop()


def _next_move(table):
    g = table.game
    seat = g.to_act()[0]
    table.apply(seat, g.legal_actions(seat)[0])


@pytest.mark.parametrize("how", ["stall", "reset"])
def test_px_pictures_survive_a_reconnect_and_the_next_move(circle_table, how):
    srv, link, table = circle_table
    assert _until(lambda: _lit_px(srv) == _wanted(table), 2)
    assert len(_lit_px(srv)) >= 4
    if how == "stall":       # the host loses the port; the board keeps its LEDs
        link._drop(link._ser, "the port failed (a stall)")
    else:                    # the board resets: its LEDs are gone
        link.command("sim_reset", ms=200)
    assert link.wait_for("link_restored", 4) is not None
    assert _until(lambda: _lit_px(srv) == _wanted(table), 2)
    assert srv.board.controller.leds.bright == 200
    before = dict(_lit_px(srv))
    for _ in range(6):       # and the moves after it keep it right
        _next_move(table)
        assert _until(lambda: _lit_px(srv) == _wanted(table), 2)
    assert before  # (the picture was there all along)


def test_after_a_restore_the_table_repaints_what_the_link_could_not_keep(circle_table):
    srv, link, table = circle_table
    link.scene.px_runs = lambda: []                  # a scene that misses the pictures
    link.command("sim_reset", ms=200)
    assert link.wait_for("link_restored", 4) is not None
    assert _until(lambda: link.restores >= 1, 1)
    assert _lit_px(srv) == {}                        # the board came back without them...
    table.show([])                                   # ...and the table's next picture
    assert _until(lambda: _lit_px(srv) == _wanted(table), 2)


def test_another_program_on_the_boards_old_path_gets_no_more_frames(fakes, tmp_path):
    """The board's pty is gone and another program now has it (a shell on the same
    /dev/pts/N): after one handshake that heard nothing, the host writes nothing more into
    it, only listens now and then; the board, back on the path, is found again."""
    import os
    import select
    import tty
    a = fakes(uid="e6614103e7452d2f")
    path = str(tmp_path / "board")
    os.symlink(a.path, path)
    with Link(path, ring=None, handshake_timeout_s=0.5) as link:
        link.paint("ff0000", space="7")
        master, slave = os.openpty()                    # the other program's terminal
        tty.setraw(slave)
        try:
            os.unlink(path)
            os.symlink(os.ttyname(slave), path)
            a.close()                                   # the board goes away
            assert link.wait_for("link_lost", 3) is not None
            err = link.wait_for("link_error", 3)
            assert err is not None and "does not answer as a Ringside board" in err.fields["why"]
            first = b""                                 # what the one handshake wrote
            while select.select([master], [], [], 0.1)[0]:
                first += os.read(master, 4096)
            assert first.count(b" hello ") in (1, 2) and first.count(b"@") == first.count(b" hello ")
            got = b""
            end = time.monotonic() + 3.0                # three more seconds of retries
            while time.monotonic() < end:
                r, _, _ = select.select([master], [], [], 0.05)
                if r:
                    got += os.read(master, 4096)
            assert got == b""                          # listening only: not a byte written
            b = fakes(uid="e6614103e7452d2f")            # the board is back on its path
            os.unlink(path)
            os.symlink(b.path, path)
            assert link.wait_for("link_restored", 4) is not None
            assert link.stats["board_changes"] == 0
            assert _until(lambda: "paint" in [k for k, _ in b.received], 2)
        finally:
            os.close(master)
            os.close(slave)
