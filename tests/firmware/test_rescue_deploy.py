"""`make deploy` never overwrites the calibration, and a failed release stops it.

The deploy (ringside.app.deploy) runs through mpremote's own serial transport code (its
fs_* methods and exec/eval, which send Python to the board's raw REPL); only the last
step, the board executing what it is sent, is played by CPython against a directory that
stands for the board's flash. The new firmware then reads that directory as the board
would (ringfw.geometry.load), so the test checks what a builder would: the calibration
file is the same byte for byte, and the board still applies it after the update.
"""
import builtins
import errno
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mpremote.transport_serial import SerialTransport

from ringfw import geometry
from ringside.app import deploy as dp

ROOT = Path(__file__).resolve().parents[2]
RING_JSON = ROOT / "hardware" / "ring.json"


class SimBoard(SerialTransport):
    """mpremote's serial transport whose board is CPython executing the commands it sends,
    with `open` and `os` confined to a directory (the board's flash filesystem)."""

    def __init__(self, root: Path):                 # no serial port: exec_raw is the board
        self.root = Path(root)
        self.in_raw_repl = True
        self.use_raw_paste = False
        self.device_name = "sim"
        self.mounted = False
        self.resets = 0
        self.commands = []
        self.ns = {}

    def close(self):
        pass

    def _p(self, path):
        path = str(path)
        if ".." in path.split("/"):
            raise OSError(errno.EACCES, path)
        return str(self.root / path.lstrip("/"))

    def _os(self):
        board = self

        class BoardOS:
            @staticmethod
            def stat(p):
                return os.stat(board._p(p))

            @staticmethod
            def mkdir(p):
                os.mkdir(board._p(p))

            @staticmethod
            def rmdir(p):
                os.rmdir(board._p(p))

            @staticmethod
            def remove(p):
                os.remove(board._p(p))

            @staticmethod
            def rename(a, b):
                os.replace(board._p(a), board._p(b))

            @staticmethod
            def ilistdir(p=""):
                for e in sorted(os.scandir(board._p(p or "/")), key=lambda e: e.name):
                    st = e.stat()
                    yield (e.name, 0x4000 if e.is_dir() else 0x8000, 0, st.st_size)

        return BoardOS

    def _modules(self):
        """The board's own modules, by name (the rest are CPython's): its `os`. No `vfs`,
        as on a MicroPython without ROMFS."""
        return {"os": self._os()}

    def exec_raw(self, command, timeout=10, data_consumer=None):
        self.commands.append(command)
        out = io.StringIO()
        real_import = builtins.__import__
        mods = self._modules()

        def imp(name, *a, **kw):
            return mods[name] if name in mods else real_import(name, *a, **kw)

        bi = dict(vars(builtins))
        bi.update(open=lambda p, mode="r", *a: builtins.open(self._p(p), mode),
                  print=lambda *a, **kw: builtins.print(*a, file=out, **kw), __import__=imp)
        self.ns["__builtins__"] = bi
        err = b""
        try:
            exec(command, self.ns)
        except OSError as e:
            err = ("Traceback (most recent call last):\nOSError: [Errno %d] %s\n"
                   % (e.errno, errno.errorcode.get(e.errno, ""))).encode()
        except Exception as e:  # noqa: BLE001 - the board prints any error
            err = ("Traceback (most recent call last):\n%s: %s\n" % (type(e).__name__, e)).encode()
        data = out.getvalue().encode()
        if data_consumer and data:
            data_consumer(data)
        return data, err

    def exec_raw_no_follow(self, command):
        assert "machine.reset()" in command
        self.resets += 1


def _calibrated_board(tmp_path, build):
    """A board running an older firmware, calibrated by `ringside calibrate` (calsave)."""
    flash = tmp_path / "flash"
    shutil.copytree(build, flash, ignore=shutil.ignore_patterns(*dp._HOST_ONLY))
    (flash / "ringfw" / "boot.mpy").write_bytes(b"M\x06old firmware")
    (flash / "ringfw" / "oldmodule.mpy").write_bytes(b"M\x06gone in this build")
    ring = geometry.load(str(flash / "ring.json"))
    for i in range(ring.sensor_count):
        ring.off16[i] = 16 * i - 40          # offsets -2.5 .. +8.5 mm
        ring.scale_q12[i] = 4096 + 3 * i
    from ringfw import calfile
    calfile.save_calibration(str(flash / "ring.json"), ring, bytearray([1] * ring.sensor_count))
    return flash, ring


def test_deploy_leaves_the_calibration_byte_for_byte(tmp_path, build):
    flash, ring = _calibrated_board(tmp_path, build)
    cal_before = (flash / "calibration.json").read_bytes()
    board = SimBoard(flash)
    rep = dp.deploy(board, build, log=lambda *a: None)
    assert (flash / "calibration.json").read_bytes() == cal_before
    assert rep["calibration"] == "kept"
    assert "/ringfw/boot.mpy" in rep["copied"] and "/ring.json" in rep["same"]
    assert "/ringfw/oldmodule.mpy" in rep["removed"]
    for path, p in dp.build_files(build):
        assert (flash / path.lstrip("/")).read_bytes() == p.read_bytes(), p
    # and the board, booting the new firmware, still applies it
    again = geometry.load(str(flash / "ring.json"))
    assert again.calibrated and list(again.off16) == list(ring.off16)
    assert list(again.scale_q12) == list(ring.scale_q12)
    # the deploy only ever asked whether the calibration file is there
    named = [c for c in board.commands if dp.CAL_FILE in c]
    assert named and all(c.startswith("print(repr(tuple(os.stat(")
                         and "calibration.json.tmp" not in c for c in named), named


def test_a_second_deploy_copies_nothing(tmp_path, build):
    flash, _ = _calibrated_board(tmp_path, build)
    dp.deploy(SimBoard(flash), build, log=lambda *a: None)
    rep = dp.deploy(SimBoard(flash), build, log=lambda *a: None)
    assert rep["copied"] == [] and rep["removed"] == []


def test_an_old_board_with_calibration_in_ring_json_is_migrated(tmp_path, build):
    flash = tmp_path / "flash"
    shutil.copytree(build, flash)
    old = json.loads(RING_JSON.read_text())
    old["sensors"][3]["calibration"] = {"offset_mm": 2.5, "scale": 1.0125}
    old["sensors"][7]["calibration"] = {"offset_mm": -1.25, "scale": 1.0}
    (flash / "ring.json").write_text(json.dumps(old))
    was = geometry.load(str(flash / "ring.json"))       # what the old board applied
    logs = []
    rep = dp.deploy(SimBoard(flash), build, log=logs.append)
    assert rep["calibration"] == "migrated"
    assert (flash / "ring.json").read_bytes() == (build / "ring.json").read_bytes()
    cal = json.loads((flash / "calibration.json").read_text())
    assert cal == {"format": 1, "sensors": {"3": {"offset_mm": 2.5, "scale": 1.0125},
                                            "7": {"offset_mm": -1.25, "scale": 1.0}}}
    now = geometry.load(str(flash / "ring.json"))
    assert list(now.off16) == list(was.off16) and list(now.scale_q12) == list(was.scale_q12)
    assert any("moved the calibration of 2 sensor(s)" in m for m in logs)
    assert not (flash / "calibration.json.tmp").exists()


def test_a_board_from_mip_loses_the_sources_that_would_shadow_the_mpy(tmp_path, build):
    flash = tmp_path / "flash"
    (flash / "ringfw").mkdir(parents=True)
    (flash / "ringfw" / "boot.py").write_text("print('old source')\n")
    (flash / "adafruit_vl53l0x.py").write_text("# mip's copy\n")
    (flash / "adafruit_bus_device").mkdir()
    (flash / "adafruit_bus_device" / "i2c_device.py").write_text("# mip's copy\n")
    logs = []
    rep = dp.deploy(SimBoard(flash), build, log=logs.append)
    assert not (flash / "ringfw" / "boot.py").exists() and (flash / "ringfw" / "boot.mpy").exists()
    assert not (flash / "adafruit_vl53l0x.py").exists()
    assert not (flash / "adafruit_bus_device").exists()
    assert (flash / "lib" / "adafruit_bus_device" / "i2c_device.mpy").exists()
    assert "/adafruit_bus_device/" in rep["removed"] and rep["calibration"] == "none"
    assert not (flash / "package.json").exists()       # the build's mip manifest stays on the host
    assert any("run `ringside calibrate`" in m for m in logs)


def test_a_build_holding_a_calibration_file_is_refused(tmp_path, build, capsys):
    bad = tmp_path / "fw"
    shutil.copytree(build, bad)
    (bad / "calibration.json").write_text("{}")
    flash = tmp_path / "flash"
    shutil.copytree(build, flash)
    (flash / "calibration.json").write_text('{"format": 1, "sensors": {}}')
    opened = []
    assert dp.main(["--port", "x", str(bad)], open_board=opened.append) == 1
    assert opened == []                                    # the board is never touched
    err = capsys.readouterr().err
    assert "never overwrites the board's calibration" in err and "Traceback" not in err


def test_deploy_main_resets_the_board_and_says_what_it_did(tmp_path, build, capsys):
    flash, _ = _calibrated_board(tmp_path, build)
    board = SimBoard(flash)
    assert dp.main(["--port", "sim", str(build)], open_board=lambda port: board) == 0
    assert board.resets == 1
    out = capsys.readouterr().out
    assert "calibration kept; board reset" in out


def test_deploy_to_a_port_that_does_not_answer_says_why(tmp_path, build, capsys):
    assert dp.main(["--port", str(tmp_path / "nope"), str(build)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("deploy: error: %s" % (tmp_path / "nope")) and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


# ----- the Makefile: a failed release stops the deploy -----
def _fake_venv(tmp_path, release_rc):
    """A venv whose ringside and python only record how they were called."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "calls"
    for name, rc in (("ringside", release_rc), ("python", 0)):
        script = venv / "bin" / name
        script.write_text("#!/bin/sh\necho \"%s $*\" >> %s\n%s\nexit %d\n" % (
            name, log, "echo 'ringside: /dev/ttyX did not answer the hello within 3.0 s' >&2"
            if name == "ringside" and rc else "", rc))
        script.chmod(0o755)
    (venv / ".installed").touch()
    # newer than everything the stamp depends on
    later = max(p.stat().st_mtime for p in ROOT.glob("requirements*.txt")) + 10
    os.utime(venv / ".installed", (later, max(later, (ROOT / "pyproject.toml").stat().st_mtime + 10)))
    return venv, log


def _make_deploy(venv):
    return subprocess.run(["make", "-s", "-C", str(ROOT), "deploy", "VENV=%s" % venv,
                           "PORT=/dev/ttyX"], capture_output=True, text=True, timeout=60)


def test_a_failed_release_stops_make_deploy_with_its_reason(tmp_path):
    venv, log = _fake_venv(tmp_path, release_rc=2)
    res = _make_deploy(venv)
    calls = log.read_text().splitlines()
    assert res.returncode != 0
    assert "did not answer the hello" in res.stderr
    assert any(c.startswith("ringside release --port /dev/ttyX") for c in calls)
    assert not any("ringside.app.deploy" in c for c in calls)       # nothing copied


def test_a_good_release_goes_on_to_the_deploy(tmp_path):
    venv, log = _fake_venv(tmp_path, release_rc=0)
    res = _make_deploy(venv)
    calls = log.read_text().splitlines()
    assert res.returncode == 0, res.stderr
    i = next(k for k, c in enumerate(calls) if c.startswith("ringside release"))
    assert "-m ringside.app.deploy --port /dev/ttyX --romfs auto build/firmware" in calls[i + 1]


# ----- ringside release: the app's `repl` command, or a board at the REPL already -----
def _short_link(spec):
    from ringside.link import Link
    return Link(spec, ring=None, reconnect=False, handshake_timeout_s=0.6)


class _Pty:
    """A pty whose far end is a board that answers Ctrl-C with a prompt (repl=True: a
    MicroPython REPL) or says nothing at all (repl=False: a hung board)."""

    def __init__(self, repl):
        import threading
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        self.repl = repl
        self.got = bytearray()
        self.stop = False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        import select
        while not self.stop:
            r, _, _ = select.select([self.master], [], [], 0.05)
            if not r:
                continue
            try:
                data = os.read(self.master, 1024)
            except OSError:
                return
            self.got += data
            if self.repl and b"\x03" in data:
                os.write(self.master, b"\r\nKeyboardInterrupt: \r\n>>> ")

    def close(self):
        self.stop = True
        self.t.join(1)
        os.close(self.master)
        os.close(self.slave)


def test_release_passes_a_board_already_at_the_repl():
    pty = _Pty(repl=True)
    try:
        line = dp.release(pty.path, link_factory=_short_link)
    finally:
        pty.close()
    assert line == "%s: no app is running; the MicroPython REPL is free already" % pty.path
    assert b"\x03" in pty.got


def test_release_of_a_board_that_answers_nothing_fails_with_both_reasons():
    from ringside.link import LinkError
    pty = _Pty(repl=False)
    try:
        with pytest.raises(LinkError) as e:
            dp.release(pty.path, link_factory=_short_link)
    finally:
        pty.close()
    msg = str(e.value)
    assert "did not answer the hello" in msg and "no MicroPython REPL answered" in msg
    assert "\n" not in msg


def test_release_stops_the_app_of_a_running_board():
    from ringside.sim.serve import SimServer
    said = io.StringIO()
    srv = SimServer(seed=1, speed=20.0, out=said)
    srv.start()
    try:
        line = dp.release(srv.port)
        assert line.endswith("the app stopped and the REPL is free (mpremote can connect now)")
        import time
        end = time.monotonic() + 5
        while "the host asked for the REPL" not in said.getvalue() and time.monotonic() < end:
            time.sleep(0.05)
        assert "the host asked for the REPL" in said.getvalue()   # the board took `repl`
    finally:
        srv.stop()


def test_ringside_release_to_a_missing_port_exits_2_with_one_line(tmp_path):
    res = subprocess.run([str(Path(sys.executable).with_name("ringside")), "release", "--port",
                          str(tmp_path / "ttyNONE")], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2
    assert res.stderr.startswith("ringside: ") and len(res.stderr.strip().splitlines()) == 1
    assert "does not exist" in res.stderr and "Traceback" not in res.stderr
