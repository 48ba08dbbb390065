"""`ringside serve` as a user runs it: it prints the URL, serves the lobby and the table, and
Ctrl-C stops it cleanly (the games saved, no traceback)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request

import pytest

from ringside.web.live import free_port

from tests.web.conftest import ctrl_c, ringside_serve

pytest.importorskip("uvicorn")


def _wait_for(url, timeout_s=60):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.status, r.read().decode()
        except OSError:
            time.sleep(0.2)
    raise AssertionError("nothing answered at %s" % url)


def test_serve_prints_the_url_serves_a_game_and_stops_cleanly_on_ctrl_c(tmp_path):
    port = free_port()
    with ringside_serve(tmp_path, "--port", str(port), "--no-browser", "--game", "darts", "--players", "You",
                        "--bots", "Cy:good", "--no-calibrate", "--saves", str(tmp_path / "saves")) as p:
        status, body = _wait_for("http://127.0.0.1:%d/" % port)
        assert status == 200 and "lobby" in body.lower()
        saves = list((tmp_path / "saves").glob("darts-*.json"))
        assert len(saves) == 1
        status, body = _wait_for("http://127.0.0.1:%d/table/%s" % (port, saves[0].stem))
        assert status == 200 and "app.js" in body
        out, err = ctrl_c(p)
    assert p.returncode == 0, err
    assert "http://127.0.0.1:%d/table/darts-" % port in out
    assert "Traceback" not in out + err
    assert "the games are saved" in err


def test_serve_on_a_port_in_use_is_one_line(tmp_path):
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    port = s.getsockname()[1]
    try:
        r = subprocess.run([sys.executable, "-m", "ringside.app.cli", "serve", "--port", str(port), "--no-browser",
                            "--saves", str(tmp_path)], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, XDG_STATE_HOME=str(tmp_path)))
    finally:
        s.close()
    assert r.returncode == 2
    assert "cannot serve on 127.0.0.1:%d" % port in r.stderr and "Traceback" not in r.stderr


def test_serve_lan_prints_every_persons_seat_link_with_its_qr_code(tmp_path):
    """`--lan --game`: the lobby's link, the table's and each person's own, each with its QR
    code (the very code segno makes of that link); each seat's link opens that seat's view."""
    import json
    import re

    from ringside.web.tokens import qr_text
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    with ringside_serve(tmp_path, "--lan", "--host", "127.0.0.1", "--port", str(port), "--no-browser", "--game",
                        "darts", "--players", "Ann,Bob", "--bots", "Cy:good", "--no-calibrate",
                        "--saves", str(tmp_path / "saves")) as p:
        lobby_token = None
        end = time.monotonic() + 60
        while lobby_token is None and time.monotonic() < end:
            try:
                lobby_token = (tmp_path / "saves" / "lobby-token").read_text().strip() or None
            except OSError:
                time.sleep(0.2)
        status, _ = _wait_for("%s/?t=%s" % (base, lobby_token))
        assert status == 200
        out, err = ctrl_c(p)
    assert p.returncode == 0, err
    links = dict(re.findall(r"^(.*?): (http://\S+)$", out, re.M))
    lobby = links.pop("On the LAN: every page needs its token. The lobby (a phone can scan this)")
    table = links.pop("The table's screen (everything the table may see)")
    assert lobby == "%s/?t=%s" % (base, lobby_token)
    seats = {k.split("'s own screen")[0]: v for k, v in links.items() if "'s own screen" in k}
    assert set(seats) == {"Ann", "Bob"}, out                 # the people; not the computer
    assert "(Cy plays for the computer: no screen of its own)" in out
    for url in [lobby, table] + list(seats.values()):
        qr = qr_text(url)
        assert qr.strip() and qr.rstrip("\n") in out, url
    assert len(set(seats.values()) | {table}) == 3           # a token of its own each
    # each link carries its own token from the room's save
    room = table.split("/table/")[1].split("?")[0]
    assert all("/table/%s?t=" % room in u for u in seats.values())
    saved = json.loads((tmp_path / "saves" / ("%s.json" % room)).read_text())
    tokens = json.loads(saved["meta"]["web_tokens"])
    assert seats["Ann"].endswith("?t=" + tokens["0"]) and seats["Bob"].endswith("?t=" + tokens["1"])
    assert table.endswith("?t=" + tokens["table"])
