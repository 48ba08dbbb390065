"""`ringside bench suite`: every ring measurement README's table publishes, in one command.

The runs are data (`suite.json`: the level ring, the tilted ring, the fault kinds, the boots from
a saved calibration), each one `ringside bench ring --seeds ... --json` whose JSON is written to
its own file in the output directory as soon as it ends. A run whose file is there, made by the
same firmware, simulator and ring (their sources' hashes, `fingerprint()`), is not run again: a
sweep cut short goes on where it stopped. The summary checks every seed of every run against the
targets the spec names and says which are met, with the worst value and the runs that miss.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

SPEC_PATH = Path(__file__).with_name("suite.json")
FORMAT = "ringside-bench-suite/1"
# what a run's args may say, and the `bench ring` option each is
RUN_ARGS = {"flicks": "--flicks", "seeds": "--seeds", "tilt": "--tilt", "fault": "--fault",
            "saved_calibration": "--saved-calibration",
            "faults_before_boot": "--faults-before-boot", "noise": "--noise"}
# the per-seed figures a summary keeps (the bench's keys), and those summed over seeds
SEED_KEYS = ("accuracy", "primary_accuracy", "ambiguous_rate", "misreported", "false_off_ring",
             "off_ring_missed", "no_verdict", "travel_error_deg_p95", "latency_ms_p50",
             "latency_ms_p95", "recovery_ms_max", "flagged_at_ms")
COUNT_KEYS = ("misreported", "false_off_ring", "off_ring_missed", "no_verdict")
MEAN_KEYS = ("primary_accuracy", "ambiguous_rate")
_OPS = {">=": lambda v, t: v >= t, "<=": lambda v, t: v <= t}


class SuiteError(ValueError):
    """A spec, a part name or a run's file that the suite cannot use; the message says which."""


# --- the spec ---------------------------------------------------------------------------------
def load_spec(path: str | os.PathLike | None = None) -> dict:
    """The suite's runs and targets (suite.json, or the file given), checked."""
    p = Path(path) if path is not None else SPEC_PATH
    try:
        spec = json.loads(p.read_text())
    except OSError as e:
        raise SuiteError("cannot read the suite spec %s: %s" % (p, e.strerror or e)) from None
    except ValueError as e:
        raise SuiteError("the suite spec %s is not JSON: %s" % (p, e)) from None
    check_spec(spec, str(p))
    return spec


def check_spec(spec: Any, where: str = "the suite spec") -> None:
    """SuiteError naming the first thing wrong with a spec."""
    if not isinstance(spec, dict) or spec.get("format") != FORMAT:
        raise SuiteError("%s: not a %s file (its \"format\" says %r)"
                         % (where, FORMAT, spec.get("format") if isinstance(spec, dict) else None))
    targets = spec.get("targets")
    if not isinstance(targets, dict):
        raise SuiteError("%s: \"targets\" must be an object of named target sets" % where)
    for name, tset in targets.items():
        if not isinstance(tset, dict):
            raise SuiteError("%s: target set %r must be an object" % (where, name))
        for key, rule in tset.items():
            if (not isinstance(rule, list) or len(rule) != 2 or rule[0] not in _OPS
                    or isinstance(rule[1], bool) or not isinstance(rule[1], (int, float))):
                raise SuiteError("%s: target %s.%s must be [\">=\" or \"<=\", a number], not %r"
                                 % (where, name, key, rule))
            if key.partition("@")[0] not in SEED_KEYS:
                raise SuiteError("%s: target %s.%s names no figure the suite keeps (%s)"
                                 % (where, name, key, ", ".join(SEED_KEYS)))
    parts = spec.get("parts")
    if not isinstance(parts, list) or not parts:
        raise SuiteError("%s: \"parts\" must be a list of runs" % where)
    seen = set()
    for part in parts:
        if not isinstance(part, dict) or not isinstance(part.get("name"), str):
            raise SuiteError("%s: every part needs a \"name\"" % where)
        name = part["name"]
        if name in seen:
            raise SuiteError("%s: two parts are called %r" % (where, name))
        seen.add(name)
        if not isinstance(part.get("file"), str) or not part["file"]:
            raise SuiteError("%s: part %r needs a \"file\" name" % (where, name))
        if part.get("targets") not in targets:
            raise SuiteError("%s: part %r names target set %r, which \"targets\" lacks"
                             % (where, name, part.get("targets")))
        args = part.get("args")
        if not isinstance(args, dict):
            raise SuiteError("%s: part %r needs \"args\"" % (where, name))
        bad = sorted(set(args) - set(RUN_ARGS))
        if bad:
            raise SuiteError("%s: part %r: unknown args %s (use %s)"
                             % (where, name, ", ".join(bad), ", ".join(RUN_ARGS)))
        exp = part.get("expand", {})
        if not isinstance(exp, dict) or any(not isinstance(v, list) or not v for v in exp.values()):
            raise SuiteError("%s: part %r: \"expand\" maps names to non-empty lists" % (where, name))


def plan(spec: dict, parts: list[str] | None = None) -> list[dict]:
    """The runs, in order: each {"part", "file", "args", "kind"} with the expansions filled in
    (kind: the fault kind a run has, or None). parts: only these (by name)."""
    names = [p["name"] for p in spec["parts"]]
    if parts:
        unknown = [p for p in parts if p not in names]
        if unknown:
            raise SuiteError("no part %s in the suite (it has %s)"
                             % (", ".join(map(repr, unknown)), ", ".join(names)))
    out = []
    for part in spec["parts"]:
        if parts and part["name"] not in parts:
            continue
        exp = part.get("expand", {})
        keys = list(exp)
        for values in itertools.product(*(exp[k] for k in keys)) if keys else [()]:
            sub = dict(zip(keys, values, strict=True))
            try:
                args = {k: (v.format(**sub) if isinstance(v, str) else v)
                        for k, v in part["args"].items()}
                fname = part["file"].format(**sub)
            except (KeyError, IndexError, ValueError) as e:
                raise SuiteError("part %r: cannot fill in %s (expand gives %s)"
                                 % (part["name"], e, ", ".join(keys) or "nothing")) from None
            if "/" in fname or fname.startswith("."):
                raise SuiteError("part %r: a run's file is a plain name, not %r"
                                 % (part["name"], fname))
            kind = str(args["fault"]).partition(":")[0] if "fault" in args else None
            out.append({"part": part["name"], "file": fname, "args": args, "kind": kind})
    return out


def command_line(args: dict, jobs: int = 2) -> str:
    """The `ringside bench ring` command that one run is."""
    words = ["ringside", "bench", "ring"]
    for k, opt in RUN_ARGS.items():
        if k not in args:
            continue
        v = args[k]
        if v is True:
            words.append(opt)
        elif v is not False and v is not None:
            words += [opt, str(v)]
    return " ".join(words + ["--jobs", str(jobs), "--json"])


# --- what made a run --------------------------------------------------------------------------
def _digest(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def fingerprint() -> dict:
    """Hashes of what decides a run's numbers: the firmware's sources, the simulator's and the
    bench's, and the ring file in use."""
    from ringside import ring as ring_mod
    fw = ring_mod.firmware_dir()
    host = Path(__file__).resolve().parent.parent
    sim = list((host / "sim").glob("*.py")) + [host / "bench" / "ring.py",
                                                 host / "calibration.py"]
    firmware = list(fw.glob("*.py"))
    main = fw.parent / "main.py"
    if main.exists():
        firmware.append(main)
    return {"firmware": _digest(firmware), "simulator": _digest([p for p in sim if p.exists()]),
            "ring": hashlib.sha256(ring_mod.read_bytes()).hexdigest()[:12]}


def _bench_kwargs(args: dict) -> tuple[list[int], dict]:
    from ringside.bench import ring
    from ringside.sim.board import default_ring_bytes
    count = len(json.loads(default_ring_bytes())["sensors"])
    try:
        seeds = ring.parse_seeds(str(args.get("seeds", "1")))
        faults = args.get("fault")
        faults = [faults] if isinstance(faults, str) else list(faults or ())
        specs = [ring.parse_fault(f, count) for f in faults]
    except ValueError as e:
        raise SuiteError(str(e)) from None
    kw = {"flicks": int(args.get("flicks", 2000)), "tilt": float(args.get("tilt", 0.0)),
          "noise": float(args.get("noise", 1.0)), "fault_specs": specs,
          "saved_calibration": bool(args.get("saved_calibration")),
          "faults_before_boot": bool(args.get("faults_before_boot"))}
    if kw["faults_before_boot"] and not (kw["saved_calibration"] and specs):
        raise SuiteError("faults_before_boot needs saved_calibration and a fault")
    return seeds, kw


# --- running ----------------------------------------------------------------------------------
def _read(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("seeds"), dict) else None


def _write(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)      # a run cut off mid-write leaves no half file behind


def run(out: str | os.PathLike, spec: dict | None = None, parts: list[str] | None = None,
        jobs: int = 1, resume: bool = True, save_traces: bool = False,
        progress: Callable[[str], None] | None = None) -> dict:
    """Run the suite's runs into directory out (one JSON file each), then summarize().
    resume: a run whose file holds the same args and fingerprint is not run again."""
    from ringside.bench import ring
    spec = spec if spec is not None else load_spec()
    runs = plan(spec, parts)
    d = Path(out)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SuiteError("cannot make the output directory %s: %s" % (d, e.strerror or e)) from None
    fp = fingerprint()
    for n, r in enumerate(runs, 1):
        path = d / (r["file"] + ".json")
        old = _read(path) if resume else None
        meta = (old or {}).get("suite") or {}
        if old is not None and meta.get("args") == r["args"] and meta.get("fingerprint") == fp:
            if progress:
                progress("%d/%d %s: done before, kept" % (n, len(runs), r["file"]))
            continue
        seeds, kw = _bench_kwargs(r["args"])
        if progress:
            progress("%d/%d %s: %s" % (n, len(runs), r["file"], command_line(r["args"], jobs)))
        if save_traces:
            kw["save_traces"] = str(d / ("traces-" + r["file"]))
        res = ring.run_seeds(seeds, jobs=jobs, **kw)
        res["suite"] = {"part": r["part"], "args": r["args"], "fingerprint": fp,
                        "command": command_line(r["args"], jobs)}
        _write(path, res)
    return summarize(d, spec, parts)


# --- the summary ------------------------------------------------------------------------------
def _seed_figures(res: dict) -> dict:
    out = {k: res.get(k) for k in SEED_KEYS if k in res}
    rec = [f.get("recovery_ms_max") for f in res.get("faults") or ()
           if f.get("recovery_ms_max") is not None]
    out["recovery_ms_max"] = max(rec) if rec else None
    flag = [f.get("flagged_at_ms") for f in res.get("faults") or ()
            if f.get("flagged_at_ms") is not None]
    out["flagged_at_ms"] = max(flag) if flag else None
    return out


def _rule_for(tset: dict, key: str, kind: str | None) -> list | None:
    if kind is not None and key + "@" + kind in tset:
        return tset[key + "@" + kind]
    return tset.get(key)


def summarize(out: str | os.PathLike, spec: dict | None = None,
              parts: list[str] | None = None) -> dict:
    """What the runs' files in out say against the spec's targets: per part, each target's
    worst value over every seed of every run, how many seeds meet it, and which miss; the runs
    missing; the fingerprints the files were made by (None: not made by the suite)."""
    spec = spec if spec is not None else load_spec()
    d = Path(out)
    runs = plan(spec, parts)
    now = fingerprint()
    res_parts: dict = {}
    not_met = []
    for part in spec["parts"]:
        if parts and part["name"] not in parts:
            continue
        tset = spec["targets"][part["targets"]]
        mine = [r for r in runs if r["part"] == part["name"]]
        rows, missing, fps = [], [], set()
        checks: dict = {}
        sums = dict.fromkeys(COUNT_KEYS, 0)
        means: dict = {k: [] for k in MEAN_KEYS}
        for r in mine:
            data = _read(d / (r["file"] + ".json"))
            if data is None:
                missing.append(r["file"])
                continue
            fp = (data.get("suite") or {}).get("fingerprint")
            fps.add(json.dumps(fp, sort_keys=True) if fp else "null")
            for seed, res in sorted(data["seeds"].items(), key=lambda kv: int(kv[0])):
                fig = _seed_figures(res)
                rows.append(dict(fig, run=r["file"], seed=int(seed)))
                for k in COUNT_KEYS:
                    sums[k] += fig.get(k) or 0
                for k in MEAN_KEYS:
                    if fig.get(k) is not None:
                        means[k].append(fig[k])
                for key in dict.fromkeys(k.partition("@")[0] for k in tset):
                    rule = _rule_for(tset, key, r["kind"])
                    if rule is None or fig.get(key) is None:
                        continue
                    c = checks.setdefault(key, {"met": 0, "of": 0, "worst": None, "missed": [],
                                                "targets": set()})
                    op, t = rule
                    v = fig[key]
                    c["of"] += 1
                    c["targets"].add("%s %s" % (op, t))
                    if _OPS[op](v, t):
                        c["met"] += 1
                    else:
                        c["missed"].append("%s s%s: %s" % (r["file"], seed, v))
                    worse = (c["worst"] is None or (v < c["worst"] if op == ">=" else v > c["worst"]))
                    if worse:
                        c["worst"] = v
        for key, c in checks.items():
            c["targets"] = sorted(c["targets"])
            c["all_met"] = c["met"] == c["of"]
            if not c["all_met"]:
                not_met.append("%s %s: %d of %d seeds (worst %s; target %s)"
                               % (part["name"], key, c["met"], c["of"], c["worst"],
                                  " / ".join(c["targets"])))
        res_parts[part["name"]] = {
            "what": part.get("what", ""), "runs": len(mine) - len(missing), "of": len(mine),
            "missing": missing, "seeds": len(rows),
            "fingerprints": [json.loads(x) for x in sorted(fps)],
            "made_now": bool(fps) and fps == {json.dumps(now, sort_keys=True)},
            "targets": checks, "sums": sums,
            "means": {k: (round(sum(v) / len(v), 4) if v else None) for k, v in means.items()},
            "rows": rows}
    return {"out": str(d), "fingerprint_now": now, "parts": res_parts, "not_met": not_met,
            "complete": all(not p["missing"] for p in res_parts.values())}


def markdown(summary: dict) -> str:
    """The summary as a Markdown table: a row per part and target."""
    lines = ["| part | target | seeds met | worst | missed (first 3) |",
             "| --- | --- | --- | --- | --- |"]
    for name, p in summary["parts"].items():
        if not p["targets"]:
            lines.append("| %s | (no run found) | | | |" % name)
        for key, c in p["targets"].items():
            lines.append("| %s | %s %s | %d of %d | %s | %s |"
                         % (name, key, " / ".join(c["targets"]), c["met"], c["of"], c["worst"],
                            "; ".join(c["missed"][:3])))
    return "\n".join(lines)
