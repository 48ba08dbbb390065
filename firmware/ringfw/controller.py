"""One step of the board's main loop: sensors -> tracker -> frames, commands -> actions.

The board calls step(clock.ticks_ms()) in a loop; the simulator calls the same method in
virtual time. The same readings give the same bytes out. The per-step path allocates
nothing, and neither does handling a command from the host: received bytes are checked
and split in place (wire.FrameReader, wire.Frame), replies are built in the encoder's
buffer, and NACK reasons are constant tokens. The only exceptions are `calsave` (it
writes a file) and the error report after an exception. See docs/protocol.md.
"""
from ringfw import VERSION, tracker as T
from ringfw import leds as L
from ringfw import timer as TM
from ringfw.compat import const, filled, tadd, tdiff
from ringfw.geometry import FULL_TURN
from ringfw.wire import ARG_REASONS, Encoder, Frame, FrameReader, PROTOCOL, REASONS

_HEARTBEAT_MS = const(1000)
# tdiff written out in the per-step checks (a call costs more than the test itself)
_TH = const(0x20000000)
_TM = const(0x3FFFFFFF)

_FAULT_WORDS = b"- silent hardware nonsense stuck noisy"   # tracker.FAULT_*; word lists: see wire

# Commands the firmware executes; the index selects the handler in _run().
_CMDS = (b"ping hello status side raw cal calsave repl arm disarm clear paint player pulse "
         b"flash bright fx timer_start timer_pause timer_resume timer_cancel px sense")

_DIRS = b"any ccw cw"               # arm dir=...; + travel is ccw
_ANY = const(0)
_CCW = const(1)
_CW = const(2)
_MAX_TRAVEL = const(3600000)        # cd: 100 turns, more than any flick
_MAX_OFF16 = const(16000)           # 1000 mm of calibration offset, in 1/16 mm

# verdict reasons (docs/protocol.md gives the words)
_SHORT = b"too_short"               # did not reach the opposing space (minimum travel)
_WRONG_WAY = b"wrong_direction"
_OFF = b"left_ring"

class Controller:
    def __init__(self, ring, clock, sensors, pixels, serial, watchdog, storage=None):
        self.tracker = T.Tracker(ring)
        self.ring = ring
        self.clock = clock
        self.sensors = sensors
        self.pixels = pixels
        self.serial = serial
        self.watchdog = watchdog
        self.storage = storage
        n = ring.sensor_count
        self.n = n
        self.ranges = filled("i", n)
        self.statuses = bytearray(n)
        self.fresh = bytearray(n)
        self.ev = filled("i", 6)
        self.rx = bytearray(256)   # read up to 256 bytes a step (32 kB/s at an 8 ms loop)
        self.reader = FrameReader()
        self.frame = Frame()
        self.enc = Encoder()
        self.leds = L.Leds(ring, pixels)
        self.timer = TM.Timer()
        self.side = 0
        self.side_names = " ".join(ring.side_names).encode()   # a word list
        self.version = VERSION.encode()
        self.raw = False           # stream every reading (calibration)
        self.sense = False         # stream every reading with its rates (bringup)
        self.cal_dirty = bytearray(n)
        self.arm_dir = -1          # -1: not armed; else _ANY/_CCW/_CW
        self.arm_min = 0           # cd of travel a valid flick needs
        self.errors = 0            # exceptions caught at the top of the loop
        self.bad_frames = 0        # received frames that failed their checks (NACKed)
        self.frames_out = 0
        self.frames_dropped = 0
        self.worst_loop = 0
        self.last_step = -1
        self.took = 0              # readings taken in the last step
        self.focus = -1            # the sensor the schedule favours (tracker.focus)
        self.released = False      # set once `repl` has been acknowledged
        # sim_* commands: the simulated board installs a handler (seq, line bytes) -> None
        # (ack) or a reason; a real board has none and NACKs them.
        self.sim_command = None
        self.uid = getattr(serial, "uid", b"")   # the board's identity (hal Serial.uid)
        self.boot = clock.ticks_ms()
        self.next_hb = self.boot
        self.last_hb = self.boot
        self.uptime_ms = 0
        self.uptime_s = 0
        self.tracker.begin(self.boot)
        self.hello()

    # ----- the loop -----
    def step(self, now):
        # Two halves, each guarded: a failing sensor bus must not also stop the timer,
        # the LEDs and the heartbeat. Never let one bad step kill the board: report, go on.
        # (The halves are written out here, not called: at 125 steps a second every call
        # on this path is a measurable part of the core.)
        try:
            # ----- in: host bytes, sensor readings -----
            if self.last_step >= 0:
                gap = ((now - self.last_step + _TH) & _TM) - _TH
                if gap > self.worst_loop:
                    self.worst_loop = gap
            self.last_step = now
            n = self.serial.read_into(self.rx)
            if n:
                self._receive(n, now)
            left = self.sensors.poll(now, self.ranges, self.statuses, self.fresh)
            self.took = left       # the boot's loop collects garbage just after a hand-over
            if left:
                tr = self.tracker
                fresh = self.fresh
                ranges = self.ranges
                statuses = self.statuses
                sig = self.sensors.signal
                for i in range(self.n):
                    if fresh[i]:
                        fresh[i] = 0      # consumed (the poller sets only new ones)
                        tr.feed(now, i, ranges[i], statuses[i], sig[i])
                        if self.raw:
                            self._send_raw(i)
                        if self.sense:
                            self._send_sense(i)
                        left -= 1
                        if not left:
                            break
        except Exception as e:
            self.errors += 1
            self._report_error(e)
        try:
            # ----- out: events, timer, LEDs, heartbeat; each only when its time has come
            tr = self.tracker
            if ((now - tr.next_tick + _TH) & _TM) - _TH >= 0:
                tr.tick(now)
                f = tr.focus()
                if f != self.focus:
                    self.focus = f
                    self.sensors.set_focus(f)
            if tr.evr != tr.evw:
                self._send_events(now)
            tm = self.timer
            if tm.state == TM.RUNNING and tm.tick(now):
                e = self.enc
                e.begin(b"timer_expired")
                e.int(b"total", tm.total)
                e.int(b"late", tm.late)
                self._send()
            lv = self.leds
            if not lv.started or ((now - lv.last + _TH) & _TM) - _TH >= L.FRAME_MS:
                lv.render(now, tr, tm)
            if ((now - self.next_hb + _TH) & _TM) - _TH >= 0:
                self._beat(now)
        except Exception as e:
            self.errors += 1
            self._report_error(e)
        self.watchdog.feed()

    def _beat(self, now):
        self.next_hb = tadd(now, _HEARTBEAT_MS)
        # uptime by accumulation: tick values wrap, a long uptime must not
        self.uptime_ms += tdiff(now, self.last_hb)
        self.last_hb = now
        while self.uptime_ms >= 1000:
            self.uptime_ms -= 1000
            self.uptime_s += 1
        self._heartbeat(now)
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
        e.tok(b"fw", self.version)
        e.int(b"proto", PROTOCOL)
        e.tok(b"ring", r.digest_hex)
        e.int(b"sensors", self.n)
        e.int(b"healthy", self.n - self._faulty_count())
        e.word(b"side", self.side_names, self.side)
        e.int(b"leds", r.led_count)
        e.int(b"cap", self.leds.cap)
        if self.uid:
            e.tok(b"uid", self.uid)
        self._send()

    def _faulty_count(self):
        c = 0
        for i in range(self.n):
            c += self.tracker.faulty[i]
        return c

    def _heartbeat(self, now):
        e = self.enc
        rd = self.reader
        e.begin(b"hb")
        e.int(b"up", self.uptime_s)
        e.int(b"loop", self.worst_loop)
        e.int(b"drop", self.bad_frames + rd.partial + rd.overlong + self.frames_dropped
              + self.tracker.dropped_events)
        e.int(b"err", self.errors)
        e.int(b"blind", self.tracker.blind)
        tm = self.timer
        if tm.active():
            e.int(b"tmr", tm.remaining(now))
            if tm.state == TM.PAUSED:
                e.int(b"tps", 1)
        self._send()

    def _send_raw(self, i):
        e = self.enc
        e.begin(b"raw")
        e.int(b"id", i)
        e.int(b"r", self.ranges[i])
        e.int(b"st", self.statuses[i])
        self._send()

    def _send_sense(self, i):
        # the reading as the sensor gave it: no calibration, with its rates (MCPS, 9.7)
        e = self.enc
        e.begin(b"sense")
        e.int(b"id", i)
        e.int(b"r", self.ranges[i])
        e.int(b"st", self.statuses[i])
        e.int(b"sig", self.sensors.signal[i])
        e.int(b"amb", self.sensors.ambient[i])
        self._send()

    def _send_events(self, now):
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
                e.word(b"sp", side.ids, ev[0])
                if ev[1] >= 0:
                    e.word(b"alt", side.ids, ev[1])
                e.int(b"ang", ev[2])
                e.int(b"trv", ev[3])
                e.int(b"conf", ev[4])
                fl = ev[5]
                if fl & T.LF_BLIND:
                    e.int(b"blind", 1)
                    if fl >> 8:
                        e.word_run(b"cands", side.ids, (fl >> 2) & 63, fl >> 8, side.count)
                if fl & T.LF_CORRECTS:
                    e.int(b"corrects", 1)
                self._send()
                self.leds.landed(ev[0], now)
                if self.arm_dir >= 0 and not fl & T.LF_CORRECTS:
                    self._verdict(ev[3], False, now)   # (a correction is no new flick)
                continue
            elif kind == T.EV_WITHDRAWN:
                e.begin(b"withdrawn")
                e.word(b"sp", side.ids, ev[0])
                e.int(b"ang", ev[1])
                e.int(b"trv", ev[2])
            elif kind == T.EV_DEGRADED:
                e.begin(b"degraded")
                e.int(b"n", ev[0])
                e.bits(b"ids", ev[1])
                e.int(b"blind", ev[2])
            elif kind == T.EV_OFF_RING:
                e.begin(b"off_ring")
                e.int(b"ang", ev[0])
                e.int(b"trv", ev[1])
                self._send()
                if self.arm_dir >= 0:
                    self._verdict(ev[1], True, now)
                continue
            elif kind == T.EV_PLACED:
                e.begin(b"placed")
                e.word(b"sp", side.ids, ev[0])
                e.int(b"ang", ev[1])
            elif kind == T.EV_LOST:
                e.begin(b"lost")
                e.int(b"ang", ev[0])
            elif kind == T.EV_FAULT:
                e.begin(b"sensor_fault")
                e.int(b"id", ev[0])
                e.word(b"why", _FAULT_WORDS, ev[1])
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

    def _verdict(self, trv, off, now):
        """The armed flick's verdict, right after its landed/off_ring frame; disarms."""
        d = self.arm_dir
        why = b""
        if off:
            why = _OFF
        elif (d == _CCW and trv < 0) or (d == _CW and trv > 0):
            why = _WRONG_WAY
        elif (trv if trv >= 0 else -trv) < self.arm_min:
            why = _SHORT
        e = self.enc
        e.begin(b"verdict")
        e.int(b"ok", 0 if why else 1)
        if why:
            e.tok(b"why", why)
        e.int(b"trv", trv)
        e.int(b"min", self.arm_min)
        e.word(b"dir", _DIRS, d)
        self._send()
        self.arm_dir = -1
        if why:
            self.leds.error(now)

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
    def _receive(self, n, now):
        """n bytes have arrived in rx: push them through the frame reader."""
        rd = self.reader
        rx = self.rx
        for i in range(n):
            k = rd.push(rx[i])
            if k:
                self._line(k, now)

    def _line(self, k, now):
        f = self.frame
        err = f.decode(self.reader.buf, k)
        if err:
            self.bad_frames += 1
            e = self.enc
            e.begin(b"nack")
            e.int(b"re", -1)
            e.word(b"why", REASONS, err)
            self._send()
            return
        self._command(f, now)

    def _ack(self, seq):
        e = self.enc
        e.begin(b"ack")
        e.int(b"re", seq)
        self._send()

    def _nack(self, seq, why, key=b"", what=False, k=-1):
        """NACK with a constant reason token (or word k of the word list why); arg= the
        offending field, what= the type."""
        e = self.enc
        e.begin(b"nack")
        e.int(b"re", seq)
        if k < 0:
            e.tok(b"why", why)
        else:
            e.word(b"why", why, k)
        if key:
            e.tok(b"arg", key)
        if what:
            f = self.frame
            e.tok_from(b"what", f.buf, f.ks, f.ke)
        self._send()

    def _command(self, f, now):
        k = f.kind_in(_CMDS)
        if k < 0:
            if f.kind_starts(b"sim_"):
                hook = self.sim_command
                if hook is None:
                    self._nack(f.seq, b"simulated_board_only", b"", True)
                    return
                why = hook(f.seq, bytes(f.buf[:f.n]))
                if why:
                    self._nack(f.seq, why.replace(" ", "_").encode())
                else:
                    self._ack(f.seq)
                return
            self._nack(f.seq, b"unknown_command", b"", True)
            return
        why = self._run(k, f, now)
        if f.err:
            self._nack(f.seq, ARG_REASONS, f.err_key, False, f.err)
        elif why:
            self._nack(f.seq, why)
        else:
            self._ack(f.seq)
            if k == 7:  # repl: acknowledged, now hand the port back (board_rp2040.Serial
                self.released = True  # has release_repl; simulated ports do not)
                release = getattr(self.serial, "release_repl", None)
                if release is not None:
                    release()

    def _run(self, k, f, now):
        """Run command k; returns b"" (ack) or a reason token. Argument errors: f.err."""
        if k == 0:      # ping
            return b""
        if k == 1:      # hello proto=<n>
            proto = f.int_arg(b"proto", 0, 999999, PROTOCOL)
            if f.err:
                return b""
            self.hello()
            if proto > PROTOCOL:
                return b"protocol_too_new"
            if proto < PROTOCOL:
                return b"protocol_too_old"
            return b""
        if k == 2:      # status
            self.hello()
            self._heartbeat(now)
            return b""
        if k == 3:      # side name=<side>
            j = f.tok_index(b"name", self.side_names)
            if f.err:
                return b""
            self.side = j
            self.tracker.set_side(self.ring.sides[j])
            self.leds.set_side(j)
            return b""
        if k == 4:      # raw on=0|1
            self.raw = f.int_arg(b"on", 0, 1, 1) == 1
            return b""
        if k == 5:
            return self._cal(f, now)
        if k == 6:      # calsave
            return self._calsave()
        if k == 7:      # repl: ack first (in _command), then release
            return b""
        if k == 8:      # arm dir=any|ccw|cw min=<cd>
            d = f.tok_index(b"dir", _DIRS, _ANY)
            mn = f.int_arg(b"min", 0, _MAX_TRAVEL, 0)
            if f.err:
                return b""
            self.arm_dir = d
            self.arm_min = mn
            self.tracker.arm(True)   # a flick is due: a marble vanishing from rest left the ring
            return b""
        if k == 9:      # disarm
            self.arm_dir = -1
            self.tracker.arm(False)
            return b""
        lv = self.leds
        if k == 10:     # clear
            lv.clear()
            return b""
        if k == 11:     # paint c=<colour> (sp=<id> | label=<label> | all=1)
            return self._paint(f)
        if k == 12:     # player c=<colour> [at=<cd>] [w=<leds>]
            c = L.colour_arg(f, b"c")
            at = f.int_arg(b"at", 0, FULL_TURN - 1, -1)
            w = f.int_arg(b"w", 1, lv.n, 3)
            if f.err:
                return b""
            if at < 0:
                at = lv.start_centre()
            lv.set_player(c if c else L.NONE, at, w)
            return b""
        if k == 13:     # pulse sp=<id> [c=<colour>]
            j = f.tok_index(b"sp", self.tracker.side.ids)
            c = L.colour_arg(f, b"c", L.WHITE)
            if f.err:
                return b""
            lv.pulse(j, c, now)
            return b""
        if k == 14:     # flash [c=<colour>] [n=<count>]
            c = L.colour_arg(f, b"c", L.RED)
            cnt = f.int_arg(b"n", 1, 20, 3)
            if f.err:
                return b""
            lv.flash(c, cnt, now)
            return b""
        if k == 15:     # bright v=0..255
            v = f.int_arg(b"v", 0, 255)
            if f.err:
                return b""
            lv.set_brightness(v)
            return b""
        if k == 16:     # fx [pulse=0|1] [trail=0|1] [flash=0|1]
            p = f.int_arg(b"pulse", 0, 1, lv.fx_pulse)
            t = f.int_arg(b"trail", 0, 1, lv.fx_trail)
            fl = f.int_arg(b"flash", 0, 1, lv.fx_flash)
            if f.err:
                return b""
            lv.fx_pulse = p
            lv.fx_trail = t
            lv.fx_flash = fl
            return b""
        tm = self.timer
        if k == 17:     # timer_start (ms= | s=) [total=<ms>] [c=<colour>] [paused=1] [show=0]
            if f.has(b"ms") or not f.has(b"s"):
                ms = f.int_arg(b"ms", 0, TM.MAX_MS)
            else:
                ms = f.int_arg(b"s", 0, TM.MAX_MS // 1000) * 1000
            total = f.int_arg(b"total", 0, TM.MAX_MS, 0)
            c = L.colour_arg(f, b"c", L.WHITE)
            paused = f.int_arg(b"paused", 0, 1, 0)
            shown = f.int_arg(b"show", 0, 1, 1)
            if f.err:
                return b""
            tm.start(now, ms, total, c, paused, shown == 1)
            return b""
        if k == 18:     # timer_pause
            return b"" if tm.pause(now) else b"no_timer"
        if k == 19:     # timer_resume
            return b"" if tm.resume(now) else b"no_timer"
        if k == 20:     # timer_cancel
            tm.cancel()
            return b""
        if k == 21:     # px i=<led> [n=<count>] c=<colour>: a run of LEDs in one colour
            c = L.colour_arg(f, b"c")
            i = f.int_arg(b"i", 0, self.leds.n - 1, -1)
            n = f.int_arg(b"n", 1, self.leds.n, 1)
            pulse = f.int_arg(b"pulse", 0, 1, 0)
            if f.err:
                return b""
            if i < 0:
                return b"say_i"
            self.leds.paint_leds(i, n, c if c else L.NONE, pulse)
            return b""
        if k == 22:     # sense on=0|1 [all=0|1]: stream every reading with its rates;
            on = f.int_arg(b"on", 0, 1, 1)    # all=1: every sensor ranges at once (crosstalk)
            together = f.int_arg(b"all", 0, 1, 0)
            if f.err:
                return b""
            self.sense = on == 1
            self.sensors.set_together(on == 1 and together == 1)
            return b""
        return b"unknown_command"

    def _paint(self, f):
        lv = self.leds
        c = L.colour_arg(f, b"c")
        if f.err:
            return b""
        col = c if c else L.NONE  # off = unpainted: the ground shows through
        if f.has(b"sp"):
            j = f.tok_index(b"sp", self.tracker.side.ids)
            if f.err:
                return b""
            lv.paint_space(j, col)
            return b""
        if f.has(b"label"):
            labels = lv.labels[lv.side_k]
            j = f.label_index(b"label", labels, 0)
            if j < 0:
                f.tok_index(b"label", b"")  # sets "unknown value"
                return b""
            while j >= 0:
                lv.paint_space(j, col)
                j = f.label_index(b"label", labels, j + 1)
            return b""
        if f.has(b"all"):
            f.int_arg(b"all", 1, 1)
            if f.err:
                return b""
            lv.paint_ground(c)
            return b""
        return b"say_sp_label_or_all"

    def _cal(self, f, now):
        """Set one sensor's calibration: off = offset in 1/16 mm, scale = Q12 (4096 = 1.0)."""
        i = f.int_arg(b"id", 0, self.n - 1)
        off = f.int_arg(b"off", -_MAX_OFF16, _MAX_OFF16, 0)
        scale = f.int_arg(b"scale", 2048, 8192, 4096)
        if f.err:
            return b""
        self.ring.off16[i] = off
        self.ring.scale_q12[i] = scale
        self.cal_dirty[i] = 1
        self.tracker.recalibrated(now)   # a resting marble's readings shift: not a flick
        return b""

    def _calsave(self):
        if self.storage is None:
            return b"no_storage"
        # only the sensors calibrated since boot (allocates: rare)
        self.storage.save_calibration(self.ring, self.cal_dirty)
        return b""
