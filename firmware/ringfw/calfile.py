"""The board's calibration file (calibration.json beside ring.json): its name, its format
and its writer, which `calsave` loads on its own. The reader is boot-only and lives in
ringfw.ringfile with the rest of ring.json's checks; keeping the writer apart means a
`calsave` in play loads only this (about 1 KB of heap) and not the whole reader (about
10 KB), so saving a calibration never takes the heap past its boot peak (docs/firmware.md).
"""
try:
    import ujson as json
except ImportError:  # CPython
    import json

CAL_FILE = "calibration.json"
CAL_FORMAT = 1


def cal_path(ring_path):
    """The calibration file beside ring.json: "calibration.json" or "<dir>/calibration.json"."""
    k = ring_path.rfind("/")
    return CAL_FILE if k < 0 else ring_path[:k + 1] + CAL_FILE


def background(ring, i):
    """Sensor i's saved empty ring as its calibration block holds it, or None."""
    sv = ring.bg_saved
    if sv[4 * i] < 0:
        return None
    return {"range_mm16": sv[4 * i], "signal": sv[4 * i + 1], "valid_signal": sv[4 * i + 2],
            "valid_share": sv[4 * i + 3]}


def calibration_dict(ring):
    """Every sensor's calibration as the calibration file holds it (allocates: a command)."""
    sensors = {}
    for i in range(ring.sensor_count):
        c = {"offset_mm": ring.off16[i] / 16, "scale": ring.scale_q12[i] / 4096}
        bg = background(ring, i)
        if bg is not None:
            c["background"] = bg
        sensors[str(i)] = c
    return {"format": CAL_FORMAT, "sensors": sensors}


def save_calibration(path, ring, which=None):
    """Store the calibration of ring (what calsave does) in the calibration file beside the
    ring.json at path; ring.json itself is never rewritten. Every sensor's current values
    are written (which, the sensors calibrated since boot, is taken for the caller's sake:
    the others keep the values they were loaded with), so the file is the board's whole
    calibration. A temporary file, then a rename: a power cut leaves the old file."""
    import os
    dest = cal_path(path)
    tmp = dest + ".tmp"
    with open(tmp, "w") as f:
        json.dump(calibration_dict(ring), f)
    os.rename(tmp, dest)
    return dest
