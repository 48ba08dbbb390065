// The table page's drawing of a PICTURE (ringside/games/present.py): plain ES module, SVG for
// the ring, the wheels and the LEDs, HTML for players, tables and text. It never asks which
// game it draws: a section's kind and keys decide (docs/table-contract.md, docs/web.md).
//
//   renderPicture(root, picture, opts)  the whole table; opts = {places, onPlace, highlight, choices}
//   renderLeds(root, pixels, ring)      the LED ring's mirror; ring = {offset_deg, clockwise}
//   renderTimer(root, timer)            a ring that empties until timer.deadline_ms; null stops it
//   setMarble(root, deg, space)         move the marble of an already drawn ring (live events)
//   showLanding(root, deg, space, label) the board's result at once: marble at rest, space marked
//   ringAngle(root, x, y) / marbleDeg(root) / showAim(root, from, delta)   a flick dragged on the ring

const SVGNS = "http://www.w3.org/2000/svg";

// The palette of ringside.games.present.COLOUR_RGB (a test holds the two equal).
export const PALETTE = {
  yellow: "ffd000", blue: "0050ff", orange: "ff5000", green: "00c040", white: "ffffff",
  red: "ff0000", purple: "a000ff", grey: "606070", graphite: "606070", black: "000000",
  off: "000000", teal: "00e0c0",
};

// Per-seat patterns, so a player is told apart by more than colour (seat i takes PATTERNS[i % 5]).
export const PATTERNS = ["solid", "stripes", "dots", "checks", "bars"];

const NEUTRAL = "#8a8f98";
let uid = 0;                       // ids inside SVG defs are unique per document
const state = new WeakMap();       // root -> what the last drawing left behind (marble, timers)

// ----- small helpers -------------------------------------------------------------------------

/** "#rrggbb" of a palette name or a "rrggbb" hex; null for nothing. */
export function colourHex(c) {
  if (c === null || c === undefined || c === "") return null;
  let s = String(c).toLowerCase();
  if (s.endsWith("*")) s = s.slice(0, -1);
  if (s in PALETTE) return "#" + PALETTE[s];
  if (/^#?[0-9a-f]{6}$/.test(s)) return s.startsWith("#") ? s : "#" + s;
  return null;
}

function luminance(hex) {
  const n = parseInt(hex.slice(1), 16);
  const ch = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  });
  return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
}

/** Black or white, whichever reads on this fill. */
function inkOn(hex) {
  return hex && luminance(hex) > 0.22 ? "#111" : "#fff";
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
}

function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, String(v));
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
}

const rad = (d) => (d * Math.PI) / 180;
// ring.json's angles: degrees anticlockwise seen from above, 0 = east; SVG's y points down.
const px = (r, d) => [r * Math.cos(rad(d)), -r * Math.sin(rad(d))];
const fmt = (v) => (Math.round(v * 100) / 100).toString();

function span(start, end) {
  const s = (((end - start) % 360) + 360) % 360;
  return s === 0 ? 360 : s;
}

/** An annular sector from a to a+w degrees (anticlockwise), between radii r0 < r1. */
function sectorPath(a, w, r0, r1) {
  if (w >= 359.99) {
    return `M ${r1} 0 A ${r1} ${r1} 0 1 0 ${-r1} 0 A ${r1} ${r1} 0 1 0 ${r1} 0 Z ` +
      `M ${r0} 0 A ${r0} ${r0} 0 1 1 ${-r0} 0 A ${r0} ${r0} 0 1 1 ${r0} 0 Z`;
  }
  const large = w > 180 ? 1 : 0;
  const [x0, y0] = px(r1, a), [x1, y1] = px(r1, a + w);
  const [x2, y2] = px(r0, a + w), [x3, y3] = px(r0, a);
  return `M ${fmt(x0)} ${fmt(y0)} A ${r1} ${r1} 0 ${large} 0 ${fmt(x1)} ${fmt(y1)} ` +
    `L ${fmt(x2)} ${fmt(y2)} A ${r0} ${r0} 0 ${large} 1 ${fmt(x3)} ${fmt(y3)} Z`;
}

/** Text turned to run along the ring at angle d, never upside down. */
function tangentRotation(d) {
  let rot = 90 - d;
  rot = ((rot + 180) % 360 + 360) % 360 - 180;
  if (rot > 90) rot -= 180;
  if (rot < -90) rot += 180;
  return rot;
}

/** Short labels (numbers) stay upright, so a 6 is never read as a 9. */
function upright(lines) {
  return Math.max(...lines.map((l) => String(l).length)) <= 3;
}

/** Words split into at most `max` lines of about `width` characters. */
function wrap(label, width, max) {
  const words = String(label).split(/\s+/).filter(Boolean);
  const lines = [];
  for (const w of words) {
    const last = lines.length ? lines[lines.length - 1] : null;
    if (last !== null && (last + " " + w).length <= width) lines[lines.length - 1] = last + " " + w;
    else lines.push(w);
  }
  if (lines.length > max) {
    const keep = lines.slice(0, max - 1);
    keep.push(lines.slice(max - 1).join(" "));
    return keep;
  }
  return lines.length ? lines : [""];
}

// ----- player tokens: colour + pattern + glyph ------------------------------------------------

/** <defs> with every seat pattern, in a dark and a light ink; returns {defs, fill(seat, ink)}. */
function patternDefs() {
  const p = "rs" + (++uid);
  const defs = svg("defs");
  for (const [ink, stroke] of [["d", "rgba(0,0,0,0.55)"], ["l", "rgba(255,255,255,0.7)"]]) {
    const mk = (name, ...shapes) => defs.append(svg("pattern", {
      id: `${p}-${name}-${ink}`, width: 6, height: 6, patternUnits: "userSpaceOnUse",
    }, ...shapes));
    mk("stripes", svg("path", { d: "M -1 1 L 1 -1 M 0 6 L 6 0 M 5 7 L 7 5", stroke, "stroke-width": 1.6 }));
    mk("dots", svg("circle", { cx: 3, cy: 3, r: 1.4, fill: stroke }));
    mk("checks", svg("path", { d: "M 0 0 H 6 M 0 0 V 6", stroke, "stroke-width": 1.4, fill: "none" }));
    mk("bars", svg("rect", { x: 0, y: 0, width: 6, height: 2, fill: stroke }));
  }
  const fill = (seat, hex) => {
    const name = PATTERNS[((seat ?? 0) % PATTERNS.length + PATTERNS.length) % PATTERNS.length];
    if (seat === null || seat === undefined || name === "solid") return null;
    return `url(#${p}-${name}-${inkOn(hex) === "#111" ? "d" : "l"})`;
  };
  return { defs, fill };
}

/** A player's piece: a rounded square in their colour, their pattern over it, their glyph on top. */
function tokenShape(pat, cx, cy, size, seat, colour, glyph, title) {
  const hex = colourHex(colour) || NEUTRAL;
  const g = svg("g", {
    class: "rs-token", "data-seat": seat ?? "", "data-colour": hex.slice(1), "data-glyph": glyph || "",
  });
  const x = cx - size / 2, y = cy - size / 2;
  g.append(svg("rect", { x, y, width: size, height: size, rx: size * 0.18, fill: hex, stroke: "#111", "stroke-width": 1.2 }));
  const over = pat.fill(seat, hex);
  if (over) g.append(svg("rect", { x, y, width: size, height: size, rx: size * 0.18, fill: over }));
  if (glyph) {
    const fs = size * (glyph.length > 2 ? 0.42 : glyph.length > 1 ? 0.52 : 0.7);
    g.append(svg("text", {
      x: cx, y: cy, "font-size": fmt(fs), class: "rs-token-glyph", fill: inkOn(hex),
      stroke: inkOn(hex) === "#111" ? "#fff" : "#000", "stroke-width": fmt(fs / 7),
      "text-anchor": "middle", "dominant-baseline": "central", text: glyph,
    }));
  }
  if (title) g.append(svg("title", { text: title }));
  return g;
}

/** A small inline SVG token for HTML (players, legend, marks in lists). */
function tokenSvg(seat, colour, glyph, title, size = 28) {
  const pat = patternDefs();
  const s = svg("svg", {
    class: "rs-token-svg", viewBox: `0 0 ${size} ${size}`, width: size, height: size,
    role: "img", "aria-label": title || glyph || "",
  }, pat.defs);
  s.append(tokenShape(pat, size / 2, size / 2, size - 2, seat, colour, glyph, title));
  return s;
}

function glyphOf(pic, seat) {
  const p = (pic.players || []).find((x) => x.seat === seat);
  return p ? p.glyph : null;
}

function nameOf(pic, seat) {
  const p = (pic.players || []).find((x) => x.seat === seat);
  return p ? p.name : null;
}

/** The glyph a mark is drawn with: its own text when short, else its owner's glyph. */
function markGlyph(pic, m) {
  const t = String(m.text ?? "");
  if (t.length && t.length <= 3) return t;
  return m.seat !== null && m.seat !== undefined ? glyphOf(pic, m.seat) || "" : "";
}

function markTitle(pic, m) {
  const who = m.seat !== null && m.seat !== undefined ? nameOf(pic, m.seat) : null;
  const t = String(m.text ?? "");
  return who && t.length <= 3 ? `${t} (${who})` : t;
}

// ----- clicks ---------------------------------------------------------------------------------

function clickable(node, id, what, opts, words) {
  const places = (opts.places || []).map(String);
  const choices = (opts.choices || []).map(String);
  const sid = String(id);
  const isChoice = choices.includes(sid);
  if (!isChoice && !places.includes(sid)) return;
  node.classList.add("rs-clickable");
  if (isChoice) node.classList.add("rs-choice");
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", (isChoice ? "choose " : "") + words);
  const fire = (ev) => {
    ev.preventDefault();
    ev.stopPropagation();
    if (typeof opts.onPlace === "function") opts.onPlace(id);
  };
  node.addEventListener("click", fire);
  node.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") fire(ev);
  });
}

/** The outlines of clickable, highlighted and offered segments, drawn again on top (the
 *  segments keep the picture's order; a neighbour never covers an outline). */
function raise(parent, sel) {
  const layer = svg("g", { class: "rs-outlines", "aria-hidden": "true" });
  for (const cls of ["rs-clickable", "rs-highlight", "rs-choice"]) {
    for (const g of parent.querySelectorAll(`:scope > ${sel}.${cls}`)) {
      const area = g.querySelector("path");
      if (area) layer.append(svg("path", { d: area.getAttribute("d"), class: `rs-outline ${cls.replace("rs-", "rs-outline-")}` }));
    }
  }
  parent.append(layer);
}

// ----- the ring -------------------------------------------------------------------------------

const RING = { r0: 138, r1: 222, label: 194, marble: 156, marbleR: 10, cube: 26, cubeR: 118 };

/** A space's label: in one or two lines, along the ring or (a long word in a narrow space)
 *  across it, at the largest font that fits; {lines, fs, radial}. */
function labelFit(sp) {
  const w = span(Number(sp.start_deg), Number(sp.end_deg));
  const arc = rad(w) * (RING.label - 16) * 0.92;        // the arc at the text's inner edge
  const band = RING.r1 - RING.r0 - 12;
  const one = String(sp.label);
  const longest = (lines) => Math.max(...lines.map((l) => l.length), 1);
  const along = (lines) => Math.min(arc / (longest(lines) * 0.66), (band - 22) / (lines.length * 1.1));
  const across = (lines) => Math.min(band / (longest(lines) * 0.66), arc / (lines.length * 1.12));
  const two = wrap(one, Math.ceil(one.length / 2), 2);
  const options = [[one], two].flatMap((lines) => [
    { lines, fs: along(lines), radial: false }, { lines, fs: across(lines), radial: true }]);
  // along the ring (easier to read) unless that is too small and across is clearly larger
  const pick = (list) => list.reduce((x, y) => (y.fs * (y.lines.length > 1 ? 0.9 : 1) > x.fs * (x.lines.length > 1 ? 0.9 : 1) ? y : x));
  const al = pick(options.filter((o) => !o.radial)), ac = pick(options.filter((o) => o.radial));
  const best = al.fs < 15 && ac.fs > al.fs * 1.3 ? ac : al;
  return { lines: best.lines, fs: Math.max(9, best.fs), radial: best.radial && !upright(best.lines) };
}

/** Text turned to run across the ring (along the radius) at angle d, never upside down. */
function radialRotation(d) {
  let rot = -d;
  rot = ((rot + 180) % 360 + 360) % 360 - 180;
  if (rot > 90) rot -= 180;
  if (rot < -90) rot += 180;
  return rot;
}

function ringSection(sec, pic, opts, prev, sIndex) {
  const pat = patternDefs();
  const size = (opts.choices || []).length ? 256 : 232;
  const root = svg("svg", {
    class: "rs-ring", viewBox: `${-size} ${-size} ${2 * size} ${2 * size}`, role: "group",
    "aria-label": sec.title,
  }, pat.defs);
  root.append(svg("circle", { r: RING.r1 + 6, class: "rs-ring-rim" }));
  root.append(svg("circle", { r: RING.r0 - 4, class: "rs-ring-hub" }));
  const hi = opts.highlight === null || opts.highlight === undefined ? null : String(opts.highlight);
  const spaces = sec.spaces || [];
  // labels: along the ring, in up to two lines; one size for most of them (a quarter of the
  // ring's labels may need less), so the ring reads evenly
  const fits = spaces.map((sp) => labelFit(sp));
  const sorted = fits.map((f) => f.fs).sort((x, y) => x - y);
  const common = Math.min(24, sorted.length ? sorted[Math.floor(sorted.length / 4)] : 24);
  spaces.forEach((sp, i) => {
    const a = Number(sp.start_deg), w = span(Number(sp.start_deg), Number(sp.end_deg));
    const mid = a + w / 2;
    const g = svg("g", { class: "rs-space", "data-space": sp.id, "data-label": sp.label });
    if (sp.highlight) g.classList.add("rs-marble-space");
    if (hi !== null && String(sp.id) === hi) g.classList.add("rs-highlight");
    g.append(svg("path", { d: sectorPath(a, w, RING.r0, RING.r1), class: "rs-space-area" }));
    const lines = fits[i].lines;
    const fs = Math.min(common, fits[i].fs);
    const radial = fits[i].radial;
    const [lx, ly] = px(radial ? (RING.r0 + RING.r1) / 2 : RING.label + (lines.length > 1 ? 2 : 0), mid);
    const turn = upright(lines) ? 0 : radial ? radialRotation(mid) : tangentRotation(mid);
    const t = svg("text", {
      class: "rs-space-label", "font-size": fmt(fs), "text-anchor": "middle",
      transform: `translate(${fmt(lx)} ${fmt(ly)}) rotate(${fmt(turn)})`,
    });
    lines.forEach((line, k) => t.append(svg("tspan", {
      x: 0, y: fmt((k - (lines.length - 1) / 2) * fs * 1.1), "dominant-baseline": "central", text: line,
    })));
    g.append(t);
    // the marks (cubes): stacked from the ring inwards, each its player's colour, pattern and glyph
    const marks = sp.marks || [];
    const maxShown = 5;
    marks.slice(0, maxShown).forEach((m, k) => {
      const [cx, cy] = px(RING.cubeR - k * (RING.cube + 2), mid);
      g.append(tokenShape(pat, cx, cy, RING.cube, m.seat, m.colour, markGlyph(pic, m), markTitle(pic, m)));
    });
    if (marks.length > maxShown) {
      const [cx, cy] = px(RING.cubeR - maxShown * (RING.cube + 2), mid);
      g.append(svg("text", { x: fmt(cx), y: fmt(cy), class: "rs-more", "text-anchor": "middle",
        "dominant-baseline": "central", text: `+${marks.length - maxShown}` }));
    }
    const words = `${sp.label}${marks.length ? ", " + marks.map((m) => markTitle(pic, m)).join(", ") : ""}`;
    g.append(svg("title", { text: words }));
    clickable(g, sp.id, "space", opts, `space ${sp.label}`);
    root.append(g);
  });
  raise(root, ".rs-space");
  // choices get a numbered badge, so "which of the two" can be said aloud
  const choices = (opts.choices || []).map(String);
  choices.forEach((id, k) => {
    const sp = spaces.find((s) => String(s.id) === id);
    if (!sp) return;
    const mid = Number(sp.start_deg) + span(Number(sp.start_deg), Number(sp.end_deg)) / 2;
    const [bx, by] = px(RING.r1 + 18, mid);
    root.append(svg("g", { class: "rs-choice-badge" },
      svg("circle", { cx: fmt(bx), cy: fmt(by), r: 13 }),
      svg("text", { x: fmt(bx), y: fmt(by), "text-anchor": "middle", "dominant-baseline": "central", text: String(k + 1) })));
  });
  // the marble: eased from where the last picture left it to where this one puts it
  const m = sec.marble;
  let info = null;
  if (m && m.deg !== null && m.deg !== undefined && isFinite(Number(m.deg))) {
    const marble = svg("g", { class: "rs-marble", "data-space": null });
    marble.setAttribute("data-marble-space", m.space ?? "");
    marble.append(svg("circle", { r: RING.marbleR, class: "rs-marble-ball" }));
    marble.append(svg("circle", { r: RING.marbleR * 0.35, cx: -RING.marbleR * 0.3, cy: -RING.marbleR * 0.3, class: "rs-marble-shine" }));
    marble.append(svg("title", { text: "the marble" }));
    root.append(marble);
    const key = "ring" + sIndex;
    const from = prev && prev.marbles && key in prev.marbles ? prev.marbles[key] : null;
    info = { key, node: marble, from, to: Number(m.deg) };
  }
  const centre = svg("text", { class: "rs-ring-centre", "text-anchor": "middle", "dominant-baseline": "central", y: 0 });
  if (m && m.space !== null && m.space !== undefined) {
    const sp = spaces.find((s) => String(s.id) === String(m.space));
    centre.textContent = sp ? sp.label : String(m.space);
  }
  root.append(centre);
  return { node: root, marble: info };
}

function placeMarble(node, deg) {
  const [x, y] = px(RING.marble, deg);
  node.setAttribute("transform", `translate(${fmt(x)} ${fmt(y)})`);
  node.setAttribute("data-deg", fmt(((deg % 360) + 360) % 360));
}

function animateMarble(st, info) {
  const to = info.to;
  const from = info.from === null || info.from === undefined ? to : info.from;
  let delta = ((to - from) % 360 + 540) % 360 - 180;     // the short way round
  if (Math.abs(delta) < 0.01) delta = 0;
  st.marbles[info.key] = to;
  st.current[info.key] = from;
  // live positions come ten times a second: each is drawn as it comes, not eased over frames,
  // so a screen among many (or a slow phone) spends one paint per report, not sixty a second
  if (!delta || info.live) {
    placeMarble(info.node, to);
    st.current[info.key] = to;
    return;
  }
  // a new picture glides the marble over up to 0.9 s
  const ms = Math.max(150, Math.min(900, Math.abs(delta) * 4));
  const t0 = performance.now();
  placeMarble(info.node, from);
  const stepFn = (now) => {
    const f = Math.min(1, (now - t0) / ms);
    const e = 1 - Math.pow(1 - f, 3);
    const d = from + delta * e;
    placeMarble(info.node, d);
    st.current[info.key] = d;
    if (f < 1 && info.node.isConnected) st.raf[info.key] = requestAnimationFrame(stepFn);
    else delete st.raf[info.key];
  };
  st.raf[info.key] = requestAnimationFrame(stepFn);
}

/** Move the marble of the ring already drawn in root (the board's live events), at once. */
export function setMarble(root, deg, space) {
  const st = state.get(root);
  if (!st) return;
  const node = root.querySelector(".rs-marble");
  if (!node) return;
  const key = "ring0";
  if (st.raf[key]) cancelAnimationFrame(st.raf[key]);
  if (space !== undefined) node.setAttribute("data-marble-space", space ?? "");
  animateMarble(st, { key, node, from: st.current[key] ?? st.marbles[key] ?? deg, to: Number(deg), live: true });
}

/** The board's result the moment it is read (before the next table comes): the marble put at
 *  rest at deg at once, no glide, its space marked, the ring's centre naming it. A result with
 *  no space (it left the ring) clears the mark. Returns whether a ring was there to show it. */
export function showLanding(root, deg, space, label) {
  const ring = root.querySelector(".rs-ring");
  if (!ring) return false;
  const st = state.get(root);
  const node = ring.querySelector(".rs-marble");
  if (node && st && deg !== null && deg !== undefined && isFinite(Number(deg))) {
    if (st.raf.ring0) { cancelAnimationFrame(st.raf.ring0); delete st.raf.ring0; }
    placeMarble(node, Number(deg));
    st.marbles.ring0 = Number(deg);
    st.current.ring0 = Number(deg);
    node.setAttribute("data-marble-space", space ?? "");
  }
  for (const g of ring.querySelectorAll(".rs-landed")) g.classList.remove("rs-landed");
  if (space !== null && space !== undefined) {
    const g = ring.querySelector(`.rs-space[data-space="${CSS.escape(String(space))}"]`);
    if (g) g.classList.add("rs-landed");
  }
  const centre = ring.querySelector(".rs-ring-centre");
  if (centre) centre.textContent = space === null || space === undefined ? "off the ring" : String(label ?? space);
  return true;
}

/** The angle (degrees, anticlockwise from 3 o'clock, as the ring is drawn) of the page point
 *  (x, y) about the centre of the ring drawn in root; null when there is no ring. */
export function ringAngle(root, x, y) {
  const ring = root.querySelector(".rs-ring");
  if (!ring) return null;
  const r = ring.getBoundingClientRect();
  return Math.atan2(-(y - (r.top + r.height / 2)), x - (r.left + r.width / 2)) * 180 / Math.PI;
}

/** Where the marble of the ring in root is drawn (degrees), or null. */
export function marbleDeg(root) {
  const m = root.querySelector(".rs-ring .rs-marble");
  return m && m.hasAttribute("data-deg") ? Number(m.getAttribute("data-deg")) : null;
}

/** A flick being aimed by a drag: an arc from `from` over `delta` degrees (+ anticlockwise)
 *  along the marble's track, with the number of degrees at its end; delta null removes it. */
export function showAim(root, from, delta) {
  const ring = root.querySelector(".rs-ring");
  if (!ring) return;
  let g = ring.querySelector(".rs-aim");
  if (delta === null || delta === undefined || from === null) { if (g) g.remove(); return; }
  if (!g) {
    g = svg("g", { class: "rs-aim", "pointer-events": "none" },
      svg("path", { class: "rs-aim-arc" }), svg("text", { class: "rs-aim-deg", "text-anchor": "middle", "dominant-baseline": "central" }));
    ring.append(g);
  }
  const w = Math.min(359.9, Math.abs(delta));
  const a = delta >= 0 ? from : from - w;            // arcs are drawn anticlockwise from a
  const [x0, y0] = px(RING.marble, a), [x1, y1] = px(RING.marble, a + w);
  g.firstChild.setAttribute("d", `M ${fmt(x0)} ${fmt(y0)} A ${RING.marble} ${RING.marble} 0 ${w > 180 ? 1 : 0} 0 ${fmt(x1)} ${fmt(y1)}`);
  const [tx, ty] = px(RING.marble - 34, from + delta);
  g.lastChild.setAttribute("x", fmt(tx));
  g.lastChild.setAttribute("y", fmt(ty));
  g.lastChild.textContent = `${Math.round(Math.abs(delta))}°`;
  g.dataset.delta = String(Math.round(delta));
}

// ----- grids ----------------------------------------------------------------------------------

const CORNER_DEG = {
  right: 0, "upper-right": 45, up: 90, "upper-left": 135, left: 180, "lower-left": 225, down: 270, "lower-right": 315,
};

/** A piece on a square: its owner's colour, the piece's own pattern, its points and owner's
 *  letter in the middle, and a corner triangle where it faces. */
function pieceSvg(cell, pic) {
  const pc = cell.piece;
  const hex = colourHex(cell.colour) || NEUTRAL;
  const ink = inkOn(hex);
  const s = svg("svg", { class: "rs-piece", viewBox: "0 0 60 60", role: "img" });
  const words = [];
  const clip = `rs${++uid}-clip`;
  s.append(svg("clipPath", { id: clip }, svg("rect", { x: 4, y: 4, width: 52, height: 52, rx: 7 })));
  s.append(svg("rect", { x: 4, y: 4, width: 52, height: 52, rx: 7, fill: hex }));
  const pattern = String(pc.pattern || "plain");
  const art = svg("g", { "clip-path": `url(#${clip})` });
  if (pattern === "crosshatched") {
    let d = "";
    for (let k = -60; k <= 60; k += 9) d += `M ${k} 0 L ${60 + k} 60 M ${60 - k} 0 L ${-k} 60 `;
    art.append(svg("path", { d, stroke: ink, "stroke-width": 2, opacity: 0.55 }));
  } else if (pattern === "dotted") {
    for (let x = 10; x <= 50; x += 10) for (let y = 10; y <= 50; y += 10) {
      art.append(svg("circle", { cx: x, cy: y, r: 2.4, fill: ink, opacity: 0.6 }));
    }
  } else if (pattern === "black") {
    art.append(svg("rect", { x: 13, y: 13, width: 34, height: 34, rx: 5, fill: "#000" }));
  }
  // the corner it faces: a triangle filling that corner
  const f = pc.facing ?? pc.faces;
  const corner = { "lower-right": [56, 56, -1, -1], "lower-left": [4, 56, 1, -1], "upper-left": [4, 4, 1, 1], "upper-right": [56, 4, -1, 1] }[f];
  if (corner) {
    const [cx, cy, dx, dy] = corner, L = 22;
    art.append(svg("path", {
      class: "rs-facing", d: `M ${cx} ${cy} L ${cx + dx * L} ${cy} L ${cx} ${cy + dy * L} Z`,
      fill: ink, stroke: ink === "#111" ? "#fff" : "#000", "stroke-width": 1.5,
    }));
    words.push("facing " + f);
  }
  s.append(art);
  s.append(svg("rect", { x: 4, y: 4, width: 52, height: 52, rx: 7, fill: "none", stroke: "#111", "stroke-width": 2.5 }));
  const label = `${cell.glyph || ""}${pc.points ?? ""}`;
  if (label) {
    const onBlack = pattern === "black";
    const fillText = onBlack ? "#fff" : ink;
    s.append(svg("text", {
      x: 30, y: 31, "text-anchor": "middle", "dominant-baseline": "central", "font-size": 19,
      class: "rs-piece-label", fill: fillText, stroke: fillText === "#111" ? "#fff" : "#000", "stroke-width": 3.5,
      text: label,
    }));
  }
  const who = cell.seat !== null && cell.seat !== undefined ? nameOf(pic, cell.seat) : null;
  const text = `${who ? who + "'s " : ""}${pattern} ${pc.points ?? ""}${words.length ? ", " + words.join(", ") : ""}`.trim();
  s.setAttribute("aria-label", text);
  s.setAttribute("data-pattern", pattern);
  if (f) s.setAttribute("data-facing", f);
  s.append(svg("title", { text }));
  return s;
}

function gridSection(sec, pic, opts) {
  const cols = sec.columns || [];
  const wrapDiv = el("div", { class: "rs-grid-wrap" });
  const g = el("div", { class: "rs-grid", role: "table", "aria-label": sec.title });
  g.style.gridTemplateColumns = `auto repeat(${Math.max(1, cols.length)}, minmax(0, 1fr))`;
  g.append(el("div", { class: "rs-grid-corner", role: "columnheader" }));
  for (const c of cols) g.append(el("div", { class: "rs-grid-col", role: "columnheader", text: c }));
  const hi = opts.highlight === null || opts.highlight === undefined ? null : String(opts.highlight);
  const structured = (sec.rows || []).some((r) => (r.cells || []).some((c) => "piece" in c || "fill" in c || "off" in c));
  if (structured) {
    g.classList.add("rs-grid-board");
    g.style.setProperty("--rs-cols", String(Math.max(1, cols.length)));
    g.style.maxWidth = `${Math.max(1, cols.length) * 5 + 12}em`;
  }
  for (const row of sec.rows || []) {
    const head = el("div", { class: "rs-grid-row", role: "rowheader", text: row.label });
    const rc = colourHex(row.colour);
    if (rc) head.style.borderLeftColor = rc;
    if (row.in_play === false) head.classList.add("rs-off");
    g.append(head);
    for (const cell of row.cells || []) {
      const id = cell.id ?? cell.square;
      const c = el("div", { class: "rs-cell", role: "cell" });
      if (id !== undefined && id !== null) c.setAttribute("data-cell", id);
      const fill = colourHex(cell.fill);
      if (fill) {
        c.classList.add("rs-filled");
        c.style.setProperty("--rs-fill", fill);
      }
      if (cell.off || row.in_play === false) c.classList.add("rs-off");
      if (hi !== null && id !== undefined && String(id) === hi) c.classList.add("rs-highlight");
      if (cell.highlight) c.classList.add("rs-highlight");
      if (cell.piece) {
        c.append(pieceSvg(cell, pic));
      } else if (structured) {
        const t = String(cell.text ?? "").replace(/[[\]]/g, "").trim();
        if (t && t !== "." && !cell.off && row.in_play !== false) c.append(el("span", { class: "rs-cell-text", text: t }));
        if (id !== undefined && id !== null) c.append(el("span", { class: "rs-cell-id", text: String(id) }));
      } else {
        if (cell.seat !== null && cell.seat !== undefined) {
          c.append(tokenSvg(cell.seat, cell.colour, glyphOf(pic, cell.seat) || cell.glyph || "", nameOf(pic, cell.seat), 22));
        }
        c.append(el("span", { class: "rs-cell-text", text: String(cell.text ?? "") }));
      }
      if ((cell.marks || []).length) {
        c.append(el("span", { class: "rs-cell-marks" }, cell.marks.map((m) =>
          tokenSvg(m.seat, m.colour, markGlyph(pic, m), markTitle(pic, m), 24))));
      }
      const words = `${id ?? ""} ${String(cell.text ?? "").trim()}`.trim();
      if (words) c.title = words;
      if (id !== undefined && id !== null) clickable(c, id, "cell", opts, `square ${id}`);
      g.append(c);
    }
  }
  wrapDiv.append(g);
  return wrapDiv;
}

// ----- tracks ---------------------------------------------------------------------------------

function stepMarks(pic, marks, size) {
  const box = el("span", { class: "rs-step-marks" });
  for (const m of marks || []) {
    const glyph = markGlyph(pic, m);
    const t = String(m.text ?? "");
    if (t.length <= 3) {
      box.append(tokenSvg(m.seat, m.colour, glyph, markTitle(pic, m), size));
    } else {
      const chip = el("span", { class: "rs-mark-chip" });
      if (m.seat !== null && m.seat !== undefined || m.colour) chip.append(tokenSvg(m.seat, m.colour, glyph, nameOf(pic, m.seat) || "", size));
      chip.append(el("span", { text: t }));
      box.append(chip);
    }
  }
  return box;
}

function lineTrack(sec, pic, opts, steps) {
  const row = el("ol", { class: "rs-track-line" });
  for (const st of steps) {
    const li = el("li", { class: "rs-step", "data-step": st.label });
    if (st.highlight) li.classList.add("rs-highlight");
    const c = colourHex(st.colour);
    if (c) li.style.setProperty("--rs-step", c);
    li.append(el("span", { class: "rs-step-label", text: st.label }));
    if ((st.marks || []).length) li.append(stepMarks(pic, st.marks, 22));
    clickable(li, st.label, "step", opts, st.label);
    row.append(li);
  }
  return row;
}

function loopTrack(sec, pic, opts) {
  const all = sec.steps || [];
  const on = all.filter((s) => !s.beside);
  const beside = all.filter((s) => s.beside);
  const box = el("div", { class: "rs-track-loop" });
  const pat = patternDefs();
  const size = 230, r0 = 95, r1 = 225;
  const s = svg("svg", { class: "rs-wheel", viewBox: `${-size} ${-size} ${2 * size} ${2 * size}`, role: "group",
    "aria-label": sec.title }, pat.defs);
  const n = Math.max(1, on.length), w = 360 / n;
  on.forEach((st, k) => {
    const mid = 90 - k * w;                      // the first step at the top, then clockwise
    const g = svg("g", { class: "rs-step", "data-step": st.label });
    if (st.highlight) g.classList.add("rs-highlight");
    const c = colourHex(st.colour);
    const area = svg("path", { d: sectorPath(mid - w / 2, w, r0, r1), class: "rs-step-area" });
    if (c) area.style.setProperty("--rs-step", c);
    if (c) g.classList.add("rs-coloured");
    g.append(area);
    const short = st.short ?? (String(st.label).length <= 6 ? st.label : String(st.label).split(/\s+/)[0]);
    const arc = rad(w) * (r1 - 24);
    const fs = Math.max(12, Math.min(38, arc / (String(short).length * 0.62 + 0.5)));
    const [lx, ly] = px(r1 - 26, mid);
    g.append(svg("text", { class: "rs-step-label", "font-size": fmt(fs), "text-anchor": "middle", "dominant-baseline": "central",
      transform: `translate(${fmt(lx)} ${fmt(ly)}) rotate(${fmt(upright([String(short)]) ? 0 : tangentRotation(mid))})`, text: short }));
    const marks = st.marks || [];
    const tok = Math.min(28, (rad(w) * 130) / Math.max(1, Math.min(marks.length, 3)) - 4);
    marks.slice(0, 9).forEach((m, j) => {
      const ring = Math.floor(j / 3), pos = j % 3, inRing = Math.min(3, marks.length - ring * 3);
      const d = mid + (pos - (inRing - 1) / 2) * (w / 4.2);
      const [cx, cy] = px(r1 - 62 - ring * (tok + 4), d);
      g.append(tokenShape(pat, cx, cy, tok, m.seat, m.colour, markGlyph(pic, m), markTitle(pic, m)));
    });
    g.append(svg("title", { text: [st.label, ...marks.map((m) => markTitle(pic, m))].join(": ") }));
    clickable(g, st.label, "step", opts, st.label);
    s.append(g);
  });
  raise(s, ".rs-step");
  box.append(s);
  // what a wheel cannot say in a glyph: each step's marks in words, and the steps beside it
  const detail = el("ul", { class: "rs-track-detail" });
  for (const st of on) {
    const long = (st.marks || []).filter((m) => String(m.text ?? "").length > 3);
    if (!long.length && String(st.short ?? st.label) === String(st.label)) continue;
    const li = el("li", { "data-step-detail": st.label });
    li.append(el("b", { text: st.label }));
    if ((st.marks || []).length) li.append(stepMarks(pic, st.marks, 18));
    detail.append(li);
  }
  if (detail.children.length) box.append(detail);
  if (beside.length) box.append(lineTrack(sec, pic, opts, beside));
  return box;
}

function trackSection(sec, pic, opts) {
  return sec.loop ? loopTrack(sec, pic, opts) : lineTrack(sec, pic, opts, sec.steps || []);
}

// ----- tables and text ------------------------------------------------------------------------

function tableSection(sec) {
  const t = el("table", { class: "rs-table" });
  const head = el("tr");
  for (const h of sec.header || []) head.append(el("th", { scope: "col", text: h }));
  t.append(el("thead", {}, head));
  const body = el("tbody");
  for (const r of sec.rows || []) {
    const tr = el("tr");
    r.forEach((c, k) => tr.append(el(k === 0 ? "th" : "td", k === 0 ? { scope: "row", text: c } : { text: c })));
    body.append(tr);
  }
  t.append(body);
  return el("div", { class: "rs-table-wrap" }, t);
}

function textSection(sec) {
  return el("ul", { class: "rs-lines" }, (sec.lines || []).map((l) => el("li", { text: l })));
}

// ----- the whole picture ----------------------------------------------------------------------

function playersBox(pic) {
  const box = el("ul", { class: "rs-players", "aria-label": "players" });
  for (const p of pic.players || []) {
    const li = el("li", { class: "rs-player", "data-seat": p.seat });
    if (p.to_act) li.classList.add("rs-to-act");
    const hex = colourHex(p.colour) || NEUTRAL;
    li.style.setProperty("--rs-seat", hex);
    li.append(tokenSvg(p.seat, p.colour, p.glyph, `${p.name} (${p.colour})`, 40));
    const who = el("div", { class: "rs-player-who" },
      el("span", { class: "rs-player-name", text: p.name }),
      p.to_act ? el("span", { class: "rs-turn-badge", text: "to play" }) : null,
      (p.badges || []).map((b) => el("span", { class: "rs-badge", title: b.means, "aria-label": b.means },
        el("span", { class: "rs-badge-glyph", text: b.glyph || "" }), el("span", { class: "rs-badge-means", text: b.means || "" }))));
    li.append(who);
    if (p.score !== null && p.score !== undefined) {
      li.append(el("span", { class: "rs-score", "aria-label": `score ${p.score}`, text: String(p.score) }));
    }
    if ((p.facts || []).length) li.append(el("ul", { class: "rs-facts" }, p.facts.map((f) => el("li", { text: f }))));
    box.append(li);
  }
  return box;
}

function legendBox(pic) {
  const box = el("ul", { class: "rs-legend", "aria-label": "legend" });
  for (const e of pic.legend || []) {
    const li = el("li");
    const seat = (pic.players || []).find((p) => p.glyph === e.glyph && (!e.colour || p.colour === e.colour));
    if (seat) li.append(tokenSvg(seat.seat, seat.colour, seat.glyph, e.means, 22));
    else {
      const g = el("span", { class: "rs-legend-glyph", text: e.glyph });
      const c = colourHex(e.colour);
      if (c) {
        g.style.background = c;
        g.style.color = inkOn(c);
      }
      li.append(g);
    }
    li.append(el("span", { text: e.means }));
    box.append(li);
  }
  return box;
}

const DRAW = { ring: null, grid: gridSection, track: trackSection, table: tableSection, text: textSection };

/**
 * Draw a picture into root (its children are replaced). opts.places: ids the viewer may click
 * now (ring spaces, grid cells, track steps); opts.onPlace(id) is called on a click; opts.highlight
 * an id to mark (the landing awaiting correction); opts.choices two ids to choose between.
 */
export function renderPicture(root, picture, opts = {}) {
  const pic = picture || {};
  const prev = state.get(root);
  const st = { marbles: {}, current: {}, raf: {}, timer: prev ? prev.timer : null };
  if (prev) {
    for (const id of Object.values(prev.raf)) cancelAnimationFrame(id);
    Object.assign(st.marbles, prev.current);      // a marble mid-flight goes on from where it is
    for (const [k, v] of Object.entries(prev.marbles)) if (!(k in st.marbles)) st.marbles[k] = v;
  }
  // keep the keyboard's place across a redraw
  const focus = document.activeElement && root.contains(document.activeElement) ? document.activeElement : null;
  const focusKey = focus ? ["data-space", "data-cell", "data-step"].map((a) => [a, focus.getAttribute(a)]).find((x) => x[1] !== null) : null;

  const top = el("div", { class: "rs-picture" });
  const head = el("header", { class: "rs-head" },
    el("h2", { class: "rs-title", text: pic.title || pic.game || "" }),
    el("p", { class: "rs-status", role: "status", "aria-live": "polite", text: pic.status || "" }));
  if (pic.timer && pic.timer.text) head.append(el("p", { class: "rs-timer-text", text: pic.timer.text }));
  if (pic.result) {
    head.append(el("div", { class: "rs-result", role: "alert" },
      el("strong", { text: (pic.result.winners || []).length ? `${pic.result.winners.join(" and ")} ${pic.result.winners.length === 1 ? "wins" : "win"}` : "Game over" }),
      el("p", { text: pic.result.text || "" })));
  }
  top.append(head);
  top.append(playersBox(pic));
  const secs = el("div", { class: "rs-sections" });
  const marbles = [];
  (pic.sections || []).forEach((sec, k) => {
    const box = el("section", { class: `rs-section rs-section-${sec.kind}`, "data-kind": sec.kind });
    if (sec.kind === "track" && sec.loop) box.classList.add("rs-section-loop");
    box.append(el("h3", { class: "rs-section-title", text: sec.title || "" }));
    if (sec.kind === "ring") {
      const r = ringSection(sec, pic, opts, st, k);
      box.append(r.node);
      if (r.marble) marbles.push(r.marble);
    } else if (sec.kind === "table") {
      box.style.flexBasis = `${Math.min(60, 8 + 6 * (sec.header || []).length)}em`;
      box.append(tableSection(sec));
    } else if (DRAW[sec.kind]) {
      box.append(DRAW[sec.kind](sec, pic, opts));
    } else {
      box.append(el("p", { text: `(a ${sec.kind} section)` }));
    }
    secs.append(box);
  });
  top.append(secs);
  const foot = el("footer", { class: "rs-foot" });
  if ((pic.notes || []).length) foot.append(el("ul", { class: "rs-notes", "aria-label": "notes" }, pic.notes.map((n) => el("li", { text: n }))));
  if ((pic.legend || []).length) foot.append(legendBox(pic));
  if ((pic.hidden || []).length) foot.append(el("p", { class: "rs-hidden", text: "Hidden from you: " + pic.hidden.join("; ") }));
  top.append(foot);
  root.replaceChildren(top);
  state.set(root, st);
  for (const m of marbles) animateMarble(st, m);
  if (focusKey) {
    const again = root.querySelector(`[${focusKey[0]}="${CSS.escape(focusKey[1])}"][tabindex]`);
    if (again) again.focus();
  }
}

// ----- the LED ring ---------------------------------------------------------------------------

/**
 * A mirror of the LED ring: pixels is one colour per LED ("rrggbb" or a palette name; "off"
 * unlit; a trailing "*" pulses). ring = {offset_deg: LED 0's angle, clockwise: the strip's
 * direction} (ring.json's leds.led0_deg and direction are read too).
 */
export function renderLeds(root, pixels, ring = {}) {
  const list = Array.isArray(pixels) ? pixels : [];
  const n = list.length;
  const off = Number(ring.offset_deg ?? ring.led0_deg ?? 0);
  const cw = ring.clockwise ?? (ring.direction === "cw");
  let s = root.querySelector(":scope > svg.rs-leds");
  if (!s || Number(s.getAttribute("data-count")) !== n || s.getAttribute("data-geom") !== `${off}/${cw}`) {
    s = svg("svg", { class: "rs-leds", viewBox: "-110 -110 220 220", role: "img", "data-count": n, "data-geom": `${off}/${cw}` });
    s.append(svg("circle", { r: 100, class: "rs-leds-strip" }));
    const r = Math.max(2, Math.min(7, (Math.PI * 2 * 92) / Math.max(1, n) * 0.38));
    for (let i = 0; i < n; i++) {
      const d = off + (cw ? -1 : 1) * (i * 360) / n;
      const [x, y] = px(92, d);
      s.append(svg("circle", { class: "rs-led", "data-led": i, cx: fmt(x), cy: fmt(y), r: fmt(r) }));
    }
    root.replaceChildren(s);
  }
  const leds = s.querySelectorAll(".rs-led");
  let lit = 0;
  list.forEach((c, i) => {
    const hex = colourHex(c) || "#000000";
    const dark = hex === "#000000";
    const node = leds[i];
    node.setAttribute("fill", dark ? "#1b1d22" : hex);
    node.setAttribute("data-colour", hex.slice(1));
    node.classList.toggle("rs-led-off", dark);
    node.classList.toggle("rs-led-pulse", String(c).endsWith("*"));
    if (!dark) lit++;
  });
  s.setAttribute("aria-label", `the LED ring: ${lit} of ${n} lit`);
}

// ----- the turn timer -------------------------------------------------------------------------

function secondsWords(s) {
  return s === 1 ? "1 second left" : `${s} seconds left`;
}

/**
 * A ring that empties by itself until timer.deadline_ms (epoch ms on this page's clock);
 * timer = {seconds_total, deadline_ms, seat, text, [colour]}; null stops and clears it.
 */
export function renderTimer(root, timer) {
  const prev = state.get(root);
  if (prev && prev.timer) {
    clearInterval(prev.timer);
    prev.timer = null;
  }
  if (!timer) {
    root.replaceChildren();
    return;
  }
  const total = Math.max(0.001, Number(timer.seconds_total) || 0) * 1000;
  const deadline = Number(timer.deadline_ms);
  const R = 44, C = 2 * Math.PI * R;
  const hex = colourHex(timer.colour) || "#ffd000";
  const arc = svg("circle", { class: "rs-timer-arc", r: R, transform: "rotate(-90)", "stroke-dasharray": fmt(C), stroke: hex });
  const num = svg("text", { class: "rs-timer-num", "text-anchor": "middle", "dominant-baseline": "central", y: -4 });
  const unit = svg("text", { class: "rs-timer-unit", "text-anchor": "middle", "dominant-baseline": "central", y: 22, text: "seconds" });
  const s = svg("svg", { class: "rs-timer-ring", viewBox: "-50 -50 100 100", role: "img" },
    svg("circle", { class: "rs-timer-track", r: R }), arc, num, unit);
  const words = el("p", { class: "rs-timer-words", "aria-live": "off" });
  const box = el("div", { class: "rs-timer", "data-seat": timer.seat ?? "" }, s, words,
    timer.text ? el("p", { class: "rs-timer-about", text: timer.text }) : null);
  root.replaceChildren(box);
  let lastSecond = null;
  const st = prev || { marbles: {}, current: {}, raf: {}, timer: null };
  state.set(root, st);
  const tick = () => {
    const left = Math.max(0, deadline - Date.now());
    const frac = Math.max(0, Math.min(1, left / total));
    arc.setAttribute("stroke-dashoffset", fmt(C * (1 - frac)));
    box.setAttribute("data-remaining-ms", String(Math.round(left)));
    box.setAttribute("data-fraction", frac.toFixed(4));
    box.classList.toggle("rs-timer-low", left <= 5000);
    const sec = Math.ceil(left / 1000);
    if (sec !== lastSecond) {
      lastSecond = sec;
      num.textContent = String(sec);
      unit.textContent = sec === 1 ? "second" : "seconds";
      words.textContent = left > 0 ? secondsWords(sec) : "time is up";
      s.setAttribute("aria-label", words.textContent);
    }
    if (left <= 0 || !box.isConnected) {
      clearInterval(st.timer);
      st.timer = null;
    }
  };
  tick();
  if (deadline - Date.now() > 0) st.timer = setInterval(tick, 100);
}
