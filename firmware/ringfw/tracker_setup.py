"""The tracker's set-up: boot-only code for ringfw.tracker.

Tracker.__init__ runs tracker() here; on the board this module is unloaded as soon as the
tracker is built (ringfw.boot._run builds it first, while the heap is emptiest, and drops
this with board_rp2040.drop_modules), so only the tracker's per-reading code stays in the heap.
"""
from ringfw.compat import const, filled

# as in ringfw.tracker
_EVQ = const(8)
_WIN = const(256)
_NZ0 = const(16)
_BG_WARM = const(32)
_BG_VALID = const(128)
_KV_RANGE = const(255)


def tracker(self, ring):
    """Tracker.__init__."""
    # still window: reading times, the low 16 bits (ages stay far below 65 s: the
    # window restarts with every track, whose readings are at most _BLIND_MS apart)
    self.wt = filled("H", _WIN)
    self.wx = filled("i", _WIN)               # ... and unwrapped angles
    self.ww = bytearray(_WIN)                 # ... and weights, 1/sigma^2 (_weight)
    self.ring = ring
    self.side = ring.sides[0]
    n = ring.sensor_count
    self.n = n
    self.last_seen = filled("i", n)           # time of last reading (any) per sensor
    self.faulty = bytearray(n)
    self.why = bytearray(n)                   # the FAULT_* that made it faulty
    self.mute = bytearray(n)                  # its last try got no answer (not yet a fault)
    self.nonsense = filled("i", n)            # count of readings contradicting the track
    self.last_r = filled("i", n, -1)          # the last valid range, and how often in a row
    self.same_n = bytearray(n)
    self.last_g = filled("H", n)              # the last signal rate, and how often in a row
    self.same_g = bytearray(n)                # ... with the same range (a stuck sensor's bytes)
    self.miss = bytearray(n)                  # readings in a row that saw no marble
    self.fol_n = bytearray(n)                 # faulty: readings that agreed with the track,
    self.fol_ref = filled("i", n)             # ... where the track was at the first of them
    self.fol_lo = filled("i", n)              # ... and the span of track they followed
    self.fol_hi = filled("i", n)
    self.nz = filled("i", n, _NZ0)            # noise score of readings of a resting marble
    self.nz_n = bytearray(n)
    self.nf = filled("i", n)                  # share of them off the rest band, /256
    self.nf_q = filled("H", n)                # ... as it was at its last reading in the band
    self.nz_m = filled("i", n)                # the sensor's own mean offset from the rest
    self.nz_rest = filled("i", n, -1)         # the rest point that mean belongs to
    self.nz_k = bytearray(n)                  # readings of it taken at that rest point
    self.nz_t = filled("H", n)                # ... and when the last (ms, low 16 bits)
    self.dev_m = 0                            # sensors in the chain of readings off the rest
    self.degraded = False
    self.revise = -1                          # space of a landing the marble may move on from
    self.rev_a = 0
    self.rev_trv = 0
    self.redo = False                         # moving on from it: the next landing corrects
    self.rd_a = -1                            # the last reading the moving track took
    self.arc_lo = -1                          # _blind_arc's answer
    self.acq_i = -1                           # the one sensor the marble was found by
    self.blind_a = -1                         # where it landed blind (until found again)
    self.bp_i = -1                            # a bright reading past a window's far end
    self.bp_t = 0                             # ... (its sensor, when) with a flick due
    self.bl_new = False                       # found at the arc's edge coming from there
    self.bl_dir = 0                           # ... which way the flick took it out of the
    self.bl_a = -1                            # ... arc (two readings leaving it: the first,
    self.bl_t = 0                             # ... and when)
    self.fr_i = -1                            # a run of bright minimum-range failures in
    self.fr_t0 = 0                            # ... state none (_front): its sensor, start,
    self.fr_t = 0                             # ... last one, and whether a flick from a
    self.fr_ok = False                        # ... blind landing was due when it began,
    self.fr_s = 0                             # ... and the sum and count of its ranges (mm)
    self.fr_n = 0
    self.fg_i = -1                            # a run of readings at a window's far fringe
    self.fg_m = 0                             # ... in state none (_far_run): its sensor, mean,
    self.fg_n = 0                             # ... count, last time and first signal rate
    self.fg_t = 0
    self.fg_s = 0
    self.bl_was = -1                          # found at the edge of the arc it landed blind in
    self.bf_t = -1                            # ... when (-1: it stayed there: at rest, _track)
    self.bw_from = -1                         # found after leaving a blind arc unseen: where
    self.bw_a = 0                             # ... it landed blind, where it was found; its
                                              # ... way is the track's once it moved _BW_D
    self.bx_a = 0                             # the last reading far from a blind arc the
    self.bx_t = -1                            # ... marble is in, and when
    self.k_sg = -1                            # the last rest reading's signal, and how often
    self.k_var = 0                            # ... the rest's signal differed from the one before
    self.gb_t = -1                            # a garbled reading where the track went, or a
                                              # ... silent sensor back in its blind arc: when
    self.arc_hi = -1
    self.rk = -1                              # the last reading's signal x range^2 (scaled)
    self.rsig = 0                             # the last reading's sigma (cd), from its signal
    self.sg_in = -1                           # the last reading's signal rate (9.7 MCPS)
    self.sb_out = 0                           # ... the background's part taken out of it
    self.own = -1                             # the last valid reading with its blend
                                              # ... taken out (_unblend), raw mm
    self.sg_ref = filled("H", n)              # each sensor's signal since it last moved
    self.sg_cut = 0                           # when a tracked sensor's signal last moved
    self.sg_way = 0                           # ... which one (+1) and which way (sign)
    self.empty = False                        # the marble is known to be off the ring
    self.bg_n = filled("H", n)                # background readings learned
    self.bg_r16 = filled("i", n)              # its range (valid readings), mm * 16
    self.bg_valid = bytearray(n)              # share of its readings that were valid, /255
    # ... and the share of its returns in its window, far from rests (_KV_RANGE: its
    # background returned a range when first learned, and it is not watched)
    self.kv = bytearray(n)
    self.bg_sig = filled("i", n)              # its signal rate, 9.7 MCPS (as 0x1A)
    self.bg_vsig = filled("i", n)             # ... that of its valid readings alone
    # a board booted from its saved calibration starts from the empty ring calibration learnt
    # (a cone knocked after the boot is then found knocked: docs/firmware.md "Faults")
    sv = getattr(ring, "bg_saved", None)
    for i in range(n if sv is not None else 0):
        if sv[4 * i] >= 0:
            self.bg_n[i] = _BG_WARM
            self.bg_r16[i] = sv[4 * i]
            self.bg_sig[i] = sv[4 * i + 1]
            self.bg_vsig[i] = sv[4 * i + 2]
            self.bg_valid[i] = sv[4 * i + 3]
            self.kv[i] = _KV_RANGE if sv[4 * i + 3] >= _BG_VALID // 2 else 0
    self.nb_n = bytearray(n)                  # readings of a return the background lacks
    self.nb_r = filled("i", n)                # ... (_changed): how many, its range, the
    self.nb_rest = filled("i", n)             # ... rest point at the first of them, and
    self.nb_two = bytearray(n)                # ... whether the marble rested elsewhere since
    self.relearned = 0                        # backgrounds learned again (_changed)
    self.knocked = bytearray(n)               # ... and so knocked off its aim
    self.cover = bytearray(360)               # healthy sensors covering each degree
    self.solo = bytearray(360)                # 1 + the sensor that alone sees a degree
    self.blind = 0
    self.wi = 0
    self.wn = 0
    self.wm = 0                               # the last still window's mean and trend
    self.wtr = 0
    self.evk = bytearray(_EVQ)
    self.eva = filled("i", _EVQ * 6)
    self.evr = 0
    self.evw = 0
    self.dropped_events = 0
    self.tilted = False
    self.quiet = False
    self.next_tick = 0
    self.tick_t = 0
    self.armed = False
    self.rv_n = 0                             # a reading behind a rest's chain of two, on
    self.rv = 0                               # ... from its first (cd from the rest), and
    self.rv_t = 0                             # ... when: the chain's last may be a stray
    self.rv0 = 0                              # a rival chain's first reading (the other way
    self.rv0_t = 0                            # ... from the rest than a chain of two) and when
    self.chain3 = False                       # the track began from a chain of three
    self.arm_s = False                        # armed while it settled: where (sm, cd) and
    self.arm_x = 0                            # ... how fast (cd/s) it rolled then
    self.arm_v = 0
    self.arm_t = 0                            # when it was armed (ms)
    self.low = 0
    self.roll_n = 0
    self.roll_lo = 0
    self.roll_hi = 0
    self.roll_first = 0
    # Where rests have held (folded mod 180 deg: on a tilted ring the friction bands
    # round the low and the high point are the same arc, 180 deg apart), and whether
    # they are spread so wide that the ring cannot be tilted enough to swing.
    self.level = False
    self.stab_n = 0
    self.stab_ref = 0
    self.stab_lo = 0
    self.stab_hi = 0
    self.pend = False
    self.pend_x = 0
    self.pend_t = 0
    self.still_w = 0                          # the length of the first still window
    self.margin = ring.margin
    self.reset(0)
    self._recompute_cover()
