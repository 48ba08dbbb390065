"""`ringside serve` as a user runs it: it prints the URL, serves the lobby and the table, and
Ctrl-C stops it cleanly (the games saved, no traceback)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from ringside.web.live import free_port

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
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path), DISPLAY="")
    p = subprocess.Popen([sys.executable, "-m", "ringside.app.cli", "serve", "--port", str(port), "--no-browser",
                          "--game", "darts", "--players", "You", "--bots", "Cy:good", "--no-calibrate",
                          "--saves", str(tmp_path / "saves")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        status, body = _wait_for("http://127.0.0.1:%d/" % port)
        assert status == 200 and "lobby" in body.lower()
        saves = list((tmp_path / "saves").glob("darts-*.json"))
        assert len(saves) == 1
        status, body = _wait_for("http://127.0.0.1:%d/table/%s" % (port, saves[0].stem))
        assert status == 200 and "app.js" in body
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
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
