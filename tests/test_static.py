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


def test_ruff_finds_nothing_in_the_tree():
    """ruff with the rules in pyproject.toml's [tool.ruff] over every Python file of the repo."""
    r = subprocess.run([_tool("ruff"), "check", "--no-cache", "--output-format", "concise", "."],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, "ruff findings (fix them, see [tool.ruff] in pyproject.toml):\n" + r.stdout + r.stderr


def _public_modules(pkg: Path):
    """ringside's public modules: no "_"-prefixed part on the path, except __init__.py."""
    for f in sorted(pkg.rglob("*.py")):
        parts = f.relative_to(pkg.parent).parts
        if any(p.startswith("_") and p != "__init__.py" for p in parts):
            continue
        yield f


def _unhinted(args: ast.arguments, returns, name: str, method: bool) -> list[str]:
    """What one def leaves unannotated: each parameter (self/cls exempt) and its return."""
    missing = []
    positional = args.posonlyargs + args.args
    if method and positional and positional[0].arg in ("self", "cls"):
        positional = positional[1:]
    for a in positional + args.kwonlyargs:
        if a.annotation is None:
            missing.append(a.arg)
    for a, star in ((args.vararg, "*"), (args.kwarg, "**")):
        if a is not None and a.annotation is None:
            missing.append(star + a.arg)
    if returns is None and name != "__init__":
        missing.append("return")
    return missing


def missing_hints(pkg: Path) -> list[str]:
    """Every public function and method of the package (methods of public classes, __init__
    counted, its return exempt) that leaves a parameter or its return unannotated, as
    `path:line name: what`."""
    found = []

    def visit(body, where: str, path: str, in_class: bool):
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                visit(node.body, where + node.name + ".", path, True)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                public = not node.name.startswith("_") or node.name == "__init__"
                if not public:
                    continue
                is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                for d in node.decorator_list)
                missing = _unhinted(node.args, node.returns, node.name, in_class and not is_static)
                if missing:
                    found.append("%s:%d %s%s: %s" % (path, node.lineno, where, node.name,
                                                     ", ".join(missing)))

    for f in _public_modules(pkg):
        rel = f.relative_to(pkg.parents[1]).as_posix()     # host/ringside/... from the repo root
        visit(ast.parse(f.read_text()).body, "", rel, False)
    return found


def test_every_public_function_of_ringside_has_type_hints():
    missing = missing_hints(ROOT / "host" / "ringside")
    assert not missing, "%d public functions of ringside lack type hints (parameter or return):\n%s" % (
        len(missing), "\n".join(missing))


def test_the_hints_check_lists_what_is_missing(tmp_path):
    """Each unannotated parameter (*args, **kwargs too) and return of a public function or method
    is listed; self, __init__'s return, private names and private modules are not."""
    pkg = tmp_path / "pkg"
    (pkg / "_private").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "_private" / "x.py").write_text("def f(a): pass\n")
    (pkg / "_hidden.py").write_text("def f(a): pass\n")
    (pkg / "m.py").write_text(
        "def ok(a: int, *r: str, k: int = 1, **kw: object) -> None: pass\n"
        "def f(a, *r, k=1, **kw) -> None: pass\n"
        "def g(a: int): pass\n"
        "def _private(a): pass\n"
        "class C:\n"
        "    def __init__(self, x): pass\n"
        "    def m(self) -> int: return 1\n"
        "    @staticmethod\n"
        "    def s(self): pass\n"
        "    @classmethod\n"
        "    def c(cls, y) -> None: pass\n"
        "class _P:\n"
        "    def m(self, x): pass\n")
    got = missing_hints(pkg)
    assert [g.split(" ", 1)[1] for g in got] == [
        "f: a, k, *r, **kw", "g: return", "C.__init__: x", "C.s: self, return", "C.c: y"], got
