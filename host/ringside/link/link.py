"""The host end of the serial link: one object per board.

    with Link("/dev/ttyACM0") as link:         # or a pty, a pyserial URL, or None: find a Pico
        link.side("darts")
        link.paint("ff8000", space="7")
        link.timer_start(30, "green")
        for ev in link.events():               # landed, verdict, timer_expired, link_lost, ...
            print(ev.kind, ev.fields, ev.text)

Two threads per link: a reader (bytes -> frames -> acks, events, heartbeats; it notices
a board that has been silent for `silence_s`, 2.5 s by default, or a port that failed) and
a keeper (reconnects, by the same path or by the Pico's USB serial number when the path
changed, handshakes, and restores the side, LED scene, effects, armed flick and the turn
timer at the time it has left). Commands are synchronous: they return the ACK's fields or
raise LinkError with the board's reason. Times are seconds unless a name says ms.
"""
from __future__ import annotations

import collections
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ringfw.ringfile import digest_of
from ringfw.wire import PROTOCOL, Encoder

from ringside import ring as ring_mod
from ringside.link import guard, messages
from ringside.link.errors import LinkError
from ringside.link.frames import StreamReader, WireError, encode, parse
from ringside.link.ports import (PortInfo, available, find_picos, is_url, open_port,
                                 usb_serial_of)
from ringside.link.scene import Scene
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Iterator

HOST_VERSION = "0.1.0"
SILENCE_S = 2.5          # heartbeats come every 1 s: 2.5 s without a byte = the board is gone
COMMAND_TIMEOUT_S = 1.0
HANDSHAKE_TIMEOUT_S = 3.0
RETRY_S = 0.1            # how often the keeper looks for the board again
_BOARD_FAULT = b"ringside: FAULT:"   # how ringfw.blink.fault starts its console line
LISTEN_S = 1.5           # a port that once answered nothing frame-like: listen this long first
QUIET_MAX_S = 10.0       # ... and try it at most this seldom (1, 2, 4, ... s after each failure)
REFUSED_RETRY_S = 2.0    # how often a board refused for its protocol or ring is asked again
MISSING_WAIT_S = 0.5     # how long open() waits for a named port that does not exist (yet)
_EVENT_QUEUE = 10000
_MAX_READER_RESTARTS = 5  # a reader that keeps ending has a bug: stay down and say why

_DEFAULT = object()


@dataclass
class Event:
    """A frame from the board (or from the link itself: link_lost, link_restored,
    board_reset). t: time.monotonic() when the host received it; seq: the board's frame
    number (-1 for link events)."""
    kind: str
    fields: dict = field(default_factory=dict)
    t: float = 0.0
    seq: int = -1

    @property
    def text(self) -> str:
        return messages.describe(self.kind, self.fields)


class _Pending:
    __slots__ = ("done", "kind", "fields", "garbled", "lost")

    def __init__(self):
        self.done = threading.Event()
        self.kind = None
        self.fields = {}
        self.garbled = False
        self.lost = None


def _ring_hash(ring) -> str | None:
    if ring is None:
        return None
    if isinstance(ring, (bytes, bytearray)):
        data = bytes(ring)
    else:
        try:
            data = Path(ring).read_bytes()
        except OSError as e:
            raise LinkError("cannot read the ring description %s: %s" % (ring, e.strerror)) from None
    return "%08x" % digest_of(data)


def _colour(c) -> str:
    """'ff8000', '#FF8000', (255, 128, 0) or a name ('red', 'off') -> the wire token."""
    if isinstance(c, (tuple, list)) and len(c) == 3:
        if not all(isinstance(v, int) and 0 <= v <= 255 for v in c):
            raise ValueError("colour %r: each channel must be 0..255" % (c,))
        return "%02x%02x%02x" % tuple(c)
    s = str(c).strip().lower().lstrip("#")
    if not s:
        raise ValueError("empty colour")
    return s


class Link:
    """A board over serial. See the module docstring; docs/protocol.md has the messages."""

    def __init__(self, port: str | None = None, *, ring: str | Path | bytes | object | None = _DEFAULT, silence_s: float = SILENCE_S,
                 command_timeout_s: float = COMMAND_TIMEOUT_S,
                 handshake_timeout_s: float = HANDSHAKE_TIMEOUT_S, reconnect: bool = True,
                 discover: Callable[[], Iterable] | None = None, comports: Callable[[], list] | None = None, heartbeats: bool = False):
        """port: a device path, pty, symlink or pyserial URL; None finds a Pico by USB id.
        ring: the ring.json (path or bytes) the board must carry (its CRC-32 is compared
        with the hello's); None skips the check. discover: a callable returning device
        paths to try when the port is gone (default: Picos by USB id). heartbeats: also
        put `hb` frames in the event stream."""
        self.port_spec = port
        self.expected_ring = _ring_hash(ring_mod.default_path() if ring is _DEFAULT else ring)
        self.silence_s = silence_s
        self.command_timeout_s = command_timeout_s
        self.handshake_timeout_s = handshake_timeout_s
        self.reconnect = reconnect
        self._discover = discover
        self._comports = comports
        self.heartbeats = heartbeats
        self.scene = Scene()
        self.board: dict = {}                 # the last accepted hello's fields
        self._faulty: set = set()             # sensors reported faulty since that hello
        self.not_level: dict | None = None    # the board's last not_level since that hello (the ring tilts)
        self.board_uid: str | None = None     # the identity of the board in use (hello uid=)
        self._identified = False              # a board has been identified on this link
        self._hello: dict = {}                # the last hello received (checked before use)
        self.board_fault: str | None = None   # what a board not running the app printed (handshake)
        self._console = b""                   # its console's last bytes (_tap_console)
        self.last_heartbeat: dict = {}
        self.port_name: str | None = None     # the device in use
        self.stats = {"frames": 0, "bad_frames": 0, "noise_bytes": 0, "partial_frames": 0,
                      "overlong_lines": 0, "frames_missed": 0, "events_dropped": 0,
                      "reconnects": 0, "resets": 0, "garbled": 0, "refused_frames": 0,
                      "reader_errors": 0, "reader_restarts": 0, "board_changes": 0,
                      "hellos_refused": 0, "restores": 0}
        # the last frames the guard refused: (time, type, reason)
        self.refusals: collections.deque = collections.deque(maxlen=50)
        self._hello_refused: str | None = None
        self._reader_alive = False
        self._reader_thread: threading.Thread | None = None
        self._usb_serial: str | None = None
        self._ser = None
        self._reader = StreamReader()
        self._enc = Encoder()
        self._wlock = threading.Lock()
        self._state = threading.Condition()
        self._pending: dict[int, _Pending] = {}
        self._events: queue.Queue = queue.Queue(maxsize=_EVENT_QUEUE)
        self._expect_hello = 0
        self._last_rx = 0.0
        self._next_seq = None
        self._closing = False
        self._handshaking = False
        self._need_restore = False
        self._down_since: float | None = None
        self._down_why = ""
        self._threads: list[threading.Thread] = []
        self._wake = threading.Event()
        self._retry_at = 0.0
        self._quiet: dict[str, tuple[int, float]] = {}   # port -> (failures, next try)

    # ----- life cycle -----
    def open(self) -> Link:
        """Connect and handshake (raises LinkError), then keep the link up in the background."""
        if self._threads:
            return self
        self._closing = False
        self._start_reader()
        try:
            self._connect(initial=True)
        except BaseException:
            self.close()
            raise
        k = threading.Thread(target=self._keep_loop, name="ringside-link-keeper", daemon=True)
        k.start()
        self._threads.append(k)
        return self

    def close(self) -> None:
        self._closing = True
        self._wake.set()
        self._close_port()
        self._fail_pending("the link was closed")
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(timeout=2.0)
        self._threads = []
        self._close_port()  # one the keeper may have opened meanwhile

    def _close_port(self) -> None:
        with self._wlock:
            ser = self._ser
            self._ser = None
        if ser is not None:
            try:
                ser.close()
            except Exception:
                pass

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()

    @property
    def connected(self) -> bool:
        return self._ser is not None and not self._handshaking and self._reader_alive

    @property
    def hello(self) -> dict:
        """The hello of the board in use (firmware, protocol, ring, `sensors` and `healthy`
        counts, side, LEDs, uid): the last one accepted, refreshed by a reconnect, a board
        reset or `status()`; {} before the first. `healthy` is lowered by the sensors the
        board has reported faulty since that hello and not yet well again."""
        h = dict(self.board)
        n, ok = h.get("sensors"), h.get("healthy")
        if self._faulty and isinstance(n, int) and isinstance(ok, int):
            h["healthy"] = max(0, min(ok, n - len(self._faulty)))
        return h

    @property
    def restores(self) -> int:
        """How many times the scene has been sent again to a board (after a reconnect, a
        board that restarted, or a new board). What the board shows is then what `scene`
        holds: a caller that keeps its own copy of what is lit (the table) drops it when
        this changes, and paints afresh."""
        return self.stats["restores"]

    def wait_connected(self, timeout: float) -> bool:
        """Wait until the link is up (after a loss); True if it is."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.connected and not self._need_restore:
                return True
            time.sleep(0.01)
        return self.connected

    # ----- events -----
    def next_event(self, timeout: float | None = None) -> Event | None:
        """The next event, or None after timeout seconds (None: wait for ever)."""
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def events(self, timeout: float | None = None) -> Iterator[dict]:
        """Iterate over events; stops after timeout seconds without one (None: never)."""
        while not self._closing:
            ev = self.next_event(timeout)
            if ev is None:
                return
            yield ev

    def wait_for(self, kinds: Iterable[str], timeout: float) -> Event | None:
        """The next event whose kind is in kinds (others are dropped), or None."""
        if isinstance(kinds, str):
            kinds = (kinds,)
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            ev = self.next_event(left)
            if ev is not None and ev.kind in kinds:
                return ev

    def _emit(self, kind: str, fields: dict, t: float | None = None, seq: int = -1) -> None:
        ev = Event(kind, fields, time.monotonic() if t is None else t, seq)
        while True:
            try:
                self._events.put_nowait(ev)
                return
            except queue.Full:  # nobody is reading: drop the oldest
                try:
                    self._events.get_nowait()
                    self.stats["events_dropped"] += 1
                except queue.Empty:
                    pass

    # ----- commands -----
    def command(self, kind: str, timeout: float | None = None, **fields: Any) -> dict:
        """Send a command and wait for its ACK (returns the ACK's fields).

        Raises LinkError when the board refuses it (the reason in words; .why has the
        token), does not answer twice in a row, or is not connected."""
        return self._command(kind, fields, timeout)

    def _command(self, kind: str, fields: dict, timeout: float | None = None,
                 record: bool = True, _during_handshake: bool = False) -> dict:
        if timeout is None:
            timeout = self.command_timeout_s
        for attempt in (0, 1):
            p = _Pending()
            with self._wlock:
                ser = self._ser
                if ser is None or (self._handshaking and not _during_handshake):
                    raise LinkError("the board is not connected%s" % (
                        " (reconnecting: %s)" % self._down_why if self._down_why else ""))
                try:
                    data = encode(self._enc, kind, fields)
                except WireError as e:
                    raise LinkError("cannot send %s: %s" % (kind, e)) from None
                seq = self._enc.seq
                self._pending[seq] = p
                if kind == "hello" or kind == "status":
                    self._expect_hello += 1
                try:
                    ser.write(data)
                except Exception as e:
                    self._pending.pop(seq, None)
                    self._drop(ser, "writing to the port failed: %s" % (e or type(e).__name__))
                    raise LinkError("the board connection was lost while sending %s" % kind) from None
            got = p.done.wait(timeout)
            self._pending.pop(seq, None)
            if p.lost:
                raise LinkError("the board connection was lost (%s)" % p.lost)
            if (not got or p.garbled) and attempt == 0:
                continue  # a damaged frame or a lost reply: send it once more
            if not got:
                raise LinkError("the board did not answer %s within %.1f s" % (kind, timeout))
            if p.kind == "nack":
                why = str(p.fields.get("why", ""))
                raise LinkError("the board refused %s: %s" % (kind, messages.nack_text(p.fields)),
                                why=why)
            if record:
                self.scene.record(kind, fields, time.monotonic())
            return p.fields
        raise LinkError("the board did not answer %s" % kind)  # not reached

    def ping(self) -> float:
        """Round trip of one ping, in seconds."""
        t0 = time.perf_counter()
        self._command("ping", {}, record=False)
        return time.perf_counter() - t0

    def status(self) -> dict:
        """Ask for a fresh hello and heartbeat; returns the hello's fields."""
        self._command("status", {}, record=False)
        return dict(self.board)

    def side(self, name: str) -> None:
        self._command("side", {"name": name})

    def raw(self, on: bool = True) -> None:
        self._command("raw", {"on": int(bool(on))})

    def arm(self, direction: str = "any", min_deg: float = 0.0) -> None:
        """The next flick must go `direction` (cw, ccw or any) and travel at least min_deg;
        the board answers its landing with a `verdict` event."""
        if direction not in ("any", "cw", "ccw"):
            raise ValueError("direction must be cw, ccw or any, not %r" % direction)
        self._command("arm", {"dir": direction, "min": int(round(float(min_deg) * 100))})

    def disarm(self) -> None:
        self._command("disarm", {})

    def clear(self) -> None:
        self._command("clear", {})

    def paint(self, colour: str, space: str | None = None, label: str | None = None,
              everywhere: bool = False) -> None:
        """Colour one space (by id), every space with a label, or the ground under all."""
        f = {"c": _colour(colour)}
        if space is not None:
            f["sp"] = str(space)
        elif label is not None:
            f["label"] = str(label).replace(" ", "_")
        elif everywhere:
            f["all"] = 1
        else:
            raise ValueError("paint needs a space, a label or everywhere=True")
        self._command("paint", f)

    def player(self, colour: str, at_deg: float | None = None, width: int = 3) -> None:
        """Show whose turn it is: an arc of `width` LEDs at at_deg (default: the side's start)."""
        f = {"c": _colour(colour), "w": int(width)}
        if at_deg is not None:
            f["at"] = int(round(float(at_deg) * 100)) % 36000
        self._command("player", f)

    def pulse(self, space: str, colour: str = "white") -> None:
        self._command("pulse", {"sp": str(space), "c": _colour(colour)})

    def px(self, led: int, colour: str, count: int = 1, pulse: bool = False) -> None:
        """Colour `count` LEDs from LED `led` (wrapping), over the spaces: pictures that are
        not spaces (a time wheel, a rondel); pulse=True makes them swell; "off" unpaints."""
        f = {"i": int(led), "n": int(count), "c": _colour(colour)}
        if pulse:
            f["pulse"] = 1
        self._command("px", f)

    def flash(self, colour: str = "red", count: int = 3) -> None:
        self._command("flash", {"c": _colour(colour), "n": int(count)}, record=False)

    def brightness(self, level: int) -> None:
        """Global brightness 0..255 (the board also applies its USB power cap)."""
        self._command("bright", {"v": int(level)})

    def fx(self, pulse: bool | None = None, trail: bool | None = None,
           flash: bool | None = None) -> None:
        """Switch the automatic effects: landing pulse, marble trail, error flash."""
        f = {k: int(bool(v)) for k, v in (("pulse", pulse), ("trail", trail), ("flash", flash))
             if v is not None}
        self._command("fx", f)

    def timer_start(self, seconds: float, colour: str = "white", total_s: float | None = None,
                    paused: bool = False, show: bool = True) -> None:
        """Start the board's turn timer; show=False keeps it off the LEDs (it still counts)."""
        f = {"ms": int(round(float(seconds) * 1000)), "c": _colour(colour)}
        if not show:
            f["show"] = 0
        if total_s is not None:
            f["total"] = int(round(float(total_s) * 1000))
        if paused:
            f["paused"] = 1
        self._command("timer_start", f)

    def timer_pause(self) -> None:
        self._command("timer_pause", {})

    def timer_resume(self) -> None:
        self._command("timer_resume", {})

    def timer_cancel(self) -> None:
        self._command("timer_cancel", {})

    def timer_left(self) -> float | None:
        """Seconds the board's timer has left (from its heartbeats), or None without one."""
        ms = self.scene.timer_left_ms(time.monotonic())
        return None if ms is None else ms / 1000.0

    def flick(self, speed_mm_s: float, direction: str) -> None:
        """Ask a simulated board to flick its marble (speed in mm/s, direction cw or ccw)."""
        if direction not in ("cw", "ccw"):
            raise ValueError("direction must be cw or ccw, not %r" % direction)
        try:
            self._command("sim_flick", {"speed": int(round(abs(float(speed_mm_s)))),
                                        "dir": direction}, record=False)
        except LinkError as e:
            if e.why == "simulated_board_only":
                raise LinkError("%s is a real board: it cannot flick the marble itself; flick "
                                "it by hand" % (self.port_name,), why=e.why) from None
            raise

    def release_repl(self) -> None:
        """Hand the port back to the MicroPython REPL (for mpremote); the link closes."""
        self._command("repl", {}, record=False)
        self.close()

    # ----- connecting -----
    def _candidates(self) -> list[str]:
        out: list[str] = []
        if self.port_spec:
            if available(self.port_spec):
                out.append(self.port_spec)
            if not self._usb_serial and self._discover is None:
                return out
        if self._discover is not None:
            found = [PortInfo(str(d)) for d in self._discover()]
        else:
            found = find_picos(self._comports)
        if self._usb_serial:  # the same board first (a replug may give it a new path)
            found.sort(key=lambda p: p.serial_number != self._usb_serial)
            if self.port_spec:
                found = [p for p in found if p.serial_number == self._usb_serial]
        out.extend(p.device for p in found if p.device not in out)
        return out

    def _connect(self, initial: bool) -> None:
        deadline = time.monotonic() + self.handshake_timeout_s
        errors: list[str] = []
        while True:
            cands = self._candidates()
            for dev in cands:
                q = self._quiet.get(_port_key(dev))
                if q is not None and time.monotonic() < q[1]:
                    errors.append("%s answers, but not as a Ringside board" % dev)
                    continue
                try:
                    self._try(dev)
                    return
                except LinkError as e:
                    if e.why in ("protocol", "ring"):
                        raise
                    errors.append(str(e))
            if not initial or time.monotonic() >= deadline:
                break
            if not cands and self.port_spec and self._discover is None \
                    and time.monotonic() >= deadline - self.handshake_timeout_s + MISSING_WAIT_S:
                break  # a path that is not there: do not make the user wait long
            time.sleep(RETRY_S)
        if not initial:
            raise LinkError(errors[-1] if errors else "no board found")
        if not self.port_spec and not errors:
            raise LinkError("no Raspberry Pi Pico found (USB vendor id 0x2e8a): plug the board "
                            "in, or give --port PATH (a device, a pty from `ringside sim`, or "
                            "a pyserial URL)")
        if self.port_spec and not available(self.port_spec) and not errors:
            raise LinkError("%s does not exist (is the board plugged in, or `ringside sim` "
                            "running?)" % self.port_spec)
        raise LinkError(errors[-1] if errors else "cannot reach the board")

    def _try(self, dev: str) -> None:
        if self._closing:
            raise LinkError("the link was closed")
        key = _port_key(dev)
        heard = self.stats["frames"]
        ser = open_port(dev)
        with self._wlock:
            if self._closing:
                ser.close()
                raise LinkError("the link was closed")
            self._reader = StreamReader()
            self._next_seq = None
            self._expect_hello = 0
            self._handshaking = True
            self._last_rx = time.monotonic()
            self._ser = ser
        self._wake.set()
        try:
            if key in self._quiet:
                self._listen(dev, heard)
            self._handshake(dev)
        except LinkError as e:
            with self._wlock:
                if self._ser is ser:
                    self._ser = None
            self._handshaking = False
            try:
                ser.close()
            except Exception:
                pass
            if self.stats["frames"] == heard and e.why not in ("protocol", "ring"):
                self._mark_quiet(key, dev)
            raise
        self._quiet.pop(key, None)
        self.port_name = dev
        if not self._usb_serial:
            self._usb_serial = usb_serial_of(dev, self._comports)
        self._handshaking = False

    def _listen(self, dev: str, heard: int) -> None:
        """A port that once answered with nothing frame-like (after a board went away,
        another program may own the same /dev/pts/N): write nothing into it until it has
        sent a whole frame (a board sends a heartbeat every second)."""
        end = time.monotonic() + LISTEN_S
        self.board_fault = None
        self._console = b""
        while time.monotonic() < end:
            if self.stats["frames"] > heard:
                return
            if self._ser is None or self._closing:
                break
            time.sleep(0.02)
        if self.board_fault:
            raise self._fault_error(dev)
        raise LinkError("%s answers, but not as a Ringside board (nothing it sent in %.1f s was "
                        "a frame)" % (dev, LISTEN_S))

    def _mark_quiet(self, key: str, dev: str) -> None:
        n = self._quiet.get(key, (0, 0.0))[0] + 1
        delay = min(QUIET_MAX_S, 2.0 ** (n - 1))
        self._quiet[key] = (n, time.monotonic() + delay)
        if n == 1 and self._identified:
            self._emit("link_error", {"port": dev, "why": (
                "%s does not answer as a Ringside board: the host writes nothing more into it, "
                "and only listens for a board there (every %.0f-%.0f s)" % (
                    dev, 1.0, QUIET_MAX_S))})

    def _handshake(self, dev: str) -> None:
        """hello both ways; the board's hello is checked (_check_hello: protocol version,
        ring.json hash) and identified (_identify: the same board, or a new one)."""
        end = time.monotonic() + self.handshake_timeout_s
        self._hello = {}
        self._hello_refused = None
        self.board_fault = None
        self._console = b""
        last = "no answer"
        while time.monotonic() < end:
            try:
                self._command("hello", {"proto": PROTOCOL, "host": HOST_VERSION},
                              timeout=min(0.5, max(0.05, end - time.monotonic())), record=False,
                              _during_handshake=True)
            except LinkError as e:
                if e.why in ("protocol_too_new", "protocol_too_old"):
                    raise _proto_error(dev, self._hello.get("proto"), e.why) from None
                if self._ser is None:
                    raise LinkError("%s: %s" % (dev, e)) from None
                last = str(e)
                continue
            hello = self._hello
            if not hello:
                last = "no hello came back" if not self._hello_refused else \
                    "its hello was refused: %s" % self._hello_refused
                continue
            problem = self._check_hello(hello, dev)
            if problem is not None:
                raise problem
            self._identify(hello, dev)
            return
        if self.board_fault:
            raise self._fault_error(dev)
        raise LinkError("%s did not answer the hello within %.1f s (%s)" % (
            dev, self.handshake_timeout_s, last))

    def _check_hello(self, hello: dict, dev: str | None) -> LinkError | None:
        """What is wrong with a board's hello, whichever way it came (the handshake's, a
        status reply, or one nobody asked for): a protocol this host does not speak, or a
        ring.json other than the host's. None if nothing."""
        dev = dev or self.port_name or self.port_spec or "the port"
        if hello.get("proto") != PROTOCOL:
            return _proto_error(dev, hello.get("proto"), None)
        if self.expected_ring and hello.get("ring") != self.expected_ring:
            return LinkError(
                "the board on %s carries a different ring.json (crc %s) from the host's "
                "(crc %s): copy it with `mpremote cp hardware/ring.json :ring.json`, or "
                "give the host the board's copy" % (dev, hello.get("ring"),
                                                    self.expected_ring), why="ring")
        return None

    def _identify(self, hello: dict, dev: str) -> None:
        """A hello that passed _check_hello, in a handshake: this is the board now. The first
        one names the board; a later one with another uid is a new board (board_changed)."""
        uid = hello.get("uid") or None
        if self._identified and uid != self.board_uid:
            self.stats["board_changes"] += 1
            self._emit("board_changed", {"port": dev, "old": self.board_uid or "?",
                                         "new": uid or "?"})
        self.board_uid = uid
        self._identified = True
        self.board = dict(hello)
        self._faulty = set()
        self.not_level = None
        self.scene.leds = hello.get("leds") if isinstance(hello.get("leds"), int) \
            and hello.get("leds") > 0 else self.scene.leds

    # ----- the keeper thread: reconnect and restore -----
    def _keep_loop(self) -> None:
        while not self._closing:
            self._wake.wait(RETRY_S)
            self._wake.clear()
            if self._closing:
                return
            if not self._reader_alive:
                if self.stats["reader_restarts"] >= _MAX_READER_RESTARTS:
                    continue
                self.stats["reader_restarts"] += 1
                self._threads = [t for t in self._threads if t.is_alive()]
                self._start_reader()
            if self._ser is None:
                if not self.reconnect or self._closing:
                    continue
                if time.monotonic() < self._retry_at:
                    continue
                try:
                    self._connect(initial=False)
                except LinkError as e:
                    if e.why in ("protocol", "ring"):
                        # a board this host cannot use: say why, and ask it less often
                        self._down_why = str(e)
                        self._retry_at = time.monotonic() + REFUSED_RETRY_S
                    continue
                self.stats["reconnects"] += 1
                self._restore(reconnected=True)
            elif self._need_restore and not self._handshaking:
                self._restore(reconnected=False)

    def _restore(self, reconnected: bool) -> None:
        self._need_restore = False
        now = time.monotonic()
        t = self.scene.timer
        expired_away = t is not None and not t.expired and t.left_now(now) == 0
        sent = 0
        try:
            for kind, f in self.scene.commands(now):
                self._command(kind, f)
                sent += 1
        except LinkError as e:
            if self._ser is not None:  # a refusal, not a loss: report it and go on
                self._emit("link_error", {"why": "restoring the scene: %s" % e})
            else:
                return
        self.stats["restores"] += 1   # the board now shows the Scene: see Link.restores
        if expired_away:
            self._emit("timer_expired", {"total": t.total_ms, "late": 0, "restored": 1})
        if reconnected:
            down = time.monotonic() - self._down_since if self._down_since else 0.0
            self._down_since = None
            self._down_why = ""
            self._emit("link_restored", {"port": self.port_name, "down_s": round(down, 3),
                                         "restored": sent})

    # ----- the reader thread -----
    def _read_loop(self) -> None:
        """The reader thread. Nothing a board sends can end it: every frame passes the guard
        (_take), and any other failure drops the port and goes on. Should the thread end all
        the same, link_lost is raised at once and the keeper starts a new reader."""
        why = "it stopped"
        try:
            while not self._closing:
                ser = self._ser
                if ser is None:
                    self._wake.wait(0.02)
                    continue
                try:
                    data = ser.read(max(1, ser.in_waiting))
                except Exception as e:
                    self._drop(ser, "the port failed (%s)" % (str(e) or type(e).__name__))
                    continue
                now = time.monotonic()
                if data:
                    self._last_rx = now
                    try:
                        self._feed(data, now)
                    except Exception as e:  # not a frame's fault (the guard has those): a bug
                        self.stats["reader_errors"] += 1
                        self._drop(ser, "reading the board's bytes failed (%s: %s)" % (
                            type(e).__name__, e))
                elif now - self._last_rx > self.silence_s:
                    self._drop(ser, "no word from the board for %.1f s" % (now - self._last_rx))
        except BaseException as e:  # noqa: B036 - whatever ends the thread is reported
            why = "%s%s" % (type(e).__name__, ": %s" % e if str(e) else "")
        finally:
            if not self._closing:
                self._reader_ended(why)

    def _reader_ended(self, why: str) -> None:
        """The reader thread is ending: nothing is read any more, so the link is down now."""
        self._reader_alive = False
        why = "the link's reader stopped (%s)" % why
        with self._wlock:
            ser = self._ser
            self._ser = None
        if ser is not None:
            try:
                ser.close()
            except Exception:
                pass
        self._fail_pending(why)
        if self._down_since is None:
            self._down_since = time.monotonic()
        self._down_why = why
        self._emit("link_lost", {"why": why, "port": self.port_name})
        self._wake.set()

    def _start_reader(self) -> None:
        self._reader_alive = True
        t = threading.Thread(target=self._read_loop, name="ringside-link-reader", daemon=True)
        self._reader_thread = t
        t.start()
        self._threads.append(t)

    def _drop(self, ser, why: str) -> None:
        with self._wlock:
            if self._ser is not ser:
                return
            self._ser = None
        try:
            ser.close()
        except Exception:
            pass
        self._fail_pending(why)
        if self._handshaking:
            return  # the keeper (or open) is trying this port: it sees the failure itself
        self._down_since = time.monotonic()
        self._down_why = why
        self._emit("link_lost", {"why": why, "port": self.port_name})
        self._wake.set()

    def _fail_pending(self, why: str) -> None:
        for p in list(self._pending.values()):
            p.lost = why
            p.done.set()

    def _fault_error(self, dev: str) -> LinkError:
        return LinkError("the board on %s is not running the app; it says: %s" % (
            dev, self.board_fault), why="board_fault")

    def _tap_console(self, data: bytes) -> None:
        """A board that is not running the app prints why on its console every 2 s
        (ringfw.blink.fault: a bad ring.json, a part that failed to start), text the frame
        reader skips as noise: the last such line is kept for the handshake's error, which
        would otherwise only say "no answer". Bounded: a few hundred bytes are kept."""
        buf = self._console + data
        k = buf.rfind(_BOARD_FAULT)
        if k < 0:
            self._console = buf[-len(_BOARD_FAULT):]      # a marker split across reads
            return
        end = buf.find(b"\n", k)
        if end < 0:
            self._console = buf[k:k + 300]                # the line's end comes next
            return
        self.board_fault = buf[k + len(_BOARD_FAULT):end].strip()[:240].decode("ascii", "replace")
        self._console = buf[end:][-len(_BOARD_FAULT):]

    def _feed(self, data: bytes, now: float) -> None:
        if self._handshaking:
            self._tap_console(data)
        rd = self._reader
        before = rd.noise, rd.partial, rd.overlong
        lines = rd.feed(data)
        self.stats["noise_bytes"] += rd.noise - before[0]
        self.stats["partial_frames"] += rd.partial - before[1]
        self.stats["overlong_lines"] += rd.overlong - before[2]
        for line in lines:
            self._take(line, now)

    def _take(self, line: bytes, now: float) -> None:
        """The guard: one complete line from the board, checked, typed and handled. A line
        that is not a frame is counted (bad_frames); a frame whose fields the host cannot
        use, or whose handling fails, is refused with its reason (refused_frames,
        refusals); neither ever reaches past here."""
        try:
            seq, kind, raw = parse(line, raw=True)
        except WireError:
            self.stats["bad_frames"] += 1
            return
        self.stats["frames"] += 1
        if self._next_seq is not None and seq != self._next_seq and kind != "hello":
            self.stats["frames_missed"] += (seq - self._next_seq) & 0xFFFF
        self._next_seq = (seq + 1) & 0xFFFF
        try:
            fields = guard.check(kind, raw)
        except guard.FrameRefused as e:
            self._refuse(kind, str(e), now)
            return
        try:
            self._dispatch(seq, kind, fields, now)
        except Exception as e:
            self._refuse(kind, "handling it failed (%s: %s)" % (type(e).__name__, e), now)

    def _refuse(self, kind: str, why: str, now: float) -> None:
        self.stats["refused_frames"] += 1
        self.refusals.append((now, kind, why))
        if kind == "hello":
            self._hello_refused = why

    def _hello_outside_handshake(self, hello: dict, solicited: bool, now: float, seq: int) -> None:
        """A hello after the handshake: a status reply, or the board saying it has just
        started. Checked as the handshake's is. A bad one, or one from another board (another
        uid on this port), drops the port before anything else is sent: the keeper then
        reconnects with a full handshake, and restores the scene only into a board that has
        identified itself."""
        ser = self._ser
        problem = self._check_hello(hello, None)
        uid = hello.get("uid") or None
        if problem is None and uid != self.board_uid:
            problem = LinkError("a different board (%s) answers on %s in place of the one this "
                                "host was using (%s): it is treated as a new board" % (
                                    _uid_text(uid), self.port_name, _uid_text(self.board_uid)),
                                why="board")
        if problem is not None:
            self.stats["hellos_refused"] += 1
            self._refuse("hello", str(problem), now)
            if ser is not None:
                self._drop(ser, str(problem))
            return
        self.board = dict(hello)
        self._faulty = set()
        self.not_level = None
        if not solicited:  # nobody asked: the board has just started
            self.stats["resets"] += 1
            self._emit("board_reset", dict(hello), now, seq)
            if not self.scene.empty():
                self._need_restore = True
                self._wake.set()

    def _dispatch(self, seq: int, kind: str, fields: dict, now: float) -> None:
        if kind == "ack" or kind == "nack":
            re = fields.get("re")
            if re == -1:  # the board got a damaged frame: whatever is waiting, send again
                self.stats["garbled"] += 1
                for p in list(self._pending.values()):
                    p.garbled = True
                    p.done.set()
                return
            p = self._pending.get(re)
            if p is not None:
                p.kind = kind
                p.fields = fields
                p.done.set()
            return
        if kind == "hello":
            self._hello = fields
            solicited = self._expect_hello > 0
            if solicited:
                self._expect_hello -= 1
            if self._handshaking:
                return  # the handshake checks and identifies it
            self._hello_outside_handshake(fields, solicited, now, seq)
            return
        if kind == "hb":
            self.last_heartbeat = fields
            self.scene.on_event(kind, fields, now)
            if self.heartbeats:
                self._emit(kind, fields, now, seq)
            return
        if kind == "sensor_fault":
            self._faulty.add(fields.get("id"))
        elif kind == "sensor_ok":
            self._faulty.discard(fields.get("id"))
        elif kind == "not_level":
            self.not_level = dict(fields)
        self.scene.on_event(kind, fields, now)
        self._emit(kind, fields, now, seq)


def _port_key(dev: str) -> str:
    """A port by what it really is: a symlink (ringside sim --link, /dev/serial/by-id/...)
    that is pointed at another device names another port."""
    if is_url(dev):
        return dev
    try:
        return os.path.realpath(dev)
    except (OSError, ValueError):
        return dev


def _uid_text(uid) -> str:
    return "uid %s" % uid if uid else "no uid"


def _proto_error(dev: str, board_proto, why: str | None) -> LinkError:
    """The board and this host speak different protocol versions: say who must update."""
    newer_board = why == "protocol_too_old" or (
        why is None and isinstance(board_proto, int) and board_proto > PROTOCOL)
    return LinkError("the board on %s speaks protocol %s; this ringside speaks %d: %s" % (
        dev, board_proto if board_proto is not None else "?", PROTOCOL,
        "update ringside" if newer_board else "update the board's firmware (make deploy)"),
        why="protocol")


def connect(port: str | None = None, **kw: Any) -> Link:
    """Link(port, **kw).open()."""
    return Link(port, **kw).open()
