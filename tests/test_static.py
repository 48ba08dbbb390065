"""Static checks in make test: the firmware against the MicroPython rp2 port's own stubs (so a
call the port does not have fails the build), ruff over the whole tree, and type hints on every
public function of ringside."""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STUBS = Path(os.environ.get("RINGSIDE_MP_STUBS", Path(sys.prefix) / "mpstubs"))
# The stub modules whose classes the firmware uses: a missing attribute on one of their classes
# (machine.Pin(...).frobnicate()) is a call the port does not have, like a missing module name.
_PORT_MODULES = ("machine", "neopixel", "micropython", "time", "gc", "_thread", "sys", "rp2/__init__")


def _tool(name: str) -> str:
    exe = Path(sys.executable).parent / name
    if exe.exists():
        return str(exe)
    found = shutil.which(name)
    if not found:
        pytest.fail("%s is not installed: run make venv (it is pinned in requirements.txt)" % name)
    return found


def _port_classes() -> set[str]:
    names = set()
    for m in _PORT_MODULES:
        f = STUBS / (m + ".pyi")
        if f.exists():
            names.update(re.findall(r"^class (\w+)", f.read_text(), re.M))
    return names


def _fallback_lines(path: Path) -> set[int]:
    """Lines inside `except AttributeError/ImportError:` handlers: the CPython stand-ins for
    what the port has under another name. They never run on the board, so they are not findings."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            caught = [node.type] if not isinstance(node.type, ast.Tuple) else node.type.elts
            if any(isinstance(c, ast.Name) and c.id in ("AttributeError", "ImportError") for c in caught):
                lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def _mypy(cwd: Path) -> str:
    env = dict(os.environ, MYPYPATH=str(STUBS))
    r = subprocess.run([_tool("mypy"), "--custom-typeshed-dir", str(STUBS), "--no-site-packages",
                        "--no-incremental", "--cache-dir", os.devnull, "--check-untyped-defs",
                        "--python-version", "3.11", "ringfw", "main.py"],
                       cwd=cwd, env=env, capture_output=True, text=True)
    if "Found" not in r.stdout and "Success" not in r.stdout:
        pytest.fail("mypy did not run: " + r.stdout + r.stderr)
    return r.stdout


def port_gaps(cwd: Path) -> list[str]:
    """mypy's findings that mean "the rp2 port does not have this"; the rest of its opinions on
    duck-typed firmware code are not this check's business."""
    classes = _port_classes()
    gaps = []
    for line in _mypy(cwd).splitlines():
        m = re.match(r"((?:ringfw/[\w/]+|main)\.py):(\d+): error: (.*)", line)
        if not m:
            continue            # findings inside the stubs themselves, notes, the summary
        path, no, msg = m.group(1), int(m.group(2)), m.group(3)
        missing_name = re.match(r'Module( "[\w.]+")? has no attribute', msg)
        missing_method = re.match(r'"(\w+)" has no attribute', msg)
        missing_module = "[import-not-found]" in msg and "adafruit_" not in msg  # the driver ships beside the firmware
        if not (missing_name or missing_module or (missing_method and missing_method.group(1) in classes)):
            continue
        if no in _fallback_lines(cwd / path):
            continue
        gaps.append(line)
    return gaps


def _need_stubs():
    if not (STUBS / "machine.pyi").exists():
        pytest.fail("the MicroPython rp2 stubs are not in %s: run make venv" % STUBS)


def test_firmware_uses_only_what_the_rp2_port_has():
    _need_stubs()
    gaps = port_gaps(ROOT / "firmware")
    assert not gaps, "calls the rp2 port does not have:\n" + "\n".join(gaps)


def test_the_port_check_fails_on_calls_the_port_does_not_have(tmp_path):
    """time.monotonic, a made-up Pin method and CPython's traceback are not on the board; WDT and
    a CPython stand-in inside `except AttributeError` are fine."""
    _need_stubs()
    pkg = tmp_path / "ringfw"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bad.py").write_text(
        "import time\nimport machine\n"
        "t = time.monotonic()\n"
        "machine.Pin(1).frobnicate()\n"
        "import traceback\n"
        "w = machine.WDT(timeout=1000)\n"
        "try:\n    tk = time.ticks_ms\nexcept AttributeError:\n    tk = time.monotonic\n")
    (tmp_path / "main.py").write_text("")
    gaps = "\n".join(port_gaps(tmp_path))
    assert "bad.py:3:" in gaps and "bad.py:4:" in gaps and "bad.py:5:" in gaps, gaps
    assert "bad.py:6:" not in gaps and "bad.py:10:" not in gaps, gaps
