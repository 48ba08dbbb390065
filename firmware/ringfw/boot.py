"""The board's boot: firmware/main.py (which MicroPython runs after boot.py) calls main().

1. Load ring.json. Missing or bad: blink the LEDs red and print why, every 2 s, forever
   (Ctrl-C still works, no watchdog runs, so mpremote can put a good file in place).
2. The rescue window (RESCUE_MS): BOOTSEL pressed (rp2.bootsel_button()), the safe-mode
   jumper (ring.json pins.safe to GND) or Ctrl-C on the console gives SAFE MODE: nothing
   starts, the watchdog is stopped, the REPL is free (docs/board.md "Rescuing a board").
3. Build the board: sensors (XSHUT sequencing, addresses, the Adafruit driver), LEDs,
   USB serial, then the watchdog; hand them to ringfw.controller.Controller.
4. Loop ctl.step(now) until the host asks for the REPL (board_rp2040.release_repl).
   Ctrl-C works until board_rp2040.GRACE_MS after the loop's first step, then it is data.
   An error that escapes the controller is printed and the LEDs blink red with Ctrl-C on;
   the watchdog, no longer fed, reboots the board unless Ctrl-C comes first.

Whichever way main() returns to the REPL (safe mode, Ctrl-C, release, a fault that was
interrupted), the watchdog is stopped first (leave()): an armed watchdog at the REPL
would reset the board within 5 s.
"""
import gc
import sys
import time

_LOOP_MS = 8         # the main loop's period: a step, then sleep for what is left
# Garbage is collected where the loop chooses (docs/firmware.md): right after a step that
# took sensor readings, once this much has been allocated since boot (steps allocate
# nothing; only rare commands such as calsave leave garbage). The automatic threshold is
# set far above that, so an automatic collection would need 16 KB allocated in one step.
_GC_SLACK = 1024
_GC_THRESHOLD = 16384

try:
    _sleep_ms = time.sleep_ms
except AttributeError:  # CPython (tests)
    def _sleep_ms(ms):
        time.sleep(ms / 1000)
_BLINK_S = 0.5       # half period of the fault blink
_START_ONLY = ("ringfw.start",)   # boot-only: unloaded once the board is built
_TRACKER_SETUP = ("ringfw.tracker_setup",)   # boot-only: unloaded once the tracker is built
# The rescue window: this long before anything starts, BOOTSEL, the jumper and Ctrl-C are
# watched. BOOTSEL held *at power-up* starts the ROM's USB drive instead (the bootrom reads
# it first), so it is pressed just after plugging in: the window gives a person the time.
RESCUE_MS = 1500
# RP2040 WATCHDOG CTRL (base 0x40058000, offset 0x00) through its atomic bit-clear alias
# (+0x3000); ENABLE is bit 30 (RP2040 datasheet: "Watchdog", list of registers, and 2.1.2
# "Atomic Register Access"). machine.WDT has no deinit on rp2. Plain ints: both exceed the
# small-int range const() needs.
_WDT_CTRL_CLR = 0x4005B000
_WDT_ENABLE = 1 << 30


def _print_error(e):
    try:
        sys.print_exception(e)
    except AttributeError:  # CPython
        import traceback
        traceback.print_exception(e)


def fault(message, path="ring.json", rounds=-1, pixels=None):
    """Blink red and print message every 2 s; rounds < 0 = forever (tests pass a count).
    The blink is in ringfw.blink, loaded only when it is needed."""
    from ringfw import blink
    blink.fault(message, path, rounds, pixels, _BLINK_S, time.sleep)


def _is_rp2040():
    return "RP2040" in getattr(sys.implementation, "_machine", "")


def stop_watchdog():
    """Stop the RP2040's watchdog, whoever started it (a soft reset does not stop it, and
    machine.WDT cannot): clear CTRL.ENABLE. True if this is an RP2040 and it was done."""
    if not _is_rp2040():
        return False
    try:
        import machine
        machine.mem32[_WDT_CTRL_CLR] = _WDT_ENABLE
    except (ImportError, AttributeError):
        return False
    return True


def leave(board):
    """Every way back to the REPL: Ctrl-C on, core 1 stopped, the watchdog stopped (or, on a
    chip other than the RP2040, fed by a timer: board_rp2040.release_repl)."""
    try:
        if not board.released():
            board.release_repl()
    finally:
        stop_watchdog()


def main(path="ring.json", steps=-1, serial=None, fault_rounds=-1, rescue_ms=RESCUE_MS):
    """Boot and run. steps < 0 runs until release; tests pass a step count and a serial."""
    # Order matters for the heap's peak (docs/board.md): the board module before ring.json
    # is read (reading it leaves holes in the heap), the board built and the Adafruit
    # driver dropped with the set-up code, and the start-up code (ringfw.start) dropped,
    # before the controller's modules are imported; the tracker is built before them too, and
    # its set-up code (ringfw.tracker_setup) dropped at once.
    from ringfw import board_rp2040 as board
    try:
        return _run(board, path, steps, serial, fault_rounds, rescue_ms)
    except KeyboardInterrupt:   # Ctrl-C in a fault blink, or anywhere not caught below
        print("ringside: interrupted: the watchdog is off, the REPL is free")
        return None
    finally:
        leave(board)


def _run(board, path, steps, serial, fault_rounds, rescue_ms):
    # ring.json, the rescue window and the board's parts: boot-only code (ringfw.start),
    # unloaded before the controller's modules are imported
    from ringfw import start
    got = start.board(board, path, serial, fault_rounds, rescue_ms)
    start = None
    board.drop_modules(_START_ONLY)
    if got is None:
        return None
    ring, clock, sensors, pixels, serial, watchdog = got
    got = None
    started = False
    try:
        # Core 1 first: the rp2 port takes its stack (4 KB, one block) from the heap, and
        # the heap is emptiest now; after the tracker's and the controller's code it is
        # holes. Until the controller steps, core 1's readings replace each other.
        started = sensors.start()
        from ringfw.compat import tdiff
        from ringfw import tracker
        trk = tracker.Tracker(ring)
        tracker = None
        board.drop_modules(_TRACKER_SETUP)    # the tracker's set-up: its RAM back
        from ringfw.controller import Controller
        ctl = Controller(ring, clock, sensors, pixels, serial, watchdog, board.Storage(path), trk)
        trk = None
        if started:
            print("ringside: sensors polled on core 1")
    except KeyboardInterrupt:  # Ctrl-C while starting: leave a usable REPL
        board.release_repl()
        print("ringside: interrupted while starting")
        return None
    except Exception as e:
        if started:
            sensors.halt()
        _print_error(e)
        fault("board start failed: %s: %s" % (type(e).__name__, e), path, fault_rounds)
        return None

    # collect now and set the automatic threshold high; the loop collects itself once the
    # heap in use passes gc_floor
    mem_alloc = getattr(gc, "mem_alloc", None)    # MicroPython only
    gc.collect()
    gc_floor = 0
    if mem_alloc is not None:
        try:
            gc.threshold(_GC_THRESHOLD)
        except AttributeError:
            pass
        gc_floor = mem_alloc() + _GC_SLACK
    # Ctrl-C's grace (board_rp2040.boot_grace) counts from the loop's first step, not from
    # the import: the rescue window and the sensors' start-up do not eat into it.
    board._boot = clock.ticks_ms()
    try:
        k = 0
        while not board.released() and (steps < 0 or k < steps):
            now = clock.ticks_ms()
            board.boot_grace(now)
            ctl.step(now)
            k += 1
            # Between sensor rounds: the readings of this round are in the tracker and the
            # next are at least a sensor period away (docs/firmware.md: why a collection
            # cannot cost a reading).
            if ctl.took and mem_alloc is not None and mem_alloc() > gc_floor:
                gc.collect()
                gc_floor = mem_alloc() + _GC_SLACK
            # Pace the loop: a step every _LOOP_MS is fast enough for 33 ms sensor readings
            # and leaves the rest of the core idle (less heat, less USB current).
            spare = _LOOP_MS - tdiff(clock.ticks_ms(), now)
            if spare > 0:
                _sleep_ms(spare)
    except KeyboardInterrupt:  # Ctrl-C inside the boot grace: stop cleanly, REPL usable
        board.release_repl()
        print("ringside: interrupted, REPL released")
        return ctl
    except Exception as e:
        sensors.halt()
        _print_error(e)
        # Not fed any more: the watchdog reboots the board within its timeout, unless
        # Ctrl-C (on again: the app is gone, nothing on the link needs protecting) comes
        # first; then main's leave() stops the watchdog and the REPL is free.
        try:
            import micropython
            micropython.kbd_intr(3)
        except (ImportError, AttributeError):
            pass
        fault("main loop stopped: %s: %s (rebooting in 5 s; Ctrl-C for the REPL)"
              % (type(e).__name__, e), path, fault_rounds, pixels)
        return ctl
    sensors.halt()                        # core 1 stops polling (tests, release)
    if board.released():
        print("ringside: REPL released")
    return ctl

