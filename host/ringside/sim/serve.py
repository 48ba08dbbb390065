"""The simulated board on a pty: the firmware controller on the simulated ring, in real time.

    ringside sim [--link PATH] [--ports N] [--leds] [--png FILE] [--speed X] [--seed N] [--place DEG]

A host connects to the printed pty path (or to the --link symlink, which follows the
board across simulated resets) exactly as to a real board: same frames, same bytes. One host
per pty; --ports N (default 2) gives N ptys (PATH, PATH-2 ...) so that, say, `ringside monitor`
watches while `ringside flick` or a game plays: events go to all, replies to the asker. The
board's clock runs at `speed` times real time (1 = real time; tests use more).

Commands only a simulated board understands (a real board's firmware NACKs them with
why=simulated_board_only; docs/protocol.md):

    sim_flick speed=<mm/s> dir=cw|ccw   flick the marble (above 1500 mm/s it leaves the ring);
                                        refused with why=marble_off_the_ring... when it is off
    sim_place ang=<cd>                  lift the marble and set it down at an angle (also how a
                                        marble off the ring is put back: `ringside flick --place 7`)
    sim_lift                            take the marble off the ring (in a hand) until the next
                                        sim_place: calibration lets the sensors learn the empty ring
    sim_led i=<n>                       reply `led i= r= g= b=`: LED n as shown (after the cap)
    sim_reset [ms=<boot ms>] [keep=1]   reset the board: the pty goes away (as USB does) and
                                        a new one comes up after the boot time; keep=1: a
                                        soft reset on the same pty
    sim_burst n=<frames>                send n `burst k=` frames as fast as the host reads

The LED ring can be shown live in the terminal (--leds: one coloured block per LED) and
saved as a PNG (--png FILE: rewritten when the LEDs change, at most twice a second).
Colours are shown at full scale (the board's power cap makes the real LEDs dim).
"""
from __future__ import annotations

import argparse
import math
import os
import select
import signal
import struct
import sys
import threading
import time
import tty
import zlib
from collections import deque
from pathlib import Path

from ringside.link.frames import WireError, encode, parse
from ringside.sim.board import SimBoard, model_of
from ringside.errors import UsageError
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

WRITE_TIMEOUT_S = 0.5     # like the rp2 USB CDC: output waits this long for a reader, then drops
BOOT_MS = 800             # a reset board's pty comes back after this (MicroPython start, sensor init)
DISPLAY_S = 0.1           # terminal LED refresh
PNG_S = 0.5               # at most this often


# ----- PNG without dependencies -----
def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def png_bytes(width: int, height: int, rgb: bytes) -> bytes:
    """An 8-bit RGB PNG of width x height from rows of r, g, b bytes."""
    if len(rgb) != width * height * 3:
        raise UsageError("need %d bytes of RGB, got %d" % (width * height * 3, len(rgb)))
    row = width * 3
    raw = b"".join(b"\x00" + rgb[y * row:(y + 1) * row] for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b""))


def shown_colours(frame: bytes, eff: int) -> list[tuple[int, int, int]]:
    """The pixel buffer (G R B, after brightness and cap) -> (r, g, b) at full scale."""
    out = []
    k = 255.0 / eff if eff > 0 else 0.0
    for i in range(0, len(frame) - 2, 3):
        g, r, b = frame[i], frame[i + 1], frame[i + 2]
        out.append(tuple(min(255, int(round(v * k))) for v in (r, g, b)))
    return out


def ring_image(colours: list[tuple[int, int, int]], led_angles_deg: list[float], size: int = 240) -> bytes:
    """A PNG of the LED ring: each LED a dot at its angle (ccw from east, north up)."""
    bg = (18, 18, 22)
    img = bytearray(bytes(bg) * (size * size))
    c = size / 2.0
    rr = size * 0.40
    dot = max(3.0, size * 0.028)
    # the track: a faint circle
    for k in range(720):
        a = math.radians(k / 2.0)
        x = int(round(c + rr * math.cos(a)))
        y = int(round(c - rr * math.sin(a)))
        if 0 <= x < size and 0 <= y < size:
            j = 3 * (y * size + x)
            img[j:j + 3] = bytes((50, 50, 58))
    for col, ang in zip(colours, led_angles_deg, strict=True):
        a = math.radians(ang)
        cx = c + rr * math.cos(a)
        cy = c - rr * math.sin(a)
        fill = col if any(col) else (40, 40, 46)
        for y in range(int(cy - dot), int(cy + dot) + 1):
            for x in range(int(cx - dot), int(cx + dot) + 1):
                if 0 <= x < size and 0 <= y < size and (x - cx) ** 2 + (y - cy) ** 2 <= dot * dot:
                    j = 3 * (y * size + x)
                    img[j:j + 3] = bytes(fill)
    return png_bytes(size, size, bytes(img))


def terminal_line(colours: list[tuple[int, int, int]]) -> str:
    """One line of coloured blocks (24-bit ANSI colour), one per LED."""
    parts = []
    for r, g, b in colours:
        if r or g or b:
            parts.append("\x1b[38;2;%d;%d;%dm\u2588" % (r, g, b))
        else:
            parts.append("\x1b[38;2;60;60;60m\u00b7")
    return "".join(parts) + "\x1b[0m"


# ----- the pty -----
class _Pty:
    """A pty pair in raw mode. The server keeps the slave open itself, so the master never
    sees a hang-up while no host is connected. One host per pty: two programs reading one
    pty would each get some of the board's bytes (see SimServer's ports)."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.stalled = False      # its host is not reading: output to it is dropped at once
        self.dropped = 0
        self.inbuf = bytearray()  # a host's partial line (several ports: lines go in whole)

    def close(self):
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class _PtySerial:
    """hal.Serial for the controller, over the pty master."""

    def __init__(self, server):
        self.srv = server
        self.stalled = False
        self.dropped = 0

    def read_into(self, buf):
        inbox = self.srv.inbox
        n = min(len(buf), len(inbox))
        if n:
            buf[:n] = inbox[:n]
            del inbox[:n]
        return n

    def write(self, buf, n):
        srv = self.srv
        data = bytes(buf[:n])
        if b" hb " not in data[:12]:
            srv.sent.append((srv.board.now, data))
        if b" landed " in data[:20] or b" off_ring " in data[:20]:
            srv.emitted(data)
        ptys = srv.ptys
        if len(ptys) == 1:
            _write_to(ptys[0], data)
            return
        for pty in srv.route(data):
            _write_to(pty, data)


def _write_to(pty, data: bytes) -> None:
    """Write a frame to one pty as the Pico's USB CDC does: wait up to WRITE_TIMEOUT_S for
    a reader, then drop (and drop at once while that reader stays away)."""
    fd = pty.master
    end = None
    off = 0
    while off < len(data):
        try:
            off += os.write(fd, data[off:])
            pty.stalled = False
            continue
        except BlockingIOError:
            pass
        except OSError:
            pty.dropped += 1
            return
        if pty.stalled:  # the host is not reading: drop at once, as USB CDC does
            pty.dropped += 1
            return
        if end is None:
            end = time.monotonic() + WRITE_TIMEOUT_S
        left = end - time.monotonic()
        if left <= 0:
            pty.stalled = True
            pty.dropped += 1
            return
        select.select([], [fd], [], left)


# replies go to the host that asked; everything else the board says goes to every host
_REPLIES = (b"ack", b"nack", b"hello", b"led", b"burst")


class SimServer:
    """SimBoard paced in real time behind a pty. start() runs it in a thread; run() in this one.

    ports: how many hosts may connect at once, each on its own pty (a monitor beside the
    host that plays, say). Every host sees every event and heartbeat; a command's reply
    (ack/nack, the hello it asked for, sim_led's led, sim_burst's frames) goes only to the
    host that sent it, so no host sees another's hello as a board reset or another's ack
    as its own. With --link PATH, port k > 1 is linked at PATH-k."""

    def __init__(self, ring_bytes: bytes | None = None, *, seed: int = 0, speed: float = 1.0,
                 link_path: str | None = None, boot_ms: int = BOOT_MS, place_deg: float | None = None,
                 tilt_deg: float = 0.0, show_leds: bool = False, png: str | None = None,
                 emit_log: str | None = None, out: Callable[[str], None] | None = None, ports: int = 1, sensor_model: str | None = None):
        if speed <= 0:
            raise UsageError("speed must be above 0, not %r" % speed)
        if not isinstance(ports, int) or not 1 <= ports <= 8:
            raise UsageError("ports must be 1 to 8, not %r" % (ports,))
        self.nports = ports
        self.ptys: list = []
        self._asked: list = []      # (pty, host seq, kind) of each command passed on, in order
        self._reply_to = None       # the pty a sim_* command's own frames go to
        self.speed = float(speed)
        self.link_path = link_path
        self.boot_ms = int(boot_ms)
        self.show_leds = show_leds
        self.png = png
        self.out = out if out is not None else sys.stdout
        # (seq, kind, time.monotonic()) of every landed/off_ring frame written, for the
        # link benchmark; with emit_log, also appended to that file as it happens
        self.emits: list = []
        # (board ms, bytes) of the last frames the board wrote (heartbeats aside) and, after
        # '< ', the bytes the hosts wrote: what a test shows when it fails
        self.sent: deque = deque(maxlen=400)
        self._emit_file = open(emit_log, "a", buffering=1) if emit_log else None
        self.board = SimBoard(ring_bytes, seed=seed, tilt_deg=tilt_deg, sensor_model=sensor_model)
        if place_deg is not None:
            self.board.place(place_deg, lift_ms=0)
        self.inbox = bytearray()
        self.resets = 0
        self._deferred: list = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_display = None
        self._next_display = 0.0
        self._next_png = 0.0
        self._png_frame = None
        self._up()

    # ----- board and pty life -----
    @property
    def pty(self) -> _Pty:
        return self.ptys[0]

    @property
    def path(self) -> str:
        return self.pty.path

    @property
    def port(self) -> str:
        """What a host should open: the symlink if there is one, else the pty."""
        return self.link_path or self.pty.path

    def link_of(self, k: int) -> str | None:
        """The symlink of port k (0-based): PATH, then PATH-2, PATH-3 ..."""
        if not self.link_path:
            return None
        return self.link_path if k == 0 else "%s-%d" % (self.link_path, k + 1)

    @property
    def ports(self) -> list:
        """What each host should open, one per port: the symlink if there is one, else the pty."""
        return [self.link_of(k) or p.path for k, p in enumerate(self.ptys)]

    def _up(self, ptys=None):
        """Fresh ptys and a booted controller whose boot hello goes out on every one."""
        self.ptys = ptys if ptys is not None else [_Pty() for _ in range(self.nports)]
        self._boot_controller()
        for k, p in enumerate(self.ptys):
            link = self.link_of(k)
            if link:
                tmp = "%s.%d.tmp" % (link, os.getpid())
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
                os.symlink(p.path, tmp)
                os.replace(tmp, link)

    def _boot_controller(self):
        b = self.board
        if self.resets:
            b.out.clear()
            b._out_read = 0
            b.controller = b._boot()      # the same hal objects, a new controller: a reset
        ctl = b.controller
        ctl.serial = _PtySerial(self)
        ctl.sim_command = self._sim_command
        self.inbox.clear()
        self._asked.clear()
        for p in self.ptys:
            p.inbuf.clear()
        boot = bytes(b.out)               # the boot hello, written before the pty existed
        b.out.clear()
        b._out_read = 0
        if boot:
            ctl.serial.write(boot, len(boot))
        self._t0 = time.monotonic()
        self._v0 = b.now

    def _down(self):
        for k, p in enumerate(self.ptys):
            link = self.link_of(k)
            if link:
                try:
                    if os.readlink(link) == p.path:
                        os.unlink(link)
                except OSError:
                    pass
            p.close()

    # ----- several hosts -----
    def _take_input(self, pty, data: bytes) -> None:
        """Bytes from one host. One port: straight to the board. Several: whole lines, each
        command noted with its host so that its reply goes back there."""
        self.sent.append((self.board.now, b"< " + data))
        if len(self.ptys) == 1:
            self.inbox += data
            return
        buf = pty.inbuf
        buf += data
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                if len(buf) > 4096:      # no frame is this long: let the board count the noise
                    self.inbox += buf
                    buf.clear()
                return
            line = bytes(buf[:nl + 1])
            del buf[:nl + 1]
            body = line.strip()
            if body.startswith(b"@"):
                try:
                    seq, kind, _ = parse(body)
                except WireError:
                    seq, kind = -1, "?"    # the board answers a damaged frame with re=-1
                self._asked.append((pty, seq, kind))
                if len(self._asked) > 512:
                    del self._asked[:256]
            self.inbox += line

    def _asker(self, seq: int, kinds=None, pop: bool = False):
        for k, (pty, s, kind) in enumerate(self._asked):
            if s == seq and (kinds is None or kind in kinds):
                if pop:
                    del self._asked[k]
                return pty
        return None

    def route(self, data: bytes) -> list:
        """The ptys a frame from the board goes to (several ports)."""
        sp = data.find(b" ")
        kind = data[sp + 1:data.find(b" ", sp + 1)] if sp > 0 else b""
        if kind not in _REPLIES:
            return self.ptys
        if kind in (b"led", b"burst"):
            return [self._reply_to] if self._reply_to in self.ptys else self.ptys
        try:
            _, k, f = parse(data.strip())
        except WireError:
            return self.ptys
        if k == "hello":            # asked for (hello, status), or the board has just started
            to = self._asker_of_kinds(("hello", "status"))
        else:
            to = self._asker(f.get("re"), pop=True)
        return [to] if to is not None else self.ptys

    def _asker_of_kinds(self, kinds):
        for pty, _, kind in self._asked:
            if kind in kinds:
                return pty
        return None

    def emitted(self, data: bytes) -> None:
        t = time.monotonic()
        sp = data.find(b" ", 1)
        kind = data[sp + 1:data.find(b" ", sp + 1)].decode()
        seq = int(data[1:sp])
        if len(self.emits) > 10000:
            del self.emits[:5000]
        self.emits.append((seq, kind, t))
        if self._emit_file is not None:
            self._emit_file.write("%d %s %.6f\n" % (seq, kind, t))

    def say(self, msg: str) -> None:
        try:
            if self.show_leds:
                self.out.write("\r\x1b[K")
            self.out.write(msg + "\n")
            self.out.flush()
        except (OSError, ValueError):
            pass

    def settle(self, max_ms: int = 8000) -> SimServer:
        """Before start(): run the board until it has found its marble, as a board that has
        been on for a few seconds (under the physical model that takes about 3-4 s of board
        time, under the ideal one about 1 s); real time starts from there."""
        b = self.board
        end = b.now + max_ms
        while b.marble.on_ring and b.controller.tracker.rest_angle() < 0 and b.now < end:
            b.advance(100)
        self._t0 = time.monotonic()
        self._v0 = b.now
        return self

    # ----- running -----
    def start(self) -> SimServer:
        self._thread = threading.Thread(target=self.run, name="ringside-sim", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)

    def run(self) -> None:
        try:
            while not self._stop.is_set():
                self._once()
        finally:
            self._down()
            if self.png:
                self._write_png(force=True)
            if self._emit_file is not None:
                self._emit_file.close()

    def _once(self):
        b = self.board
        loop_ms = b.loop_ms
        now = time.monotonic()
        target = self._v0 + (now - self._t0) * 1000.0 * self.speed
        due = int(target - b.now)
        if due > 2000:  # far behind (a suspended process): skip ahead instead of racing
            self._t0 = now
            self._v0 = b.now
            due = 0
        if due >= loop_ms:
            b.advance(due - due % loop_ms)
            if b.controller.released:
                b.controller.released = False
                self.say("ringside sim: the host asked for the REPL (a real board would "
                         "stop its app now)")
        if self._deferred:
            todo = [d for d in self._deferred if d[0] <= now]
            self._deferred = [d for d in self._deferred if d[0] > now]
            for _, action in todo:
                action()
        if self.show_leds or self.png:
            self._display(now)
        # sleep until the next step is due or the host writes
        wait = (b.now + loop_ms - self._v0) / (1000.0 * self.speed) + self._t0 - time.monotonic()
        fds = {p.master: p for p in self.ptys}
        try:
            r, _, _ = select.select(list(fds), [], [], max(0.0, min(wait, 0.05)))
        except (OSError, ValueError):
            return
        for fd in r:
            try:
                data = os.read(fd, 4096)
            except (BlockingIOError, OSError):
                data = b""
            if data:
                self._take_input(fds[fd], data)

    # ----- sim-only commands (called from inside controller.step) -----
    def _sim_command(self, seq: int, line: bytes):
        try:
            _, kind, f = parse(line)
        except WireError:
            return "bad_frame"
        b = self.board
        if len(self.ptys) > 1:
            self._reply_to = self._asker(seq, (kind,))
        if kind == "sim_flick":
            speed = f.get("speed")
            d = f.get("dir")
            if not isinstance(speed, int) or not 1 <= speed <= 5000:
                return "speed_must_be_1_to_5000_mm_s"
            if d not in ("cw", "ccw"):
                return "dir_must_be_cw_or_ccw"
            if not b.marble.on_ring:
                return "marble_off_the_ring:_put_it_back_with_sim_place_(ringside_flick_--place)"
            b.flick(speed if d == "ccw" else -speed)
            return None
        if kind == "sim_lift":
            self._later(b.lift)     # in someone's hand until the next sim_place
            return None
        if kind == "sim_place":
            ang = f.get("ang")
            if not isinstance(ang, int) or not 0 <= ang < 36000:
                return "ang_must_be_0_to_35999_cd"
            self._later(lambda: b.place(ang / 100.0))
            return None
        if kind == "sim_led":
            i = f.get("i")
            leds = b.controller.leds
            if not isinstance(i, int) or not 0 <= i < leds.n:
                return "no_such_led"
            j = 3 * i                     # the LED buffer is G R B, as shown
            r, g, bb = leds.buf[j + 1], leds.buf[j], leds.buf[j + 2]
            ctl = b.controller
            data = encode(ctl.enc, "led", {"i": i, "r": r, "g": g, "b": bb})
            ctl.serial.write(data, len(data))
            ctl.frames_out += 1
            return None
        if kind == "sim_reset":
            ms = f.get("ms", self.boot_ms)
            keep = f.get("keep", 0)
            if not isinstance(ms, int) or not 0 <= ms <= 60000:
                return "ms_must_be_0_to_60000"
            if keep not in (0, 1):
                return "keep_must_be_0_or_1"
            # a moment later, so the ACK reaches the host before the port goes away
            self._later(lambda: self.reset(ms, keep_port=bool(keep)), 0.05)
            return None
        if kind == "sim_burst":
            n = f.get("n")
            if not isinstance(n, int) or not 1 <= n <= 1000000:
                return "n_must_be_1_to_1000000"
            to = self._reply_to
            self._later(lambda: self._burst(n, to))
            return None
        return "unknown_simulated_board_command"

    def _later(self, action, delay_s: float = 0.0) -> None:
        """Run action after the current step (commands arrive inside controller.step)."""
        self._deferred.append((time.monotonic() + delay_s, action))

    def reset(self, boot_ms: int | None = None, keep_port: bool = False) -> None:
        """Reset the board: its pty goes away (as USB does when a Pico resets) and a new one
        comes up after boot_ms. keep_port: a soft reset (Ctrl-D): same pty, a new controller."""
        if keep_port:
            time.sleep((self.boot_ms if boot_ms is None else boot_ms) / 1000.0)
            self.resets += 1
            self._boot_controller()
            self.say("ringside sim: board restarted on %s" % self.path)
            return
        fresh = [_Pty() for _ in self.ptys]  # taken before the old ones close: new names
        self._down()
        time.sleep((self.boot_ms if boot_ms is None else boot_ms) / 1000.0)
        self.resets += 1
        self._up(fresh)
        self.say("ringside sim: board reset; now on %s" % self.path)

    def _burst(self, n: int, to=None) -> None:
        self._reply_to = to
        ctl = self.board.controller
        e = ctl.enc
        for k in range(n):
            e.begin(b"burst")
            e.int(b"k", k)
            ctl._send()

    # ----- showing the LEDs -----
    def colours(self) -> list[tuple[int, int, int]]:
        b = self.board
        return shown_colours(b.pixels.frame, b.controller.leds.eff)

    def led_angles(self) -> list:
        r = self.board.fw_ring
        n = r.led_count
        return [(r.led0 / 100.0 + r.led_dir * i * 360.0 / n) % 360.0 for i in range(n)]

    def _display(self, now: float):
        frame = self.board.pixels.frame
        if self.show_leds and now >= self._next_display and frame != self._last_display:
            self._next_display = now + DISPLAY_S
            self._last_display = frame
            try:
                self.out.write("\r" + terminal_line(self.colours()))
                self.out.flush()
            except (OSError, ValueError):
                pass
        if self.png and now >= self._next_png and frame != self._png_frame:
            self._next_png = now + PNG_S
            self._write_png()

    def _write_png(self, force: bool = False):
        frame = self.board.pixels.frame
        if not force and frame == self._png_frame:
            return
        self._png_frame = frame
        data = ring_image(self.colours(), self.led_angles())
        tmp = "%s.tmp" % self.png
        try:
            Path(tmp).write_bytes(data)
            os.replace(tmp, self.png)
        except OSError as e:
            self.say("ringside sim: cannot write %s: %s" % (self.png, e.strerror))
            self.png = None


# ----- command line -----
def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ring", help="ring.json to simulate (default: $RINGSIDE_RING, else the one shipped)")
    p.add_argument("--ideal", action="store_true",
                   help="the ideal sensor model (only the marble is seen; docs/simulator.md)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulated ring (default 0)")
    p.add_argument("--speed", type=float, default=1.0,
                   help="board time per real time (default 1: real time)")
    p.add_argument("--link", metavar="PATH",
                   help="keep a symlink to the pty here (it follows the board across resets)")
    p.add_argument("--place", type=float, metavar="DEG", help="marble set down at this angle")
    p.add_argument("--tilt", type=float, default=0.0, metavar="DEG", help="ring tilt (degrees)")
    p.add_argument("--ports", type=int, default=2, metavar="N",
                   help="how many hosts may connect at once, each on its own pty (default 2: "
                        "one plays, one monitors; with --link PATH the second is PATH-2)")
    p.add_argument("--boot-ms", type=int, default=BOOT_MS,
                   help="time a reset board takes to come back (default %d)" % BOOT_MS)
    p.add_argument("--leds", action="store_true", help="show the LED ring live in the terminal")
    p.add_argument("--png", metavar="FILE", help="keep a PNG picture of the LED ring in FILE")
    p.add_argument("--emit-log", metavar="FILE",
                   help="append 'seq kind monotonic_time' for each landed/off_ring frame sent "
                        "(the link benchmark)")


def serve(args: argparse.Namespace) -> int:
    """Run `ringside sim` until interrupted or terminated."""
    ring_bytes = None
    if args.ring:
        try:
            ring_bytes = Path(args.ring).read_bytes()
        except OSError as e:
            raise OSError("cannot read %s: %s" % (args.ring, e.strerror)) from None
    if not 1 <= args.ports <= 8:
        raise UsageError("--ports must be 1 to 8, not %d" % args.ports)
    srv = SimServer(ring_bytes, seed=args.seed, speed=args.speed, link_path=args.link,
                    boot_ms=args.boot_ms, place_deg=args.place, tilt_deg=args.tilt,
                    show_leds=args.leds, png=args.png, emit_log=args.emit_log, ports=args.ports,
                    sensor_model=model_of(getattr(args, "ideal", False)))
    srv.say("ringside sim: simulated board on %s%s" % (
        srv.path, " (link %s)" % args.link if args.link else ""))
    for k in range(1, len(srv.ptys)):
        srv.say("ringside sim: another host at the same time on %s%s (one host per port)" % (
            srv.ptys[k].path, " (link %s)" % srv.link_of(k) if args.link else ""))
    other = " while another host uses %s" % srv.ports[1] if len(srv.ptys) > 1 else ""
    srv.say("ringside sim: connect with `ringside monitor --port %s`%s; Ctrl-C stops it" % (srv.port, other))

    def _term(signum, frame):
        srv._stop.set()

    old = signal.signal(signal.SIGTERM, _term)
    try:
        srv.run()
    except KeyboardInterrupt:
        srv.say("ringside sim: stopped")
    finally:
        signal.signal(signal.SIGTERM, old)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="ringside sim", description=__doc__.split("\n")[0])
    add_arguments(p)
    return serve(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
