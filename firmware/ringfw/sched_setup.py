"""The schedule's set-up (ringfw.sched): boot-only code.

A Schedule builds its tables and arrays here, once; on the board this module is unloaded
as soon as the schedule is made (board_setup.range_sensors, before the Adafruit driver is
loaded), so only the per-poll code of ringfw.sched stays in the heap. overlap() and
groups() say which sensors may range together (ringfw.sched's docstring).
"""
from ringfw.compat import const, filled

EARLY_MS = const(2)         # until a conversion time is learned: ask from this long before the budget is up
_STALL_BUDGETS = const(4)   # not ready after this many budgets: the sensor stopped answering
_WINDOW = const(64)         # as in ringfw.sched: readings per sensor a conversion time is learned over
_UNSEEN = const(0xFFFF)     # as in ringfw.sched: no reading yet in this window
_FIRST = const(4)           # ... but the first conversion time is learned from this many
_SLACK = const(300)         # cd: view arcs closer than this count as overlapping


def _arc(ring, i):
    """Sensor i's view arc: (start cd, length cd), counter-clockwise, widened by _SLACK."""
    a = ring.sensor_angle[i]
    if ring.sensor_dir[i] > 0:
        s = a + ring.view_min[i]
    else:
        s = a - ring.view_max[i]
    return (s - _SLACK) % 36000, ring.view_max[i] - ring.view_min[i] + 2 * _SLACK


def overlap(ring, i, j):
    """Do sensors i and j see (and light) a common stretch of the track?"""
    si, li = _arc(ring, i)
    sj, lj = _arc(ring, j)
    d = (sj - si) % 36000
    return d < li or (36000 - d) < lj


def groups(ring):
    """group (bytearray: sensor -> group) and the number of groups: a greedy colouring in
    ring order, so that no two sensors of a group overlap. Boot-time code."""
    n = ring.sensor_count
    g = bytearray(n)
    count = 0
    for i in range(n):
        used = 0
        for j in range(i):
            if overlap(ring, i, j):
                used |= 1 << g[j]
        c = 0
        while used & (1 << c):
            c += 1
        g[i] = c
        if c + 1 > count:
            count = c + 1
    return g, count


def schedule(self, ring, dev, budget_ms, ok):
    """Schedule.__init__."""
    n = ring.sensor_count
    self.n = n
    self.count = n
    self.dev = dev
    self.budget = budget_ms
    self.expect = budget_ms - EARLY_MS if budget_ms > EARLY_MS else 0   # the earliest check
    self.stall = budget_ms * _STALL_BUDGETS
    self.group, self.ngroups = groups(ring)
    # the members of group k are order[first[k]:first[k + 1]], in ring order
    self.order = bytearray(n)
    self.first = bytearray(self.ngroups + 1)
    p = 0
    for k in range(self.ngroups):
        self.first[k] = p
        for i in range(n):
            if self.group[i] == k:
                self.order[p] = i
                p += 1
    self.first[self.ngroups] = p
    self.ok = ok if ok is not None else bytearray([1] * n)
    # cmask[i]: bit j set when sensors i and j overlap (focus needs n <= 30: small ints)
    self.cmask = filled("i", n)
    if n <= 30:
        for i in range(n):
            for j in range(n):
                if i != j and overlap(ring, i, j):
                    self.cmask[i] |= 1 << j
    self.focus = -1
    self.extra = -1               # the focused sensor, ranging out of its group this slot
    self.together = False         # bring-up's crosstalk check: every sensor at once
    self.all_on = False           # ... and the running slot was started so
    self.state = bytearray(n)
    self.t0 = filled("i", n)
    self.r = filled("i", n)
    self.st = bytearray(n)
    self.signal = filled("i", n)
    self.ambient = filled("i", n)
    self.g = self.ngroups - 1     # the first poll starts group 0
    self.left = 0                 # sensors of the running group not yet read
    self.wake = 0
    self.started = False
    self.rounds = 0
    self.stalls = 0
    self.age_max = 0
    self.checks = 0               # readiness checks made: I2C transactions the bench prices
    # the conversion time per sensor (ms from a start to its first check), the least age
    # its result was found ready at in this window, and the window's readings so far
    self.conv = filled("H", n, self.expect)
    self.low = filled("H", n, _UNSEEN)
    self.seen = filled("B", n, _WINDOW - _FIRST)

