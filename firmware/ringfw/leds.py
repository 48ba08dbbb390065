"""LED scenes -> the pixel buffer of the NeoPixel ring.

The scene is a stack of layers, drawn for each LED from the top down (the first layer
that has something for an LED wins):

    flash     the whole ring blinks (an error), n times 120 ms on / 120 ms off
    trail     where the marble rolls, fading behind it (while it moves)
    pulse     the landed space pulses (1.5 s)
    player    whose turn: an arc of w LEDs in the player's colour, breathing slowly
    timer     the turn timer's sweep: clockwise from 12 o'clock (90 deg), shrinking back
              towards it as time runs down; the part standing for the last 5 s is red,
              and blinks once only that part is left; an expired timer leaves it lit red
    spaces    whole spaces painted by id or by label (ring.json, the current side)
    ground    one colour under everything (paint all=1)

Every channel of every frame goes through scale() with the global brightness limited
by the USB power cap (ring.led_cap, from power.brightness_cap when ring.json is read), so
no scene can draw more current than ring.json's budget. Colours are ints 0xRRGGBB; the buffer is G R B per LED.

render(now, tracker, timer) redraws at most every FRAME_MS, and only when something
changed or moves; it allocates nothing. The still layers (spaces, ground, painted LEDs)
are kept ready in `base`, already through brightness and the cap, and rebuilt only when
the scene changes; a frame copies `base` and draws the moving layers over just the LEDs
they touch (a trail, a pulsing space, the player's arc, the timer's lit part).
"""
from ringfw import timer as T
from ringfw.compat import const, filled, tdiff
from ringfw.geometry import FULL_TURN, wrap

FRAME_MS = const(50)          # at most 20 frames a second (a 60-LED write is ~1.8 ms, interrupts off)
_PULSE_MS = const(1500)        # a landing pulse: three 500 ms swells
_PULSE_PERIOD = const(500)
_BREATH_MS = const(2000)       # player indicator breathing period
_FLASH_ON = const(120)
_FLASH_OFF = const(120)
_TRAIL_DECAY = const(48)       # trail heat lost per frame (256 = a fresh head)
_WARN_BLINK = const(500)       # the last-5-s arc blinks: 350 ms on, 150 ms off
_WARN_BLINK_ON = const(350)
TOP_CD = const(9000)          # 12 o'clock: where the timer sweep is anchored

RED = const(0xFF0000)
WHITE = const(0xFFFFFF)
NONE = const(-1)

COLOUR_NAMES = b"off red green blue white yellow orange purple cyan pink"   # a word list
_COLOUR_VALUES = (0x000000, 0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF, 0xFFC000, 0xFF6000,
                 0x9000FF, 0x00FFFF, 0xFF40A0)


def colour_arg(frame, key, default=NONE):
    """A colour field (rrggbb hex, or a name in COLOUR_NAMES) -> 0xRRGGBB.

    Absent: default (NONE = required: frame.err is set). Unreadable: frame.err is set."""
    if not frame.has(key):
        if default == NONE:
            frame.tok_index(key, COLOUR_NAMES)  # sets "missing argument"
        return default
    v = frame.hex_arg(key)
    if v >= 0:
        return v
    k = frame.tok_index(key, COLOUR_NAMES)
    if k < 0:
        return 0
    return _COLOUR_VALUES[k]


def scale(value, cap):
    """One colour channel (0..255) at global brightness cap (0..255), rounded to nearest.

    Exact at the ends: scale(v, 255) == v, scale(v, 0) == 0, scale(255, c) == c,
    scale(0, c) == 0; never above value or cap. Small ints only: no allocation.
    """
    return (value * cap + 127) // 255


def _dim(c, level):
    """A colour times level/256 (level 0..256)."""
    return ((((c >> 16) & 255) * level >> 8) << 16) | ((((c >> 8) & 255) * level >> 8) << 8) \
        | ((c & 255) * level >> 8)


def _tri(t, period):
    """Triangle wave 0..256..0 over period ms."""
    p = t % period
    half = period >> 1
    if p < half:
        return p * 256 // half
    return (period - p) * 256 // (period - half)


class Leds:
    def __init__(self, ring, pixels):
        n = ring.led_count
        self.n = n
        self.ring = ring
        self.pixels = pixels
        self.buf = bytearray(3 * n)
        self.cap = ring.led_cap
        self.bright = 255
        self.eff = scale(255, self.cap)   # the brightness every channel is scaled by
        # every channel value 0..255 at that brightness (and under the power cap), looked up
        # rather than computed three times per LED per frame
        self.lut = bytearray(256)
        self._fill_lut()
        self.px = filled("i", n, NONE)      # per-LED colours, over the spaces' colours
        self.px_pulse = bytearray(n)        # ... and which of them pulse
        self.px_pulsing = 0                 # how many painted LEDs pulse
        self.base = bytearray(3 * n)        # the still layers, through the LUT
        self.base_dirty = True
        # where each LED is: its space on the current side and its place in the sweep
        self.space_of = bytearray(n)
        self.tpos = filled("H", n)
        self.tled = bytearray(n)            # sweep position -> LED (the inverse of tpos)
        for i in range(n):
            a = wrap(ring.led0 + ring.led_dir * (i * FULL_TURN // n))
            p = (wrap(TOP_CD - a) * n + FULL_TURN // 2) // FULL_TURN % n
            self.tpos[i] = p
            self.tled[p] = i
        most = 0
        for s in ring.sides:
            if s.count > most:
                most = s.count
        self.sp_col = filled("i", most, NONE)
        # each side's labels (a newline-separated word list: paint label=...)
        self.labels = [s.labels for s in ring.sides]
        self.side = ring.sides[0]
        self.side_k = 0
        self.heat = bytearray(n)        # the trail
        self.hot = bytearray(n)         # ... the LEDs with heat, in no order
        self.hot_n = 0
        self.head = -1
        self.ground = 0
        self.player = NONE
        self.player_at = 0
        self.player_w = 3
        self.pulse_sp = -1
        self.pulse_col = WHITE
        self.pulse_t0 = 0
        self.flash_col = RED
        self.flash_t0 = 0
        self.flash_n = 0
        self.fx_pulse = 1
        self.fx_trail = 1
        self.fx_flash = 1
        self.dirty = True
        self.last = 0
        self.started = False
        self.frames = 0                 # frames shown (for tests and the bench)
        self.set_side(0)

    # ----- scene changes (from host commands) -----
    def set_side(self, k):
        side = self.ring.sides[k]
        self.side = side
        self.side_k = k
        for i in range(self.n):
            a = wrap(self.ring.led0 + self.ring.led_dir * (i * FULL_TURN // self.n))
            self.space_of[i] = side.space_at(a)
        for j in range(len(self.sp_col)):
            self.sp_col[j] = NONE
        if self.player == NONE:
            self.player_at = self.start_centre()
        self.pulse_sp = -1
        self.dirty = True
        self.base_dirty = True

    def start_centre(self):
        side = self.side
        return side.centre(side.start_k)

    def clear(self):
        """Everything but the timer off: spaces, ground, player, pulse, flash, trail."""
        for j in range(len(self.sp_col)):
            self.sp_col[j] = NONE
        for i in range(self.n):
            self.px[i] = NONE
            self.px_pulse[i] = 0
        self.px_pulsing = 0
        self.ground = 0
        self.player = NONE
        self.pulse_sp = -1
        self.flash_n = 0
        for i in range(self.n):
            self.heat[i] = 0
        self.hot_n = 0
        self.head = -1
        self.dirty = True
        self.base_dirty = True

    def paint_space(self, k, colour):
        self.sp_col[k] = colour
        self.dirty = True
        self.base_dirty = True

    def paint_leds(self, i, count, colour, pulse=0):
        """count LEDs from LED i (wrapping) in one colour, over the spaces' colours
        (games whose pictures are not spaces: a time wheel, a rondel). NONE unpaints.
        pulse=1: they swell and fade (1 s period), to mark choices."""
        n = self.n
        px = self.px
        pp = self.px_pulse
        for j in range(count):
            k = (i + j) % n
            px[k] = colour
            pp[k] = 1 if pulse and colour >= 0 else 0
        m = 0
        for k in range(n):
            m += pp[k]
        self.px_pulsing = m
        self.dirty = True
        self.base_dirty = True

    def paint_ground(self, colour):
        self.ground = colour
        self.dirty = True
        self.base_dirty = True

    def set_player(self, colour, at, w):
        self.player = colour
        self.player_at = at
        self.player_w = w
        self.dirty = True

    def set_brightness(self, v):
        self.bright = v
        self.eff = scale(v, self.cap)
        self._fill_lut()
        self.dirty = True
        self.base_dirty = True

    def _fill_lut(self):
        eff = self.eff
        lut = self.lut
        for v in range(256):
            lut[v] = scale(v, eff)

    def pulse(self, k, colour, now):
        self.pulse_sp = k
        self.pulse_col = colour
        self.pulse_t0 = now
        self.dirty = True

    def landed(self, k, now):
        """A landing on space k: pulse it, in the player's colour when one is shown."""
        if self.fx_pulse:
            self.pulse(k, self.player if self.player != NONE else WHITE, now)

    def flash(self, colour, count, now):
        self.flash_col = colour
        self.flash_n = count
        self.flash_t0 = now
        self.dirty = True

    def error(self, now):
        """An invalid flick: the error flash, unless switched off (fx flash=0)."""
        if self.fx_flash:
            self.flash(RED, 3, now)

    # ----- drawing -----
    def render(self, now, tracker, timer):
        """Redraw and show if due and needed. Returns True when a frame was shown."""
        if self.started and tdiff(now, self.last) < FRAME_MS:
            return False
        moving = self.fx_trail and tracker.moving()
        busy = self.dirty or timer.changed or moving or self.head >= 0 \
            or (timer.state == T.RUNNING and timer.shown) or self.player != NONE or self.pulse_sp >= 0 \
            or self.flash_n or self.px_pulsing
        if not busy:
            return False
        self.started = True
        self.last = now
        self.dirty = False
        timer.changed = False
        self._trail(moving, tracker)
        self._draw(now, timer)
        self.pixels.show(self.buf)
        self.frames += 1
        return True

    def _trail(self, moving, tracker):
        n = self.n
        heat = self.heat
        hot = self.hot
        # fade: only the LEDs that have heat (a handful), dropping the cold ones
        k = 0
        for j in range(self.hot_n):
            i = hot[j]
            h = heat[i]
            h = h - _TRAIL_DECAY if h > _TRAIL_DECAY else 0
            heat[i] = h
            if h:
                hot[k] = i
                k += 1
        self.hot_n = k
        if moving:
            led = self.ring.led_at(wrap(tracker.pos))
            prev = self.head
            if 0 <= prev < n and prev != led:
                # fill the LEDs a fast marble jumped over, the short way round
                d = (led - prev) % n
                step = 1
                if d > n // 2:
                    d = n - d
                    step = -1
                j = prev
                for _ in range(d):
                    j = (j + step) % n
                    self._heat(j, 200)
            self._heat(led, 255)
            self.head = led
        elif not self.hot_n:
            self.head = -1
        else:
            self.head = n  # still fading: keep rendering

    def _heat(self, i, h):
        if not self.heat[i]:
            self.hot[self.hot_n] = i
            self.hot_n += 1
        self.heat[i] = h

    def _build_base(self):
        """The still layers - painted LEDs, spaces, ground - through the LUT into base."""
        n = self.n
        base = self.base
        lut = self.lut
        px = self.px
        space_of = self.space_of
        sp_col = self.sp_col
        for i in range(n):
            c = px[i]
            if c < 0:
                c = sp_col[space_of[i]]
                if c < 0:
                    c = self.ground
            j = 3 * i
            base[j] = lut[(c >> 8) & 255]
            base[j + 1] = lut[(c >> 16) & 255]
            base[j + 2] = lut[c & 255]
        self.base_dirty = False

    def _draw(self, now, timer):
        """base, then each moving layer over the LEDs it touches, lowest layer first so the
        higher ones win (the order of the table at the top)."""
        if self.base_dirty:
            self._build_base()
        n = self.n
        buf = self.buf
        buf[:] = self.base      # a copy in C, no allocation
        lut = self.lut
        put = _put
        # painted LEDs that pulse
        if self.px_pulsing:
            px = self.px
            pxp = self.px_pulse
            lvl = 48 + _tri(now % 1000, 1000) * 208 // 256
            for i in range(n):
                if pxp[i]:
                    put(buf, lut, i, _dim(px[i], lvl))
        # timer: the lit part of the sweep, in sweep order from 12 o'clock
        ts = timer.state
        if ts != T.IDLE and timer.shown:
            total = timer.total
            warn16 = _frac16(T.WARN_MS, total, n)
            t_col = timer.colour
            blink_off = False
            if ts == T.EXPIRED:
                lit16 = warn16
                t_col = RED
            else:
                rem = timer.remaining(now)
                lit16 = _frac16(rem, total, n)
                if rem <= T.WARN_MS and ts == T.RUNNING:  # off in the last 150 ms of each 500
                    blink_off = (rem % _WARN_BLINK) < _WARN_BLINK - _WARN_BLINK_ON
                if ts == T.PAUSED:
                    t_col = _dim(t_col, 128)
            if not blink_off:
                tled = self.tled
                for p in range(min(n, (lit16 + 15) >> 4)):
                    p16 = p << 4
                    col = RED if p16 < warn16 else t_col
                    part = lit16 - p16
                    if part < 16:
                        col = _dim(col, part << 4)
                    put(buf, lut, tled[p], col)
        # player: an arc of w LEDs round player_at, breathing
        pl = self.player
        if pl != NONE:
            c = _dim(pl, 96 + _tri(now % _BREATH_MS, _BREATH_MS) * 160 // 256)
            centre = self.ring.led_at(self.player_at)
            for d in range(min((self.player_w + 1) // 2, n // 2 + 1)):
                put(buf, lut, (centre + d) % n, c)
                put(buf, lut, (centre - d) % n, c)
        # the landed space pulsing
        if self.pulse_sp >= 0:
            t = tdiff(now, self.pulse_t0)
            if t >= _PULSE_MS:
                self.pulse_sp = -1
            else:
                c = _dim(self.pulse_col, 48 + _tri(t, _PULSE_PERIOD) * 208 // 256)
                space_of = self.space_of
                k = self.pulse_sp
                for i in range(n):
                    if space_of[i] == k:
                        put(buf, lut, i, c)
        # the trail
        if self.hot_n:
            heat = self.heat
            hot = self.hot
            col = pl if pl != NONE else WHITE
            for j in range(self.hot_n):
                i = hot[j]
                put(buf, lut, i, _dim(col, heat[i] + 1))
        # the error flash, over everything while on
        if self.flash_n:
            t = tdiff(now, self.flash_t0)
            k = t // (_FLASH_ON + _FLASH_OFF)
            if k >= self.flash_n:
                self.flash_n = 0
            elif t - k * (_FLASH_ON + _FLASH_OFF) < _FLASH_ON:
                c = self.flash_col
                for i in range(n):
                    put(buf, lut, i, c)

    # ----- for the host and the tests -----

def _put(buf, lut, i, c):
    """LED i of buf = colour c, through the LUT (G R B order)."""
    j = 3 * i
    buf[j] = lut[(c >> 8) & 255]
    buf[j + 1] = lut[(c >> 16) & 255]
    buf[j + 2] = lut[c & 255]


def _frac16(part, total, n):
    """part/total of the ring, in 1/16 LED, without large integers (total <= 1 day)."""
    if total <= 0:
        return 0
    if part >= total:
        return n << 4
    if total < 1048576:
        f = part * 1024 // total
    else:
        f = part // ((total >> 10) + 1)
    return (f * n * 16 + 1023) >> 10
