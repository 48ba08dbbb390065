"""What the board's frames mean, in types and in plain words (docs/protocol.md).

The wire carries tokens; the host turns them into Python values here, once: fields that
name things (space ids, sides, reasons, versions, the ring hash) stay str even when they
look like numbers ("12", "007"), every other field of the form -?[0-9]+ becomes an int.
"""
from __future__ import annotations

import re

# fields whose value is a name, never a number
TOKEN_FIELDS = frozenset({"sp", "alt", "side", "fw", "ring", "why", "what", "arg",
                          "name", "label", "c", "host", "uid", "cands", "ids"})

_INT = re.compile(r"-?[0-9]{1,9}\Z")

# verdict reasons of an armed flick
VERDICT_TEXT = {
    "too_short": "did not reach the opposing space",
    "wrong_direction": "wrong direction",
    "left_ring": "left the ring",
}

# NACK reasons
NACK_TEXT = {
    "unknown_command": "the board does not know this command",
    "simulated_board_only": "only a simulated board can do this",
    "missing_argument": "a required argument is missing",
    "not_a_number": "an argument is not a whole number",
    "out_of_range": "an argument is out of range",
    "unknown_value": "an argument names something the board does not have",
    "protocol_too_new": "the board speaks an older protocol than this host",
    "protocol_too_old": "the board speaks a newer protocol than this host",
    "no_timer": "no turn timer is running",
    "no_storage": "the board has nowhere to save",
    "save_failed": ("the board could not write its calibration file (is its flash full? "
                    "`mpremote df`): the calibration is in use until the board restarts, "
                    "and the file saved before is unchanged"),
    "say_sp_label_or_all": "paint needs sp=, label= or all=1",
    "frame_too_long": "the frame was too long",
    "bad_checksum": "the frame arrived damaged (checksum)",
}

FAULT_TEXT = {"silent": "stopped answering", "hardware": "reports a hardware failure",
              "nonsense": "reads nonsense", "stuck": "is stuck (reads the same whatever moves)",
              "noisy": "reads too noisily to be believed"}


def id_list(value: object) -> list[str]:
    """A comma-separated list of names (cands=3,17; ids=3,5; '-' for none) -> the names."""
    v = str(value if value is not None else "")
    return [x for x in v.split(",") if x and x != "-"]


def degraded_text(f: dict) -> str:
    """A `degraded` frame in words: which sensors are out, or that the ring is whole again."""
    ids = id_list(f.get("ids"))
    if int(f.get("n", len(ids)) or 0) < 2:
        return "the ring is no longer degraded%s" % (
            " (sensor %s still out)" % ids[0] if ids else ": every sensor works")
    return "the ring is degraded: sensors %s are out, %s of the ring unseen" % (
        " and ".join([", ".join(ids[:-1]), ids[-1]]) if len(ids) > 1 else "".join(ids),
        _deg(f.get("blind")))


def typed(fields: dict) -> dict:
    """Raw str values from frames.parse(raw=True) -> ints where the protocol means numbers."""
    out = {}
    for k, v in fields.items():
        if k not in TOKEN_FIELDS and _INT.match(v):
            out[k] = int(v)
        else:
            out[k] = v
    return out


def nack_text(fields: dict) -> str:
    """A NACK's fields -> one sentence."""
    why = str(fields.get("why", "refused"))
    text = NACK_TEXT.get(why, why.replace("_", " "))
    extra = []
    if "arg" in fields:
        extra.append("argument %s" % fields["arg"])
    if "what" in fields:
        extra.append("command %s" % fields["what"])
    return text + (" (%s)" % ", ".join(extra) if extra else "")


def _deg(cd) -> str:
    try:
        return "%.1f deg" % (int(cd) / 100.0)
    except (TypeError, ValueError):
        return str(cd)


def describe(kind: str, f: dict) -> str:
    """Plain words for an event (the monitor prints them)."""
    if kind == "landed":
        s = "landed on %s at %s, travel %s, confidence %s%%" % (
            f.get("sp"), _deg(f.get("ang")), _deg(f.get("trv")), f.get("conf"))
        if "alt" in f:
            s += " (or %s: close to the line)" % f["alt"]
        if f.get("blind"):
            c = id_list(f.get("cands"))
            s += ", stopped where no sensor sees%s" % (
                ": on one of %s" % ", ".join(c) if len(c) > 1 else "")
        if f.get("corrects"):
            s += " (the marble moved on: this replaces the last landing)"
        return s
    if kind == "withdrawn":
        return "the landing on %s is withdrawn: the marble moved on" % f.get("sp")
    if kind == "degraded":
        return degraded_text(f)
    if kind == "verdict":
        if f.get("ok") == 1:
            return "valid flick (travel %s)" % _deg(f.get("trv"))
        return "invalid flick: %s" % VERDICT_TEXT.get(str(f.get("why")), f.get("why"))
    if kind == "off_ring":
        return "left the ring at %s after %s" % (_deg(f.get("ang")), _deg(f.get("trv")))
    if kind == "moving":
        return "moving %s from %s" % ("ccw" if f.get("dir") == 1 else "cw", _deg(f.get("ang")))
    if kind == "placed":
        return "marble set on %s at %s" % (f.get("sp"), _deg(f.get("ang")))
    if kind == "lost":
        return "marble taken off the ring at %s" % _deg(f.get("ang"))
    if kind == "sensor_fault":
        return "sensor %s %s" % (f.get("id"), FAULT_TEXT.get(str(f.get("why")), f.get("why")))
    if kind == "sensor_ok":
        return "sensor %s works again" % f.get("id")
    if kind == "not_level":
        return "the ring is not level: low point at %s" % _deg(f.get("low"))
    if kind == "timer_expired":
        if f.get("restored"):
            return "turn timer expired (while the board was away)"
        return "turn timer expired"
    if kind == "hb":
        s = "heartbeat: up %s s, worst loop %s ms, dropped %s" % (f.get("up"), f.get("loop"), f.get("drop"))
        if "tmr" in f:
            s += ", timer %.1f s%s" % (f["tmr"] / 1000.0, " (paused)" if f.get("tps") else "")
        return s
    if kind == "hello":
        s = "board firmware %s, protocol %s, ring %s, %s/%s sensors healthy, side %s" % (
            f.get("fw"), f.get("proto"), f.get("ring"), f.get("healthy"), f.get("sensors"),
            f.get("side"))
        cal = board_calibration(f)
        return s if cal is None else s + "; " + cal[1]
    if kind == "link_lost":
        return "link lost: %s" % f.get("why")
    if kind == "link_restored":
        return "link restored on %s after %.1f s" % (f.get("port"), f.get("down_s", 0.0))
    if kind == "board_reset":
        return "the board restarted"
    if kind == "board_changed":
        return "another board is on %s now (uid %s, was %s): treated as a new board" % (
            f.get("port"), f.get("new"), f.get("old"))
    if kind == "link_error":
        return "link: %s" % f.get("why")
    if kind == "error":
        return "firmware error %s (%s)" % (f.get("what"), f.get("count"))
    return " ".join("%s=%s" % kv for kv in f.items())


def board_calibration(hello: dict) -> tuple[bool, str] | None:
    """What a board's hello says of the calibration it keeps across a reset, as (good enough
    to play on, plain words), or None if its firmware does not say (before stop 42). `cal`
    is 1 when a calibration is saved on the board, `bg` how many sensors' empty ring was
    saved with it: a file saved by a version before stop 41 has none, and such a board does
    not notice a sensor knocked out of line after it starts (docs/firmware.md, "Faults")."""
    cal, bg, n = hello.get("cal"), hello.get("bg"), hello.get("sensors")
    if not isinstance(cal, int) or not isinstance(bg, int):
        return None
    if cal == -1:
        return (False, "running uncalibrated: its calibration file is unusable (its console "
                       "says why): run `ringside calibrate --port PORT`, which writes a new one")
    if cal != 1:
        return (False, "not calibrated: run `ringside calibrate --port PORT` with the ring "
                       "empty and level")
    if bg == 0:
        return (False, "calibrated by an older version, without the empty ring: run "
                       "`ringside calibrate --port PORT` again, so that the board notices a "
                       "sensor knocked out of line")
    if isinstance(n, int) and bg < n:
        return (True, "calibrated, with the empty ring of %d of its %d sensors (the others "
                      "were faulty or knocked when it was saved)" % (bg, n))
    return (True, "calibrated, with the empty ring")
