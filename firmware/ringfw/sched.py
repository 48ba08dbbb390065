"""When each VL53L0X ranges: groups in turn, single-shot, each read when it is ready.

Neighbours whose cones overlap must never range at the same moment: each would see the
other's light (crosstalk). So the sensors are split into groups in which no two view arcs
overlap (sched_setup.groups(): a colouring of the ring, two groups for an even ring of sensors whose
arcs overlap only their neighbours'), and the groups range one after another. Every sensor
of the running group is started in single-shot mode; each is read as soon as its result is
ready (the device's data-ready bit), not at a fixed period; once every sensor of the group
has been read, the next group starts. A single-shot result stays in the device until it is
read and no new measurement starts before the next start, so no reading is ever overwritten,
and a reading is at most one poll interval old when it is taken.

When to ask: each readiness check is an I2C transaction on core 1, so the schedule learns
each sensor's conversion time (start to data-ready, in whole ms) and asks first at the start
plus that time, then every poll (1 ms) until the result is there. The learned time is the
least age at which the sensor's result was found ready over its last _WINDOW readings (the
first time over its first _FIRST); the first reading of every window asks one ms earlier
than that (a probe), so a sensor that got faster is followed down a ms a window, and one
that got slower within a window (its first checks then miss: extra checks, never a later
read). Before anything is learned the first check is EARLY_MS before the timing budget is
up, and no check ever comes earlier than that: a conversion takes its timing budget, and a
chip that claims a result sooner is not followed into ranging faster. A VL53L0X converts in
its budget plus about 0.6 ms (33.6 ms for a 33 ms budget), so most readings need one check
('ringside bench firmware' counts them), and every reading is still taken in the poll it is
first found ready in, as when every ms was asked.

The board (board_rp2040.RangeSensors, on core 1) and the simulated board (ringside.sim.board)
run this same code; only the device differs. A device has:

    start(i) -> bool               start a single-shot measurement of sensor i (False: no answer)
    ready(i) -> int                1: a result is ready, 0: not yet, -1: no answer
    read(i, sched) -> int          fetch the result into sched.r[i], sched.st[i] (a hal STATUS_*),
                                   sched.signal[i], sched.ambient[i] (MCPS in 9.7 fixed point, as
                                   the device's registers hold them) and release the sensor;
                                   1: read, 0: nothing this time, -1: no answer

Focus: a resting or slow marble that one sensor alone sees is measured only by that sensor,
which ranges in one slot of two. The controller names it (set_focus, from the tracker); then
in three rounds of four that sensor also ranges in the other groups' slots, in place of the
neighbours its cone overlaps (they range in the fourth round, so they still watch, and the
tracker still hears from them). No two overlapping sensors range together either way.

HandOver is core 1's half of the hand-over to core 0 (board_rp2040.SensorPoller, and the
simulated board's stand-in for core 1).

Everything on the per-poll path is integer and preallocated: it allocates nothing.
"""
from ringfw import hal
from ringfw.compat import const, filled

_TH = const(0x20000000)
_TM = const(0x3FFFFFFF)

_IDLE = const(0)
_RANGING = const(1)
_DONE = const(2)

# (EARLY_MS, the stall limit and the overlap of view arcs: ringfw.sched_setup, which builds
# the tables once and is unloaded after boot)
_WINDOW = const(64)         # readings per sensor over which its conversion time is learned
_UNSEEN = const(0xFFFF)     # no reading yet in this window


class Schedule:
    """Schedule(ring, dev, budget_ms, ok=None): the sensors of ring on device dev.

    poll(now, ranges, statuses, fresh) -> how many fresh: reads every ranging sensor whose
    result is ready (ranges[i], statuses[i] and fresh[i] = 1; signal[i] and ambient[i]
    here), and starts the next group once the running one is done. Sensors with ok[i] == 0
    (failed at boot) are not started: they report STATUS_NO_ANSWER once per round.
    wake: the earliest tick at which a poll can do anything (a caller may sleep till then).
    rounds, stalls (results that never came), age_max (ms from a result's expected time
    to its read: how late the poll was), checks (readiness checks made), conv[i] (the
    conversion time learned for sensor i, ms: its first check comes this long after a start).
    """

    def __init__(self, ring, dev, budget_ms, ok=None):
        from ringfw import sched_setup     # boot-only: the board unloads it at once
        sched_setup.schedule(self, ring, dev, budget_ms, ok)

    def _start_next(self, now, ranges, statuses, fresh):
        g = self.g + 1
        if g >= self.ngroups:
            g = 0
            self.rounds += 1
        self.g = g
        n = 0
        left = 0
        dev = self.dev
        if self.together:
            return self._start_all(now, ranges, statuses, fresh)
        self.all_on = False
        f = self.focus
        if f >= self.n or self.n > 30 or (self.rounds & 3) == 0:
            f = -1                    # (every 4th round the neighbours range as usual)
        skip = self.cmask[f] if f >= 0 else 0
        self.extra = -1
        for p in range(self.first[g], self.first[g + 1]):
            i = self.order[p]
            if (skip >> i) & 1:
                self.state[i] = _DONE     # paused: its overlapping neighbour f ranges instead
                continue
            if self.ok[i] and dev.start(i):
                self.state[i] = _RANGING
                self.t0[i] = now
                left += 1
            else:
                self.state[i] = _DONE
                ranges[i] = hal.RANGE_NO_TARGET
                statuses[i] = hal.STATUS_NO_ANSWER
                self.signal[i] = 0
                self.ambient[i] = 0
                fresh[i] = 1
                n += 1
        if f >= 0 and self.group[f] != g and self.ok[f] and self.state[f] != _RANGING:
            if dev.start(f):
                self.state[f] = _RANGING
                self.t0[f] = now
                self.extra = f
                left += 1
        self.left = left
        return n

    def _start_all(self, now, ranges, statuses, fresh):
        # (only while bring-up asks: neighbours then DO range together, on purpose)
        n = 0
        left = 0
        for i in range(self.n):
            if self.ok[i] and self.dev.start(i):
                self.state[i] = _RANGING
                self.t0[i] = now
                left += 1
            else:
                self.state[i] = _DONE
                ranges[i] = hal.RANGE_NO_TARGET
                statuses[i] = hal.STATUS_NO_ANSWER
                fresh[i] = 1
                n += 1
        self.g = 0
        self.extra = -1
        self.all_on = True
        self.left = left
        return n

    def set_together(self, on):
        """Bring-up only: range every sensor at once (what crosstalk does to each is then
        measured against the schedule). Takes effect from the next slot."""
        self.together = on

    def set_focus(self, i):
        """The one sensor that alone sees a resting or slow marble, or -1 (takes effect
        from the next slot)."""
        self.focus = i

    def poll(self, now, ranges, statuses, fresh):
        if not self.started:
            self.started = True
            self.wake = now
        if ((now - self.wake + _TH) & _TM) - _TH < 0:
            return 0
        n = 0
        guard = self.ngroups
        while self.left == 0 and guard:     # (every sensor of a group may be out: the next)
            n += self._start_next(now, ranges, statuses, fresh)
            guard -= 1
        g = self.g
        dev = self.dev
        state = self.state
        t0 = self.t0
        wake = -1
        if self.all_on:               # every sensor started at once (set_together)
            p0 = 0
            last = self.n
        else:
            p0 = self.first[g]
            last = self.first[g + 1]
        for p in range(p0, last + 1):
            if p < last:
                i = p if self.all_on else self.order[p]
            else:
                i = self.extra
                if i < 0:
                    break
            if state[i] != _RANGING:
                continue
            age = ((now - t0[i] + _TH) & _TM) - _TH
            first = self.conv[i]
            if self.seen[i] == 0 and first > self.expect:
                first -= 1            # the window's probe: one ms earlier
            if age < first:
                w = first - age
                if wake < 0 or w < wake:
                    wake = w
                continue
            rd = dev.ready(i)
            self.checks += 1
            if rd > 0:
                rd = dev.read(i, self)
                if rd > 0:
                    late = age - self.budget
                    if late > self.age_max:
                        self.age_max = late
                    self._learn(i, age)
                    r = self.r[i]
                    st = self.st[i]
                    if r >= hal.RANGE_OUT_OF_RANGE and st == hal.STATUS_VALID:
                        st = hal.STATUS_SIGNAL_FAIL   # 8190/8191: nothing in view, never a distance
                    ranges[i] = r
                    statuses[i] = st
                    fresh[i] = 1
                    n += 1
            elif rd == 0:
                if age < self.stall:
                    wake = 1
                    continue
                self.stalls += 1
                rd = -1
            if rd < 0:
                ranges[i] = hal.RANGE_NO_TARGET
                statuses[i] = hal.STATUS_NO_ANSWER
                self.signal[i] = 0
                self.ambient[i] = 0
                fresh[i] = 1
                n += 1
            state[i] = _DONE
            self.left -= 1
        if self.left == 0:
            n += self._start_next(now, ranges, statuses, fresh)
            wake = self._first_due()
        self.wake = (now + (wake if wake > 0 else 1)) & _TM
        return n

    def _learn(self, i, age):
        """Sensor i's result was found ready age ms after its start: the least such age of
        a window of _WINDOW readings becomes its conversion time."""
        if age < self.low[i]:
            self.low[i] = age if age < _UNSEEN else _UNSEEN - 1
        k = self.seen[i] + 1
        if k >= _WINDOW:
            self.conv[i] = self.low[i]
            self.low[i] = _UNSEEN
            k = 0
        self.seen[i] = k

    def _first_due(self):
        """ms from the slot's start to the first readiness check of a sensor it started
        (none started: the budget less EARLY_MS, so a round of failed sensors is paced)."""
        w = -1
        state = self.state
        for i in range(self.n):
            if state[i] == _RANGING:
                c = self.conv[i]
                if self.seen[i] == 0 and c > self.expect:
                    c -= 1
                if w < 0 or c < w:
                    w = c
        return w if w >= 0 else self.expect


class HandOver:
    """Core 1's readings handed to core 0: one slot per sensor, flagged until taken.

    HandOver(sched, lock=None). put(now) (core 1): poll the schedule and copy each fresh
    reading into its sensor's slot under the lock; a slot not yet taken is replaced and
    counted (`replaced`). take(ranges, statuses, fresh) (core 0): copy the flagged slots
    out, set fresh[i] for them and return how many; signal[i] and ambient[i] are here.
    Neither side allocates; the lock is held for a copy of a few ints per reading.
    """

    def __init__(self, sched, lock=None):
        n = sched.n
        self.sched = sched
        self.n = n
        self.lock = lock
        self._r = filled("i", n)           # core 1's own
        self._st = bytearray(n)
        self._fr = bytearray(n)
        self._hr = filled("i", n)          # the slots
        self._hst = bytearray(n)
        self._hsig = filled("i", n)
        self._hamb = filled("i", n)
        self._flag = bytearray(n)
        self.signal = filled("i", n)       # core 0's copy of the taken readings
        self.ambient = filled("i", n)
        self.pending = 0                   # flagged slots (read unlocked: a hint only)
        self.replaced = 0

    def put(self, now):
        fr = self._fr
        s = self.sched
        k = s.poll(now, self._r, self._st, fr)
        if not k:
            return 0
        lock = self.lock
        if lock is not None:
            lock.acquire()
        for i in range(self.n):
            if fr[i]:
                fr[i] = 0
                if self._flag[i]:
                    self.replaced += 1
                else:
                    self.pending += 1
                self._hr[i] = self._r[i]
                self._hst[i] = self._st[i]
                self._hsig[i] = s.signal[i]
                self._hamb[i] = s.ambient[i]
                self._flag[i] = 1
                k -= 1
                if not k:
                    break
        if lock is not None:
            lock.release()
        return 1

    def take(self, ranges, statuses, fresh):
        if not self.pending:
            return 0
        n = 0
        flag = self._flag
        lock = self.lock
        if lock is not None:
            lock.acquire()
        left = self.pending
        for i in range(self.n):
            if flag[i]:
                ranges[i] = self._hr[i]
                statuses[i] = self._hst[i]
                self.signal[i] = self._hsig[i]
                self.ambient[i] = self._hamb[i]
                flag[i] = 0
                fresh[i] = 1
                n += 1
                left -= 1
                if not left:
                    break
        self.pending = 0
        if lock is not None:
            lock.release()
        return n
