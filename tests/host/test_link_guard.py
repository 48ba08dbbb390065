"""Issue 17 item 1: every frame the host reads passes one guard; nothing a board sends ends
the link's reader, and should the reader end all the same, link_lost comes at once."""
from __future__ import annotations

import time

import pytest

from ringside.link import Link, LinkError
from ringside.link.guard import FrameRefused, check

from test_link import FakeBoard, _until  # noqa: F401 - the scripted board on a pty


@pytest.fixture
def board():
    b = FakeBoard()
    yield b
    b.close()


def test_a_field_that_cannot_be_read_is_refused_with_its_reason_and_the_link_stays_up(board):
    with Link(board.path, ring=None) as link:
        link.timer_start(30, "green")               # a timer runs: hb tmr= is read
        board.send("hb", up=2, loop=4, drop=0, err=0, blind=0, tmr="abc")
        assert _until(lambda: link.stats["refused_frames"] == 1, 2)
        _, kind, why = link.refusals[-1]
        assert kind == "hb" and why == "tmr=abc is not a whole number"
        assert link.connected
        assert link.ping() < 0.5                    # commands still work...
        board.send("hb", up=3, loop=4, drop=0, err=0, blind=0, tmr=12000)
        assert _until(lambda: link.last_heartbeat.get("tmr") == 12000, 2)
        assert 11.0 < link.timer_left() <= 12.0     # ...and the timer follows the board again
        board.send("landed", sp="7", ang=9000, trv=1200, conf=90)
        ev = link.wait_for("landed", 2)             # events keep coming
        assert ev is not None and ev.fields["sp"] == "7"
        assert link.wait_for("link_lost", 0.3) is None


def test_a_handler_that_raises_refuses_that_frame_only(board):
    with Link(board.path, ring=None) as link:
        calls = []

        def broken(kind, fields, now):
            calls.append(kind)
            if kind == "placed":
                raise RuntimeError("a bug in the host")
        link.scene.on_event = broken
        board.send("placed", sp="7", ang=9000)
        assert _until(lambda: link.stats["refused_frames"] == 1, 2)
        assert link.refusals[-1][1:] == ("placed", "handling it failed (RuntimeError: a bug in the host)")
        board.send("lost", ang=9000)
        ev = link.wait_for("lost", 2)
        assert ev is not None and link.connected and link.ping() < 0.5
        assert "placed" in calls


class _Boom(BaseException):
    """Something no handler expects (not an Exception): it ends the reader thread."""


def test_a_reader_that_ends_raises_link_lost_at_once_and_comes_back(board):
    with Link(board.path, ring=None) as link:
        real = link._feed

        def feed(data, now):
            if b" boom " in data:
                link._feed = real
                raise _Boom("the reader's end")
            real(data, now)
        link._feed = feed
        seen = []
        emit = link._emit

        def watch(kind, fields, t=None, seq=-1):
            if kind == "link_lost":
                seen.append(link.connected)   # what a caller sees the moment it is raised
            emit(kind, fields, t, seq)
        link._emit = watch
        t0 = time.monotonic()
        board.send("boom")
        ev = link.wait_for("link_lost", 2)
        assert ev is not None and ev.t - t0 < 0.5
        assert ev.fields["why"] == "the link's reader stopped (_Boom: the reader's end)"
        assert seen == [False]
        back = link.wait_for("link_restored", 3)   # the keeper starts a new reader, reconnects
        assert back is not None and link.connected and link.ping() < 0.5
        assert link.stats["reader_restarts"] == 1


def test_a_reader_failing_on_bytes_drops_the_port_and_reconnects(board):
    with Link(board.path, ring=None) as link:
        real = link._reader.feed

        def feed(data, count=-1):
            link._reader.feed = real
            raise RuntimeError("splitting failed")
        link._reader.feed = feed
        board.send("placed", sp="7", ang=9000)
        lost = link.wait_for("link_lost", 2)
        assert lost is not None and "reading the board's bytes failed" in lost.fields["why"]
        assert link.wait_for("link_restored", 3) is not None
        assert link.stats["reader_errors"] == 1 and link.ping() < 0.5


@pytest.mark.parametrize("kind,fields,why", [
    ("hb", {"up": "x"}, "up=x is not a whole number"),
    ("ack", {}, "it has no re= field"),
    ("ack", {"re": ""}, "re=(empty) is not a whole number"),
    ("nack", {"re": "1.5"}, "re=1.5 is not a whole number"),
    ("landed", {"sp": "7", "trv": "far"}, "trv=far is not a whole number"),
    ("hello", {"ring": "1"}, "it has no proto= field"),
    ("link_restored", {}, "link_restored is the link's own event, not one a board sends"),
])
def test_the_guard_names_what_it_refuses(kind, fields, why):
    with pytest.raises(FrameRefused) as e:
        check(kind, fields)
    assert str(e.value) == why


def test_the_guard_types_fields_by_message():
    assert check("landed", {"sp": "007", "alt": "12", "trv": "-4000"}) == \
        {"sp": "007", "alt": "12", "trv": -4000}
    assert check("verdict", {"ok": "0", "dir": "ccw"}) == {"ok": 0, "dir": "ccw"}
    assert check("hello", {"proto": "1", "uid": "0123456789"}) == {"proto": 1, "uid": "0123456789"}
    # a newer board's extra field and a newer event pass, typed by the general rule
    assert check("hb", {"up": "1", "temp": "31"}) == {"up": 1, "temp": 31}
    assert check("quantum_event", {"spin": "up", "n": "3"}) == {"spin": "up", "n": 3}


def test_a_command_the_board_would_refuse_is_not_sent(board):
    """Issue 17 item 5, at the link: 17 fields never leave the host."""
    with Link(board.path, ring=None) as link:
        with pytest.raises(LinkError, match="cannot send paint: paint has 17 fields"):
            link.command("paint", c="red", **{"k%d" % i: i for i in range(16)})
        assert link.ping() < 0.5
        assert [k for k, _ in board.received if k == "paint"] == []
