"""One step of the board's main loop: sensors -> tracker -> frames, commands -> actions.

The board calls step(clock.ticks_ms()) in a loop; the simulator calls the same method in
virtual time. The same readings give the same bytes out. The per-step path allocates
nothing; only handling a command from the host (rare) may.
"""
from array import array

from ringfw import VERSION, tracker as T
from ringfw.compat import const, tadd, tdiff
from ringfw.wire import Encoder, LineReader, WireError, parse, PROTOCOL

_HEARTBEAT_MS = const(1000)

_FAULT_WORDS = (b"", b"silent", b"hardware", b"nonsense")


class Controller:
    def __init__(self, ring, clock, sensors, pixels, serial, watchdog, storage=None):
        self.ring = ring
        self.clock = clock
        self.sensors = sensors
        self.pixels = pixels
        self.serial = serial
        self.watchdog = watchdog
        self.storage = storage
        n = len(ring.sensors)
        self.n = n
        self.ranges = array("i", [0] * n)
        self.statuses = bytearray(n)
        self.fresh = bytearray(n)
        self.ev = array("i", [0] * 6)
        self.rx = bytearray(64)
        self.reader = LineReader()
        self.enc = Encoder()
        self.tracker = T.Tracker(ring)
        self.side = 0
        self.raw = False           # stream every reading (calibration)
        self.errors = 0            # exceptions caught at the top of the loop
        self.bad_frames = 0        # received lines that were not valid frames
        self.noise_bytes = 0
        self.frames_out = 0
        self.frames_dropped = 0
        self.worst_loop = 0
        self.last_step = -1
        self.boot = clock.ticks_ms()
        self.next_hb = self.boot
        self.last_hb = self.boot
        self.uptime_ms = 0
        self.uptime_s = 0
        self.tracker.begin(self.boot)
        self.hello()

    # ----- the loop -----
    def step(self, now):
        try:
            self._step(now)
        except Exception as e:  # never let one bad step kill the board: report and go on
            self.errors += 1
            self._report_error(e)
        self.watchdog.feed()

    def _step(self, now):
        if self.last_step >= 0:
            gap = tdiff(now, self.last_step)
            if gap > self.worst_loop:
                self.worst_loop = gap
        self.last_step = now
        self._receive()
        if self.sensors.poll(now, self.ranges, self.statuses, self.fresh):
            tr = self.tracker
            for i in range(self.n):
                if self.fresh[i]:
                    tr.feed(now, i, self.ranges[i], self.statuses[i])
                    if self.raw:
                        self._send_raw(i)
        self.tracker.tick(now)
        self._send_events()
        if tdiff(now, self.next_hb) >= 0:
            self.next_hb = tadd(now, _HEARTBEAT_MS)
            # uptime by accumulation: tick values wrap, a long uptime must not
            self.uptime_ms += tdiff(now, self.last_hb)
            self.last_hb = now
            while self.uptime_ms >= 1000:
                self.uptime_ms -= 1000
                self.uptime_s += 1
            self._heartbeat()
            self.worst_loop = 0

    # ----- out -----
    def _send(self):
        n = self.enc.end()
        if n:
            self.serial.write(self.enc.buf, n)
            self.frames_out += 1
        else:
            self.frames_dropped += 1

    def hello(self):
        e = self.enc
        r = self.ring
        e.begin(b"hello")
        e.tok(b"fw", VERSION.encode())
        e.int(b"proto", PROTOCOL)
        e.tok(b"ring", r.digest_hex)
        e.int(b"sensors", self.n)
        e.int(b"healthy", self.n - self._faulty_count())
        e.tok(b"side", r.side_names[self.side].encode())
        self._send()

    def _faulty_count(self):
        c = 0
        for i in range(self.n):
            c += self.tracker.faulty[i]
        return c

    def _heartbeat(self):
        e = self.enc
        e.begin(b"hb")
        e.int(b"up", self.uptime_s)
        e.int(b"loop", self.worst_loop)
        e.int(b"drop", self.bad_frames + self.frames_dropped + self.tracker.dropped_events)
        e.int(b"err", self.errors)
        e.int(b"blind", self.tracker.blind)
        self._send()

    def _send_raw(self, i):
        e = self.enc
        e.begin(b"raw")
        e.int(b"id", i)
        e.int(b"r", self.ranges[i])
        e.int(b"st", self.statuses[i])
        self._send()

    def _send_events(self):
        tr = self.tracker
        ev = self.ev
        side = tr.side
        e = self.enc
        while True:
            kind = tr.pop(ev)
            if not kind:
                return
            if kind == T.EV_MOVING:
                e.begin(b"moving")
                e.int(b"ang", ev[0])
                e.int(b"dir", ev[1])
            elif kind == T.EV_LANDED:
                e.begin(b"landed")
                e.tok(b"sp", side.id_bytes[ev[0]])
                if ev[1] >= 0:
                    e.tok(b"alt", side.id_bytes[ev[1]])
                e.int(b"ang", ev[2])
                e.int(b"trv", ev[3])
                e.int(b"conf", ev[4])
                if ev[5]:
                    e.int(b"blind", 1)
            elif kind == T.EV_OFF_RING:
                e.begin(b"off_ring")
                e.int(b"ang", ev[0])
                e.int(b"trv", ev[1])
            elif kind == T.EV_PLACED:
                e.begin(b"placed")
                e.tok(b"sp", side.id_bytes[ev[0]])
                e.int(b"ang", ev[1])
            elif kind == T.EV_LOST:
                e.begin(b"lost")
                e.int(b"ang", ev[0])
            elif kind == T.EV_FAULT:
                e.begin(b"sensor_fault")
                e.int(b"id", ev[0])
                e.tok(b"why", _FAULT_WORDS[ev[1]])
                e.int(b"blind", ev[2])
            elif kind == T.EV_SENSOR_OK:
                e.begin(b"sensor_ok")
                e.int(b"id", ev[0])
                e.int(b"blind", ev[2])
            elif kind == T.EV_NOT_LEVEL:
                e.begin(b"not_level")
                e.int(b"low", ev[0])
                e.int(b"half_period", ev[1])
                e.int(b"swings", ev[2])
            else:
                continue
            self._send()

    def _report_error(self, exc):
        try:
            e = self.enc
            e.begin(b"error")
            e.int(b"count", self.errors)
            e.tok(b"what", type(exc).__name__.encode())
            self._send()
        except Exception:
            pass

    # ----- in -----
    def _receive(self):
        n = self.serial.read_into(self.rx)
        if not n:
            return
        rd = self.reader
        rd.feed(self.rx, n)
        while True:
            line = rd.next_line()
            if line is None:
                return
            if line[0] != 64:  # '@': anything else on the line is noise (banners, echo)
                self.noise_bytes += len(line)
                continue
            try:
                seq, kind, args = parse(line)
            except WireError as err:
                self.bad_frames += 1
                self._nack(-1, str(err))
                continue
            self._command(seq, kind, args)

    def _ack(self, seq):
        e = self.enc
        e.begin(b"ack")
        e.int(b"re", seq)
        self._send()

    def _nack(self, seq, why):
        e = self.enc
        e.begin(b"nack")
        e.int(b"re", seq)
        e.tok(b"why", why.replace(" ", "_").encode())
        self._send()

    def _command(self, seq, kind, args):
        h = getattr(self, "_cmd_" + kind, None)
        if h is None:
            self._nack(seq, "unknown command " + kind)
            return
        try:
            why = h(args)
        except (KeyError, ValueError, TypeError, IndexError) as err:
            why = "bad arguments: %s" % err
        if why:
            self._nack(seq, why)
        else:
            self._ack(seq)

    def _cmd_ping(self, args):
        return None

    def _cmd_hello(self, args):
        if args.get("proto", PROTOCOL) > PROTOCOL:
            self.hello()
            return "protocol %d not supported (board speaks %d)" % (args["proto"], PROTOCOL)
        self.hello()
        return None

    def _cmd_side(self, args):
        name = str(args["name"])
        if name not in self.ring.side_names:
            return "no side " + name
        self.side = self.ring.side_names.index(name)
        self.tracker.set_side(self.ring.sides[self.side])
        return None

    def _cmd_raw(self, args):
        self.raw = bool(args.get("on", 1))
        return None

    def _cmd_cal(self, args):
        """Set one sensor's calibration: off = offset in 1/16 mm, scale = Q12 (4096 = 1.0)."""
        i = int(args["id"])
        if not 0 <= i < self.n:
            return "no sensor %d" % i
        scale = int(args.get("scale", 4096))
        if not 2048 <= scale <= 8192:
            return "scale out of range"
        s = self.ring.sensors[i]
        s.off16 = int(args.get("off", 0))
        s.scale_q12 = scale
        cal = self.ring.raw["sensors"][i].setdefault("calibration", {})
        cal["offset_mm"] = s.off16 / 16
        cal["scale"] = scale / 4096
        return None

    def _cmd_calsave(self, args):
        if self.storage is None:
            return "no storage on this board"
        self.storage.save_ring(self.ring.raw)
        return None

    def _cmd_status(self, args):
        self.hello()
        self._heartbeat()
        return None
