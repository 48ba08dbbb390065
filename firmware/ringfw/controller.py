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
from ringfw.wire import ARG_REASONS, Encoder, Frame, FrameReader, PROTOCOL, REASONS, word_starts

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


# The words the controller sends and reads - message types, keys, NACK reasons - as one
# word list: on the board a bytes constant costs about 36 bytes of heap, a word of this list
# its length + 1 (docs/firmware.md, "Memory"). Encoder and Frame take a word by its index
# (_W_*) wherever they take a bytes key; docs/protocol.md gives the words. Word 0 is never a
# key or a reason: a reason of 0 (or b"") means none.
_WORDS = (b"ack too_short wrong_direction left_ring timer_expired total late hello fw proto "
          b"ring sensors healthy side leds cap uid hb up loop drop err blind tmr tps raw id "
          b"r st sense sig amb moving ang dir landed sp alt trv conf cands corrects "
          b"withdrawn degraded n ids off_ring placed lost sensor_fault why sensor_ok "
          b"not_level low half_period swings verdict ok min error count what nack re arg "
          b"simulated_board_only unknown_command protocol_too_new protocol_too_old name on "
          b"c at w v pulse trail flash ms s paused show no_timer i say_i all label "
          b"say_sp_label_or_all off scale no_storage m cal bg save_failed")
_W_ACK = const(0)
_W_TOO_SHORT = const(1)
_W_WRONG_DIRECTION = const(2)
_W_LEFT_RING = const(3)
_W_TIMER_EXPIRED = const(4)
_W_TOTAL = const(5)
_W_LATE = const(6)
_W_HELLO = const(7)
_W_FW = const(8)
_W_PROTO = const(9)
_W_RING = const(10)
_W_SENSORS = const(11)
_W_HEALTHY = const(12)
_W_SIDE = const(13)
_W_LEDS = const(14)
_W_CAP = const(15)
_W_UID = const(16)
_W_HB = const(17)
_W_UP = const(18)
_W_LOOP = const(19)
_W_DROP = const(20)
_W_ERR = const(21)
_W_BLIND = const(22)
_W_TMR = const(23)
_W_TPS = const(24)
_W_RAW = const(25)
_W_ID = const(26)
_W_R = const(27)
_W_ST = const(28)
_W_SENSE = const(29)
_W_SIG = const(30)
_W_AMB = const(31)
_W_MOVING = const(32)
_W_ANG = const(33)
_W_DIR = const(34)
_W_LANDED = const(35)
_W_SP = const(36)
_W_ALT = const(37)
_W_TRV = const(38)
_W_CONF = const(39)
_W_CANDS = const(40)
_W_CORRECTS = const(41)
_W_WITHDRAWN = const(42)
_W_DEGRADED = const(43)
_W_N = const(44)
_W_IDS = const(45)
_W_OFF_RING = const(46)
_W_PLACED = const(47)
_W_LOST = const(48)
_W_SENSOR_FAULT = const(49)
_W_WHY = const(50)
_W_SENSOR_OK = const(51)
_W_NOT_LEVEL = const(52)
_W_LOW = const(53)
_W_HALF_PERIOD = const(54)
_W_SWINGS = const(55)
_W_VERDICT = const(56)
_W_OK = const(57)
_W_MIN = const(58)
_W_ERROR = const(59)
_W_COUNT = const(60)
_W_WHAT = const(61)
_W_NACK = const(62)
_W_RE = const(63)
_W_ARG = const(64)
_W_SIMULATED_BOARD_ONLY = const(65)
_W_UNKNOWN_COMMAND = const(66)
_W_PROTOCOL_TOO_NEW = const(67)
_W_PROTOCOL_TOO_OLD = const(68)
_W_NAME = const(69)
_W_ON = const(70)
_W_C = const(71)
_W_AT = const(72)
_W_W = const(73)
_W_V = const(74)
_W_PULSE = const(75)
_W_TRAIL = const(76)
_W_FLASH = const(77)
_W_MS = const(78)
_W_S = const(79)
_W_PAUSED = const(80)
_W_SHOW = const(81)
_W_NO_TIMER = const(82)
_W_I = const(83)
_W_SAY_I = const(84)
_W_ALL = const(85)
_W_LABEL = const(86)
_W_SAY_SP_LABEL_OR_ALL = const(87)
_W_OFF = const(88)
_W_SCALE = const(89)
_W_NO_STORAGE = const(90)
_W_M = const(91)
_W_CAL = const(92)
_W_BG = const(93)
_W_SAVE_FAILED = const(94)


class Controller:
    def __init__(self, ring, clock, sensors, pixels, serial, watchdog, storage=None,
                 tracker=None):
        # the board builds the tracker first, before the controller's modules are loaded
        # (ringfw.boot._run); everyone else lets the controller build its own
        self.tracker = T.Tracker(ring) if tracker is None else tracker
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
        starts = word_starts(_WORDS)
        self.frame = Frame(_WORDS, starts)
        self.enc = Encoder(_WORDS, starts)
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
                e.begin(_W_TIMER_EXPIRED)
                e.int(_W_TOTAL, tm.total)
                e.int(_W_LATE, tm.late)
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
        e.begin(_W_HELLO)
        e.tok(_W_FW, self.version)
        e.int(_W_PROTO, PROTOCOL)
        e.tok(_W_RING, r.digest_hex)
        e.int(_W_SENSORS, self.n)
        e.int(_W_HEALTHY, self.n - self._faulty_count())
        e.word(_W_SIDE, self.side_names, self.side)
        e.int(_W_LEDS, r.led_count)
        e.int(_W_CAP, self.leds.cap)
        if self.uid:
            e.tok(_W_UID, self.uid)
        # what the board keeps across a reset: a calibration saved on it (1; 0: ring.json's
        # starting values; -1: its file was unusable, so the starting values), and how many
        # sensors' empty ring it saved with it (none: saved by a version before stop 41; the
        # host asks for `ringside calibrate` again)
        e.int(_W_CAL, -1 if r.cal_error else (1 if r.calibrated else 0))
        bg = 0
        sv = r.bg_saved
        for i in range(self.n):
            if sv[4 * i] >= 0:
                bg += 1
        e.int(_W_BG, bg)
        self._send()

    def _faulty_count(self):
        c = 0
        for i in range(self.n):
            c += self.tracker.faulty[i]
        return c

    def _heartbeat(self, now):
        e = self.enc
        rd = self.reader
        e.begin(_W_HB)
        e.int(_W_UP, self.uptime_s)
        e.int(_W_LOOP, self.worst_loop)
        e.int(_W_DROP, self.bad_frames + rd.partial + rd.overlong + self.frames_dropped
              + self.tracker.dropped_events)
        e.int(_W_ERR, self.errors)
        e.int(_W_BLIND, self.tracker.blind)
        tm = self.timer
        if tm.active():
            e.int(_W_TMR, tm.remaining(now))
            if tm.state == TM.PAUSED:
                e.int(_W_TPS, 1)
        self._send()

    def _send_raw(self, i):
        e = self.enc
        e.begin(_W_RAW)
        e.int(_W_ID, i)
        e.int(_W_R, self.ranges[i])
        e.int(_W_ST, self.statuses[i])
        m = self.tracker.own       # (of this reading: the controller sends it just after feed)
        if m >= 0:
            e.int(_W_M, m)   # the marble's own range, its blend with the background taken out
        self._send()

    def _send_sense(self, i):
        # the reading as the sensor gave it: no calibration, with its rates (MCPS, 9.7)
        e = self.enc
        e.begin(_W_SENSE)
        e.int(_W_ID, i)
        e.int(_W_R, self.ranges[i])
        e.int(_W_ST, self.statuses[i])
        e.int(_W_SIG, self.sensors.signal[i])
        e.int(_W_AMB, self.sensors.ambient[i])
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
                e.begin(_W_MOVING)
                e.int(_W_ANG, ev[0])
                e.int(_W_DIR, ev[1])
            elif kind == T.EV_LANDED:
                e.begin(_W_LANDED)
                e.word(_W_SP, side.ids, ev[0])
                if ev[1] >= 0:
                    e.word(_W_ALT, side.ids, ev[1])
                e.int(_W_ANG, ev[2])
                e.int(_W_TRV, ev[3])
                e.int(_W_CONF, ev[4])
                fl = ev[5]
                if fl & T.LF_BLIND:
                    e.int(_W_BLIND, 1)
                    if fl >> 8:
                        e.word_run(_W_CANDS, side.ids, (fl >> 2) & 63, fl >> 8, side.count)
                if fl & T.LF_CORRECTS:
                    e.int(_W_CORRECTS, 1)
                self._send()
                self.leds.landed(ev[0], now)
                if self.arm_dir >= 0 and not fl & T.LF_CORRECTS:
                    self._verdict(ev[3], False, now)   # (a correction is no new flick)
                continue
            elif kind == T.EV_WITHDRAWN:
                e.begin(_W_WITHDRAWN)
                e.word(_W_SP, side.ids, ev[0])
                e.int(_W_ANG, ev[1])
                e.int(_W_TRV, ev[2])
            elif kind == T.EV_DEGRADED:
                e.begin(_W_DEGRADED)
                e.int(_W_N, ev[0])
                e.bits(_W_IDS, ev[1])
                e.int(_W_BLIND, ev[2])
            elif kind == T.EV_OFF_RING:
                e.begin(_W_OFF_RING)
                e.int(_W_ANG, ev[0])
                e.int(_W_TRV, ev[1])
                self._send()
                if self.arm_dir >= 0:
                    self._verdict(ev[1], True, now)
                continue
            elif kind == T.EV_PLACED:
                e.begin(_W_PLACED)
                e.word(_W_SP, side.ids, ev[0])
                e.int(_W_ANG, ev[1])
            elif kind == T.EV_LOST:
                e.begin(_W_LOST)
                e.int(_W_ANG, ev[0])
            elif kind == T.EV_FAULT:
                e.begin(_W_SENSOR_FAULT)
                e.int(_W_ID, ev[0])
                e.word(_W_WHY, _FAULT_WORDS, ev[1])
                e.int(_W_BLIND, ev[2])
            elif kind == T.EV_SENSOR_OK:
                e.begin(_W_SENSOR_OK)
                e.int(_W_ID, ev[0])
                e.int(_W_BLIND, ev[2])
            elif kind == T.EV_NOT_LEVEL:
                e.begin(_W_NOT_LEVEL)
                e.int(_W_LOW, ev[0])
                e.int(_W_HALF_PERIOD, ev[1])
                e.int(_W_SWINGS, ev[2])
            else:
                continue
            self._send()

    def _verdict(self, trv, off, now):
        """The armed flick's verdict, right after its landed/off_ring frame; disarms."""
        d = self.arm_dir
        why = b""
        if off:
            why = _W_LEFT_RING
        elif (d == _CCW and trv < 0) or (d == _CW and trv > 0):
            why = _W_WRONG_DIRECTION
        elif (trv if trv >= 0 else -trv) < self.arm_min:
            why = _W_TOO_SHORT   # did not reach the opposing space (minimum travel)
        e = self.enc
        e.begin(_W_VERDICT)
        e.int(_W_OK, 0 if why else 1)
        if why:
            e.tok(_W_WHY, why)
        e.int(_W_TRV, trv)
        e.int(_W_MIN, self.arm_min)
        e.word(_W_DIR, _DIRS, d)
        self._send()
        self.arm_dir = -1
        if why:
            self.leds.error(now)

    def _report_error(self, exc):
        try:
            e = self.enc
            e.begin(_W_ERROR)
            e.int(_W_COUNT, self.errors)
            e.tok(_W_WHAT, type(exc).__name__.encode())
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
            e.begin(_W_NACK)
            e.int(_W_RE, -1)
            e.word(_W_WHY, REASONS, err)
            self._send()
            return
        self._command(f, now)

    def _ack(self, seq):
        e = self.enc
        e.begin(_W_ACK)
        e.int(_W_RE, seq)
        self._send()

    def _nack(self, seq, why, key=b"", what=False, k=-1):
        """NACK with a constant reason token (or word k of the word list why); arg= the
        offending field, what= the type."""
        e = self.enc
        e.begin(_W_NACK)
        e.int(_W_RE, seq)
        if k < 0:
            e.tok(_W_WHY, why)
        else:
            e.word(_W_WHY, why, k)
        if key:
            e.tok(_W_ARG, key)
        if what:
            f = self.frame
            e.tok_from(_W_WHAT, f.buf, f.ks, f.ke)
        self._send()

    def _command(self, f, now):
        k = f.kind_in(_CMDS)
        if k < 0:
            if f.kind_starts(b"sim_"):
                hook = self.sim_command
                if hook is None:
                    self._nack(f.seq, _W_SIMULATED_BOARD_ONLY, b"", True)
                    return
                why = hook(f.seq, bytes(f.buf[:f.n]))
                if why:
                    self._nack(f.seq, why.replace(" ", "_").encode())
                else:
                    self._ack(f.seq)
                return
            self._nack(f.seq, _W_UNKNOWN_COMMAND, b"", True)
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
            proto = f.int_arg(_W_PROTO, 0, 999999, PROTOCOL)
            if f.err:
                return b""
            self.hello()
            if proto > PROTOCOL:
                return _W_PROTOCOL_TOO_NEW
            if proto < PROTOCOL:
                return _W_PROTOCOL_TOO_OLD
            return b""
        if k == 2:      # status
            self.hello()
            self._heartbeat(now)
            return b""
        if k == 3:      # side name=<side>
            j = f.tok_index(_W_NAME, self.side_names)
            if f.err:
                return b""
            self.side = j
            self.tracker.set_side(self.ring.sides[j])
            self.leds.set_side(j)
            return b""
        if k == 4:      # raw on=0|1
            self.raw = f.int_arg(_W_ON, 0, 1, 1) == 1
            return b""
        if k == 5:
            return self._cal(f, now)
        if k == 6:      # calsave
            return self._calsave()
        if k == 7:      # repl: ack first (in _command), then release
            return b""
        if k == 8:      # arm dir=any|ccw|cw min=<cd>
            d = f.tok_index(_W_DIR, _DIRS, _ANY)
            mn = f.int_arg(_W_MIN, 0, _MAX_TRAVEL, 0)
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
            c = L.colour_arg(f, _W_C)
            at = f.int_arg(_W_AT, 0, FULL_TURN - 1, -1)
            w = f.int_arg(_W_W, 1, lv.n, 3)
            if f.err:
                return b""
            if at < 0:
                at = lv.start_centre()
            lv.set_player(c if c else L.NONE, at, w)
            return b""
        if k == 13:     # pulse sp=<id> [c=<colour>]
            j = f.tok_index(_W_SP, self.tracker.side.ids)
            c = L.colour_arg(f, _W_C, L.WHITE)
            if f.err:
                return b""
            lv.pulse(j, c, now)
            return b""
        if k == 14:     # flash [c=<colour>] [n=<count>]
            c = L.colour_arg(f, _W_C, L.RED)
            cnt = f.int_arg(_W_N, 1, 20, 3)
            if f.err:
                return b""
            lv.flash(c, cnt, now)
            return b""
        if k == 15:     # bright v=0..255
            v = f.int_arg(_W_V, 0, 255)
            if f.err:
                return b""
            lv.set_brightness(v)
            return b""
        if k == 16:     # fx [pulse=0|1] [trail=0|1] [flash=0|1]
            p = f.int_arg(_W_PULSE, 0, 1, lv.fx_pulse)
            t = f.int_arg(_W_TRAIL, 0, 1, lv.fx_trail)
            fl = f.int_arg(_W_FLASH, 0, 1, lv.fx_flash)
            if f.err:
                return b""
            lv.fx_pulse = p
            lv.fx_trail = t
            lv.fx_flash = fl
            return b""
        tm = self.timer
        if k == 17:     # timer_start (ms= | s=) [total=<ms>] [c=<colour>] [paused=1] [show=0]
            if f.has(_W_MS) or not f.has(_W_S):
                ms = f.int_arg(_W_MS, 0, TM.MAX_MS)
            else:
                ms = f.int_arg(_W_S, 0, TM.MAX_MS // 1000) * 1000
            total = f.int_arg(_W_TOTAL, 0, TM.MAX_MS, 0)
            c = L.colour_arg(f, _W_C, L.WHITE)
            paused = f.int_arg(_W_PAUSED, 0, 1, 0)
            shown = f.int_arg(_W_SHOW, 0, 1, 1)
            if f.err:
                return b""
            tm.start(now, ms, total, c, paused, shown == 1)
            return b""
        if k == 18:     # timer_pause
            return b"" if tm.pause(now) else _W_NO_TIMER
        if k == 19:     # timer_resume
            return b"" if tm.resume(now) else _W_NO_TIMER
        if k == 20:     # timer_cancel
            tm.cancel()
            return b""
        if k == 21:     # px i=<led> [n=<count>] c=<colour>: a run of LEDs in one colour
            c = L.colour_arg(f, _W_C)
            i = f.int_arg(_W_I, 0, self.leds.n - 1, -1)
            n = f.int_arg(_W_N, 1, self.leds.n, 1)
            pulse = f.int_arg(_W_PULSE, 0, 1, 0)
            if f.err:
                return b""
            if i < 0:
                return _W_SAY_I
            self.leds.paint_leds(i, n, c if c else L.NONE, pulse)
            return b""
        if k == 22:     # sense on=0|1 [all=0|1]: stream every reading with its rates;
            on = f.int_arg(_W_ON, 0, 1, 1)    # all=1: every sensor ranges at once (crosstalk)
            together = f.int_arg(_W_ALL, 0, 1, 0)
            if f.err:
                return b""
            self.sense = on == 1
            self.sensors.set_together(on == 1 and together == 1)
            return b""
        return _W_UNKNOWN_COMMAND

    def _paint(self, f):
        lv = self.leds
        c = L.colour_arg(f, _W_C)
        if f.err:
            return b""
        col = c if c else L.NONE  # off = unpainted: the ground shows through
        if f.has(_W_SP):
            j = f.tok_index(_W_SP, self.tracker.side.ids)
            if f.err:
                return b""
            lv.paint_space(j, col)
            return b""
        if f.has(_W_LABEL):
            labels = lv.labels[lv.side_k]
            j = f.label_index(_W_LABEL, labels, 0)
            if j < 0:
                f.tok_index(_W_LABEL, b"")  # sets "unknown value"
                return b""
            while j >= 0:
                lv.paint_space(j, col)
                j = f.label_index(_W_LABEL, labels, j + 1)
            return b""
        if f.has(_W_ALL):
            f.int_arg(_W_ALL, 1, 1)
            if f.err:
                return b""
            lv.paint_ground(c)
            return b""
        return _W_SAY_SP_LABEL_OR_ALL

    def _cal(self, f, now):
        """Set one sensor's calibration: off = offset in 1/16 mm, scale = Q12 (4096 = 1.0)."""
        i = f.int_arg(_W_ID, 0, self.n - 1)
        off = f.int_arg(_W_OFF, -_MAX_OFF16, _MAX_OFF16, 0)
        scale = f.int_arg(_W_SCALE, 2048, 8192, 4096)
        if f.err:
            return b""
        self.ring.off16[i] = off
        self.ring.scale_q12[i] = scale
        self.cal_dirty[i] = 1
        self.tracker.recalibrated(now)   # a resting marble's readings shift: not a flick
        return b""

    def _calsave(self):
        if self.storage is None:
            return _W_NO_STORAGE
        # only the sensors calibrated since boot (allocates: rare), and the empty ring the
        # tracker learnt, to start from at the next boot
        self.tracker.save_background(self.ring.bg_saved)
        try:
            self.storage.save_calibration(self.ring, self.cal_dirty)
        except (OSError, MemoryError):
            # the flash full or failing (or no heap for the writer): NACKed, so the host says
            # so. The calibration stays in use until the board restarts, and the file saved
            # before stays whole (the writer writes a temporary file, then renames it)
            return _W_SAVE_FAILED
        self.ring.calibrated = True      # kept across a reset now (the hello's cal)
        self.ring.cal_error = None       # a new file over the unusable one
        return b""
