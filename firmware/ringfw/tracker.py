"""Sensor readings -> where the marble is -> events.

Fed one reading at a time (sensor index, range, status, time). Keeps one track of the
marble: an unwrapped angle (centidegrees, so direction and signed travel survive
multi-turn flicks) and an angular speed, updated by an alpha-beta filter with a gate
that throws away readings that disagree with the track. Rest is declared only after a
still window: the readings of the last still_ms neither trend nor curve (a marble at the
turning point of a swing on a tilted ring is almost still, but curves). Until rests that
held all round the ring have shown it level, the window is the long one; on a ring seen to
be tilted, a rest outside the span of rests that held (folded mod 180 deg) is watched
longer (8 s round the high point, where just outside a friction band a turning marble creeps
off very slowly, and 3 s round the low point, where it creeps back in and stops).
Everything is integer and preallocated: feed() allocates nothing.

Events are queued in fixed slots (kind + 6 ints) for the controller to send.
"""

from ringfw.compat import const, isqrt, tadd, tdiff
from ringfw import hal
from ringfw.geometry import FULL_TURN, HALF_TURN, sdiff, wrap
# tdiff written out in the hot loops (a call per reading costs more than the arithmetic)
_TH = const(0x20000000)
_TM = const(0x3FFFFFFF)

# event kinds
EV_MOVING = const(1)      # a: start angle, b: direction (+1 ccw / -1 cw)
EV_LANDED = const(2)      # a: space, b: neighbour or -1, c: angle, d: travel, e: confidence 0..100,
                          # f: flags: LF_BLIND, LF_CORRECTS, and for a blind landing its candidate
                          #    spaces, a run counting up from space (f >> 2) & 63, (f >> 8) long
EV_OFF_RING = const(3)    # a: last angle, b: travel
EV_PLACED = const(4)      # a: space, b: angle  (marble set down / settled without a flick)
EV_FAULT = const(5)       # a: sensor, b: reason, c: blind cd of the ring
EV_SENSOR_OK = const(6)   # a: sensor, c: blind cd
EV_NOT_LEVEL = const(7)   # a: low point angle, b: half swing period ms, c: swings seen
EV_LOST = const(8)        # a: last angle  (marble taken off the ring while at rest)
EV_WITHDRAWN = const(9)   # a: space of the landing withdrawn, b: its angle, c: its travel
EV_DEGRADED = const(10)   # a: faulty sensors, b: which (bit i: sensor i), c: blind cd

# EV_LANDED flags
LF_BLIND = const(1)       # it stopped where no healthy sensor sees: a guess among candidates
LF_CORRECTS = const(2)    # the marble moved on from the last landing: this one replaces it

# fault reasons
FAULT_SILENT = const(1)     # no answer / no reading for too long
FAULT_HARDWARE = const(2)   # the device reports a hardware failure
FAULT_NONSENSE = const(3)   # readings contradict the others (stuck, or impossible)
FAULT_STUCK = const(4)      # the same valid range again and again: it does not see anything move
FAULT_NOISY = const(5)      # its readings of a marble at rest scatter far beyond their sigma

# states
_NONE = const(0)      # no marble known
_REST = const(1)
_MOVING = const(2)
_SETTLING = const(3)  # reacquired after a loss, not yet still

_EVQ = const(8)
_SG_SHIFT = const(5)    # a signal rate moved when it changed by over 1/32 of itself (+2)
_SG_WAIT = const(6)     # ... and a rest waits 1/_SG_WAIT of the short still window after it
_SG_ON = const(2)        # ... and went on 1/_SG_ON of a cut the same way since: it still creeps
_SG_STEADY = const(800)  # ms: a track's signal steady this long: a marble at rest, whatever its ranges
_SG_LEAST = const(4)    # ... and holds this many readings since (three of one faint sensor: a lottery)
_WIN = const(256)      # still-window ring buffer (power of two)
_WMASK = const(255)

_LOST_MS = const(250)      # no reading of a tracked marble where sensors should see it
_FRONT_AWAY = const(500)   # cd: a blind rest this far from a sensor's front stretch is not in it
_BL_FOUND = const(300)     # cd: found this near where it landed blind, it was not flicked out
_FG_N = const(8)           # readings of a run at a window's far fringe that find a marble
_FG_GAP = const(300)       # ms: the most between two of them
_BL_OUT = const(150)       # cd a marble found at a blind arc's edge must move out to be a flick
# A marble found there, moving, that rolls on past _SETTLE_MAX is at least 23.5 deg/s fast
# (74 mm/s at r = 180 mm stops in 10 deg, at 50 mm/s^2 + 0.8/s: docs/simulator.md): it is out
# of _SET_CD in 142 ms. Read within it later than this (142 ms and a sensor's 34 ms period),
# it was at rest there: a marble set down beside the arc (from a wrong blind landing). Dim
# readings put a rolling marble nearer than it is, by up to their sigma (the reading that found
# it, and this one), and each degree more to roll takes the slowing marble about 60 ms (4 deg:
# 198 ms, 5: 259, 6: 329): so _SET_K ms more per 100 cd of each reading's sigma
_SET_CD = const(300)
_SET_MS = const(180)
_SET_K = const(60)
_SET_SIG = const(300)      # cd: the most of one reading's sigma counted (+180 ms)
_CHAIN_MS = const(200)     # readings further apart than this do not make a chain
_FOCUS_V = const(3000)     # cd/s: slower than this, the one sensor that sees it ranges more
_FOCUS_GAP = const(100)    # ms: ... unless it has not seen the marble for this long
_OUT_V = const(6000)       # cd/s: a chain this fast, a flick due from a blind arc: it, moving
_MIN_RANGE_MM = const(30)  # nearer, a VL53L0X reports min range fail (Adafruit 3317: ~30 mm)
# The empty ring's background, per sensor (learned while nothing moves):
_BG_WARM = const(32)       # readings averaged plainly before the slow average takes over
_BG_SHIFT = const(5)       # the slow average's gain: 1/32 a reading
_BG_AWAY = const(500)      # cd: the marble at least this far outside a window is not in it
_BG_NEW = const(64)        # readings of a steady new return before the background is learned again
_BG_MOVED = const(1000)    # cd: ... over two rests at least this far apart
_BG_VALID = const(128)     # valid share (of 255) above which the background returns a range
_KV_RANGE = const(255)     # (kv: a background that returned a range when first learned)
_BG_SIG_MAX = const(256)   # signal (2 MCPS): more than the empty ring returns (its walls: < 1)
_BG_SIG_MIN = const(32)    # signal (9.7 MCPS: 0.25) a return needs: ST's signal-rate limit
_DEPART_MM = const(8)      # a reading this far from a returning background is a departure...
_CONTRAST_Q = const(6)     # ... or with 6/4 of the background's signal
# sigma of one reading from its signal rate, as ST's sigma estimator has it: the VCSEL pulse
# (4.7 ns: 705 mm of range) over the square root of the photons counted in the final range
# (3/4 of the budget); in mm: 705 / sqrt(signal_q7 / 128 * budget_ms * 750)
_PULSE_MM = const(705)
_BLIND_MS = const(4000)    # longest a marble may stay in a blind region while moving
_SILENT_MS = const(600)    # a sensor with no reading this long is faulty
_STILL_T = const(250)      # cd: a reading further than this from the window mean is an outlier
_MOVE_T = const(300)       # cd: readings this far from the rest point mean the marble moved
_SETTLE_MAX = const(1000)  # cd: a placed marble rolling further than this was flicked
_FLICK_MIN = const(300)    # cd: travel that makes a settle a landing rather than a nudge
_SWING_MIN = const(500)    # cd: a swing at least this wide counts as a reversal
_REV_T = const(250)
_EXTEND_MS = const(250)
_TICK_MS = const(20)       # time-outs are checked this often
_SELF_V = const(2000)      # cd/s: a marble starting slower than this was not flicked
_SLOW_REACH = const(8000)  # cd: how far a marble at twice _SELF_V rolls: 40^2 / (2 x 10) deg
_ROLL_SPREAD = const(6000) # cd: rests of self-started rolls this close agree on a low point
_HALF = const(18000)       # cd: the friction bands round the low and the high point are alike
_LEVEL_SPAN = const(6000)  # cd: rests that held spread this far (folded mod 180 deg): tilt < 0.8 deg
_STABLE_M = const(30)      # cd: how far inside the span of known rests counts as known to hold
_STABLE_HM = const(200)    # cd: ... round the high point, whose band's outer edge is unstable
_HOLD_MS = const(8000)     # on a tilted ring a rest not known to hold is watched this much longer
_HOLD_LOW_MS = const(3000)  # ... or this, round the low point (a creep there stops by itself)
_DRIFT_T = const(20)       # cd: a watched rest that moved this much between looks is creeping
_CONFIRM_MS = const(250)   # a rest that lasted this long before a flick took it away held
_ROLLING_V = const(5000)   # cd/s: a track this fast is rolling, not still
_SWING_HALF_MIN = const(1000)  # ms: shortest half swing that shows a tilt
_SWING_HALF_MAX = const(8000)  # ms: ... and the longest (0.25 deg: friction holds it before)
_SAT_CD = const(300)       # cd: the last part of a window, where a marble past it reads
_SAT_PAST = const(1200)    # cd: ... from this far past the window's end
# Sensor health (a faulty sensor is not believed; see docs/firmware.md, "Faults"):
_STUCK_N = const(20)       # this many identical valid ranges in a row: stuck (healthy: <= 4 seen)
_TRUST_N = const(5)        # a silent sensor that answers: sensible readings before it is trusted
_FOLLOW_T = const(400)     # cd: a faulty sensor's reading this close to the track agrees with it
_FOLLOW_N = const(4)       # ... agreeing readings, over a track that moved at least
_FOLLOW_SPAN = const(1000) # ... this far (cd), before a stuck or noisy sensor is trusted again
_NZ0 = const(16)           # noise score of a sensor (16 = one sigma per reading, on average)
_NZ_CAP = const(128)       # one reading counts at most 8 sigma
_NZ_FAULT = const(40)      # score (1/16 sigma) above which a sensor is noisy (healthy: <= 23 seen)
_NZ_MIN_N = const(24)      # readings of a resting marble before the score says anything
_NZ_SEED = const(2)        # a sensor's first two readings at a rest find its own offset there
_NZ_PAIR_MS = const(400)   # ... if no further apart than this
_NF_FAULT = const(176)     # share (/256) of readings off the rest band that makes it noisy
_NF_SOLO = const(96)       # ... above which a sensor may not start a flick alone
_SOLO_N = const(8)         # ... and before one sensor alone may start a flick
_BW_D = const(300)         # cd: moved this far once found after a blind arc: its way
_NEAR_BLIND = const(1500)  # cd: a marble lost this close to a blind arc may rest in it
_LEAVE_V = const(10000)    # cd/s: a track this slow when lost did not leave the ring (a marble
                           # leaves at 480 deg/s; a track lags a fast marble, seen 170 deg/s)
_DECEL = const(1000)       # cd/s^2: a rolling marble slows at least this much (rolling resistance:
                           # 15.9 deg/s^2 on the simulated 180 mm track, sim/physics.py; less here)
_FRONT_MS = const(1500)    # a run of minimum-range failures this long, a flick due from a
                            # blind landing and no sensor ranging there: it rests in front (_front)
_BEHIND = const(300)        # cd: a marble this far behind a lens can still fail its minimum range
_PAST_BLIND = const(20)     # deg: a lone reading further past a blind arc than this is a stray:
                            # the marble would have crossed that much seen track unseen
_SEEN_WAY = const(60)       # deg: ... or with more seen track than this on its way from the
                            # rest (at 600 deg/s a marble crosses 42 deg of it between two
                            # readings of a sensor: 60 deg of it unread is a stray's way)
_BLIND_V = const(25000)    # cd/s: slower than this a lost marble cannot be leaving the ring
_Z2 = const(6)             # (z = 2.45)^2: a still window's thirds pass 99 % of the time
# Half the trend (third against third, cd) of a marble that stops just as an 800 ms window
# ends, slowing at the rolling resistance (50 mm/s^2, docs/simulator.md: 340 cd in 800 ms);
# it scales with the window's length squared
_TREND_CAP = const(170)
_LONG_CAP = const(60)      # cd: ... and the most the long window's thirds may differ by at all
_ON_V = const(4000)        # cd/s: a marble moving on from a landing starts slower than this
                           # (from a turning point, or a creep); a flick starts faster
_NEAR_SIG = const(1024)    # signal (9.7 MCPS: 8) of a min-range failure that is the marble
_NEAR_CD = const(1400)     # cd: a track this close to a sensor's window start may be in front of it
_SHORT_CD = const(1000)    # cd: ... or this far short of it, a moving track rolling towards it
_DIM_K = const(8)          # a reading this many times dimmer (signal x range^2) than the marble
                           # at its rests is not the marble (it returns within about 6x of
                           # itself across a window, the near end brightest)
_K_LIVE = const(8)         # ... once the marble's signal at rest was seen to scatter (k_var)
_LEFT_N = const(3)         # readings in a row without the marble: a sensor no longer sees it
_KB_MS = const(300)        # a slow track drops far-dim readings this long after a bright one,
_STALE_MS = const(10000)   # once it has been slow this long with no verdict (level landings
                           # take 0.6 s at p95, a ring 1 deg off level's 3 s)
_W_ONE = const(64)         # a rest-point weight: a reading of reading_sigma (see _weight)
_NOISE_V = const(1000)     # cd/s: a track slower than this is as good as a rest point to
                           # measure a sensor's scatter against


_PHI_PCT = (50, 60, 69, 77, 84, 89, 93, 96, 98, 99, 99, 99)


class Tracker:
    def __init__(self, ring):
        from ringfw import tracker_setup     # boot-only: the board unloads it once this is built
        tracker_setup.tracker(self, ring)

    # ----- public -----
    def reset(self, now):
        self.state = _NONE
        self.pos = 0
        self.vel = 0
        self.t = now
        self.t_seen = now
        self.rest = 0
        self.start = 0
        self.flicked = False
        self.self_start = False
        self.cand = -1
        self.cand_t = 0
        self.cand_n = 0
        self.cand_k = -1
        self.dev = 0
        self.dev_k = -1                           # the chain's last reading's brightness (rk)
        self.dev_seen = now                       # ... and when the rest was seen as it began
        self.dev_n = 0
        self.dev_t = now
        self.dev_i = -1
        self.dev0 = 0
        self.dev0_t = now
        self.devp = 0                             # the chain's reading before its last
        self.k_rest = -1                          # the resting marble's brightness (_at_rest)
        self.rest_m = 0                           # the sensors that saw it at this rest
        self.devp_t = now
        self.wn = 0
        self.turns = 0
        self.tp_last = 0
        self.tp_prev = 0
        self.tp_t = 0
        self.tp_sum = 0
        self.tp_n = 0
        self.tp_period = 0
        self.dir = 0
        self.ext = 0
        self.rev_n = 0
        self.miss_n = 0
        self.miss_x = 0
        self.miss_t = now
        self.miss_x0 = 0
        self.miss_t0 = now
        self.miss_xp = 0       # the chain's reading before its last (_chain_v)
        self.miss_tp = now
        self.mb_n = 0          # the chain that a disagreeing reading displaced (_miss)
        self.mb_x = 0
        self.mb_t = now
        self.mb_x0 = 0
        self.mb_t0 = now
        self.miss_kx = -1      # the chains' brightest readings (rk; -1: one had no signal)
        self.mb_kx = -1
        self.sm = 0
        self.seen = 0
        self.ext_t = now
        self.in_blind_since = -1
        self.still_since = -1
        self.first_still = -1
        self.hold_t = -1
        self.hold_x = 0
        self.trk_n = 0        # readings the track took since it started
        self.kb_t = now       # when the track last had a reading not far dimmer than the marble
        self.fast_t = now     # ... and when it was last faster than _FOCUS_V

    def begin(self, now):
        """Start of operation: every sensor gets _SILENT_MS from now to speak."""
        self.next_tick = now
        for i in range(self.n):
            self.last_seen[i] = now
        self.reset(now)

    def set_side(self, side):
        self.side = side

    def pop(self, out):
        """Copy the oldest event's 6 ints into out; return its kind, or 0 if none."""
        if self.evr == self.evw:
            return 0
        slot = self.evr % _EVQ
        b = slot * 6
        for j in range(6):
            out[j] = self.eva[b + j]
        self.evr += 1
        return self.evk[slot]

    def feed(self, now, i, rng, status, sig=-1):
        """One reading of sensor i: range in mm, a hal.STATUS_* code and the signal rate
        (9.7 fixed point MCPS as register 0x1A holds it; -1: not known)."""
        self.own = -1
        if status == hal.STATUS_NO_ANSWER:
            # silence: tick() turns a long one into a fault. Until then its arc is not seen:
            # a marble lost there is not gone (a loose contact dropped sensor 5 for 0.3 s as
            # the marble rolled through its window: called off the ring)
            if not self.mute[i]:
                self.mute[i] = 1
                if not self.faulty[i]:
                    self._recompute_cover()
            return
        if self.mute[i]:
            self.mute[i] = 0
            if not self.faulty[i]:
                c = self.cover[wrap(self.rest) // 100]
                self._recompute_cover()
                if self.state == _REST and not c and self.cover[wrap(self.rest) // 100]:
                    # The rest point was seen by no answering sensor while this one was
                    # silent: its absence till now proves nothing, the rest's lost time
                    # starts again (the one sensor that saw a resting marble browned out as
                    # it was flicked; back, it saw nothing, and a flick was armed: off the
                    # ring at once, before the chain of the marble going could form;
                    # brownout:2, seed 1, flick 98, in stop 32 and 33's sweeps alike)
                    self.t_seen = now
                elif (self.state == _MOVING or self.state == _SETTLING) and self.in_blind_since >= 0:
                    # So with a marble followed into the arc its silence left: the arc is
                    # seen again from now, and the marble is not lost by its coming back
                    # (a flick at 270 deg/s through intermittent sensor 2's arc, read once by
                    # sensor 3 beyond it, was called off the ring 24 ms after sensor 2
                    # answered again: intermittent:2, seed 3, flick 889)
                    self.gb_t = now
        self.last_seen[i] = now
        if rng < hal.RANGE_OUT_OF_RANGE and (status == hal.STATUS_SIGNAL_FAIL or status == hal.STATUS_PHASE_FAIL
                                             or status == hal.STATUS_SIGMA_FAIL):
            # A failed measurement with a range in it: garbled (nothing there reads 8190
            # or 8191). It says nothing of where the marble is, not even that it is
            # absent: a marble followed into this window is not lost by it (sensor 1 gave
            # two such as a flick crossed its window out of dead sensor 2's arc, and the
            # marble was called off the ring 8 ms before its next reading found it:
            # dead:2, seed 1, flick 471, with the datasheet's signal constant)
            if (self.state == _MOVING or self.state == _SETTLING) and self._in_view(i, wrap(self._predict(now))):
                self.gb_t = now
            return
        if status == hal.STATUS_HARDWARE_FAIL:
            self._fault(i, FAULT_HARDWARE)
            return
        valid = status == hal.STATUS_VALID and rng < hal.RANGE_OUT_OF_RANGE
        if valid and rng == self.last_r[i]:
            # the very same range again: a marble at rest scatters a little, a stuck sensor not
            if self.same_n[i] < 255:
                self.same_n[i] += 1
            # ... and the very same signal rate too: a working sensor's scatters by its shot
            # noise (1 %: +-6 at 5 MCPS) even from a marble at rest, a stuck one's is its
            # last bytes again (a fresh board took stuck sensor 9's one value for a marble at
            # rest, so never flagged it; the marble, flicked in front of sensor 10, got no
            # verdict: stuck:9, seed 3, flick 599)
            if sig >= 0 and sig == self.last_g[i]:
                if self.same_g[i] < 255:
                    self.same_g[i] += 1
            else:
                self.same_g[i] = 0
        else:
            self.same_n[i] = 0
            self.same_g[i] = 0
            self.last_r[i] = rng if valid else -1
        self.last_g[i] = sig & 0xFFFF if sig >= 0 else 0    # (register 0x1A is 16 bits)
        if sig >= 0:
            if self._background(now, i, rng, status, valid, sig):
                if self.miss[i] < 255:
                    self.miss[i] += 1
                if self.same_n[i] >= _STUCK_N:
                    self._fault(i, FAULT_STUCK)   # no empty ring returns one range so steadily
                return
            if valid:
                rng = self._unblend(i, rng, sig)
                if rng < 0:
                    return
        if valid and (sig < 0 or self.bg_n[i] >= _BG_WARM // 2):
            # the marble's own range, for calibration: only once the empty ring is learnt
            # (before, its blend is still in: 2-4 mm, fitted into a sensor's offset for good)
            self.own = rng
        ang = -1
        if valid:
            ang = self.ring.reading_angle(i, rng)
            self.rsig = 0
            self.sg_in = sig
            if sig >= 0 and 0 <= rng < self.ring.range_max:
                tab = self.ring.offset_table
                self.rsig = self.sigma_mm16(sig) * (tab[rng + 1] - tab[rng]) // 16
                sb = self.sb_out
                if sb:
                    # taking the background out scales the reading's noise by s / (s - s_b):
                    # x1.2 at a window's far end, x1.8 at the signal limit
                    self.rsig = self.rsig * sig // (sig - sb)
        if ang >= 0:
            self.miss[i] = 0
        elif self.miss[i] < 255:
            self.miss[i] += 1
        if self.same_n[i] >= _STUCK_N and not self.faulty[i] and (self.same_g[i] >= _STUCK_N or not (
                self.state == _REST and ang >= 0
                and -_MOVE_T < sdiff(ang, wrap(self.rest)) < _MOVE_T)):
            # The very same range again and again while the marble is elsewhere, or moves:
            # a stuck sensor. (A steady reading of a marble at rest is no fault.)
            self._fault(i, FAULT_STUCK)
        if self.faulty[i]:
            self._trust(now, i, ang)
            if self.faulty[i]:
                return
            # trusted again with this reading: it is the marble's too (a sensor back from a
            # loose contact may be the only one that sees it, in the arc its silence left)
        if ang < 0:
            if status == hal.STATUS_MIN_RANGE_FAIL and sig >= _NEAR_SIG:
                if self.state != _NONE:
                    self._near(now, i, rng)
                    if self.state == _REST and self.armed:
                        self._front(now, i, rng)
                else:
                    self._front(now, i, rng)
            elif valid and self.state == _REST and sig >= 4 * self.bg_sig[i] > 0 \
                    and rng <= self.ring.range_max + 25:
                # A bright reading just past the far end of a window whose last degrees
                # hold the rest point: the marble, read a little long (its blend taken out,
                # a faint one at 45 deg reads 2-3 mm past the window), not gone. (With the
                # only other sensor flagged noisy, such readings left the rest unseen and an
                # armed rest became a phantom flick into the blind arc: noisy:2 idle, 419 s.)
                r = self.ring
                off = ((wrap(self.rest) - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
                if r.view_max[i] - 300 <= off <= r.view_max[i] + 300:
                    self.t_seen = now
            elif valid and self.state == _NONE and self.blind_a >= 0 and self.armed \
                    and sig >= 2 * self.bg_sig[i] > 0:
                # Past the far end of a window, twice as bright as the empty ring, with a
                # flick due from a blind landing and no track: a marble coming out of the
                # arc that way, not yet in the window (bl_new, _settle)
                self.bp_i = i
                self.bp_t = now
            return
        st = self.state
        # the reading's brightness, signal x range^2 (a marble returns about the same from
        # anywhere in a window; scaled so that it stays a small int)
        self.rk = (sig * rng // 64) * rng // 64 if sig >= 0 and rng < 256 else -1
        # (... or a track whose signal has not moved for _SG_STEADY, once it was seen to
        # move in this track: a marble in view that moves changes its distance, and so its
        # signal; a noisy sensor's ranges alone drove the track about at 30-120 deg/s for
        # 27 s, its signal steady at 185 +- 3: noisy:2, seed 2, flick 36. A signal that
        # never moved says nothing: the ideal model's is one value everywhere)
        if (st == _REST or (st != _NONE and (-_NOISE_V < self.vel < _NOISE_V or (
                self.sg_way and tdiff(now, self.sg_cut) > _SG_STEADY)))) and self._noise(now, i, ang):
            return
        if self.in_blind_since >= 0 and (st == _MOVING or st == _SETTLING):
            if not self._from_blind(now, ang):
                return   # a stray reading far from the blind arc the marble is in
        if st == _NONE:
            if 0 <= self.rk and self.k_var >= _K_LIVE and self.rk * _DIM_K < self.k_rest:
                # far dimmer than the marble was at its last rest: not the marble (a
                # plausible range at 1 MCPS, a twentieth of it, was found as the marble
                # leaving stuck sensor 5's arc, and the flick was lost: stuck:5, seed 2,
                # flick 388; one a fourteenth of it made the chain of a marble leaving stuck
                # sensor 2's arc run the wrong way: stuck:2, seed 2, flick 214; both with
                # the datasheet's signal constant)
                return
            if self.blind_a >= 0 and self.armed and not self.bl_dir:
                self._left_blind(now, ang)
            self._acquire(now, self._far_run(now, i, ang, sig))
            if self.state != _NONE:
                # found. If only one sensor's one value says so, a stuck sensor may have
                # made it up: remember which, until another sensor sees it (_fault)
                self.acq_i = i if self.same_n[i] >= 2 else -1
                # (found where it landed blind is not out of the arc, wherever the arc is: set
                # down at a window's far fringe beside noisy sensor 2's arc, landed blind 4 deg
                # out of it, it was taken for a flick when found again 0.3 deg on; idle phantom)
                if self.blind_a >= 0 and self.armed and not self._in_arc(self.blind_a, wrap(self.pos)) \
                        and not -_BL_FOUND < sdiff(wrap(self.pos), self.blind_a) < _BL_FOUND:
                    # it rested in a blind arc, and the flick that was due took it out
                    # unseen: that flick, from where it landed blind, the way it was seen
                    # leaving the arc (too fast to be found on the way); not seen: the
                    # shorter way
                    if self.bl_dir:
                        self.start = self.pos - self.bl_dir * wrap((self.pos - self.blind_a) * self.bl_dir)
                    else:
                        self.start = self.pos - sdiff(self.pos, self.blind_a)
                    self.flicked = True
                    self.self_start = False
                    self.dir = 1 if self.pos > self.start else -1
                    self.turns = 0
                    self.ext = self.pos
                    self.ext_t = now
                    self.tp_last = self.start
                    self.tp_t = now
                    if self.bl_dir:
                        self._event(EV_MOVING, self.blind_a, self.dir, 0, 0, 0, 0)
                    else:
                        # not seen leaving: found wherever it first slowed enough to be
                        # read. The way it is going there is the way the flick took it (the
                        # shorter way is only a guess): decided once it moved _BW_D (_bw_way)
                        self.bw_from = self.blind_a
                        self.bw_a = self.pos
                elif self.blind_a >= 0 and self.armed:
                    self.bl_was = self.blind_a   # found at the arc's edge: where it rests decides
                    # (... and came into this window from past its far end, just now: a
                    # marble set down by hand there is read where it rests, at once)
                    self.bl_new = self.bp_i == i and tdiff(now, self.bp_t) < 300
                    # (bf_t: when, put later by this reading's sigma: _SET_K)
                    g = self.rsig if self.rsig < _SET_SIG else _SET_SIG
                    self.bf_t = tadd(now, g * _SET_K // 100)
                    self.bw_a = wrap(self.pos)   # (and where it was found: _settle)
                self.blind_a = -1
                self.bl_dir = 0
                self.bl_a = -1
        elif st == _REST:
            if i != self.acq_i and -_MOVE_T < sdiff(ang, wrap(self.rest)) < _MOVE_T:
                self.acq_i = -1
            self._at_rest(now, i, ang)
        else:
            self._track(now, i, ang)
            if self.bw_from >= 0:
                self._bw_way(False)
            if self.redo and self.armed and self.state == _MOVING and (not (
                    -2 * _SELF_V < self.vel < 2 * _SELF_V) or (
                    not -_SELF_V < self.vel - self.arm_v < _SELF_V
                    and not -_FLICK_MIN < self.sm - self.arm_x < _FLICK_MIN)):
                if -2 * _SELF_V < self.vel < 2 * _SELF_V:
                    self.pos = self.arm_x   # (found late: it was hit where it was at the arm)
                self._hit_moving_on(now)
            if self.t_seen == now:
                self.rd_a = ang   # the last reading the track took (_near_blind)
                if self.in_blind_since >= 0 and not self._at_arc(ang):
                    self.in_blind_since = -1   # seen, out of the blind arc

    def _background(self, now, i, rng, status, valid, sig):
        """Learn sensor i's empty-ring background while nothing moves and the marble is not
        in its window; True if this reading is background (not the marble)."""
        st = self.state
        n = self.bg_n[i]
        known = n >= _BG_WARM // 2 and self.bg_valid[i] >= _BG_VALID
        if st == _MOVING or st == _SETTLING:
            learn = False
        elif st == _NONE:
            # the ring is known to be empty once the marble was seen to go (taken off, off
            # the ring: calibration lifts it between spaces); at boot it may lie anywhere
            learn = self.empty
        else:    # at rest: learn when the rest point lies well outside this sensor's window
            r = self.ring
            off = ((self.rest - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
            learn = off < r.view_min[i] - _BG_AWAY or off > r.view_max[i] + _BG_AWAY
            if learn and self.dev_n and tdiff(now, self.dev_t) < _CHAIN_MS:
                learn = False    # a reading away from the rest point just now: it may roll
            if learn and valid and (off < r.view_min[i] - _BG_AWAY
                                    or off > r.view_max[i] + _SAT_PAST + _BG_AWAY) \
                    and not (known and self._bg_like(i, rng * 16 - self.bg_r16[i], sig)) \
                    and self._changed(i, rng, sig):
                n = 0
                known = False
        if learn:
            if valid:
                d = rng * 16 - self.bg_r16[i]
                if known and not self._bg_like(i, d, sig):
                    learn = False          # the marble (or a hand), not the ring
                elif not n and sig > _BG_SIG_MAX:
                    # nothing learnt yet, and brighter than an empty cone returns: the marble
                    # (a fresh board: stuck sensor 5's one value taken for the rest, sensor 6
                    # learnt the marble it saw 35 deg away as its background, and the marble
                    # was called off the ring; stuck:5, seed 1, flick 11)
                    learn = False
                elif n and not known and sig > 4 * _BG_SIG_MIN and (
                        sig * 4 >= self.bg_sig[i] * _CONTRAST_Q
                        or (self.bg_valid[i] >= _BG_VALID
                            and not -_DEPART_MM * 16 < d < _DEPART_MM * 16)) and not (
                        self.k_var >= _K_LIVE and rng < 256
                        and (sig * rng // 64) * rng // 64 * _DIM_K < self.k_rest):
                    # Still learning, but a bright return where the cone has so far seen a
                    # dimmer ring (or nothing), or a range the ring has not returned: the
                    # marble, rolling in from a rest the tracker has not yet seen it leave.
                    # (Learnt and kept back as background, it would starve the track.) Not
                    # one far dimmer than the marble (signal x range^2): a knocked sensor's
                    # floor, 1.1-1.7 MCPS at 40-55 mm with the datasheet's signal constant,
                    # is bright but no marble; kept from the learning, it was never found
                    # knocked, and held rests the marble had left (misaimed:2, seed 2)
                    learn = False
            elif status != hal.STATUS_SIGNAL_FAIL and status != hal.STATUS_PHASE_FAIL:
                learn = False              # min-range, sigma fails: something close, not the ring
            elif sig > 4 * _BG_SIG_MIN:
                learn = False
        if n and self.k_var < 16:
            b = self.bg_sig[i]
            if sig != b and 4 * (sig - b if sig > b else b - sig) < b:
                # A rate near the empty ring's that is not the same (a signal fail's too)
                # scatters a little as a real sensor's does (shot noise), never the ideal
                # model's: the signal says how bright things are, and says it within a
                # round of every boot, before the marble has rested 8 times, or at all
                # (knocked while off, the marble lifted and set down: misaimed:5, seed 1,
                # flick 0). (Whether or not it is learnt: at boot nothing is.)
                self.k_var += 1
        if learn:
            v = 255 if valid else 0
            if n < _BG_WARM:
                n += 1
                self.bg_n[i] = n
                self.bg_sig[i] += (sig - self.bg_sig[i]) // n
                self.bg_valid[i] += (v - self.bg_valid[i]) // n
                if valid:
                    if self.bg_r16[i] == 0:
                        self.bg_r16[i] = rng * 16
                        self.bg_vsig[i] = sig
                    self.bg_r16[i] += (rng * 16 - self.bg_r16[i]) // n
                    self.bg_vsig[i] += (sig - self.bg_vsig[i]) >> 2
                if n == _BG_WARM:
                    self.kv[i] = _KV_RANGE if self.bg_valid[i] >= _BG_VALID // 2 else 0
            else:
                self.bg_sig[i] += (sig - self.bg_sig[i]) >> _BG_SHIFT
                self.bg_valid[i] += (v - self.bg_valid[i]) >> _BG_SHIFT
                if valid:
                    self.bg_r16[i] += (rng * 16 - self.bg_r16[i]) >> _BG_SHIFT
                    self.bg_vsig[i] += (sig - self.bg_vsig[i]) >> _BG_SHIFT
            if learn and st == _REST and n >= _BG_WARM and self.kv[i] != _KV_RANGE \
                    and not self.knocked[i] and (
                    off < r.view_min[i] - _BG_AWAY or off > r.view_max[i] + _SAT_PAST + _BG_AWAY):
                # An empty cone that returned a range under a quarter of the time when its
                # background was learned, now returns one inside its window (short of its
                # last 10 degrees, where a healthy cone's faint far wall may show) most of the
                # time while the marble rests far from it: it sees the wall or the floor,
                # knocked off its aim. Its faint, scattered wall returns never made the
                # steady new return that _changed looks for; the slow average took them in
                # (misaimed:9, seeds 1 and 3: valid 0 % -> 88 % in 20 flicks), the near
                # part of its window that still saw the marble earned it trust again, and
                # marbles it did not see further on were called off the ring.
                q = self.kv[i]
                a = r.reading_angle(i, rng) if valid else -1
                if a >= 0 and ((a - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN \
                        <= r.view_max[i] - 1000:
                    q += (255 - q + 15) >> 4
                else:
                    q -= (q + 15) >> 4
                self.kv[i] = q
                if q >= _BG_VALID:
                    self._knock(i)
        if valid and learn and n < _BG_WARM:
            return True    # still learning what this cone sees of the empty ring
        if not valid or n < _BG_WARM // 2 or self.bg_valid[i] < _BG_VALID:
            return False   # no background that returns a range: any valid reading may be it
        # The background returns a range: the marble shows as a departure from it, in range
        # or in signal. A reading that looks like the background is the background.
        if self._bg_like(i, rng * 16 - self.bg_r16[i], sig):
            return True
        return learn and st == _NONE and sig * 4 < self.bg_sig[i] * _CONTRAST_Q

    def _near_mm16(self, sig):
        """How far (mm * 16) a range with signal rate sig may scatter from another of the
        same thing: _DEPART_MM, or 4 sigma of a faint return (at the signal limit a wall's
        ranges scatter by 10 mm and more)."""
        t = 4 * self.sigma_mm16(sig)
        return t if t > _DEPART_MM * 16 else _DEPART_MM * 16

    def _bg_like(self, i, d16, sig):
        """Does a valid reading d16 (mm * 16) from sensor i's background range, with signal
        rate sig, look like the background? Near its range, and not much brighter than it
        is when it returns a range (a wall seen half the time returns 0.6 MCPS where the
        mean of all its readings, the failed ones too, is 0.15)."""
        b = self.bg_vsig[i] if self.bg_vsig[i] > self.bg_sig[i] else self.bg_sig[i]
        t = self._near_mm16(b)
        return -t < d16 < t and sig * 4 < b * _CONTRAST_Q

    def _changed(self, i, rng, sig):
        """A valid reading of sensor i that is not its background, while the marble rests
        far from its window (and past where a sliver of it still shows): has the background
        changed? A sensor knocked off its aim sees the wall: a return the empty ring did not
        give, at every rest, which must not stay "the marble" for ever. _BG_NEW such
        readings alike, across two rests _BG_MOVED apart or more: learn the background
        again from this reading on. True when it starts again."""
        t = self._near_mm16(sig) >> 4
        if self.nb_n[i] and -t < rng - self.nb_r[i] < t:
            if self.nb_n[i] < 255:
                self.nb_n[i] += 1
            if abs(sdiff(wrap(self.rest), self.nb_rest[i])) > _BG_MOVED:
                self.nb_two[i] = 1
        else:
            self.nb_n[i] = 1
            self.nb_r[i] = rng
            self.nb_rest[i] = wrap(self.rest)
            self.nb_two[i] = 0
        if self.nb_n[i] < _BG_NEW or not self.nb_two[i]:
            return False
        self.nb_n[i] = 0
        self.bg_n[i] = 0
        self.bg_r16[i] = 0
        self.bg_sig[i] = 0
        self.bg_vsig[i] = 0
        self.bg_valid[i] = 0
        self.relearned += 1
        self._knock(i)
        return True

    def _knock(self, i):
        # A cone that now sees the wall was knocked off its aim: what it makes of the marble
        # is at the wrong angle, or nothing, where the ring counts on it. Not trusted again
        # until the ring is calibrated again (bring-up: re-aim).
        self.knocked[i] = 1
        if not self.faulty[i]:
            self._fault(i, FAULT_NONSENSE)

    def save_background(self, sv):
        """Each sensor's learnt empty ring into sv (Ring.bg_saved, four ints a sensor), for
        calsave: a board booted from its saved calibration starts from it. Not a sensor's
        still learning, or found knocked or faulty (what it sees is no empty ring)."""
        for i in range(self.n):
            if self.bg_n[i] >= _BG_WARM and not self.knocked[i] and not self.faulty[i]:
                sv[4 * i] = self.bg_r16[i]
                sv[4 * i + 1] = self.bg_sig[i]
                sv[4 * i + 2] = self.bg_vsig[i]
                sv[4 * i + 3] = self.bg_valid[i]

    def _unblend(self, i, rng, sig):
        """The marble's own range from a reading that blends it with the background: the
        device reports the signal-weighted mean of what its cone sees, so with the learned
        background (range rb, signal sb) and the reading's total signal s,
            r = (s_m r_m + sb rb) / s,  s_m = s - sb   ->   r_m = (s r - sb rb) / (s - sb).
        Returns -1 when the marble's part is too weak to say (under the background's)."""
        self.sb_out = 0
        if self.bg_n[i] < _BG_WARM // 2:
            return rng
        # (a raw range past the table's end is un-blended too: calibration can take it back
        # into a window. Left blended, sensor 11's empty wall at the signal limit, lifted by
        # the marble at its cone's edge, read 158 mm -> 34 deg, a marble at its window's end:
        # on a board booted from its saved calibration, a phantom flick out of noisy sensor
        # 0's arc. Un-blended, the marble's part is under half the wall's: nothing)
        sb = self.bg_sig[i]
        if sb <= 0:
            return rng          # the empty ring returns no light: nothing blended in
        if self.bg_valid[i] >= _BG_VALID:
            rb = self.bg_r16[i] >> 4
        else:
            # a background too faint to range on its own still puts its light in the
            # reading: at the distance the design gives (ring.json mount.background_mm)
            rb = self.ring.bg_mm
            if not rb:
                return rng
        sm = sig - sb
        if sm * 2 < sb:
            return -1
        self.sb_out = sb
        # (in mm, so every product stays a small int: sig < 2^16, ranges < 2^13)
        rm = (sig * rng - sb * rb) // sm
        return rm if rm > 0 else 0

    def sigma_mm16(self, sig):
        """One reading's range sigma (mm * 16) from its signal rate (9.7 MCPS), never below
        the ring's reading_sigma floor: ST's estimator, pulse width over root photon count."""
        c = sig * self.ring.budget_ms // 64 * 375   # photons: sig/128 * budget * 750
        if c <= 0:
            return 16 * 1000
        return _PULSE_MM * 16 // (isqrt(c) + 1)

    def tick(self, now):
        """Called every loop: time-outs (marble lost, sensors silent). Cheap when nothing is due."""
        if tdiff(now, self.next_tick) < 0:
            return
        self.next_tick = tadd(now, _TICK_MS)
        self.tick_t = now
        faulty = self.faulty
        seen = self.last_seen
        for i in range(self.n):
            if not faulty[i] and ((now - seen[i] + _TH) & _TM) - _TH > _SILENT_MS:
                self._fault(i, FAULT_SILENT)
        st = self.state
        if st == _MOVING or st == _SETTLING:
            gap = tdiff(now, self.t_seen)
            if gap < 60:
                return  # seen just now: nothing can have timed out
            if (self._blind_path(self.seen, self._predict(now)) or (gap > _LOST_MS and self._near_blind())
                    or self._fringe()) and not self._through_blind(gap):
                # in a blind region (or lost, slow, next to one): sensors cannot see it
                # there, so absence proves nothing yet
                if self.in_blind_since < 0:
                    self.in_blind_since = now
                if tdiff(now, self.in_blind_since) > _BLIND_MS:
                    self._land_blind(now)
                return
            self.in_blind_since = -1
            if gap > _LOST_MS and self.miss_n >= 2 and tdiff(now, self.miss_t) < _CHAIN_MS:
                # Lost from the track, but its last readings, off its gate, agree with each
                # other and with where it was last seen at a speed a marble can have: it is
                # there. (An armed flick from a settling marble left the gate; the sensors
                # that saw it go gave two readings before the track was given up.)
                far = 300 + tdiff(self.miss_t0, self.t_seen) * 60
                if -far < self.miss_x0 - self.seen < far:
                    self._jump(now, self.miss_x, self._chain_v(self.miss_x, self.miss_t))
                    self.seen = self.miss_x
                    self.t = self.miss_t
                    self.t_seen = self.miss_t
                    self.miss_n = 0
                    self.mb_n = 0
                    return
            if gap > _LOST_MS and self.gb_t >= 0 and tdiff(now, self.gb_t) < _CHAIN_MS and gap < _BLIND_MS:
                return    # a sensor that should see it there just gave a garbled reading
            if gap > _LOST_MS:
                if self.arm_s and not self.flicked:
                    e = self.sm - self.arm_x
                    s = 1 if e > 0 else -1
                    if e * s > _FLICK_MIN and self.vel * s > _SELF_V + self.arm_v * s:
                        # Armed while it settled, and it went on 3 deg from there at
                        # 20 deg/s more than it rolled then: the flick came, and the track
                        # had not yet taken it for one (it does at 10 deg from where it
                        # was found). A gentle flick of a marble still settling from the
                        # flick before, lost at 47 deg/s between two windows, was called
                        # off the ring (seed 8, flick 259). From here it is a flick.
                        self.flicked = True
                        self.start = self.arm_x
                        self.dir = s
                        self.ext = self.sm
                        self.ext_t = now
                        self.tp_last = self.start
                        self.tp_t = now
                        self._event(EV_MOVING, wrap(self.start), s, 0, 0, 0, 0)
                # gone while rolling: off the ring if it was flicked, or if the host had
                # armed a flick (a marble still settling from being set down is flicked off)
                if self.flicked and not self.redo and (self.trk_n >= 3 or (self.trk_n >= 2 and self.chain3)) \
                        and -_LEAVE_V < self.vel < _LEAVE_V:
                    # ... but a marble leaves the ring only fast (it rides up the wall at
                    # 1.5 m/s, 480 deg/s): this one, followed slow, rests unseen a little
                    # further on (a sensor that should see it there does not: knocked off
                    # its aim). (A track that was never followed knows no speed.)
                    # It may yet show: lost where one sensor's minimum range and the next
                    # one's faint far fringe meet, a slow marble is unseen for 300 ms and
                    # more, then seen again as it slows further on. So it is followed until
                    # it must have stopped (the track's gate widens meanwhile), and only
                    # then lands blind, over as far as it can have rolled.
                    # (A start from a chain of three and two readings since is followed
                    # too: a flick at 39 deg/s, read so, then lost between two windows,
                    # was called off the ring; level, seed 8, flick 259.)
                    v = self.vel if self.vel > 0 else -self.vel
                    if gap < _LOST_MS + v * 1000 // _DECEL and gap < _BLIND_MS:
                        return
                    reach = _NEAR_BLIND + v * v // (2 * _DECEL)
                    self._land_blind(now, reach if reach < 9000 else 9000)
                    return
                if (st == _MOVING and self.flicked) or self.armed:
                    self._event(EV_OFF_RING, wrap(self.pos), self.pos - self.start, 0, 0, 0, 0)
                else:
                    self._event(EV_LOST, wrap(self.pos), 0, 0, 0, 0, 0)
                self.state = _NONE
                self.cand = -1
        elif st == _REST:
            if tdiff(now, self.t_seen) > _LOST_MS and self.cover[wrap(self.rest) // 100]:
                dim = self.dev_n >= 2 and not self.armed and self._dimmer(self.dev_k)
                if dim:
                    # no flick due, and a chain of readings away from it far dimmer than
                    # the marble: a knocked cone's floor, not where it went (_at_rest)
                    self.dev_n = 0
                if self.dev_n >= 2 and tdiff(now, self.dev_t) < _LOST_MS:
                    # Gone from the rest point, but readings elsewhere keep agreeing that
                    # it moved that way: it is rolling where fewer sensors see it (a chain
                    # that never reached three), not off the ring. Follow it from there.
                    # (A healthy sensor other than the chain's that looks at the rest point
                    # and no longer sees the marble there corroborates one sensor's chain.)
                    self._start_moving(now, self.dev, self._left_others())
                    return
                if self.dev_n and tdiff(now, self.dev_t) < _CHAIN_MS:
                    return    # one reading away from it, just now: the next may confirm a roll
                if self._rest_unseen(now):
                    return
                if self.armed or (not dim and tdiff(now, self.dev_t) < _LOST_MS + 200
                                  and tdiff(self.dev_t, self.t_seen) > -50):
                    # it was seen moving away just before it vanished: flicked off the ring
                    # before the track could follow it
                    self._event(EV_OFF_RING, wrap(self.rest + self.dev), self.dev, 0, 0, 0, 0)
                else:
                    self._event(EV_LOST, wrap(self.rest), 0, 0, 0, 0, 0)
                self.state = _NONE
                self.cand = -1

    def _blind_path(self, a, p):
        # Is any of the track from a to p (cd, unwrapped; at most 120 deg) blind? From where
        # the marble was last seen to where it is predicted to be: its absence proves
        # nothing yet. Between two readings off the track: it crossed unseen (_miss).
        step = 100 if p >= a else -100
        n = (p - a) // step
        if n > 120:
            n = 120
        cov = self.cover
        for _j in range(n + 1):
            if cov[wrap(a) // 100] == 0:
                return True
            a += step
        return False

    def recalibrated(self, now):
        """A sensor's calibration changed: readings of a resting marble shift with it, which
        must not look like a flick. Find the rest point again, quietly. (And a sensor knocked
        off its aim may have been re-aimed: it may earn trust again.)"""
        for j in range(self.n):
            if self.knocked[j]:
                # re-aimed, maybe: what its cone sees of the empty ring is learned afresh
                self.knocked[j] = 0
                self.bg_n[j] = 0
                self.bg_r16[j] = 0
                self.bg_sig[j] = 0
                self.bg_vsig[j] = 0
                self.bg_valid[j] = 0
        if self.state == _REST:
            self.state = _SETTLING
            self.pend = False
            self.hold_t = -1
            self.pos = self.rest
            self.sm = self.rest
            self.seen = self.rest
            self.start = self.rest
            self.vel = 0
            self.t = now
            self.t_seen = now
            self.flicked = False
            self.quiet = True
            self.wn = 0

    def arm(self, on=True):
        """The host expects a flick now: a marble that vanishes from rest went off the ring
        (without this, it may have been picked up)."""
        if on and self.armed and (self.state == _MOVING or self.state == _SETTLING) \
                and tdiff(self.tick_t, self.arm_t) > _STALE_MS:
            # Armed again over a flick armed long ago that has had no verdict: the host gave
            # that flick up (it left the ring unseen), and the marble the track follows was
            # set back by hand. From here it is a marble set down: where it rests it was put,
            # and a flick of it is the new one (set back after a missed off-ring, found as
            # that flick still rolling, it was landed 8 ms after the next arm, and taken for
            # the next flick's landing: misaimed:2, seed 3, flick 198, calibrated twice
            # round; or carried on by the next flick, and that flick's landing was the set
            # back marble's: dead:2 seed 3 flick 198 and misaimed:2 seed 1 flick 536,
            # before the boot)
            self.flicked = False
            self.redo = False
            self.revise = -1
            self.bw_from = -1
            self.start = self.sm
        if on:
            self.arm_t = self.tick_t
        self.armed = on
        # a marble still settling (found again, not yet still) when the flick is due: where
        # and how fast it rolled then, so a flick of it can be told from its settling
        self.arm_s = on and self.state == _SETTLING and not self.flicked
        self.arm_x = self.sm
        self.arm_v = self.vel

    def focus(self):
        """The sensor that alone sees the marble while it rests or rolls slowly (the schedule
        then ranges it more often: ringfw.sched), or -1."""
        st = self.state
        if self.armed and st != _NONE and tdiff(self.tick_t, self.t_seen) > _FOCUS_GAP:
            # the one sensor has not seen it for a while: it may be leaving through a
            # neighbour's window, which the focus leaves unread for up to 290 ms (an armed
            # flick from a settling marble crossed sensor 4's window unseen, and was called
            # off the ring before sensor 3's readings made a chain)
            return -1
        if st == _REST:
            if self.dev_n:
                return -1     # a reading away from the rest point: every sensor must look
            a = self.rest
        elif (st == _SETTLING or st == _MOVING) and -_FOCUS_V < self.vel < _FOCUS_V \
                and not self.turns and not self.tilted:
            a = self.pos      # (not on a ring that swings: a turning point is not a rest)
        else:
            return -1
        return self.solo[wrap(a) // 100] - 1

    def rest_angle(self):
        """The marble's rest angle (cd), or -1 when it is not known to be at rest."""
        return wrap(self.rest) if self.state == _REST else -1

    def moving(self):
        """True while a flicked marble rolls (not while a marble just set down settles)."""
        return self.state == _MOVING or (self.state == _SETTLING and self.flicked)

    # ----- states -----
    def _far_run(self, now, i, ang, sig):
        """A marble at a window's far fringe fills a sliver of the cone: one sensor reads it
        faint, scattered by +-3 deg, every other budget, so three readings rarely fall within
        3 deg in 200 ms and it was never found there (set down unseen at 90 deg after an
        off-ring, then flicked from there into a blind arc: no verdict; stuck:2, seed 1,
        flick 621). A run of _FG_N readings of one sensor, all in its window's last 10 deg,
        all at one signal rate (a marble at rest returns the same; within 1/8), none _FG_GAP
        after the last, is it too: at their mean, if no other sensor read anything within
        20 deg meanwhile. Only on a ring the marble left (off the ring, or lifted: a marble
        set down unseen). Returns the angle to acquire with (the mean, as a third agreeing
        reading: _acquire), or ang."""
        if not self.empty or self.blind_a >= 0 or sig <= 0:
            return ang    # (a marble known on the ring, or landed blind: found as before)
        if i != self.fg_i and self.fg_i >= 0 and -2000 < sdiff(ang, self.fg_m) < 2000:
            # another sensor reads something near: not the fringe's alone. (A marble just past
            # a window's end pins that sensor's faint readings short, in its fringe, while the
            # next one reads it brightly: set down at 309 deg in calibration, it was found
            # 11 deg short, and a healthy sensor 9 was flagged noisy.)
            self.fg_i = -1
            return ang
        r = self.ring
        off = ((ang - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
        if off < r.view_max[i] - 1000:
            return ang
        if i == self.fg_i and tdiff(now, self.fg_t) < _FG_GAP and 8 * abs(sig - self.fg_s) <= self.fg_s:
            self.fg_n += 1
            self.fg_m = wrap(self.fg_m + sdiff(ang, self.fg_m) // self.fg_n)
            self.fg_t = now
            if self.fg_n < _FG_N:
                return ang
            self.fg_i = -1
            self.cand = self.fg_m
            self.cand_t = now
            self.cand_n = 2
            self.cand_k = -1
            return self.fg_m
        if i != self.fg_i and self.fg_i >= 0 and tdiff(now, self.fg_t) < _FG_GAP:
            return ang    # another sensor's run goes on
        self.fg_i = i
        self.fg_m = ang
        self.fg_n = 1
        self.fg_t = now
        self.fg_s = sig
        return ang

    def _acquire(self, now, ang):
        # three readings within 3 degrees and 200 ms: a marble, not stray readings
        v = 0
        s0 = ang
        if self.cand >= 0 and tdiff(now, self.cand_t) < 200 and abs(sdiff(ang, self.cand)) < 300:
            self.cand_n += 1
            if self.rk > self.cand_k:
                self.cand_k = self.rk
            if self.cand_n < 3:
                return
        else:
            if self.cand >= 0 and tdiff(now, self.cand_t) < 200 and 0 <= self.rk \
                    and self.rk * _DIM_K < self.cand_k:
                # Far dimmer than the young candidate elsewhere: keep that one. (A sensor
                # knocked while the board was off sees the floor in its window, a steady
                # return at 1.1 MCPS, and the marble at rest elsewhere returns 16: the two
                # alternated and reset the candidate 317 times in 9 s, and the floor was then
                # taken for the marble - misaimed:2, seed 3, faults before the boot.)
                return
            self.cand = ang
            self.cand_t = now
            self.cand_n = 1
            self.cand_k = self.rk
            if not self.armed or (self.blind_a < 0 and not self.empty):
                return
            # A flick is due from a blind arc: the marble leaving it fast is read by one
            # sensor after another, never three times in 3 degrees. Three readings that
            # agree as a rolling marble's (the track's chain, _miss) are it, moving. (A
            # flick once round the ring, back into the arc it left, was never found on
            # the way and got no verdict: dead:9, seed 3, flick 158, 356 deg.) So is a flick
            # due with the ring empty: the marble was set down where no sensor sees it and
            # flicked from there (into stuck sensor 2's arc after an off-ring, then once round
            # the ring: taken for a marble set down at 134 deg; stuck:2, seed 2, flick 153).
            x = ang
            if self.miss_n and tdiff(now, self.miss_t) < 2 * _CHAIN_MS:
                x = self.miss_x + sdiff(ang, wrap(self.miss_x))
            self._miss(now, x)
            if self.miss_n < 3:
                return
            v = self._chain_v(x, now)
            if self.blind_a >= 0 and not -_OUT_V < v < _OUT_V:
                # The marble leaves the arc it rests in going away from it: a fast chain
                # that runs back towards the arc and whose last step runs away began with
                # a stray, however fast that step (a floor reading 72 deg on, then the
                # marble out of the arc at 168 deg/s: taken at -137, run back into the
                # arc, and landed blind there while it rolled on to 10 deg; misaimed:5,
                # seed 3, flick 987, knocked while off). Not a slow one: it is found where
                # it slows (a chain at +6 deg/s made a flick of a -27 deg/s step, and a
                # marble creeping out was landed blind on the wrong space; misaimed:2,
                # seed 1, flick 536, before boot)
                vb = self._step_v(x, now)
                d = sdiff(wrap(x), self.blind_a)
                if (v < 0 < vb and d > 0) or (vb < 0 < v and d < 0):
                    v = vb
            if -_OUT_V < v < _OUT_V:
                return    # slow: found where it slows, as before (_settle, bl_was)
            self.miss_n = 0
            self.mb_n = 0
            ang = x
            # (from an empty ring, the flick began before the chain's first reading, at
            # best: there, not at its last)
            s0 = self.miss_x0 if self.empty else x
        self.state = _SETTLING
        self.rest_m = 0
        if self.k_rest <= 0 and self.cand_k > 0:
            # the marble's brightness until it rests: that of the readings that found it (at
            # a boot, lifted before it had rested, the knocked floor it was set down far
            # from was taken for it: misaimed:2, seed 3, flick 0, knocked while off)
            self.k_rest = self.cand_k
        self.empty = False
        self.sg_way = 0
        self.pend = False
        self.hold_t = -1
        self.pos = ang
        self.sm = ang
        self.seen = ang
        self.vel = v
        self.t = now
        self.t_seen = now
        self.start = s0
        self.flicked = False
        self.arm_s = False
        self.chain3 = False
        self.wn = 0
        self.fast_t = now
        for j in range(self.n):
            if self.nz_rest[j] == -2:
                # a slow track's offsets belong to that track alone: not to one found anew
                # (sensor 6's, learnt 9.6 deg off on a track 20 s before, held every reading
                # of a marble settling in its window off the band, and the healthy sensor
                # was flagged noisy: dead:5, seed 2, flick 355, datasheet's signal constant)
                self.nz_rest[j] = -1
        self._push(now, ang)

    def _at_rest(self, now, i, ang):
        d = sdiff(ang, wrap(self.rest))
        lim = 3 * self.rsig       # a faint reading (far in the window) scatters more
        if lim < _MOVE_T:
            lim = _MOVE_T
        elif lim > 2 * _MOVE_T:
            lim = 2 * _MOVE_T
        if -lim < d < lim:
            if 0 <= self.rk and self.k_var >= _K_LIVE and self.rk * _DIM_K < self.k_rest:
                # far dimmer than the marble: not it, and no sign it is still here (a
                # knocked sensor's floor, at the angle where the marble lay, held that rest
                # after the marble had gone: misaimed:2, datasheet's signal constant)
                return
            self.t_seen = now
            self.rest_m |= 1 << i
            if self.rk > 0:
                self.k_rest = self.rk if self.k_rest <= 0 else self.k_rest + ((self.rk - self.k_rest) >> 2)
                # Does the signal say how bright things are? A real sensor's rate of a marble
                # at rest scatters by its shot noise (1 %: no two alike); the ideal model's is
                # one value everywhere, and its marble's brightness then runs as range^2
                # across a window: the _DIM_K rules would take its far readings for strays
                if self.sg_in != self.k_sg:
                    if self.k_var < 16:
                        self.k_var += 1
                elif self.k_var:
                    self.k_var -= 1
                self.k_sg = self.sg_in
            # a reading integrated just before a flick still sees the rest point: only a
            # later one breaks a chain of deviating readings (another sensor's, once most
            # of its integration came after the chain's last reading: neighbours range one
            # after the other, 32-40 ms apart, so a healthy sensor that keeps seeing the
            # marble at rest between a faint one's readings must break that one's chain;
            # not with the very same range again: a stuck sensor says nothing new)
            dt = tdiff(now, self.dev_t)
            if dt > 50 or (i != self.dev_i and dt * 2 > self.ring.budget_ms and self.same_n[i] < 2):
                self.dev_n = 0
            self.nonsense[i] = 0
            return
        # A reading at the far end of a window (its last 3 degrees and the slack past it)
        # while the rest point lies further on: the marble sits just past the cone's edge,
        # where it fills a sliver of it and the blend with the ring reads short, pinned at
        # the window's end (4-6 degrees short at 50 degrees, under the physical model). It
        # says the marble is there or further on: where it rests, not that it moved.
        if self._pinned(i, ang, self.rest):
            return
        # Far from the rest point: the marble moved, or a stray reading. Two agreeing
        # readings that are not one stuck sensor repeating itself = it moved.
        self.nonsense[i] += 1
        if self.nonsense[i] > 60:
            self._fault(i, FAULT_NONSENSE)
            return
        # When a flick is due on a ring with a blind arc, where the way a vanished marble
        # went decides where it is followed (_rest_unseen): a reading far dimmer than the
        # resting marble (a third of its signal x range^2; a marble returns about the same
        # from anywhere in a window) is not the marble leaving, but a stray (one at 46 mm
        # and 1 MCPS, 30 deg behind a marble flicked into the arc, sent it "moving" the
        # other way and off the ring: dead:2, seed 1). (Not on a healthy ring: there it
        # cost the level bench misreports, 26 -> 39 in 10 000 flicks.)
        if self.armed and self.blind and self.rk >= 0 and self.rk * 3 < self.k_rest:
            return
        # A chain of readings that leave the rest point in one direction, with no reading
        # at the rest point between them, is the marble moving; a stray reading is alone.
        ad = d if d > 0 else -d
        adev = self.dev if self.dev > 0 else -self.dev
        if self.dev_n and i == self.dev_i and d == self.dev:
            # The same sensor with the same value again: no new evidence, but no reason to
            # drop the chain either (a slow marble seen by one sensor repeats a whole mm).
            return
        # (a sensor reads once a schedule round, about 70 ms, when its neighbours range in
        # between: a fast flick moves up to 600 deg/s between two readings of the chain)
        gap = tdiff(now, self.dev_t)
        fresh = self.dev_n and gap < _CHAIN_MS
        if fresh and (d > 0) == (self.dev > 0) and ad >= adev - 100 and ad - adev <= 300 + gap * 60:
            # With no flick due, two in a row far dimmer than the marble are no marble
            # leaving but a knocked cone's floor, which the rest's own readings had broken
            # off until the marble was lifted (misaimed:2, seed 7, faults before the boot:
            # the track followed the floor for 15 s, the marble set down and flicked
            # elsewhere was never found, and the floor was landed on). The chain waits for
            # a reading like the marble. (Not when a flick is due: a fast marble crosses a
            # cone within one reading and returns less than at rest.)
            dim = not self.armed and self._dimmer(self.rk) and self._dimmer(self.dev_k)
            self.devp = self.dev
            self.devp_t = self.dev_t
            self.dev_n += 1
            self.dev_m |= 1 << i
            self.dev = d
            self.dev_k = self.rk
            self.dev_t = now
            self.dev_i = i
            if self.dev_n >= 3 and not dim:
                self._start_moving(now, d)
        elif fresh and self.dev_n >= 2:
            # Two readings already agree that it moved: one that disagrees (a stray, or a
            # second sensor lagging behind a fast marble) neither extends nor breaks that.
            # But when no flick is due and it is the first reading's sensor again, carrying
            # on from that reading, the second (another sensor's) was the stray: 2 readings
            # 13 deg apart in 32 ms made a creep look like a flick. It takes that one's place.
            a0 = self.dev0 if self.dev0 > 0 else -self.dev0
            if self.dev_n == 2 and (d > 0) != (self.dev0 > 0):
                # The other way from the rest. Three such in a row, each on from the one
                # before at a marble's speed, outnumber the chain's two: those were strays,
                # the marble is these (two strays 13 and 33 deg cw of a marble flicked ccw
                # displaced its first reading; its next four, ccw, were kept out, and the
                # marble was followed cw and called off the ring: dead:9, seed 1, flick 581).
                ar = self.rv if self.rv > 0 else -self.rv
                gr = tdiff(now, self.rv_t)
                if (self.rv_n and gr < _CHAIN_MS and (d > 0) == (self.rv > 0)
                        and ad >= ar - 100 and ad - ar <= 300 + gr * 60):
                    self.rv_n += 1
                    if self.rv_n >= 3:
                        self.dev0 = self.rv0
                        self.dev0_t = self.rv0_t
                        self._rv_takes(now, i, d, 1 << i)
                        return
                else:
                    self.rv_n = 1
                    self.rv0 = d
                    self.rv0_t = now
                self.rv = d
                self.rv_t = now
                return
            if (not self.armed and self.dev_n == 2 and i != self.dev_i and self.dev_m & (1 << i)
                    and (d > 0) == (self.dev0 > 0)
                    and ad >= a0 - 100 and ad - a0 <= 300 + tdiff(now, self.dev0_t) * 60):
                self.dev = d
                self.dev_k = self.rk
                self.dev_t = now
                self.dev_i = i
                self.dev_m = 1 << i
            elif (self.dev_n == 2 and (d > 0) == (self.dev0 > 0) and a0 - 100 <= ad < adev - 100
                    and ad - a0 <= 300 + tdiff(now, self.dev0_t) * 60):
                # Behind the chain's last reading, but on from its first at a marble's
                # speed. Two such in a row, each on from the other, and the chain's last
                # was the stray: the marble is these. (A stray 33 deg on, just after sensor
                # 3's last reading of a flick at 100 deg/s, made a chain of 390 deg/s; the
                # track, sent into dead sensor 5's arc that fast, called the marble off the
                # ring when it was not out by then: dead:5, seed 1, flick 385.)
                ar = self.rv if self.rv > 0 else -self.rv
                gr = tdiff(now, self.rv_t)
                if (self.rv_n and tdiff(self.rv_t, self.dev_t) > 0 and gr < _CHAIN_MS
                        and (d > 0) == (self.rv > 0) and ad >= ar - 100 and ad - ar <= 300 + gr * 60):
                    self._rv_takes(now, i, d, self.dev_m | (1 << i))
                else:
                    self.rv = d
                    self.rv_t = now
                    self.rv_n = 1
            return
        else:
            self.rv_n = 0
            self.dev = d
            self.dev_k = self.rk
            self.dev_seen = self.t_seen
            self.dev0 = d
            self.dev0_t = now
            self.dev_n = 1
            self.dev_m = 1 << i
            self.dev_t = now
            self.dev_i = i

    def _rv_takes(self, now, i, d, m):
        """The readings kept aside (rv) were the marble's, the rest's chain of two was not:
        this reading of sensor i, d cd from the rest, makes them a chain of three (sensors m)
        and the marble moving."""
        self.devp = self.rv
        self.devp_t = self.rv_t
        self.dev_n = 3
        self.dev_m = m
        self.dev = d
        self.dev_k = self.rk
        self.dev_t = now
        self.dev_i = i
        self.rv_n = 0
        self._start_moving(now, d)

    def _start_moving(self, now, d, sure=False):
        if not sure and not self._corroborated():
            return   # one sensor alone, and one not known to be quiet: not yet a flick
        self._moving_on(now, d)
        self.rest_m = 0
        self.still_since = -1
        self.first_still = -1
        self.hold_t = -1
        self.rev_n = 0
        self.trk_n = 0
        self.fast_t = now
        self.sg_way = 0     # (no signal seen to move in this track yet: _SG_STEADY)
        m = self.dev_m
        for j in range(self.n):
            self.nonsense[j] = 0
            if self.nz_rest[j] == -2:
                self.nz_rest[j] = -1   # a slow track's offsets belong to that track alone
            if m >> j & 1:
                self.nf[j] = self.nf_q[j]   # the chain was the marble leaving, not scatter
        self.state = _MOVING
        self.start = self.rest
        self.flicked = True
        self.dir = 1 if d > 0 else -1
        self.pos = self.rest + d
        # the speed between the chain's first and last readings (when the rest is found
        # lost, later, the time since then would understate it: a marble flicked off at
        # 570 deg/s, seen twice, read as 95 deg/s and "may rest in the blind arc")
        dt = tdiff(self.dev_t, self.dev0_t)
        self.vel = (d - self.dev0) * 1000 // dt if dt > 0 else 0
        self.chain3 = self.dev_n >= 3 and d == self.dev    # (that speed: of three readings)
        self._slower_span(d)
        # A flick starts fast; a marble that creeps off by itself is on a slope. When the
        # host has armed a flick, a slow start is still that flick.
        self.self_start = not self.armed and -_SELF_V < self.vel < _SELF_V
        if self.pend:
            # a flick took the marble away from a rest that held until then (a marble that
            # creeps off by itself was not at rest)
            self.pend = False
            if not self.self_start and tdiff(now, self.pend_t) >= _CONFIRM_MS:
                self._held(self.pend_x)
        # (the position is the chain's last reading's: predict from when it was taken)
        self.t = self.dev_t if self.dev_n and d == self.dev and dt > 0 else now
        self.t_seen = now
        self.turns = 0
        self.tp_n = 0
        self.tp_sum = 0
        self.tp_last = self.rest
        self.tp_t = now
        self.sm = self.pos
        self.seen = self.pos
        self.ext = self.pos
        self.ext_t = now
        self.wn = 0
        self._push(now, self.pos)
        self._event(EV_MOVING, wrap(self.rest), self.dir, 0, 0, 0, 0)

    def _near(self, now, i, rng):
        """Sensor i sees a bright return nearer than its minimum range: the marble is right in
        front of it, short of its window (under ~10 deg from it, where only the neighbour's
        faint far window sees it), not gone. Where the track is that close, or the marble
        rested in this sensor's window (from where it may have rolled in front of it), this
        keeps it seen: the lack of valid readings there proves nothing. (Not a reading of
        where it is: the chain of readings that shows a flick comes from the sensors that
        see it once it is out of there.)"""
        r = self.ring
        if self.state == _REST:
            x = wrap(self.rest)
            reach = r.view_max[i] - r.view_min[i] + 300
        else:
            x = wrap(self.pos)
            reach = _NEAR_CD     # (the track lags a marble rolling in)
        off = ((x - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
        a = wrap(r.sensor_angle[i] + r.sensor_dir[i] * (r.view_min[i] // 2))
        # A moving track rolling towards the lens may be further short of it: its place is
        # the last reading's, and a marble slowing on a faint far window gets ahead of it
        # (misaimed:9 seed 3 flick 2: 8.1 deg short, the failures ignored, off the ring).
        # Its last place, not where it predicts: a prediction runs on past lens after lens
        # (noisy:2 seed 3 flick 649: kept seen, then off the ring).
        short = _SHORT_CD if self.state == _MOVING and self.vel * r.sensor_dir[i] > 0 else 300
        if off < r.view_min[i] + reach or off > FULL_TURN - short:
            if self.state != _REST and self.cover[a // 100] == 0:
                # ... but not in a blind arc (the previous sensor, whose window's far end
                # sees there, out): a marble kept "seen" so was never landed (dead:9, seed
                # 3, flick 308: at rest 2.8 deg past sensor 10, no verdict). It lands blind
                # there, as in any blind arc: in front of this sensor if its failures last
                # (_front; a marble stopped 9.5 deg past sensor 10, stuck sensor 9 out, was
                # kept for 3 s, then a stray 150 deg away took the track: stuck:9, seed 3,
                # flick 152)
                if self.flicked and self.in_blind_since >= 0:
                    self._front(now, i, rng)
                return
            self.t_seen = now
        elif self.state == _REST:
            # Away from the rest point, the way a fresh chain of another sensor's readings
            # leaves it: the marble rolled in front of this sensor, a second witness to
            # that chain (never a chain's first reading: a bright return alone may be a
            # hand). A marble flicked 40 deg past noisy sensor 2's view was read only by
            # that sensor's scattered ranges, then only by sensor 3's minimum range: a
            # chain of one sensor not known to be quiet never started a flick, and the
            # rest unseen for 500 ms became off_ring (noisy:2, seed 3, flick 25).
            d = sdiff(a, wrap(self.rest))
            fresh = self.dev_n and tdiff(now, self.dev_t) < _CHAIN_MS
            if fresh and self.dev_i != i and (d > 0) == (self.dev > 0):
                if not self.dev_m & (1 << i) and (d > self.dev if d > 0 else d < self.dev):
                    # a sensor new to the chain, further on its way: the marble is there
                    # now, and the chain goes on from there for the next valid reading (a
                    # flick at 290 deg/s read once by sensor 0's window, then only by
                    # sensors 1 and 2's minimum range: the chain went stale, and the rest's
                    # loss 200 ms after its one reading was a flick off the ring; bus-stuck,
                    # seed 2, flick 359). Its place and time both: with the time alone, the
                    # next reading was measured against the old place and too far from it
                    # for the short time (stuck:9, seed 2, flick 422: off the ring).
                    self.dev = d
                    self.dev_t = now
                self.dev_m |= 1 << i
                if self.dev_n >= 3:
                    self._start_moving(now, self.dev)
            elif (self.armed and not fresh and tdiff(now, self.t_seen) > _LOST_MS // 2
                  and self.cover[wrap(self.rest) // 100]):
                # The rest unseen, a flick due, and no fresh chain: the marble is in front
                # of this sensor, the way an unseen rest went (_rest_unseen), not where an
                # old chain of one stray pointed (noisy:2, seed 1, flick 551: a stray 120
                # deg away, 208 ms before sensor 3's bright failures, made the track start
                # there; nothing was, and off_ring). It starts a chain of its own. (Only
                # where answering sensors look at the rest: one that dropped off the bus or
                # browned out leaves it unseen without its moving.)
                self.dev = d
                self.dev0 = d
                self.dev_k = -1
                self.dev_seen = self.t_seen
                self.dev0_t = now
                self.dev_n = 1
                self.dev_m = 1 << i
                self.dev_t = now
                self.dev_i = i
            elif fresh and self.dev_i == i:
                self.dev_t = now     # still in front of it: the chain stays fresh
        else:
            # Far from the track: the marble in front of this sensor, half its blind start
            # on, joins the chain of readings off the track's gate (_miss) like a reading
            # there. A marble flicked from a slow track was seen once by sensor 8 at 303
            # deg, then only by sensor 10's minimum range, stuck sensor 9's arc between;
            # a chain of one was no evidence, and the track was given up 24 ms later: off
            # the ring (stuck:9, seed 3, flick 526).
            if self.flicked and self.in_blind_since >= 0 and self.cover[a // 100] == 0 \
                    and self._in_arc(wrap(self.seen), a):
                # ... and in the blind arc the track is lost in: it may rest there (_front)
                self._front(now, i, rng)
                if self.state == _NONE:
                    return
            dt = tdiff(now, self.t)
            pred = self.pos + self.vel * (dt if dt < 150 else 150) // 1000
            self._miss(now, pred + sdiff(a, wrap(pred)))

    def _front(self, now, i, rng):
        """Sensor i sees a bright return nearer than its minimum range, where no healthy
        sensor ranges the stretch in front of it (the previous one out: only its far end
        reached the first 11 deg past this one). Called with no track while a flick is due
        from a blind landing (dead:9, seed 3, flick 599: never found), or from _near for a
        flicked track lost in a blind arc that holds the stretch (stuck:2, seed 1, flick 551).
        A run of these failures that began so, _FRONT_MS long, lands the marble blind there,
        from _BEHIND before the lens, placed by the failures' mean range."""
        r = self.ring
        a = wrap(r.sensor_angle[i] + r.sensor_dir[i] * (r.view_min[i] // 2))
        # (a flicked track lost in a blind arc: a slow
        # flick into stuck sensor 2's arc rested 3 deg past sensor 3, and was read only by
        # its failures; 2.8 s on, a stray 107 deg away took the track, and it was called
        # off the ring: stuck:2, seed 1, flick 551)
        st = self.state
        mv = st == _MOVING or st == _SETTLING
        if mv:
            due = self.flicked and self.in_blind_since >= 0
        elif st == _REST:
            # (at rest where no healthy sensor sees, at a blind arc's edge: the flick due
            # took it further into the arc, in front of sensor 10, where only that sensor's
            # failures showed it; no verdict: stuck:9, seed 3, flick 599 with the bench's
            # history. Not the stretch the rest is in: those failures would be the rest's.)
            b = wrap(self.rest)
            due = self.armed and self.cover[b // 100] == 0 and not -_FRONT_AWAY < sdiff(a, b) < _FRONT_AWAY
            if not due:
                return     # (no run begins while the rest is seen, or not yet due)
        else:
            due = self.armed and self.blind_a >= 0
            b = self.blind_a
        if self.fr_i != i or tdiff(now, self.fr_t) > _LOST_MS:
            self.fr_i = i
            self.fr_t0 = now
            self.fr_ok = due and self.cover[a // 100] == 0
            self.fr_s = 0
            self.fr_n = 0
        self.fr_t = now
        if 0 < rng < _MIN_RANGE_MM and self.fr_n < 255:
            self.fr_s += rng
            self.fr_n += 1
        if not (self.fr_ok and due) or tdiff(now, self.fr_t0) < _FRONT_MS:
            return
        self.fr_i = -1
        near = r.offset_table[_MIN_RANGE_MM] if _MIN_RANGE_MM <= r.range_max else r.view_min[i]
        # where in that stretch: the failures' own mean range, though under the minimum
        # (the device still ranges there, less surely), or else its middle; a range nearer
        # than the table's first degree is a marble at the lens itself
        f = r.offset_table[self.fr_s // self.fr_n] if self.fr_n else near // 2
        x = wrap(r.sensor_angle[i] + r.sensor_dir[i] * (f if f < near else near // 2))
        if mv:
            x = self.pos + sdiff(x, wrap(self.pos))   # (on from the track: its travel)
        else:
            self.start = x - sdiff(x, b)   # from where it landed blind (rested), the shorter way
            self.dir = 1 if x > self.start else -1
            self._event(EV_MOVING, b, self.dir, 0, 0, 0, 0)
            self.flicked = True
            self.redo = False
        self.pos = x
        self.vel = r.sensor_dir[i]     # (its sign: the arc runs from the sensor that way)
        # ... from _BEHIND before the lens: a marble centred there still fills the cone's
        # nearest part (sensor 10's failures at 1-6 mm of a marble 0.2 deg behind it were
        # landed on the space in front only: stuck:9, seed 3, flick 437)
        self.seen = wrap(r.sensor_angle[i] - r.sensor_dir[i] * _BEHIND)
        near += _BEHIND
        self.t = now
        self.t_seen = now
        self.in_blind_since = now
        self._land_blind(now, near)

    def _miss(self, now, x):
        # a reading off the track's gate, at x (cd, unwrapped): the chain of such readings
        # that agree with each other (up to 600 deg/s between them) grows, or starts anew
        gap = tdiff(now, self.miss_t)
        near = 300 + gap * 60
        # (up to 400 ms apart with a blind arc between them, which the marble crossed
        # unseen: a fast flick from beside dead sensor 2's arc was read once before it
        # and once after, 208 ms apart, and called off the ring: dead:2, seed 3, flick 426)
        ok = self.miss_n and -near < x - self.miss_x < near and (gap < _CHAIN_MS or (
            gap < 2 * _CHAIN_MS and self._blind_path(self.miss_x, x)))
        if ok and self.miss_n == 1 and self.mb_n:
            # ... a chain of one that displaced one, and this reading agrees with both:
            # the nearer is the marble's, the other a stray (sensor 8's stray 61 deg ahead,
            # in the same millisecond as sensor 6's reading of a marble leaving a blind arc at
            # 330 deg/s, took the next reading, 40 deg back, and the chain ran the wrong way:
            # misaimed:5, seed 3, flick 268)
            g = tdiff(now, self.mb_t)
            if g < _CHAIN_MS and abs(x - self.mb_x) < abs(x - self.miss_x) \
                    and -300 - g * 60 < x - self.mb_x < 300 + g * 60:
                ok = False
        k = self.rk
        if ok:
            self.miss_n += 1
            self.miss_xp = self.miss_x
            self.miss_tp = self.miss_t
            if self.miss_kx >= 0 and (k < 0 or k > self.miss_kx):
                self.miss_kx = k
        else:
            # One stray reading between two of the marble's must not cost the chain: the
            # chain it displaces is kept, and a reading that agrees with that one takes it
            # back (a marble flicked past a misaimed sensor's blind arc was read at 84 deg,
            # then a stray at 311 deg, then at 76 deg: three chains of one, and off_ring
            # 8 ms later; misaimed:2, seed 3, flick 122).
            gap = tdiff(now, self.mb_t)
            near = 300 + gap * 60
            if self.mb_n and -near < x - self.mb_x < near and (gap < _CHAIN_MS or (
                    gap < 2 * _CHAIN_MS and self._blind_path(self.mb_x, x))):
                n = self.mb_n + 1
                x0 = self.mb_x0
                t0 = self.mb_t0
                self.miss_xp = self.mb_x
                self.miss_tp = self.mb_t
                if self.mb_kx < 0 or k < 0:
                    k = -1
                elif self.mb_kx > k:
                    k = self.mb_kx
            else:
                n = 1
                x0 = x
                t0 = now
                self.miss_xp = x
                self.miss_tp = now
            self.mb_n = self.miss_n
            self.mb_x = self.miss_x
            self.mb_t = self.miss_t
            self.mb_x0 = self.miss_x0
            self.mb_t0 = self.miss_t0
            self.mb_kx = self.miss_kx
            self.miss_kx = k
            self.miss_n = n
            self.miss_x0 = x0
            self.miss_t0 = t0
        self.miss_x = x
        self.miss_t = now

    def _chain_v(self, x, t):
        """The speed (cd/s) of the chain of readings off the track that ends at x at t: from
        its first reading, unless its last step goes the other way, slower. Then the first
        was a stray that the chain's 600 deg/s let in, and the last step is the marble's (a
        stray 42 deg ahead, then three readings of a marble rolling on at 37 deg/s: a jump at
        -298 deg/s, the track run back into dead sensor 2's arc and landed blind there, 42 deg
        from the marble; dead:2, seed 3, flick 425). A last step back faster than the whole
        chain went is a stray's, before it or at its end (a faint far-end reading 12 deg
        behind a marble leaving a blind arc at 35 deg/s, then the marble again: +280 deg/s
        the wrong way, the track run off the other way and the marble landed blind in the arc
        it had left; dead:9, seed 1, flick 573)."""
        span = tdiff(t, self.miss_t0)
        v = (x - self.miss_x0) * 1000 // span if span > 0 else 0
        vb = self._step_v(x, t)
        if (v > 0 > vb and v > -vb) or (v < 0 < vb and -v > vb):
            if self.state != _NONE and -_FOCUS_V < self.vel < _FOCUS_V and (vb > 0) != (x > self.pos):
                # ... but a tracked marble that was (nearly) still is going away from where
                # it was: a last step back towards that is a stray's, in the chain's middle (a
                # marble flicked from 90 deg, read at 109, 124 (a far-end reading) and 122:
                # taken at -31 deg/s, the track run back into dead sensor 2's arc, and
                # landed blind there while it rolled on to 174: dead:2, seed 3, flick 750)
                return v
            return vb
        return v

    def _step_v(self, x, t):
        """The speed (cd/s) of the last step of the chain of readings off the track."""
        g = tdiff(t, self.miss_tp)
        return (x - self.miss_xp) * 1000 // g if g > 0 else 0

    def _unmiss(self, i):
        # the chain's last reading was a stray: the chain is as it was before it, and the
        # sensor that gave it is counted against
        self.miss_n -= 1
        self.miss_x = self.miss_xp
        self.miss_t = self.miss_tp
        self.nonsense[i] += 1

    def _predict(self, now):
        return self.pos + self.vel * tdiff(now, self.t) // 1000

    def _pinned(self, i, ang, x):
        """Is a reading of sensor i at ang (cd) pinned at its window's far end by a marble
        further on, at x (cd)? Past a window's end the cone still catches a sliver of the
        marble and the blend reads short, in the window's last degrees: it says the marble
        is there or further on, not where."""
        r = self.ring
        off = ((ang - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
        if off > r.view_max[i] - _SAT_CD and off < r.view_max[i] + 300:
            xoff = ((x - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
            return off <= xoff < r.view_max[i] + _SAT_PAST
        return False

    def _past(self, i, x):
        """Is x (cd) past the far end of sensor i's window, where a healthy sensor sees?"""
        r = self.ring
        xoff = ((x - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
        return r.view_max[i] < xoff < r.view_max[i] + _SAT_PAST and self.cover[x // 100] > 0

    def _pinned_end(self, a):
        """Is a (cd) in the last degrees of a healthy sensor's window (_SAT_CD, where a marble
        up to _SAT_PAST past the window's end reads, and a degree for the cover's whole
        degrees) whose end a blind arc follows? A landing there may lie in the arc: 8.8 deg
        into knocked sensor 5's arc, read at sensor 4's end, 1.2 deg inside the window and 2.2
        from the arc, it was landed there with confidence 99 (misaimed:5, seed 1, flick 828)."""
        r = self.ring
        for j in range(self.n):
            if self.faulty[j]:
                continue
            off = ((a - r.sensor_angle[j]) * r.sensor_dir[j]) % FULL_TURN
            if r.view_max[j] - _SAT_CD - 100 < off <= r.view_max[j]:
                e = (r.sensor_angle[j] + r.sensor_dir[j] * (r.view_max[j] + 100)) % FULL_TURN
                if self.cover[e // 100] == 0:
                    return True
        return False

    def _track(self, now, i, ang):
        dt = ((now - self.t + _TH) & _TM) - _TH
        if -_FOCUS_V < self.vel < _FOCUS_V and self._past(i, wrap(self.pos)) \
                and self._pinned(i, ang, wrap(self.pos)):
            # slow (stopping, or at rest but not yet still), past this sensor's window
            # where another sensor sees it: its pinned readings would pull the still window
            # back by degrees, and a window with two clusters degrees apart never holds (no
            # verdict). (Where no other sensor sees, they are all there is of the marble.)
            return
        # extrapolate at most 150 ms: a wrong speed must not run the track away. The first
        # reading after a start is predicted from the chain's last (up to 400 ms before):
        # a start the rest's loss made, 216 ms after the chain, placed a marble at 200 deg/s
        # 44 deg behind, outside the gate, and it was never caught (dead:3, seed 2)
        lim = 150 if self.trk_n else 400
        pred = self.pos + self.vel * (dt if dt < lim else lim) // 1000
        r = (ang - pred + HALF_TURN) % FULL_TURN - HALF_TURN      # sdiff(ang, wrap(pred))
        dim = self._dimmer(self.rk)
        if not -_FOCUS_V < self.vel < _FOCUS_V:
            self.fast_t = now
        if self.wn < 3 and self.state == _SETTLING and 0 <= self.rk and self.k_var >= _K_LIVE \
                and self.rk * _DIM_K < self.k_rest and not -_MOVE_T < r < _MOVE_T:
            # A track just found: far dimmer than the marble, and off it, a reading is a
            # stray (one at 1 MCPS and 46 mm, a fortieth of it, in the step that found a
            # marble flicked out of knocked sensor 5's arc, took the new track 32 deg the
            # wrong way, and the marble was landed blind in the arc: misaimed:5, seed 1,
            # flick 807, with the datasheet's signal constant). (Not on a track under way: a
            # fast marble's readings blur dim, and a flick's first ones are off its track.)
            return
        v = self.vel if self.vel >= 0 else -self.vel
        # the gate widens with speed and with the time since the track was last confirmed
        # (up to 600 deg/s, a marble at the edge of leaving the ring, so a track that
        # lost a reading or two catches the marble again)
        gate = 400 + v // 12 + (((now - self.t_seen + _TH) & _TM) - _TH) * (v + 6000) // 1000
        if r > gate or r < -gate:
            # Outside the gate. Several readings that agree with each other there mean
            # the track, not the sensors, went wrong: take them.
            x = pred + r
            if self.same_n[i]:
                self.nonsense[i] += 1   # the same range again, outside the gate: no evidence
                return
            self._miss(now, x)
            if self.miss_n >= 3 and dim and not self._dimmer(self.miss_kx):
                # the reading that would complete a chain of the marble's is far dimmer than
                # the marble: a stray, kept out of it (sensor 3's, 42 mm at 1 MCPS, 30 deg
                # behind two readings of a marble the track had run ahead of: a jump at
                # -220 deg/s, the track run back into stuck sensor 2's arc while the marble
                # rolled on; stuck:2, seed 1, flick 444)
                self._unmiss(i)
                return
            if self.miss_n < 3:
                self.nonsense[i] += 1
                if self.nonsense[i] > 40:
                    self._fault(i, FAULT_NONSENSE)
                return
            c = self._step_v(x, now)
            d = x - self.miss_x0
            if (self.trk_n >= 3 or not self.flicked) and (c > 0 > d or c < 0 < d) \
                    and not -v - 6000 < c < v + 6000:
                # The chain turns back, faster than the followed marble rolls:
                # strays (two of one sensor 80 deg ahead of a marble at 27 deg/s, 64 ms
                # apart, chained with its reading and taken at -336 deg/s: the track run
                # back into a dead arc, off the ring; dead:2, seed 1, flick 83). A marble
                # that turns back does so slowly. (So does one that was settling: a stray
                # 53 deg ahead of it, the marble at a sensor's lens, then a stray between:
                # -334 then +245 deg/s, taken at -97 deg/s, and the track run back into
                # stuck sensor 2's arc as the marble rolled on; stuck:2, seed 1, flick 400.)
                self.nonsense[i] += 1
                return
            s0 = self.miss_x0 - self.start
            s1 = x - self.start
            if self.trk_n == 0 and (s0 > 300 and s1 < -300 and c < -v - 6000
                                    or s0 < -300 and s1 > 300 and c > v + 6000):
                # Before any reading of the track: a chain that began on one side of the rest
                # and steps back across it to the other, faster than a marble turns. The
                # step is a stray, kept out of the chain (sensor 4's, 15 deg behind a marble
                # gone into dead sensor 5's arc, 72 ms after sensor 6's failures 19 deg
                # ahead: taken at -251 deg/s, the marble rolling on; off the ring: dead:5,
                # seed 1, flick 11, calibrated twice round)
                self._unmiss(i)
                return
            if self._dimmer(self.miss_kx):
                # every reading of the chain far dimmer than the marble: not it (a knocked
                # sensor's floor, 140 deg from a marble settling after a boot, lifted off
                # before it rested: three readings of the floor took the track there, and the
                # marble set down elsewhere was reported on the floor; misaimed:2, seed 3,
                # flick 0, knocked while off)
                self.nonsense[i] += 1
                return
            self._jump(now, x, self._chain_v(x, now))
            pred = x
            r = 0
        elif dim and tdiff(now, self.fast_t) > _STALE_MS and tdiff(now, self.kb_t) < _KB_MS:
            # Slow for 10 s with no verdict, and a reading as bright as the marble's came
            # just now: a far dimmer one is kept out of the still window (a knocked sensor's
            # floor, blended with a marble resting beside it, and another sensor's far
            # readings of it, 9 times brighter and a degree or two apart, kept a track that
            # never held still: no verdict in 30 s; misaimed:2, seed 1, flick 0, knocked
            # while off). Not sooner: a healthy ring's marble at a window's end reads that
            # dim in its neighbour's, and its place is their blend (done at once, it cost
            # the level ring 0.6 points of primary accuracy on seed 1; after 4 s, the
            # ring 1 deg off level, whose marble rocks slowly for seconds, 0.7 s of p95
            # latency on seed 5). Where only dim
            # readings come, they are all there is of the marble; outside the gate such
            # readings count against their sensor, as before.
            return
        self.miss_n = 0
        if not dim:
            self.kb_t = now
        self.mb_n = 0
        if self.nonsense[i]:
            self.nonsense[i] -= 1
        x = pred + r
        # alpha-beta filter; readings of two sensors can arrive 1 ms apart, so the
        # velocity gain uses at least 20 ms or it would amplify their noise
        self.pos = pred + r // 4
        self.vel += (r * 60) // (dt if dt > 20 else 20)
        # a smoothed position without extrapolation: it cannot overshoot, so a retreat
        # of it is a real reversal (see _swing)
        self.sm += (x - self.sm) // 3
        self.t = now
        self.t_seen = now
        self.seen = self.pos
        if self.trk_n < 255:
            self.trk_n += 1
        if self.bf_t >= 0 and not self.flicked and -_SET_CD < x - self.start < _SET_CD \
                and tdiff(now, self.bf_t) > _SET_MS + (
                    self.rsig if self.rsig < _SET_SIG else _SET_SIG) * _SET_K // 100:
            # still where it was found at the blind arc's edge: it was at rest. (Dim readings
            # of a marble rolling out at 30 deg/s read it 1.5 deg ahead when found, then 2-3
            # deg behind: one 208 ms on fell within _SET_CD; before-boot stuck:2, seed 3,
            # flick 446, stop 53)
            self.bf_t = -1
        if self.flicked:
            if self.self_start and self.armed and not -_SELF_V < self.vel < _SELF_V:
                self.self_start = False   # the flick that was due came while it crept
            self._swing(now)
        elif self.sm - self.start > _SETTLE_MAX or self.start - self.sm > _SETTLE_MAX:
            # A marble just set down rolled this far: flicked, or (slowly, by itself)
            # rolling downhill on a ring that is not level. (Smoothed: one faint reading
            # of a window's fringe, 11 deg off the others, made a resting marble found
            # again a flick: stuck:2, seed 3, flick 525.)
            # (It may also have been moving when it was found: so this is no evidence of
            # a slope; only a marble that was at rest and crept off is.)
            self.flicked = True
            self.self_start = False
            self.dir = 1 if self.sm > self.start else -1
            if self.bl_was >= 0 and self.bf_t >= 0 and sdiff(wrap(self.start), self.bl_was) * self.dir > 0:
                # found at the edge of the arc it had landed blind in (bl_was), and rolling
                # on away from it: the flick due, from that landing, as _settle counts one
                # that stops sooner (from where it was found, 13 deg short of it). Not if it
                # stayed where it was found (bf_t): set down there, and flicked afresh (dead:2,
                # seed 3, flick 979: at rest 1 s, then 277 deg/s; from the landing, 21 deg out)
                self.start -= self.dir * wrap((self.start - self.bl_was) * self.dir)
                self.bl_was = -1
                self.bf_t = -1
            self.ext = self.sm
            self.ext_t = now
            self.tp_last = self.start
            self.tp_t = now
            self._event(EV_MOVING, wrap(self.start), self.dir, 0, 0, 0, 0)
        k = self.wi               # self._push(now, x), written out
        self.wt[k] = now & 0xFFFF
        self.wx[k] = x
        self.ww[k] = self._weight()
        self.wi = (k + 1) & _WMASK
        if self.wn < _WIN:
            self.wn += 1
        g = self.sg_in
        if g >= 0:
            # The signal rate follows the marble's distance (about 1/r^2) and scatters ~1 %:
            # a change past 3 % means it still creeps, by less than its ranges' noise shows
            # (still windows that averaged such a creep landed it 1-2.5 deg short)
            r = self.sg_ref[i]
            q = (r >> _SG_SHIFT) + 2
            d = g - r
            if d > q or -d > q:
                self.sg_ref[i] = g if g < 65536 else 65535
                self.sg_cut = now
                self.sg_way = i + 1 if d > 0 else -1 - i
            elif (d > 0 and self.sg_way == i + 1 or d < 0 and self.sg_way == -1 - i) and (
                    _SG_ON * (d if d > 0 else -d) > q):
                # ... and since, it has gone on the same way by half as much again: still
                # creeping (stuck:2, seed 2, flick 875: 214, 216, 211, 209, 207 after a
                # cut at 214, landed 2.5 deg short of where it came to rest)
                self.sg_ref[i] = g if g < 65536 else 65535
                self.sg_cut = now
        self._check_still(now)

    def _swing(self, now):
        # A reversal is the track retreating from its furthest point in the current
        # direction; the furthest point was a turning point of a swing (tilted ring).
        p = self.sm
        d = self.dir
        if (p - self.ext) * d > 0:
            self.ext = p
            self.ext_t = now
            return
        # a real turning point: the track stays behind its furthest point for a while
        # (a moving marble's lagging reading only dents it for a moment)
        if (self.ext - p) * d < _REV_T:
            self.rev_n = 0
            return
        self.rev_n += 1   # and it stays behind: several readings, not one stray dent
        if self.rev_n < 4 or tdiff(now, self.ext_t) < 400:
            return
        amp = (self.ext - self.tp_last) * d
        if amp > _SWING_MIN:
            if self.turns:
                self.tp_sum += (self.ext + self.tp_last) // 2
                self.tp_n += 1
                self.tp_period = tdiff(self.ext_t, self.tp_t)
            self.turns += 1
            self.tp_prev = self.tp_last
            self.tp_last = self.ext
            self.tp_t = self.ext_t
        self.dir = -d
        self.ext = p
        self.ext_t = now
        self.rev_n = 0

    def _report_tilt(self):
        self._tilt_seen()
        self.tilted = True
        if self.tp_n:
            self.low = wrap(self.tp_sum // self.tp_n)
            self._event(EV_NOT_LEVEL, self.low, self.tp_period, self.turns, 0, 0, 0)

    # ----- still window -----
    def _push(self, now, x):
        k = self.wi
        self.wt[k] = now & 0xFFFF
        self.wx[k] = x
        self.ww[k] = self._weight()
        self.wi = (k + 1) & _WMASK
        if self.wn < _WIN:
            self.wn += 1

    def _weight(self):
        """The weight of the reading just fed in the rest point: 1/sigma^2, as _W_ONE for a
        reading as precise as reading_sigma (or with no signal rate to tell), down to 1 for
        a faint one (far in a window: 2 deg and more; its blend with the ring also reads
        it degrees short near the window's end, which the weight keeps down too)."""
        f = self.ring.reading_sigma
        g = self.rsig
        if g <= f:
            return _W_ONE
        q = _W_ONE * f * f // (g * g)
        return q if q > 0 else 1

    def _check_still(self, now):
        if not -_ROLLING_V < self.vel < _ROLLING_V:
            self.still_since = -1
            return   # clearly rolling: no window of its readings can be still
        # Until rests have shown the ring level, the end of any flick may be the turning
        # point of a swing, where the marble is almost still but curves: the long window.
        # (On a ring known to be level, only a swing well back from its turning point.)
        if self.tilted or (self.flicked and not self.level) or (
                self.turns and (not self.level or (self.sm - self.tp_last) * self.dir >= _SWING_MIN)):
            w = self.ring.still_ms_tilted
        else:
            w = self.ring.still_ms
        ss = self.still_since   # kept only while the window stays still
        self.still_since = -1
        if self.wn < 6:
            return
        if not self._still(now, w, 0):
            # A short window is a lottery with faint readings (its thirds' means scatter as
            # much as a stopping marble's trend): where it fails, a window twice as long,
            # whose thirds may differ by what their noise explains (z standard errors) but
            # never by half the trend of a marble that stops only at its end.
            if w > 600:
                # The long window: its strict 15 cd never passes with one faint sensor's
                # readings (1-2 deg each: no verdict at all). Judged by its noise, but a
                # trend or curve past 15 cd that stands out of that noise still fails it.
                if w != self.ring.still_ms_tilted or not self._still(now, w, 2):
                    return
            elif self.ring.still_ms * 2 > self.ring.still_ms_tilted:
                return
            else:
                w = 2 * w
                if not self._still(now, w, 1):
                    return
        m = self.wm
        t = self.wtr
        wx = self.wx
        wt = self.wt
        k0 = (self.wi - 1) & _WMASK
        # Still. The oldest third may hold the last of the marble's creep, so the rest
        # point is the mean of the readings since the newer two thirds of the first still
        # window; its standard error sets how close to a boundary counts as ambiguous.
        if ss < 0:
            ss = now
        self.still_since = ss
        if self.first_still < 0:
            self.first_still = now
            self.still_w = w
        # no creep to be seen at all: the whole window is rest, use all of it
        span = w + 1 if -20 < t < 20 else (2 * w) // 3
        # ... but not from before a sensor's signal last moved (_track), and not until a
        # third of a window of readings has been taken since
        c = tdiff(now, self.sg_cut)
        least = 3
        if c < span:
            if c * _SG_WAIT < self.ring.still_ms:
                return
            span = c + 1
            least = _SG_LEAST
        # Each reading counts by its weight, 1/sigma^2 from its signal (_weight): a faint
        # far-window reading scatters 5-7 times as much as a near one and, near the
        # window's end, its blend with the ring reads it degrees short.
        ww = self.ww
        k = k0
        s = 0
        sq = 0
        n = 0
        qs = 0
        for _j in range(self.wn):
            if (now - wt[k]) & 0xFFFF >= span:
                break
            d = wx[k] - m
            if -_STILL_T < d < _STILL_T:
                q = ww[k]
                s += q * d
                sq += q * d * d
                qs += q
                n += 1
            k = (k - 1) & _WMASK
        if n < least:
            return
        mean = s // qs
        # the weighted spread (cd^2 for a reading of weight qs / n); with weights in
        # proportion to 1/sigma^2 the mean's variance is that over n
        var = sq // qs - mean * mean
        f = self.ring.reading_sigma
        floor = _W_ONE * f * f * n // qs   # never below the sensor's spec for these readings
        if var < floor:        # (a lucky quiet sample is not trusted more than that)
            var = floor
        # few readings measure their own spread poorly: widen like Student's t would
        se = (isqrt(var // n) + 1) * (n + 3) // n
        x = m + mean
        hm = self._hold_ms(x) if self.flicked and self.tilted else 0
        if hm:
            # Not known to hold here: it may have turned back just outside a friction
            # band, where it creeps off so slowly (an unstable balance: the distance grows
            # like exp(t / 2.1 s) at 1 degree) that a 2 s window sees nothing. Look again
            # much later: it must not have moved.
            if self.hold_t >= 0 and tdiff(now, self.hold_t) < hm:
                return
            if self.hold_t < 0 or abs(x - self.hold_x) > _DRIFT_T + 2 * se:
                self.hold_t = now   # (again: it moved since the first look)
                self.hold_x = x
                return
        # Near a boundary, a little more waiting buys readings that may settle which
        # side it is on; far from one, waiting buys nothing.
        if tdiff(now, self.first_still) < _EXTEND_MS and self.flicked:
            side = self.side
            a = wrap(x)
            sp = side.space_at(a)
            into = wrap(a - side.start[sp])
            left = wrap(side.end[sp] - a)
            edge = into if into <= left else left
            if edge * 10 < self.ring.sigmas_x10 * (se + self.ring.margin * 10 // self.ring.sigmas_x10):
                return
        self._settle(now, x, se)

    def _still(self, now, w, stat):
        """Are the readings of the last w ms still? stat 0: the thirds' means within lim;
        1: within z standard errors of their noise, but never past _TREND_CAP. Leaves the
        window's mean and trend in wm, wtr."""
        n = self.wn
        # readings inside the window, newest first; the oldest must reach back the full window
        wx = self.wx
        wt = self.wt
        k0 = (self.wi - 1) & _WMASK
        k = k0
        cnt = 0
        s = 0
        oldest = now
        while cnt < n:
            t = wt[k]
            if (now - t) & 0xFFFF > w:
                break
            s += wx[k]
            cnt += 1
            oldest = t
            k = (k - 1) & _WMASK
        if cnt == n or (now - oldest) & 0xFFFF < w - 60 or cnt < 6:
            return False  # window not yet full of readings
        m = s // cnt
        # two passes: drop readings far from the mean (stray readings), re-centre
        for _ in range(2):
            k = k0
            s = 0
            good = 0
            for _j in range(cnt):
                x = wx[k]
                d = x - m
                if -_STILL_T < d < _STILL_T:
                    s += x
                    good += 1
                k = (k - 1) & _WMASK
            if good * 10 < cnt * 8:
                return False  # too scattered: still moving
            m = s // good
        d = wx[k0] - m
        if not -_STILL_T < d < _STILL_T:
            return False   # the newest reading is not where the others are: it moves (again)
        # thirds of the window by time: no trend (m3 - m1), no curve (m1 + m3 - 2 m2)
        s1 = s2 = s3 = 0
        c1 = c2 = c3 = 0
        sq = 0
        k = k0
        third = w // 3
        for _j in range(cnt):
            d = wx[k] - m
            if -_STILL_T < d < _STILL_T:
                age = (now - wt[k]) & 0xFFFF
                sq += d * d
                if age < third:
                    s3 += d
                    c3 += 1
                elif age < 2 * third:
                    s2 += d
                    c2 += 1
                else:
                    s1 += d
                    c1 += 1
            k = (k - 1) & _WMASK
        if not (c1 and c2 and c3):
            return False
        m1 = s1 // c1
        m2 = s2 // c2
        m3 = s3 // c3
        lim = 15 if stat == 2 or (w > 600 and not stat) else 45   # (cd) the long window: strict
        t = m3 - m1
        c = m1 + m3 - 2 * m2
        self.wm = m
        self.wtr = t
        if not stat:
            return -lim <= t <= lim and -lim <= c <= lim
        # the thirds' means' variance (cd^2) from the readings' scatter within the thirds
        # (a reading's variance, cd^2: its scatter about its own third's mean)
        q = (sq - s1 * m1 - s2 * m2 - s3 * m3) // (good - 3) if good > 3 else 0
        f = self.ring.reading_sigma
        if q < f * f:
            q = f * f
        var_t = q // c1 + q // c3
        lt = _TREND_CAP * w * w // 640000     # half a stopping marble's trend in w (cd)
        if stat == 2 and lt > _LONG_CAP:
            lt = _LONG_CAP
        if t * t > lim * lim and (t * t > _Z2 * var_t or t > lt or t < -lt):
            return False
        return c * c <= lim * lim or (c * c <= _Z2 * (var_t + 4 * (q // c2)) and -lt <= c <= lt)

    def _settle(self, now, x, se):
        """The marble rests at x (cd, unwrapped) with standard error se (cd)."""
        self.state = _REST
        if self.bl_was >= 0:
            if not self.flicked and self.armed and (self.bl_new or not self._in_arc(self.bl_was, wrap(x))):
                # Found at the edge of the blind arc it had landed in, with a flick due, and
                # it rests out of the arc: that flick took it out slowly (stuck:5, seed 3,
                # flick 77, 3.6 deg out, and noisy:5, seed 1, flick 913: called "placed").
                # From where it landed blind, the way out of the arc it rests on. (So
                # within the arc's 3 deg fringe, or less than _BL_OUT from where it was
                # found, when it was seen coming into its window from past the far end:
                # flicked out of intermittent sensor 5's arc, read at sensor 4's far end
                # 1.5 deg inside the fringe, 0.9 deg on from where it was found, it was
                # called "placed": intermittent:5, seed 3, flick 77.)
                below = wrap(self.arc_lo * 100 - wrap(x))
                w = -1 if below <= wrap(wrap(x) - self.arc_hi * 100 - 99) else 1
                if not self._in_arc(self.bl_was, self.bl_was):
                    # its arc is seen again (its sensor came back while the marble moved):
                    # the nearest blind arc is another's, or none. The way out is then the
                    # side of the landing it rests on (the other arc's gave the wrong way,
                    # and the flick was called "placed"; stop 50: dead:2, seed 3, flick 901)
                    w = 1 if sdiff(wrap(x), self.bl_was) > 0 else -1
                # ... if it moved out: a marble set down by hand beside the arc (after a
                # blind landing that was wrong: it had left the ring) is found where it
                # rests, and was landed as the flick due (stuck:2, seed 2, flick 575: 0.5 deg)
                if sdiff(wrap(x), self.bw_a) * w < _BL_OUT and not self.bl_new:
                    w = 0
            else:
                w = 0
            if w:
                self.start = x - w * wrap((x - self.bl_was) * w)
                self.flicked = True
                self.self_start = False
                self.dir = w
                self.turns = 0
                self._event(EV_MOVING, self.bl_was, w, 0, 0, 0, 0)
            self.bl_was = -1
            self.bf_t = -1
        # the marble has been still since the first still window began (that window saw
        # no motion): the rest began then, not at the landing
        since = tadd(self.first_still, -self.still_w) if self.first_still >= 0 else now
        self.still_since = -1
        self.first_still = -1
        self.hold_t = -1
        self.rest = wrap(x)   # unwrapped angles only live for one flick
        self.pos = self.rest
        self.vel = 0
        self.t_seen = now
        self.dev_n = 0
        self.in_blind_since = -1
        travel = x - self.start
        a = wrap(x)
        side = self.side
        k = side.space_at(a)
        into = wrap(a - side.start[k])
        left = wrap(side.end[k] - a)
        edge = into if into <= left else left
        nb = (k - 1) % side.count if into <= left else (k + 1) % side.count
        if self.flicked and not self.quiet:
            self.pend = True
            self.pend_x = a
            self.pend_t = since
        if self.self_start or (self.turns and (x - self.tp_last) * self.dir >= _SWING_MIN):
            # It rolled off by itself, or swung back, well back from its turning point: a
            # slope brought it here. (A track that only seemed to turn back, noisy and
            # faint near the end of a flick on a level ring, rests just beside its
            # "turning point"; taken as evidence it called a level ring tilted.)
            self._rest_evidence(x)
        if self.flicked and (not self.self_start or self.redo):
            # ambiguous when the boundary is within sigmas * se (plus a floor for what
            # calibration leaves): then the neighbour is reported too
            # the uncertainty: the rest point's standard error plus what calibration
            # leaves (the margin floor, counted as sigmas_x10/10 standard errors)
            u = se + self.ring.margin * 10 // self.ring.sigmas_x10
            # The error is the rest point's and, independent of it, what calibration and
            # the marble's place across the groove leave in this landing (cal_sigma: about
            # 0.4 deg under the physical model, which no number of readings averages away).
            # Both set the band (stop 28: with the rest point's alone, 14 landings in 10,000
            # were wrong and not flagged; with both, 1 in 10,000) and the confidence.
            cs = self._cal_sigma(a)
            if cs > 0:
                u = isqrt(u * u + cs * cs)
            if edge >= self.ring.sigmas_x10 * u // 10:
                nb = -1
            # confidence = the chance (%) that the reported space is right, for a normal
            # error of this size: Phi(edge / u), tabulated in quarter sigmas
            z4 = 4 * edge // u
            conf = _PHI_PCT[z4] if z4 < 12 else 100
            if nb >= 0 and conf > 99:
                conf = 99
            self._landed(now, k, nb, a, travel, conf)
            # A tilted ring shows as a damped swing: two turning points with the rest
            # point between them. (A track that only seemed to turn back, through a
            # sensor hand-over, ends beyond them.)
            # (a swing of a tilted ring takes seconds: 3.8 s from one turning point to the
            # next at 1 deg, 1.7 s at 5 deg; two quick reversals are a hand, not a slope)
            if (self.turns >= 2 and self.tp_n
                    and _SWING_HALF_MIN <= self.tp_period <= _SWING_HALF_MAX):
                lo = self.tp_prev if self.tp_prev < self.tp_last else self.tp_last
                hi = self.tp_last if self.tp_prev < self.tp_last else self.tp_prev
                if lo - 100 <= x <= hi + 100:
                    # rests on both sides of the low point bound it better than a swing's
                    # turning points (friction shifts those): use the swing only without them
                    if not self.tilted and self.roll_n < 2:
                        self._report_tilt()
        elif not self.quiet:
            self._event(EV_PLACED, k, a, 0, 0, 0, 0)
        self.quiet = False
        self.flicked = False
        self.self_start = False
        self.turns = 0

    def _cal_sigma(self, a):
        """What calibration and the marble's place across the groove leave in a landing at a
        (cd): a sigma (cd) that grows with how far out the nearest healthy sensor that sees a
        sees it (ring.json calibration_sigma_by_offset; docs/simulator.md, "Stop 34": the
        landings' errors, 0.35-0.45 deg within 30 deg of a sensor, 0.72 at 35-45 deg)."""
        r = self.ring
        cs = r.cal_sigma
        m = len(r.cal_off)
        if not m:
            return cs
        near = r.offset_table[_MIN_RANGE_MM] if _MIN_RANGE_MM <= r.range_max else 0
        best = FULL_TURN
        for i in range(self.n):
            if self.faulty[i]:
                continue
            off = ((a - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
            if off >= near and r.view_min[i] <= off <= r.view_max[i] and off < best:
                best = off
        for j in range(m):
            if best >= r.cal_off[j]:
                cs = r.cal_sig[j]
        return cs

    def _rest_evidence(self, x):
        # Where marbles that rolled off by themselves came to rest: on a tilted ring,
        # within the friction band round the low point, from both sides. Two such rests
        # close together are enough to say so; the middle of their range is the low point.
        a = wrap(x)
        if self.roll_n and abs(sdiff(a, self.roll_first)) > _ROLL_SPREAD:
            self.roll_n = 0  # inconsistent: start again from this one
        if self.roll_n == 0:
            self.roll_first = a
            self.roll_lo = 0
            self.roll_hi = 0
        d = sdiff(a, self.roll_first)
        if d < self.roll_lo:
            self.roll_lo = d
        if d > self.roll_hi:
            self.roll_hi = d
        self.roll_n += 1
        if self.roll_n < 2:
            return
        low = wrap(self.roll_first + (self.roll_lo + self.roll_hi) // 2)
        if not self.tilted or abs(sdiff(low, self.low)) >= 500:
            self._tilt_seen()
            self.tilted = True
            self.low = low
            self._event(EV_NOT_LEVEL, self.low, 0, 0, 0, 0, 0)

    # ----- where rests hold -----
    def _held(self, a):
        # A rest at a (cd, wrapped) held. Folded mod 180 deg, every rest of a tilted ring
        # lies in one arc (the friction band round the low point, and the same band round
        # the high point), and every point between two rests that held holds too.
        f = a % _HALF
        if self.stab_n == 0:
            self.stab_ref = f
            self.stab_lo = 0
            self.stab_hi = 0
        d = (f - self.stab_ref + 9000) % _HALF - 9000
        if d < self.stab_lo:
            self.stab_lo = d
        if d > self.stab_hi:
            self.stab_hi = d
        self.stab_n += 1
        if self.stab_hi - self.stab_lo >= _LEVEL_SPAN:
            # bands of +-30 deg or more: a tilt under 0.8 deg (at 1 deg they are +-24 deg);
            # the turning points of such slight tilts are not looked for any more, and a
            # tilt seen before (a swing that was not one) is withdrawn
            self.level = True
            self.tilted = False
            self.roll_n = 0

    def _hold_ms(self, x):
        """How much longer (ms) a rest at x (cd) must be watched before it is a landing:
        0 inside the span of rests that held (so the marble cannot creep off)."""
        if self.stab_n < 2:
            return _HOLD_MS
        low = -9000 < sdiff(wrap(x), self.low) < 9000
        # The span's edges and this rest are both measured: a faint reading at a window's
        # far end reads a degree short, a rest that held half a degree long (tilt seed 3:
        # a turn 0.25 deg outside the band round the high point, read 1.4 deg inside the
        # span, was taken for a rest, and the marble crept off and rolled back 140 deg).
        m = _STABLE_M if low else _STABLE_HM
        d = (wrap(x) % _HALF - self.stab_ref + 9000) % _HALF - 9000
        if self.stab_lo + m <= d <= self.stab_hi - m:
            return 0
        # Round the high point a turn just outside the band creeps off, away from it, the
        # slower the nearer it was; round the low point it creeps back in and stops, having
        # moved about twice as far as it was outside: a shorter look shows that.
        return _HOLD_LOW_MS if low else _HOLD_MS

    def _tilt_seen(self):
        # the ring swings: rests seen before it was tilted say nothing any more
        if self.level:
            self.level = False
            self.stab_n = 0

    def _land_blind(self, now, reach=0):
        # The marble went into a region no healthy sensor sees and never came out (or was
        # lost, slow, next to one): it rests somewhere in that arc. Report the arc's spaces
        # as the candidates (and the track's guess among them), never off_ring. reach > 0:
        # lost, too slow to leave the ring, where sensors should see it: the arc is from
        # where it was last seen to reach (cd) on, the way it went.
        x = self._predict(self.in_blind_since if self.in_blind_since >= 0 else self.t_seen)
        self.state = _NONE
        side = self.side
        seen = wrap(self.seen)
        if reach:
            if self.vel >= 0:
                self.arc_lo = seen // 100
                self.arc_hi = wrap(seen + reach) // 100
            else:
                self.arc_lo = wrap(seen - reach) // 100
                self.arc_hi = seen // 100
        else:
            self._blind_arc(seen)
        lo = self.arc_lo
        hi = self.arc_hi
        if lo < 0:
            lo = hi = seen // 100
        # the arc runs ccw from degree lo to degree hi; the last seen point belongs to it too
        if wrap(seen - lo * 100) > wrap(hi * 100 + 99 - lo * 100):
            if wrap(lo * 100 - seen) < wrap(seen - hi * 100):
                lo = seen // 100
            else:
                hi = seen // 100
        span = wrap(hi * 100 + 99 - lo * 100)
        a = wrap(x)
        if wrap(a - lo * 100) > span:        # the guess: inside the arc, at its nearer end
            a = lo * 100 if wrap(lo * 100 - a) < wrap(a - hi * 100 - 99) else hi * 100 + 99
        k = side.space_at(a)
        k0 = side.space_at(lo * 100)
        cnt = (side.space_at(hi * 100 + 99) - k0) % side.count + 1
        into = wrap(a - side.start[k])
        nb = (k - 1) % side.count if into * 2 < wrap(side.end[k] - side.start[k]) else (k + 1) % side.count
        if cnt == 1:
            nb = -1
        elif (nb - k0) % side.count >= cnt:
            nb = (k + 1) % side.count if nb == (k - 1) % side.count else (k - 1) % side.count
        flicked = self.flicked
        redo = self.redo          # it moved on from a landing: this one replaces it
        self.flicked = False
        self.in_blind_since = -1
        self.redo = False
        self.revise = -1
        self.blind_a = a
        self.bl_dir = 0
        self.bl_a = -1
        self.bl_was = -1
        self.bf_t = -1
        if not flicked:
            self._event(EV_PLACED, k, a, 0, 0, 0, 0)   # set down there, not flicked: no landing
            return
        f = LF_BLIND | ((k0 & 63) << 2) | ((cnt & 63) << 8)
        travel = x - self.start
        if redo:
            travel += self.rev_trv
            f |= LF_CORRECTS
        self._event(EV_LANDED, k, nb, a, travel, 5, f)

    def _left_blind(self, now, ang):
        """A flick is due for a marble that landed blind: two readings at one end of its arc,
        the second 3 deg further out (within _CHAIN_MS), are the marble leaving the arc that way. (A
        marble resting at the arc's edge, seen by a window's fringe, repeats one place.)"""
        self._blind_arc(self.blind_a)
        if self.arc_lo < 0 or not self._at_arc(ang):
            return
        d = sdiff(ang, self.blind_a)
        if self.bl_a >= 0 and tdiff(now, self.bl_t) < _CHAIN_MS:
            d0 = sdiff(self.bl_a, self.blind_a)
            if (d > 0) == (d0 > 0) and (d - d0 if d > 0 else d0 - d) >= 300:
                self.bl_dir = 1 if d > 0 else -1
                return
        self.bl_a = ang
        self.bl_t = now

    def _bw_way(self, now_or_never):
        """A marble found after leaving a blind arc unseen (bw_from): once the track has
        moved _BW_D from where it was found, that is the way the flick went (a flick does not
        turn back on a level ring), and its travel counts from where it landed blind that
        way; the moving frame goes out then. now_or_never (a verdict is due first): the way
        it moved so far, or the shorter way."""
        d = sdiff(wrap(self.pos), self.bw_a)
        if -_BW_D < d < _BW_D and not now_or_never:
            return
        a0 = self.bw_a
        frm = self.bw_from
        self.bw_from = -1
        if d:
            w = 1 if d > 0 else -1
            start = a0 - w * wrap((a0 - frm) * w)
            shift = self.start - (a0 - sdiff(a0, frm))   # the track may have wrapped since
            self.start = start + shift
            self.tp_last = self.start
            self.dir = w
        self._event(EV_MOVING, frm, self.dir, 0, 0, 0, 0)

    def _blind_arc(self, a):
        """The blind arc (no healthy sensor sees it) nearest angle a (cd): its first and
        last whole degree counting ccw in arc_lo, arc_hi (-1 when the whole ring is seen;
        fields, not a tuple: nothing here allocates)."""
        cov = self.cover
        d0 = a // 100
        best = -1
        for k in range(181):
            if cov[(d0 + k) % 360] == 0:
                best = (d0 + k) % 360
                break
            if cov[(d0 - k) % 360] == 0:
                best = (d0 - k) % 360
                break
        self.arc_lo = -1
        self.arc_hi = -1
        if best < 0:
            return
        lo = best
        n = 0
        while cov[(lo - 1) % 360] == 0 and n < 360:
            lo = (lo - 1) % 360
            n += 1
        hi = best
        while cov[(hi + 1) % 360] == 0 and n < 360:
            hi = (hi + 1) % 360
            n += 1
        self.arc_lo = lo
        self.arc_hi = hi

    def _through_blind(self, gap):
        """Was the marble, last seen gap ms ago, too fast to stop in the blind arc ahead of
        it, and not seen coming out of it by when it must have? Then it left the ring there.
        (At _BLIND_V, 250 deg/s, it rolls some 77 deg before it stops: drag and rolling
        resistance, docs/simulator.md; an arc a dead sensor leaves is 20-30 deg.)"""
        v = self.vel if self.vel >= 0 else -self.vel
        if v < _BLIND_V or gap <= _LOST_MS:
            return False
        seen = wrap(self.seen)
        self._blind_arc(seen)
        if self.arc_lo < 0:
            return False
        if self.vel > 0:
            d = wrap(self.arc_hi * 100 + 100 - seen)
        else:
            d = wrap(seen - self.arc_lo * 100)
        if d > HALF_TURN:
            return False     # the arc nearest is behind it
        if self.bx_t >= 0 and tdiff(self.tick_t, self.bx_t) < _CHAIN_MS and tdiff(self.bx_t, self.t_seen) > 0 \
                and (sdiff(self.bx_a, seen) > 0) == (self.vel > 0):
            # ... but a reading out of the arc the way it went came just now: it may be out,
            # slower than the track had it; the next reading decides (_from_blind). (A
            # flick at 344 deg/s through stuck sensor 2's arc, read 50 deg on at 200, was
            # called off the ring 48 ms before the reading that confirmed it: stuck:2,
            # seed 3, flick 311.)
            return False
        return gap > _LOST_MS + d * 1000 // v

    def _near_blind(self):
        """A tracked marble, slow when last seen, lost close to a blind arc: it may rest there
        (a marble leaves the ring only fast)."""
        if not -_BLIND_V < self.vel < _BLIND_V or self.blind == 0:
            return False
        # how far it may still have rolled: about a second at the speed it had
        v = self.vel if self.vel >= 0 else -self.vel
        reach = _NEAR_BLIND + v
        return (self._blind_within(wrap(self.seen), reach) or self._blind_within(wrap(self.pos), reach)
                or (self.rd_a >= 0 and self._blind_within(self.rd_a, reach)))

    def _blind_within(self, p, reach):
        cov = self.cover
        d0 = p // 100
        for k in range(reach // 100 + 1):
            if cov[(d0 + k) % 360] == 0 or cov[(d0 - k) % 360] == 0:
                return True
        return False

    def _from_blind(self, now, ang):
        """While the marble is in a blind arc, only readings near the arc's ends (it comes
        out, or rests at the edge of a window; as far out as its speed can have taken it
        since) are of it; others are strays that must not pull the track (its gate is wide
        open by then) out of the arc."""
        self._blind_arc(wrap(self.seen))
        if self.arc_lo < 0:
            return True
        if self._at_arc(ang):
            return True
        # Further away: the marble, if it came out faster than the track thought, shows as
        # readings that agree with each other (up to 600 deg/s between them); a stray is alone.
        # One where the marble cannot be (behind a fast one, or further on than its speed
        # reaches) neither joins nor breaks such a chain (a stray 90 deg behind a marble at
        # 410 deg/s broke the chain of the two readings that showed it out of a stuck
        # sensor's arc, and it was called off the ring: stuck:9, seed 3, flick 27). Where it
        # was last seen may lag it by as much as a reading at the arc's end is from the end
        # (_at_arc): a marble at 250 deg/s, seen 12 deg out of the arc and placed at its end,
        # was then seen 14 and 25 deg further on, past that reach without the lag, and was
        # called off the ring (stuck:2, seed 1, flick 449).
        # How far on it can be is what a marble rolls at 600 deg/s, not at the track's speed:
        # lost at a dead sensor's arc, a marble at 260 deg/s was tracked at 105; every
        # reading of it beyond the arc lay further on than that reached, and it was landed
        # blind in the arc while it went round to 215 deg (dead:2, seed 2, flick 355).
        v = self.vel if self.vel >= 0 else -self.vel
        if v > _SELF_V:
            d = sdiff(ang, wrap(self.seen))
            if self.vel < 0:
                d = -d
            if d < -300 and self.rd_a >= 0:
                # behind the track, but not behind the last reading it took: the track ran
                # on ahead of a marble that slowed (at 130 deg/s, 8 deg ahead of sensor 8's
                # readings of a marble at 60: every later one was "behind" it, and the
                # marble, never out of the arc, was called off the ring; intermittent:9,
                # seed 1, flick 529)
                d = sdiff(ang, self.rd_a)
                if self.vel < 0:
                    d = -d
            if d < -300 or d > 300 + _NEAR_BLIND + 60 * tdiff(now, self.t_seen):
                return False
        elif self.vel != 0:
            # A slow track (under 20 deg/s, even if the marble was twice as fast as the track
            # thought) rolls at most _SLOW_REACH further (v^2 / 2 _DECEL): two strays 150 and
            # 240 deg on, 1.6 s after a marble at 9 deg/s went into stuck sensor 9's arc, were
            # taken for it coming out, and it was landed blind 35 deg short (stuck:9, seed 3,
            # flick 907).
            d = sdiff(ang, wrap(self.seen))
            if d > 300 + _NEAR_BLIND + _SLOW_REACH or d < -300 - _NEAR_BLIND - _SLOW_REACH:
                return False
        gap = tdiff(now, self.bx_t)
        ok = self.bx_t >= 0 and gap < _CHAIN_MS and -(300 + gap * 60) < sdiff(ang, self.bx_a) < 300 + gap * 60
        self.bx_a = ang
        self.bx_t = now
        return ok

    def _fringe(self):
        """In a blind arc, and the last reading taken was at its ends: a marble resting in
        the arc, seen now and then by the fringe of a window, is still in it."""
        if self.in_blind_since < 0 or self.rd_a < 0:
            return False
        self._blind_arc(wrap(self.seen))
        return self._at_arc(self.rd_a)

    def _in_arc(self, a, p):
        """Is p (cd) in the blind arc nearest a, or within 3 degrees of it? A marble found
        there after it landed blind in that arc is where it rested, seen by a window's
        fringe, not flicked out: found so 31 s after it landed, with a flick due, it was
        taken for that flick and its place reported as the flick's landing, 24 ms after the
        flick began (stuck:2, seed 3, flick 525). A flick that does take it out is seen
        when it rolls on (_track: a marble set down that rolls this far was flicked)."""
        self._blind_arc(a)
        lo = self.arc_lo
        if lo < 0:
            return False
        return wrap(p - lo * 100 + 300) <= wrap(self.arc_hi * 100 + 99 - lo * 100) + 600

    def _at_arc(self, ang):
        """Is a reading at the ends of the blind arc (arc_lo/arc_hi, just found)? Such fringe
        readings of a marble resting in the arc do not end its time there."""
        if self.arc_lo < 0:
            return False
        return (-_NEAR_BLIND < sdiff(ang, self.arc_lo * 100) < _NEAR_BLIND
                or -_NEAR_BLIND < sdiff(ang, self.arc_hi * 100 + 99) < _NEAR_BLIND)

    def _landed(self, now, k, nb, a, travel, conf):
        # a landing; the marble may yet move on from it (a turning point, a marble that was
        # still creeping): then it is withdrawn and the next rest corrects it (_moving_on)
        f = 0
        cov = self.cover
        d0 = a // 100
        pinned = self.blind and self._pinned_end(a)
        if self.blind and (cov[d0] == 0 or cov[(d0 + 2) % 360] == 0 or cov[(d0 - 2) % 360] == 0
                           or pinned):
            # at the very edge of a blind arc: seen by the fringe of a window only, it may
            # rest further in. Say so, with the arc's spaces as the candidates.
            self._blind_arc(a)
            lo = self.arc_lo
            hi = self.arc_hi
            if wrap(a - lo * 100) > wrap(hi * 100 + 99 - lo * 100):
                if wrap(lo * 100 - a) < wrap(a - hi * 100):
                    lo = d0
                else:
                    hi = d0
            side = self.side
            k0 = side.space_at(lo * 100)
            cnt = (side.space_at(hi * 100 + 99) - k0) % side.count + 1
            if nb >= 0 and (nb - k0) % side.count >= cnt:
                # ... and the neighbour the landing's own band names stays one (with the
                # edge tried at 4 deg, landings 0.4 deg short of a boundary, 4.6 deg from
                # stuck sensor 2's arc, named the arc's spaces and lost the space past the
                # boundary, where they were)
                if (k0 - nb) % side.count == 1:
                    k0 = nb
                cnt += 1
            f = LF_BLIND | ((k0 & 63) << 2) | ((cnt & 63) << 8)
            if cnt == 1:
                nb = -1
            elif nb < 0:
                nb = (k + 1) % side.count if (k + 1 - k0) % side.count < cnt else (k - 1) % side.count
            if conf > 50:
                conf = 50
            if pinned and conf > 5:
                conf = 5      # pinned: anywhere up to _SAT_PAST into the arc, a guess
        if self.redo:
            travel += self.rev_trv
            f |= LF_CORRECTS
            self.redo = False
        self._event(EV_LANDED, k, nb, a, travel, conf, f)
        self.revise = k
        self.rev_a = a
        self.rev_trv = travel

    def _moving_on(self, now, d):
        """The marble leaves its rest. If it rested after a landing and now starts slowly (by
        itself, as from the turning point of a swing or a creep the still window missed:
        a flick starts fast) before the host has armed the next flick, it was not at rest:
        the landing is withdrawn. (Once the next flick is armed, a slow start is that flick.)"""
        self.redo = False
        self.rd_a = -1
        self.acq_i = -1
        if self.revise < 0:
            return
        dt = tdiff(now, self.dev0_t)
        v = (d - self.dev0) * 1000 // dt if dt > 0 else 0
        t = now
        self.vel = v
        if self._slower_span(d):
            v = self.vel
            d = self.devp
            t = self.devp_t
        # (a fast start may show only as a first reading already far out: it left the
        # rest at least as fast as from the edge of the rest band since it was last there)
        ad = d if d >= 0 else -d
        dt = tdiff(t, self.t_seen)
        if ad > 2 * _MOVE_T and dt > 0 and (ad - 2 * _MOVE_T) * 1000 // dt >= _ON_V:
            v = _ON_V
        if self.armed or not -_ON_V < v < _ON_V:
            self.revise = -1      # a new flick: the landing stands
            return
        self._event(EV_WITHDRAWN, self.revise, self.rev_a, self.rev_trv, 0, 0, 0)
        self.revise = -1
        self.redo = True
        self.pend = False         # that rest did not hold

    def _slower_span(self, d):
        """A chain of 3 or more readings off the rest point, ending in d: if the span up to
        the reading before the last is the slower, take that speed (vel) and say True. One
        stray can end a chain (another sensor's, 13 deg off, passes as a fast marble's
        next reading): it makes a creep look like a flick, whose landing would then stand
        while the marble left it. A flick is fast over both spans."""
        if self.armed or self.dev_n < 3 or d != self.dev:
            return False       # (a flick is due: a start is that flick, at its chain's speed)
        dt = tdiff(self.devp_t, self.dev0_t)
        if dt <= 0:
            return False
        v1 = (self.devp - self.dev0) * 1000 // dt
        v = self.vel
        if (v1 if v1 >= 0 else -v1) < (v if v >= 0 else -v):
            self.vel = v1
            return True
        return False

    def _jump(self, now, x, v):
        # the track takes the chain of readings off its gate: the marble is at x (cd), at v
        # (cd/s). If that is the flick that was due, come while the marble moved on from a
        # withdrawn landing, it hit the marble where the track had it, not at x (a landing
        # corrected to 333 deg, in a stuck sensor's arc, for a marble flicked at 258 deg).
        self.vel = v
        if self.redo and self.armed and self.state == _MOVING and not -2 * _SELF_V < v < 2 * _SELF_V:
            self._hit_moving_on(now)
        self.pos = x
        self.sm = x

    def _hit_moving_on(self, now):
        # The flick that was due came while the marble moved on from a withdrawn landing:
        # that landing is corrected to where the flick found it, and this is a new flick.
        x = self.pos
        a = wrap(x)
        k = self.side.space_at(a)
        self._landed(now, k, -1, a, x - self.start, 50)
        self.revise = -1
        self.start = x
        self.self_start = False
        self.turns = 0
        self.dir = 1 if self.vel > 0 else -1
        self._event(EV_MOVING, a, self.dir, 0, 0, 0, 0)

    # ----- sensors -----
    def _fault(self, i, reason):
        if self.faulty[i]:
            return
        self.faulty[i] = 1
        self.why[i] = reason
        self.fol_n[i] = 0
        self._recompute_cover()
        if self.state == _MOVING or self.state == _SETTLING:
            # its readings already in the still window must not decide where the marble
            # rests (a noisy sensor's, flagged 0.6 s before a landing, put one 1.3 deg off
            # with se 0.15 deg: test_ring_faults' noisy sensor): the window starts again
            self.wn = 0
        self._event(EV_FAULT, i, reason, self.blind, 0, 0, 0)
        self._degraded()
        if reason == FAULT_STUCK and self.acq_i == i and (self.state == _REST
                                                           or self.state == _SETTLING):
            # the marble was only ever this stuck sensor's value: there is none
            if self.state == _REST:
                self._event(EV_LOST, wrap(self.rest), 0, 0, 0, 0, 0)
                if self.armed:
                    # ... where it was said to rest, that is: it may have rested nearby,
                    # in the arc this sensor leaves blind, and the flick due took it from
                    # there (stuck:9, seed 3, flick 599: set down 1.5 deg from the stuck
                    # value and flicked in front of sensor 10, where only its minimum-range
                    # failures show it). As after a blind landing, where it shows next with
                    # the flick due is that flick's end (_front, _acquire).
                    self.blind_a = wrap(self.rest)
            self.state = _NONE
            self.cand = -1
        self.acq_i = -1

    def _ok(self, i):
        self.faulty[i] = 0
        self.why[i] = 0
        self.nonsense[i] = 0
        self.same_n[i] = 0
        self.fol_n[i] = 0
        self.nz[i] = _NZ0
        self.nz_n[i] = 0
        self.nf[i] = 0
        self.nf_q[i] = 0
        self._recompute_cover()
        self._event(EV_SENSOR_OK, i, 0, self.blind, 0, 0, 0)
        self._degraded()

    def _degraded(self):
        # two or more faulty sensors: the ring is degraded (said again whenever the set
        # changes, and once when it is no longer)
        c = 0
        m = 0
        for j in range(self.n):
            if self.faulty[j]:
                c += 1
                m |= 1 << j
        if c >= 2 or self.degraded:
            self._event(EV_DEGRADED, c, m, self.blind, 0, 0, 0)
        self.degraded = c >= 2

    def _in_view(self, i, a):
        r = self.ring
        off = ((a - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
        return r.view_min[i] - 300 <= off <= r.view_max[i] + 300

    def _trust(self, now, i, ang):
        """A reading of faulty sensor i: is it to be trusted again? One that was silent (or
        reported a hardware failure) once it answers sensibly a few times in a row; one that
        was stuck, noisy or contradicted the track only once it has followed the marble:
        agreed with the track at places at least _FOLLOW_SPAN apart (a stuck sensor agrees
        with a marble that passes its value, never with one that moves on). A sensor knocked
        off its aim (_changed) waits for a calibration instead."""
        if self.knocked[i]:
            return            # knocked off its aim (_changed): only a calibration clears it
        st = self.state
        if st == _REST:
            w = wrap(self.rest)
        else:   # where the track has it now (the last update may be a reading or two old)
            dt = tdiff(now, self.t)
            w = wrap(self.pos + self.vel * (dt if dt < 150 else 150) // 1000)
        why = self.why[i]
        if why == FAULT_SILENT or why == FAULT_HARDWARE:
            if ang < 0:
                if st != _NONE and self._in_view(i, w):
                    return            # sees nothing where the marble is: no evidence either way
            elif st == _NONE or abs(sdiff(ang, w)) >= 600:
                self.fol_n[i] = 0     # sees something where nothing is known to be
                return
            self.fol_n[i] += 1
            if self.fol_n[i] >= _TRUST_N:
                self._ok(i)
            return
        if st == _NONE:
            return
        if ang < 0:
            # Nothing, where the track has the marble well inside its window: a healthy
            # sensor sees it there. One knocked off its aim seldom does, and its faint wall
            # readings agreed with marbles passing one place over many flicks until it was
            # trusted again; then marbles it did not see were called off the ring
            # (misaimed:9, seeds 1 and 3: 21 and 25 false off-rings in 1000 flicks).
            r = self.ring
            off = ((w - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
            if r.view_min[i] + 200 <= off <= r.view_max[i] - 1000:
                self.fol_n[i] = 0
            return
        d = sdiff(ang, w)
        if -_FOLLOW_T < d < _FOLLOW_T:
            if self.fol_n[i] == 0:
                self.fol_ref[i] = w
                self.fol_lo[i] = 0
                self.fol_hi[i] = 0
            else:
                x = sdiff(w, self.fol_ref[i])
                if x < self.fol_lo[i]:
                    self.fol_lo[i] = x
                if x > self.fol_hi[i]:
                    self.fol_hi[i] = x
            if self.fol_n[i] < 255:
                self.fol_n[i] += 1
            if self.fol_n[i] >= (3 * _FOLLOW_N if why == FAULT_NOISY or why == FAULT_NONSENSE else _FOLLOW_N) \
                    and self.fol_hi[i] - self.fol_lo[i] >= _FOLLOW_SPAN:
                self._ok(i)
        elif not -2 * _FOLLOW_T < d < 2 * _FOLLOW_T:
            self.fol_n[i] = 0         # it disagrees with the marble: start again

    def _noise(self, now, i, ang):
        """Score how sensor i's readings of a resting (or hardly moving) marble scatter,
        after its own offset from the rest point (which calibration may leave, or a board
        not yet calibrated has): how often they fall outside the rest band at all (a healthy
        sensor's seldom do: a stray, or the first readings of a flick, which then takes the
        marble away; most of a noisy one's do), and how far inside it, in units of their
        own sigma. True when that makes it noisy (then it is faulty)."""
        st = self.state
        key = self.rest if st == _REST else -2     # (-2: a track that hardly moves)
        ref = wrap(self.rest) if st == _REST else wrap(self.pos)
        if not self._in_view(i, ref):
            return False     # it does not look where the marble is: not a reading of it
        d = sdiff(ang, ref)
        if self.nz_rest[i] != key:
            self.nz_rest[i] = key
            self.nz_m[i] = d
            self.nz_k[i] = 1
            self.nz_t[i] = now & 0xFFFF
            return False
        lim = 3 * self.rsig
        if lim < _MOVE_T:
            lim = _MOVE_T
        elif lim > 2 * _MOVE_T:
            lim = 2 * _MOVE_T
        if self.nz_k[i] < _NZ_SEED:
            # Its first readings there find the offset: two that agree are averaged; of two
            # that do not, the one nearer the rest point is kept (the first may be a stray
            # of the marble being set down: a healthy sensor held to a 30 deg stray saw
            # every later reading off the band, and was flagged noisy). Two readings far
            # apart in time are not a pair: start again from the later (two faint readings
            # 8 and 37 deg off a track that hardly moved, 1.1 s apart, held a healthy
            # sensor to 8 deg, and it was flagged noisy: tilt seed 10, flick 75).
            m = self.nz_m[i]
            if (now - self.nz_t[i]) & 0xFFFF > _NZ_PAIR_MS:
                self.nz_m[i] = d
            else:
                self.nz_k[i] += 1
                if -lim < d - m < lim:
                    self.nz_m[i] = (m + d) // 2
                elif (d if d >= 0 else -d) < (m if m >= 0 else -m):
                    self.nz_m[i] = d
            self.nz_t[i] = now & 0xFFFF
            return False
        e = d - self.nz_m[i]
        far = 256 if (e >= lim or e <= -lim) else 0
        self.nf[i] += (far - self.nf[i]) >> 4
        if not far:
            self.nf_q[i] = self.nf[i]
        if self.nz_n[i] < 255:
            self.nz_n[i] += 1
        if -2 * lim < e < 2 * lim:
            self.nz_m[i] += e // 4
        if far:
            return self._noisy(i)
        sg = self.ring.reading_sigma
        if self.rsig > sg:
            sg = self.rsig
        z = (e if e >= 0 else -e) * 16 // (sg if sg > 0 else 1)
        if z > _NZ_CAP:
            z = _NZ_CAP
        self.nz[i] += (z - self.nz[i]) >> 4
        return self._noisy(i)

    def _noisy(self, i):
        # (a healthy sensor's share off the band can be high too - while calibration moves
        # the marble, at the fringe of a window: up to about half seen - so only most of
        # them off it make a fault; a lower share keeps it from starting a flick alone)
        if self.nz_n[i] >= _NZ_MIN_N and (self.nz[i] > _NZ_FAULT or self.nf[i] > _NF_FAULT):
            self._fault(i, FAULT_NOISY)
            return True
        return False

    def _answered(self, a, t):
        """Has a healthy sensor that looks at a (cd) answered with a whole measurement
        made after t?"""
        seen = self.last_seen
        b = self.ring.budget_ms
        for i in range(self.n):
            if not self.faulty[i] and self._in_view(i, a) and tdiff(seen[i], t) > b:
                return True
        return False

    def _rest_unseen(self, now):
        """The marble at rest is not seen any more: True when that proves nothing (yet).
        A sensor repeating one value away from it may be stuck (it is soon flagged, and the
        rest point then may be blind); a marble at rest next to a blind arc that vanishes
        when a flick is due went into the arc: follow it there (never off_ring)."""
        if self.dev_n and self.same_n[self.dev_i]:
            return True
        if not self._answered(wrap(self.rest), self.t_seen):
            # only an answer can show it gone: the sensors that look at the rest point
            # said nothing since (one dropped off the bus for a moment, not yet flagged
            # silent): no evidence either way
            return True
        if self.armed and self.blind:
            # gone when a flick is due, on a ring with blind arcs, and not seen leaving fast
            # (a marble leaves the ring only fast): it may be in one. Follow it: it shows
            # again where sensors see, or it lands blind (_land_blind), never off_ring.
            # (from where readings away from the rest showed it going, lately or just
            # before it was last seen: a bright minimum-range failure of the sensor it
            # passed keeps a rest "seen" a little longer)
            d = self.dev if self.dev_n and (tdiff(now, self.dev_t) < _LOST_MS + 200
                                            or tdiff(self.t_seen, self.dev_t) < _CHAIN_MS) else 0
            if d:
                # ... but not from a stray: a reading further than the marble can have rolled
                # (600 deg/s) since the rest was last seen before it (a reading of the rest
                # point may have been integrated up to two budgets before it came; a later
                # "seen", a bright minimum-range failure of the sensor the marble passes,
                # does not count), or one far dimmer than the resting marble (misaimed:9
                # seed 1 flick 579: one 161 deg away sent the track there, where it found
                # nothing: "off the ring"; noisy:2 seed 3 flick 994: a dim one 35 deg back),
                # or a lone one with too much seen track on its way (dead:2, seed 1, flick
                # 155: a stray 150 deg cw, 250 ms on, of a marble flicked ccw into the dead arc)
                dt = tdiff(self.dev0_t, self.dev_seen) + 2 * self.ring.budget_ms
                a0 = self.dev0 if self.dev0 > 0 else -self.dev0
                if a0 > 300 + (dt if dt > 0 else 0) * 60 or (
                        0 <= self.dev_k and self.dev_k * 3 < self.k_rest) or (
                        self.dev_n < 2 and self._seen_past_blind(self.rest, self.dev0) > _PAST_BLIND) or (
                        self.dev_n < 2 and self._seen_past_blind(self.rest, self.dev0, True) > _SEEN_WAY) or (
                        self.dev_n < 2 and self._seen_again(a0)):
                    d = 0
            v = 0
            dt = tdiff(self.dev_t, self.dev0_t)
            if d and dt > 0:
                v = (self.dev - self.dev0) * 1000 // dt
            if d == 0:
                # not seen going: into the blind arc next to it, that way (1 cd: the
                # way is what the moving frame says)
                x = wrap(self.rest)
                self._blind_arc(x)
                if self.arc_lo >= 0:
                    d = 1 if sdiff(self.arc_lo * 100, x) > 0 else -1
            if -_BLIND_V < v < _BLIND_V:
                self._start_moving(now, d, True)
                self.vel = v
                self.in_blind_since = now
                return True
            if d:
                # Fast, but into a blind arc just ahead of where it was seen going: it is off
                # the ring only if it does not come out where it would have by now. Followed,
                # the moving track waits for it while it can be in the arc (_blind_path) and
                # calls it off the ring if it does not show. (At 270 deg/s into the 60 deg
                # that flagged sensors 8 and 9 left blind, it was called off the ring 344 ms
                # after its last reading, 40 ms before sensor 7 read it beyond the arc:
                # noisy:9, seed 3, flick 240.)
                a = self.rest + d
                if self._blind_path(a, a + v * tdiff(now, self.dev_t) // 1000):   # (<= 120 deg)
                    self._start_moving(now, d, True)
                    self.vel = v
                    return True
        return False

    def _seen_again(self, a0):
        """A lone reading away from the rest, a0 cd from it: has its own sensor answered twice
        since, the first time where the marble, going on at the least speed that reading
        gives it, would still be in its window, and not read it again? Then it was a stray (stuck:5,
        seed 1, flick 11: a stray 18.5 deg cw of a marble flicked ccw into the stuck sensor's
        arc sent the track cw, and sensor 4, which sees all of that way, read nothing more
        there: called off the ring 16 ms before sensor 6 read the marble past the arc)."""
        i = self.dev_i
        dt = tdiff(self.dev0_t, self.dev_seen)    # (its speed: at least a0 in dt)
        if i < 0 or dt <= 0:
            return False
        since = tdiff(self.last_seen[i], self.dev0_t)
        if since <= 2 * self.ring.budget_ms:
            return False        # not two whole measurements of it since
        r = self.ring
        x = wrap(self.rest + self.dev0)
        off = ((x - r.sensor_angle[i]) * r.sensor_dir[i]) % FULL_TURN
        if (self.dev0 > 0) == (r.sensor_dir[i] > 0):
            left = r.view_max[i] - off
        else:
            left = off - r.view_min[i]
        # (its first whole measurement after the reading ended within two budgets of it)
        return a0 * 2 * self.ring.budget_ms // dt + 300 < left

    def _seen_past_blind(self, a, d, every=False):
        """Whole degrees of seen track on the way from a to a + d (cd) beyond the first blind
        degree on it (0 when the way has none); every: all of them."""
        step = 100 if d >= 0 else -100
        n = d // step
        if n > 180:
            n = 180
        cov = self.cover
        blind = every
        k = 0
        for _j in range(n):
            a += step
            if cov[wrap(a) // 100] == 0:
                blind = True
            elif blind:
                k += 1
        return k

    def _dimmer(self, k):
        """Is a chain whose brightest reading is k (signal x range^2; -1: one had no signal)
        far dimmer (_DIM_K) than the marble? Then it is not the marble: a chain off the track
        of a marble's readings has one within 4.4x of its brightness at rest (13 chains in
        900 flicks: level seed 1, dead:2 seed 2, stuck:5 seed 3)."""
        return self.k_var >= _K_LIVE and 0 <= k and k * _DIM_K < self.k_rest

    def _left_others(self):
        """Has the marble left the rest point in the eyes of a sensor other than the one
        of the chain off it? A healthy one whose window holds the rest point, or that saw the
        marble at this rest (a sliver of it past its window's end), and whose last readings
        (_LEFT_N in a row) saw no marble at all: its absence is evidence the chain's own
        sensor cannot give (a noisy sensor alone at a rest point is no witness)."""
        r = self.ring
        a = wrap(self.rest)
        for j in range(self.n):
            if j == self.dev_i or self.faulty[j] or self.miss[j] < _LEFT_N:
                continue
            off = ((a - r.sensor_angle[j]) * r.sensor_dir[j]) % FULL_TURN
            if r.view_min[j] <= off <= r.view_max[j] or self.rest_m >> j & 1:
                return True
        return False

    def _corroborated(self):
        """May the chain of readings off the rest point start a flick? Readings of two
        sensors, or of one whose readings of the marble at rest have been seen to be quiet
        (a noisy sensor alone cannot start a flick)."""
        m = self.dev_m
        if m & (m - 1):
            return True
        i = self.dev_i
        # (its share off the band as it was before this chain: the readings of a marble
        # leaving are off the band too, and counted, a solo witness could never start a flick)
        if (0 <= i < self.n and self.nz_n[i] >= _SOLO_N
                and self.nz[i] <= _NZ_FAULT and self.nf_q[i] <= _NF_SOLO):
            return True
        # ... or one that another sensor, which saw the marble here, no longer sees: it has
        # left (a marble set down just past sensor 1's window, where knocked sensor 2 saw the
        # floor, was flicked into sensor 3's: its chain alone, never seen quiet, started no
        # flick, the rest held, and sensor 3 was flagged for contradicting it; misaimed:2,
        # seed 2, flick 6, knocked while off)
        return self._left_others()

    def _recompute_cover(self):
        cov = self.cover
        for d in range(360):
            cov[d] = 0
        for i in range(self.n):
            if self.faulty[i] or self.mute[i]:
                continue
            r = self.ring
            a = r.view_min[i]
            while a <= r.view_max[i]:
                d = wrap(r.sensor_angle[i] + r.sensor_dir[i] * a) // 100
                if cov[d] < 255:
                    cov[d] += 1
                a += 100
        b = 0
        for d in range(360):
            if cov[d] == 0:
                b += 100
        self.blind = b
        # The degrees one healthy sensor alone sees, a degree clear of any other window.
        # A window counts from where it can range: nearer than the VL53L0X's minimum range
        # (about 30 mm: the first 3 deg of the default window) it reports min range fail,
        # and the previous sensor's far end sees the marble alone there. (Counted from the
        # nominal near edge and 2 deg clear, the focus skipped 6-10 deg past each sensor,
        # where the one faint sensor then ranged in every other slot only: the level
        # bench's slowest landings, p95 952 ms there. Stop 32.) While the sensors are
        # marked, the top three bits hold how many windows hold the degree.
        solo = self.solo
        r = self.ring
        tab = r.offset_table
        near = tab[_MIN_RANGE_MM] if _MIN_RANGE_MM <= r.range_max else 0
        for d in range(360):
            solo[d] = 0
        for i in range(self.n):
            if self.faulty[i] or self.mute[i]:
                continue
            a = r.view_min[i] if r.view_min[i] > near else near
            while a <= r.view_max[i]:
                d = wrap(r.sensor_angle[i] + r.sensor_dir[i] * a) // 100
                if solo[d] < 224:
                    solo[d] += 32
                a += 100
        for i in range(self.n if self.n <= 30 else 0):     # (i + 1 in the low five bits)
            if self.faulty[i] or self.mute[i]:
                continue
            a = (r.view_min[i] if r.view_min[i] > near else near) + 100
            while a <= r.view_max[i] - 100:
                d = wrap(r.sensor_angle[i] + r.sensor_dir[i] * a) // 100
                if solo[d] >> 5 == 1 and solo[(d + 1) % 360] >> 5 == 1 \
                        and solo[(d - 1) % 360] >> 5 == 1:
                    solo[d] = 32 + i + 1
                a += 100
        for d in range(360):
            solo[d] &= 31

    def _event(self, kind, a, b, c, d, e, f):
        if self.bw_from >= 0 and (kind == EV_LANDED or kind == EV_OFF_RING or kind == EV_LOST):
            self._bw_way(True)     # (its moving frame before any verdict)
        if (kind == EV_LANDED and not f & LF_CORRECTS) or kind == EV_OFF_RING:
            self.armed = False
        if kind == EV_LOST or kind == EV_OFF_RING:
            self.empty = True     # (until a marble is found again: _acquire)
        if kind == EV_LOST or kind == EV_OFF_RING:
            self.blind_a = -1
            self.bl_was = -1
            self.bf_t = -1
        if kind == EV_LOST or kind == EV_OFF_RING or kind == EV_PLACED:
            self.revise = -1      # no landing to move on from any more
            self.redo = False
        if self.evw - self.evr >= _EVQ:
            self.dropped_events += 1
            return
        slot = self.evw % _EVQ
        self.evk[slot] = kind
        base = slot * 6
        q = self.eva
        q[base] = a
        q[base + 1] = b
        q[base + 2] = c
        q[base + 3] = d
        q[base + 4] = e
        q[base + 5] = f
        self.evw += 1
