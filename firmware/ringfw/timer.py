"""The turn timer, owned by the board.

The host starts it (N ms in a colour) and may pause, resume or cancel it; the board counts
on its own clock, so a stalled or disconnected host cannot stop it from ending on time.
tick(now) reports the expiry once; the controller then sends `timer_expired`, and the
LEDs keep showing the expired timer until the host says otherwise (cancel, a new start).

States: IDLE (nothing shown), RUNNING, PAUSED, EXPIRED. Times are board ticks (ms,
wrapping at 2**30, see compat.tdiff); durations are at most MAX_MS. Integers only;
nothing here allocates.
"""
from ringfw.compat import const, tadd, tdiff

IDLE = const(0)
RUNNING = const(1)
PAUSED = const(2)
EXPIRED = const(3)

MAX_MS = const(86400000)    # one day: far inside the half tick period (6.2 days)
WARN_MS = const(5000)       # the last 5 s are marked on the ring


class Timer:
    def __init__(self):
        self.state = IDLE
        self.deadline = 0     # tick at which a running timer ends
        self.left = 0         # ms left while paused
        self.total = 0        # ms the sweep stands for (the full ring)
        self.colour = 0xFFFFFF
        self.late = 0         # ms between the deadline and the tick that noticed it
        self.changed = True   # the LEDs must redraw
        self.shown = True     # drawn on the ring (False: it only counts)

    def start(self, now, ms, total, colour, paused, shown=True):
        """Run for ms (0..MAX_MS) from now. total (>= ms; 0 = ms) is the full sweep, so a
        timer restored after a board reset shows the part already used up. ms == 0 shows
        an expired timer at once, without an expiry event (there was nothing to wait for)."""
        if total < ms:
            total = ms
        self.total = total
        self.colour = colour
        self.shown = shown
        self.late = 0
        self.changed = True
        if ms <= 0:
            self.state = EXPIRED
            self.left = 0
        elif paused:
            self.state = PAUSED
            self.left = ms
        else:
            self.state = RUNNING
            self.deadline = tadd(now, ms)

    def pause(self, now):
        """Freeze a running timer; a paused one stays paused. False if none is counting."""
        if self.state == RUNNING:
            left = tdiff(self.deadline, now)
            self.left = left if left > 0 else 0
            self.state = PAUSED
            self.changed = True
            return True
        return self.state == PAUSED

    def resume(self, now):
        """Count again from where it was paused; a running one goes on. False if none."""
        if self.state == PAUSED:
            self.deadline = tadd(now, self.left)
            self.state = RUNNING
            self.changed = True
            return True
        return self.state == RUNNING

    def cancel(self):
        self.state = IDLE
        self.changed = True

    def active(self):
        return self.state == RUNNING or self.state == PAUSED

    def remaining(self, now):
        """ms left (0 once expired or idle)."""
        if self.state == RUNNING:
            left = tdiff(self.deadline, now)
            return left if left > 0 else 0
        if self.state == PAUSED:
            return self.left
        return 0

    def tick(self, now):
        """Called every loop. True exactly once, on the first tick at or after the deadline."""
        if self.state == RUNNING and tdiff(now, self.deadline) >= 0:
            self.state = EXPIRED
            self.late = tdiff(now, self.deadline)
            self.changed = True
            return True
        return False
