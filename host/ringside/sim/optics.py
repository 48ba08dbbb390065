"""What each VL53L0X's cone meets: the ring's surfaces ray-cast once, the marble per reading.

The ring (hardware/ring.json "track", "build", "mount", "marble") is a set of simple
surfaces round the ring's centre (x, y in mm, z up from the track floor):

    floor        z = 0 between the inner lip (r = R - w/2) and the outer wall (R + w/2)
    inner lip    the cylinder r = R - w/2 from z = 0 to inner_lip_mm, facing outwards
    lip top      z = inner_lip_mm between the drum and the inner lip (the rim over the strip)
    drum         r = drum_radius_mm above the rim, up to drum_height_mm (the LED strip on it)
    outer wall   r = R + w/2 from z = 0 to outer_wall_height_mm, facing inwards
    pockets      the part of the outer wall round every other sensor (its breakout and lens)
    baffle       a snout round the lens: only directions inside its aperture leave or enter

Anything else (above the walls, over the island) is open room: nothing returns from it
within the VL53L0X's range. Each sensor's cone (fov_deg full angle) is sampled by a fixed
sunflower set of rays, uniform in solid angle; each ray carries 1/N of the emitted power.
A ray that ends on a Lambertian surface of reflectance rho at distance d, meeting it at
incidence theta, returns weight  rho * cos(theta) / (N * d**2);  the sensor's signal rate is
K * (sum of weights) (K from ST's figures, see docs/simulator.md) and its range the
weight-averaged distance. The static part (the empty ring) is summed once per sensor; the
marble only changes the rays it covers, computed per reading with numpy.
"""
from __future__ import annotations

import math

import numpy as np
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_RAD = math.pi / 180.0

# surface ids (for pictures and the bring-up report)
NOTHING, FLOOR, LIP, LIP_TOP, DRUM, STRIP, WALL, POCKET = range(8)
SURFACE_NAMES = ("nothing", "floor", "inner_lip", "lip_top", "drum", "led_strip", "outer_wall",
                 "pocket")


def sunflower_cone(n: int, half_angle_deg: float) -> np.ndarray:
    """n unit directions (local frame: axis +z) spread evenly in solid angle over a cone."""
    k = np.arange(n) + 0.5
    cos_max = math.cos(half_angle_deg * _RAD)
    cos_t = 1.0 - (1.0 - cos_max) * k / n
    sin_t = np.sqrt(1.0 - cos_t * cos_t)
    phi = k * math.pi * (3.0 - math.sqrt(5.0))
    return np.stack([sin_t * np.cos(phi), sin_t * np.sin(phi), cos_t], axis=1)


class Scene:
    """The empty ring's surfaces, from a parsed ring.json (see the module docstring)."""

    def __init__(self, ring: dict):
        t = ring["track"]
        b = ring.get("build", {})
        self.radius = float(t["radius_mm"])
        w = float(t.get("width_mm", 24))
        self.r_in = self.radius - w / 2
        self.r_out = self.radius + w / 2
        self.lip_h = float(t.get("inner_lip_mm", 6))
        self.drum_r = float(b.get("drum_radius_mm", 159.2))
        self.drum_h = float(b.get("drum_height_mm", 16))
        self.strip_z = tuple(float(x) for x in b.get("led_strip_z_mm", (6, 16)))
        self.wall_h = float(b.get("outer_wall_height_mm", 24))
        self.pocket_w = float(b.get("pocket_width_mm", 20))
        self.pocket_h = float(b.get("pocket_height_mm", 20))
        mats = b.get("materials", {})
        surf = b.get("surfaces", {})

        def rho(name, default):
            m = surf.get(name)
            if m is None:
                return default
            if m not in mats:
                raise ValueError("ring.json build.surfaces.%s names material %r, which "
                                 "build.materials does not declare" % (name, m))
            v = float(mats[m]["reflectance"])
            if not 0.0 <= v <= 1.0:
                raise ValueError("ring.json material %r: reflectance must be 0..1" % m)
            return v
        # defaults: matte black paint everywhere, as hardware/README.md asks
        self.rho = np.zeros(len(SURFACE_NAMES))
        self.rho[FLOOR] = rho("floor", 0.05)
        self.rho[LIP] = rho("inner_lip", 0.05)
        self.rho[LIP_TOP] = rho("lip_top", 0.05)
        self.rho[DRUM] = rho("drum", 0.05)
        self.rho[STRIP] = rho("led_strip", 0.08)
        self.rho[WALL] = rho("outer_wall", 0.05)
        self.rho[POCKET] = rho("pocket", 0.25)
        self.pocket_angles: list[float] = []   # every sensor's place on the wall (rad)

    # --- ray casting -------------------------------------------------------------------
    def cast(self, o: np.ndarray, d: np.ndarray, skip_pocket: int = -1) -> tuple:
        """First surface each ray meets. o: (3,) origin; d: (N, 3) unit directions.

        Returns (t, surface id, cos incidence), each (N,); t = inf and id NOTHING where
        the ray leaves into the room. skip_pocket: the sensor's own pocket (it looks out
        of it)."""
        n = d.shape[0]
        best = np.full(n, np.inf)
        sid = np.zeros(n, dtype=np.int64)
        cosi = np.zeros(n)
        ox, oy, oz = float(o[0]), float(o[1]), float(o[2])
        dx, dy, dz = d[:, 0], d[:, 1], d[:, 2]
        eps = 1e-6

        def take(tt, ok, ident, cos_):
            nonlocal best
            upd = ok & (tt > eps) & (tt < best)
            best = np.where(upd, tt, best)
            sid[upd] = ident
            cosi[upd] = np.abs(cos_[upd]) if np.ndim(cos_) else abs(cos_)

        # horizontal planes: the floor (z = 0) and the rim over the strip (z = lip_h)
        with np.errstate(divide="ignore", invalid="ignore"):
            for z0, r_lo, r_hi, ident in ((0.0, self.r_in, self.r_out, FLOOR),
                                          (self.lip_h, self.drum_r, self.r_in, LIP_TOP)):
                tt = (z0 - oz) / dz
                x = ox + tt * dx
                y = oy + tt * dy
                r = np.sqrt(x * x + y * y)
                take(tt, (r >= r_lo) & (r <= r_hi), ident, dz)
            # vertical cylinders
            a = dx * dx + dy * dy
            bq = 2.0 * (ox * dx + oy * dy)
            c0 = ox * ox + oy * oy
            for rc, z_lo, z_hi, ident, inside in (
                    (self.r_in, 0.0, self.lip_h, LIP, False),
                    (self.drum_r, self.lip_h, self.drum_h, DRUM, False),
                    (self.r_out, 0.0, self.wall_h, WALL, True)):
                disc = bq * bq - 4.0 * a * (c0 - rc * rc)
                ok = disc >= 0.0
                sq = np.sqrt(np.where(ok, disc, 0.0))
                # from outside a cylinder the first (smaller) root; from inside the larger
                tt = (-bq + sq) / (2.0 * a) if inside else (-bq - sq) / (2.0 * a)
                z = oz + tt * dz
                x = ox + tt * dx
                y = oy + tt * dy
                ok = ok & (z >= z_lo) & (z <= z_hi)
                # incidence: the cylinder's normal is radial
                cos_ = (x * dx + y * dy) / rc
                if ident == WALL:
                    ang = np.arctan2(y, x)
                    pk = np.zeros(n, dtype=bool)
                    half = self.pocket_w / 2.0 / rc
                    for k, pa in enumerate(self.pocket_angles):
                        if k == skip_pocket:
                            continue
                        dang = np.abs((ang - pa + math.pi) % (2 * math.pi) - math.pi)
                        pk |= (dang <= half) & (z <= self.pocket_h)
                    before = best.copy()
                    take(tt, ok & ~pk, WALL, cos_)
                    upd_p = ok & pk & (tt > eps) & (tt < before) & (tt < best)
                    best = np.where(upd_p, tt, best)
                    sid[upd_p] = POCKET
                    cosi[upd_p] = np.abs(cos_[upd_p])
                elif ident == DRUM:
                    zs0, zs1 = self.strip_z
                    strip = (z >= zs0) & (z <= zs1)
                    take(tt, ok & ~strip, DRUM, cos_)
                    take(tt, ok & strip, STRIP, cos_)
                else:
                    take(tt, ok, ident, cos_)
        return best, sid, cosi


class Mount:
    """One sensor's place and aim, and its baffle (the mount parameters a fault changes).

    angle_deg: where it sits on the ring; dir: +1 looks ccw, -1 cw; lens_r_mm, height_mm:
    the lens; yaw_in_deg: the axis turned in from the wall's tangent; pitch_deg: up (+) or
    down (-) from level; baffle: None or ((yaw_lo, yaw_hi), (pitch_lo, pitch_hi)) degrees
    about the axis, the snout's aperture."""

    def __init__(self, angle_deg: float, dir_: int, *, lens_r_mm: float, height_mm: float, yaw_in_deg: float, pitch_deg: float, fov_deg: float,
                 baffle: bool):
        self.angle_deg = angle_deg
        self.dir = dir_
        self.lens_r_mm = lens_r_mm
        self.height_mm = height_mm
        self.yaw_in_deg = yaw_in_deg
        self.pitch_deg = pitch_deg
        self.fov_deg = fov_deg
        self.baffle = baffle

    def copy(self, **kw: Any) -> Mount:
        d = dict(lens_r_mm=self.lens_r_mm, height_mm=self.height_mm, yaw_in_deg=self.yaw_in_deg,
                 pitch_deg=self.pitch_deg, fov_deg=self.fov_deg, baffle=self.baffle)
        d.update(kw)
        return Mount(self.angle_deg, self.dir, **d)

    def frame(self) -> tuple:
        """(origin, axis, right, up) of the lens in ring coordinates."""
        a = self.angle_deg * _RAD
        radial = np.array([math.cos(a), math.sin(a), 0.0])
        tangent = np.array([-math.sin(a), math.cos(a), 0.0]) * self.dir
        o = radial * (self.lens_r_mm - 0.05) + np.array([0.0, 0.0, self.height_mm])
        yaw = self.yaw_in_deg * _RAD
        pitch = self.pitch_deg * _RAD
        flat = tangent * math.cos(yaw) - radial * math.sin(yaw)
        axis = flat * math.cos(pitch) + np.array([0.0, 0.0, math.sin(pitch)])
        zup = np.array([0.0, 0.0, 1.0])
        right = np.cross(axis, zup)
        right /= np.linalg.norm(right)
        up = np.cross(right, axis)
        return o, axis, right, up


class SensorView:
    """One sensor's rays and what the empty ring returns along them (precomputed)."""

    def __init__(self, scene: Scene, mount: Mount, index: int, n_rays: int):
        self.mount = mount
        self.n = n_rays
        o, axis, right, up = mount.frame()
        self.origin = o
        self.axis = axis
        local = sunflower_cone(n_rays, mount.fov_deg / 2.0)
        dirs = local[:, 0:1] * right + local[:, 1:2] * up + local[:, 2:3] * axis
        self.dirs = dirs
        self.right = right
        self.up = up
        self.half_angle = mount.fov_deg / 2.0 * _RAD
        self.open = self.accepts(dirs)
        t, sid, cosi = scene.cast(o, dirs, skip_pocket=index)
        self.t = t
        self.sid = sid
        rho = scene.rho[sid]
        finite = np.isfinite(t)
        w = np.zeros(n_rays)
        w[finite] = rho[finite] * cosi[finite] / (n_rays * t[finite] ** 2)
        w[~self.open] = 0.0
        self.w = w
        self.wd = np.where(finite, w * np.where(finite, t, 0.0), 0.0)
        self.bg_w = float(w.sum())
        self.bg_wd = float(self.wd.sum())
        self.spacing = math.sqrt(2 * math.pi * (1 - math.cos(mount.fov_deg / 2 * _RAD)) / n_rays)

    def accepts(self, u: np.ndarray) -> bool:
        """Which of the unit directions u (M, 3) enter the cone and the baffle's aperture."""
        x = u @ self.right
        y = u @ self.up
        z = u @ self.axis
        ok = z >= math.cos(self.half_angle)
        if self.mount.baffle is not None:
            (ylo, yhi), (plo, phi_) = self.mount.baffle
            yaw = np.degrees(np.arctan2(x, z))
            pit = np.degrees(np.arctan2(y, np.hypot(x, z)))
            # yaw counts towards the ring's centre (+) from the axis
            o = self.origin
            outward = (self.right[0] * o[0] + self.right[1] * o[1]) > 0
            inward = -yaw if outward else yaw
            ok &= (inward >= ylo) & (inward <= yhi) & (pit >= plo) & (pit <= phi_)
        return ok

    def background_parts(self) -> dict:
        """{surface name: share of the empty ring's return} for the bring-up report."""
        out = {}
        if self.bg_w <= 0:
            return out
        for k, name in enumerate(SURFACE_NAMES):
            s = float(self.w[self.sid == k].sum())
            if s > 0:
                out[name] = s / self.bg_w
        return out

    # --- the marble -------------------------------------------------------------------
    def coverage(self, centre: np.ndarray, radius: float) -> tuple | None:
        """Soft-edged share of each open ray the marble covers, and the distance where it
        does: (idx, cov, t_hit, dist to centre, angular radius) for the rays idx it touches,
        or None if it is out of the cone. The edge is smoothed over one ray spacing so a
        moving marble changes the reading continuously, not in steps of one ray."""
        v = np.asarray(centre) - self.origin
        dist = float(np.sqrt(v @ v))
        if dist <= radius:
            return None
        u = v / dist
        beta = math.asin(radius / dist)
        off_axis = math.acos(max(-1.0, min(1.0, float(u @ self.axis))))
        if off_axis > self.half_angle + beta + self.spacing:
            return None
        cosp = self.dirs @ u
        lim = beta + 0.5 * self.spacing
        idx = np.nonzero((cosp > math.cos(lim)) & self.open)[0] if lim < math.pi else \
            np.nonzero(self.open)[0]
        if idx.size == 0:
            return None
        c = np.minimum(cosp[idx], 1.0)
        psi = np.arccos(c)
        cov = np.minimum((beta - psi) / self.spacing + 0.5, 1.0)
        s = dist * c
        perp2 = np.maximum(dist * dist - s * s, 0.0)
        t_hit = s - np.sqrt(np.maximum(radius * radius - perp2, 0.0))
        # the soft edge must not pass behind a nearer wall: a ray whose static hit is nearer
        # than the marble is not covered
        cov = np.where(t_hit < self.t[idx], cov, 0.0)
        return idx, cov, t_hit, dist, beta
