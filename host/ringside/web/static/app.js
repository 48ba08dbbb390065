// The table page: one game's table, pushed by the server over a WebSocket (docs/web.md).
// It knows no game: it draws the picture the server sends (render.js), offers the moves the
// server lists, and sends back the one chosen with the seq of the table it was chosen on.
import * as R from "/static/render.js";
import * as sound from "/static/sound.js";
import { el } from "/static/dom.js";

const params = new URLSearchParams(location.search);
const token = params.get("t");
const seatParam = params.get("seat");
const rid = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const $ = (id) => document.getElementById(id);

let state = null;          // the last state from the server
let clockOffset = 0;       // this page's clock minus the server's (ms)
let ws = null;
let retry = 300;
let correcting = false;    // the next click on a space corrects the last landing
let openGroup = null;      // the group of a folded menu that is open
let openPlace = null;      // a place clicked that has several moves
let rolling = false;       // the marble is moving (live positions arrive)
const MENU_MAX = 24;

// for tests and scripts: every message this page received, and a way to send one
window.ringside = { messages: [], shown: [], received: [], landed: [], landed_received: [], render_ms: [], state: () => state, send: (m) => send(m, true) };
function mark(name) { try { performance.mark(name); } catch (e) { /* marks are for measuring only */ } }

function query(extra) {
  const q = new URLSearchParams();
  if (token) q.set("t", token);
  if (seatParam !== null) q.set("seat", seatParam);
  for (const [k, v] of Object.entries(extra || {})) q.set(k, v);
  const s = q.toString();
  return s ? "?" + s : "";
}

function banner(text, kind) {
  const b = $("banner");
  if (!text) { b.hidden = true; b.textContent = ""; return; }
  b.hidden = false;
  b.className = kind || "info";
  b.textContent = text;
}

// ----- the connection -----
function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(rid)}${query()}`);
  setConn("connecting");
  ws.onopen = () => { retry = 300; setConn("live"); mark("ringside-open"); };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    window.ringside.messages.push(msg);
    if (window.ringside.messages.length > 5000) window.ringside.messages.splice(0, 1000);
    receive(msg);
  };
  ws.onclose = () => {
    setConn("reconnecting");
    // the server may be restarting: try again, a little slower each time (at most 3 s)
    setTimeout(connect, retry);
    retry = Math.min(3000, retry * 2);
  };
  ws.onerror = () => {};
}

function setConn(what) {
  const c = $("conn");
  c.textContent = what === "live" ? "live" : what === "connecting" ? "connecting..." : "reconnecting...";
  c.dataset.state = what;
  document.body.dataset.conn = what;
}

function send(msg, raw) {
  if (!ws || ws.readyState !== 1) { banner("not connected: the page reconnects by itself, then try again", "error"); return false; }
  if (!raw && state) msg.seq = state.seq;
  ws.send(JSON.stringify(msg));
  return true;
}

// Tables and marble positions are drawn at most once a frame: a page that falls behind (a
// slow phone, many updates at once) draws the latest table, never a queue of old ones.
let pending = null;        // the latest state not yet drawn, and the seqs it supersedes
let pendingSeqs = [];
let marbleAt = undefined;
let frameAsked = false;

function askFrame() {
  if (frameAsked) return;
  frameAsked = true;
  let done = false;
  const go = () => { if (done) return; done = true; frameAsked = false; frame(); };
  requestAnimationFrame(go);
  setTimeout(go, 100);       // a page the browser does not paint still keeps up
}

function frame() {
  if (pending) {
    const msg = pending, seqs = pendingSeqs;
    pending = null; pendingSeqs = [];
    const prev = state;
    state = msg;
    if (!prev || prev.seq !== msg.seq) { openGroup = null; openPlace = null; }
    if (correcting && !msg.landing) correcting = false;
    if (!prev) mark("ringside-state");
    sounds(prev, msg);
    const t0 = performance.now();
    render();
    window.ringside.render_ms.push(performance.now() - t0);
    if (window.ringside.render_ms.length > 2000) window.ringside.render_ms.splice(0, 500);
    if (!prev) mark("ringside-drawn");
    // when each table was on the screen (the bench's landed-to-shown and order checks)
    const t = performance.timeOrigin + performance.now();
    for (const s of seqs) window.ringside.shown.push([s, t]);
    if (window.ringside.shown.length > 5000) window.ringside.shown.splice(0, 1000);
  }
  if (marbleAt !== undefined) {
    const deg = marbleAt;
    marbleAt = undefined;
    if (R.setMarble && deg !== null && state) R.setMarble($("picture"), deg, null);
  }
}

function receive(msg) {
  if (msg.type === "state") {
    if (typeof msg.now_ms === "number") clockOffset = Date.now() - msg.now_ms;
    pending = msg;
    pendingSeqs.push(msg.seq);
    window.ringside.received.push([msg.seq, performance.timeOrigin + performance.now()]);
    if (window.ringside.received.length > 5000) window.ringside.received.splice(0, 1000);
    marbleAt = undefined;            // the table itself says where the marble is now
    askFrame();
  } else if (msg.type === "marble") {
    rolling = true;
    marbleAt = msg.deg;
    askFrame();
  } else if (msg.type === "landed") {
    window.ringside.landed_received.push([msg.n, performance.timeOrigin + performance.now()]);
    showLanding(msg);
  } else if (msg.type === "refused") {
    banner(msg.text, "refused");
  } else if (msg.type === "error") {
    banner(msg.text, "error");
  }
}

// The board's result, shown the moment it arrives, not at the next frame's full table: the
// marble at rest on its space, the space marked, the words in the status line. The table that
// scores it follows (a simulated flick first waits to see that the marble stays).
function showLanding(msg) {
  marbleAt = undefined;
  if (state) R.showLanding($("picture"), msg.deg, msg.space, msg.label);
  drawnKey = null;               // the next table draws the picture again, whatever it is
  $("status").textContent = msg.text;
  document.body.dataset.landed = String(msg.n);
  if (rolling) { rolling = false; sound.play("landing"); }
  let done = false;
  const at = () => {
    if (done) return;
    done = true;
    window.ringside.landed.push([msg.n, performance.timeOrigin + performance.now()]);
    if (window.ringside.landed.length > 5000) window.ringside.landed.splice(0, 1000);
  };
  requestAnimationFrame(at);     // the frame that paints it
  setTimeout(at, 100);           // a page the browser does not paint
}

function sounds(prev, now) {
  if (!prev) return;
  if (rolling && !now.busy) { rolling = false; sound.play("landing"); return; }
  const a = JSON.stringify(prev.picture.to_act), b = JSON.stringify(now.picture.to_act);
  if (a !== b) sound.play("turn");
}

// ----- drawing -----
function render() {
  const s = state;
  const pic = s.picture;
  document.title = `${pic.title} - Ringside`;
  document.body.dataset.seq = String(s.seq);
  document.body.dataset.over = s.over ? "1" : "0";
  $("title").textContent = pic.title;
  $("you").textContent = s.you.role === "seat" ? `${s.you.name}'s screen (seat ${s.you.seat + 1})` : "the table's screen";
  // a real board's link lost: said on every screen until it is back (the game waits for it)
  const lost = s.board && /^lost/.test(s.board.link || "") ? `The board: ${s.board.link}` : "";
  $("status").textContent = s.busy ? s.busy + "..." : lost;
  document.body.dataset.board = s.board ? (lost ? "lost" : "up") : "";
  drawPicture();
  const ring = $("picture").querySelector(".rs-ring");
  if (ring) ring.classList.toggle("rs-can-drag", Boolean(s.flick));
  drawControls();
  const t = s.timer ? Object.assign({}, s.timer, { deadline_ms: s.timer.deadline_ms + clockOffset }) : null;
  R.renderTimer($("timer"), t);
  const leds = JSON.stringify(s.leds);
  if (leds !== lastLeds) { lastLeds = leds; R.renderLeds($("leds"), s.leds.pixels, s.leds.ring); }
  drawHappened(s.log);
  drawSim();
}

function placeOpts() {
  const s = state;
  const land = s.landing;
  if (correcting && land) return { places: land.spaces, highlight: land.space, choices: null };
  if (land && land.choices) return { places: land.choices, highlight: land.space, choices: land.choices };
  const places = [...new Set(s.moves.filter((m) => m.place !== null).map((m) => m.place))];
  return { places, highlight: null, choices: null };
}

let drawnKey = null;       // what the picture on the screen was drawn from
function drawPicture() {
  const o = placeOpts();
  // a table whose picture has not changed (the controls or the status did) is not drawn again:
  // with many screens on one machine, or a slow phone, every frame spared counts
  const key = JSON.stringify([state.picture, o.places, o.highlight, o.choices]);
  if (key === drawnKey) return;
  drawnKey = key;
  R.renderPicture($("picture"), state.picture, { places: o.places, onPlace: onPlace, highlight: o.highlight, choices: o.choices });
}

function onPlace(id) {
  const s = state;
  if (correcting && s.landing) { correcting = false; send({ op: "correct", space: String(id) }); return; }
  if (s.landing && s.landing.choices && s.landing.choices.includes(String(id))) { send({ op: "choose", space: String(id) }); return; }
  const here = s.moves.filter((m) => m.place === String(id));
  if (here.length === 1) { act(here[0]); return; }
  if (here.length > 1) { openPlace = String(id); openGroup = null; drawControls(); }
}

function act(m) {
  banner(null);
  send({ op: "act", i: m.i, label: m.label });
}

function button(label, onclick, extra) {
  return el("button", Object.assign({ type: "button", "data-action": label, onclick, text: label }, extra || {}));
}

function drawControls() {
  const s = state;
  const box = $("controls");
  box.replaceChildren();
  if (s.over) { box.append(el("p", { class: "over", text: "The game is over." })); }
  const land = s.landing;
  if (land && land.choices) {
    box.append(el("p", { class: "ask", id: "ambiguous", text: `The board could not tell: is the marble on ${land.choices[0]} or on ${land.choices[1]}? Click the space, or:` }));
    for (const c of land.choices) box.append(button(`it is on ${c}`, () => send({ op: "choose", space: c })));
  }
  if (s.flick) box.append(flickControls(s.flick));
  if (s.chance) {
    box.append(el("p", { class: "ask", text: `The table: ${s.chance}. Enter what it gave, or:` }),
      button("let the computer decide", () => send({ op: "chance" }), { class: "primary" }));
  }
  let moves = s.moves;
  if (openPlace !== null) {
    moves = moves.filter((m) => m.place === openPlace);
    box.append(el("p", { class: "ask", text: `Moves on ${openPlace}:` }), button("all moves", () => { openPlace = null; drawControls(); }));
  }
  if (moves.length) {
    const groups = new Map();
    for (const m of moves) {
      const g = m.group || "";
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(m);
    }
    const fold = moves.length > MENU_MAX && groups.size > 1 && openPlace === null;
    const list = el("div", { class: "moves", id: "moves" });
    if (fold && openGroup === null) {
      list.append(el("p", { class: "ask", text: `${moves.length} moves: pick a group first` }));
      for (const [g, ms] of groups) list.append(button(`${g || "other"} (${ms.length})`, () => { openGroup = g; drawControls(); }, { class: "group", "data-group": g }));
    } else {
      const shown = fold ? [[openGroup, groups.get(openGroup) || []]] : [...groups];
      if (fold) list.append(button("back to the groups", () => { openGroup = null; drawControls(); }, { class: "group" }));
      for (const [g, ms] of shown) {
        const sec = el("div", { class: "move-group" });
        if (g && groups.size > 1) sec.append(el("h3", { text: g }));
        for (const m of ms) sec.append(button(m.label, () => act(m), { class: "move", "data-seat": String(m.seat) }));
        list.append(sec);
      }
    }
    box.append(list);
  }
  const tools = el("div", { class: "tools" });
  if (land && !land.choices) {
    tools.append(button(correcting ? "cancel the correction" : "correct the landing", () => {
      correcting = !correcting; render();
      if (correcting) banner("Click the space the marble is really on.", "info");
    }, { class: correcting ? "on" : "" }));
  }
  if (s.can_undo) tools.append(button("undo", () => send({ op: "undo" })));
  box.append(tools);
  if (!s.moves.length && !s.flick && !s.over && !s.busy && s.you.plays_for.length === 0 && s.you.role === "seat") {
    box.append(el("p", { class: "watch", text: "Watching: this screen's player has no move now." }));
  }
}

function flickControls(f) {
  const wrap = el("div", { class: "flick", id: "flick" });
  const start = f.from;
  const aim = f.target_travel ? 360 : Math.min(f.max_deg, Math.max(20, Math.round((f.min_steps + 1) * f.space_deg)));
  wrap.append(el("p", { class: "ask", text: `Flick from ${start}: ` + (f.target_travel ? "try to go exactly once round (360)." : f.min_steps ? `at least ${f.min_steps} spaces (one is ${f.space_deg} degrees).` : "") }),
    el("p", { class: "hint", text: "Draw the marble round the ring as far as you aim and let go, or set the strength here:" }));
  const dirs = el("div", { class: "dirs" });
  for (const d of f.directions) {
    const id = "dir-" + d;
    dirs.append(el("label", { for: id }, el("input", { type: "radio", name: "dir", id, value: d, checked: d === f.directions[0] }), d === "cw" ? " clockwise " : " anticlockwise "));
  }
  const out = el("output", { id: "deg-out", text: String(aim) });
  const slider = el("input", { type: "range", id: "deg", min: "1", max: String(f.max_deg), value: String(aim), "aria-label": "how far to aim, degrees" });
  slider.addEventListener("input", () => { out.textContent = slider.value; });
  wrap.append(dirs, el("label", { for: "deg" }, "strength: aim ", out, " degrees "), slider,
    button("flick", () => {
      const d = wrap.querySelector("input[name=dir]:checked");
      send({ op: "flick", dir: d ? d.value : f.directions[0], deg: Number(slider.value) });
    }, { class: "primary" }));
  return wrap;
}

let shownLines = -1;
let lastLeds = null;
function drawHappened(lines) {
  const ol = $("happened");
  const last = lines.length ? lines[lines.length - 1].n : 0;
  if (last === shownLines) return;
  const li = (l) => el("li", { "data-n": String(l.n), text: l.text });
  const fresh = lines.filter((l) => l.n > shownLines);
  if (shownLines < 0 || !lines.length || fresh.length === lines.length || last < shownLines) {
    ol.replaceChildren(...lines.map(li));     // the first table, or another game's lines
  } else {
    ol.append(...fresh.map(li));              // only what is new: the list is not built again
    while (ol.children.length > lines.length) ol.firstElementChild.remove();
  }
  shownLines = last;
  ol.scrollTop = ol.scrollHeight;
}

function drawSim() {
  const s = state;
  const box = $("sim-box");
  if (!s.sim || !(s.you.plays_for.length || s.you.role === "table")) { box.hidden = true; return; }
  box.hidden = false;
  const root = $("sim");
  if (root.dataset.built === s.room) return;     // built once: its inputs keep what was typed
  root.dataset.built = s.room;
  root.replaceChildren();
  const sim = (what, extra) => send(Object.assign({ op: "sim", what }, extra), true);
  if (s.sim.spaces.length) {
    const sel = el("select", { id: "sim-space", "aria-label": "space" }, ...s.sim.spaces.map((sp) => el("option", { value: sp, text: sp })));
    root.append(el("div", {}, "set the marble on ", sel, " ", button("place", () => sim("place", { space: sel.value }))));
  }
  const deg = el("input", { type: "number", id: "tilt-deg", min: "0", max: "5", step: "0.5", value: "1" });
  const low = el("input", { type: "number", id: "tilt-low", min: "0", max: "359", value: "90" });
  root.append(el("div", {}, "tilt ", deg, " degrees, low point at ", low, " ", button("tilt", () => sim("tilt", { deg: Number(deg.value), low: Number(low.value) }))));
  const sensor = el("select", { id: "fault-sensor", "aria-label": "sensor" }, ...Array.from({ length: s.sim.sensors }, (_, i) => el("option", { value: String(i), text: `sensor ${i}` })));
  const kind = el("select", { id: "fault-kind", "aria-label": "fault" }, ...[...s.sim.faults, "ok"].map((k) => el("option", { value: k, text: k === "ok" ? "repaired" : k })));
  root.append(el("div", {}, sensor, " ", kind, " ", button("set the sensor", () => sim("fault", { sensor: Number(sensor.value), kind: kind.value }))));
}

async function loadSide() {
  try {
    const r = await fetch(`/api/rooms/${encodeURIComponent(rid)}/rules${query()}`);
    if (r.ok) {
      const rb = await r.json();
      const div = $("rules");
      div.replaceChildren(el("p", { class: "source", text: rb.source ? `${rb.title}: from the rulebook (${rb.source})` : rb.title }),
        ...rb.lines.map((ln) => (ln.trim() ? el("p", { text: ln }) : null)).filter(Boolean));
    }
  } catch (e) { /* the rules are a nicety: the table works without them */ }
  try {
    const r = await fetch(`/api/rooms/${encodeURIComponent(rid)}${query()}`);
    if (!r.ok) return;
    const room = await r.json();
    const links = room.links || {};
    if (!links.table) return;       // a seat's screen is not shown the other seats' links
    const box = $("links");
    const items = [{ name: "the table", url: links.table, qr: links.table_qr }].concat(links.seats.map((sl) => ({ name: `${sl.name} (${sl.plays})`, url: sl.url, qr: sl.qr })));
    box.replaceChildren(...items.map((it) => {
      const d = el("div", { class: "link" }, el("a", { href: it.url, target: "_blank", rel: "noopener", text: it.name }));
      if (it.qr) { const q = el("div", { class: "qr" }); q.innerHTML = it.qr; d.append(q); }
      return d;
    }));
    $("links-box").hidden = false;
  } catch (e) { /* no links: this screen plays on */ }
}

// ----- a flick dragged on the ring: press on the marble, draw it round the ring as far as you
// aim (the arc shows it), let go to flick; the direction and the strength follow the drag -----
const GRAB_DEG = 12;       // a press this near the marble (degrees round the ring) takes it
let drag = null;           // {id, from, last, total}
let swallowClick = false;  // the click that ends a drag is not a click on a space

function wrap180(d) { return ((d % 360) + 540) % 360 - 180; }

function dragStart(ev) {
  const f = state && state.flick;
  if (!f || ev.button > 0 || drag) return;
  const root = $("picture");
  const at = R.ringAngle(root, ev.clientX, ev.clientY), m = R.marbleDeg(root);
  if (at === null || m === null || Math.abs(wrap180(at - m)) > GRAB_DEG) return;
  drag = { id: ev.pointerId, from: m, last: at, total: 0 };
  try { root.setPointerCapture(ev.pointerId); } catch (e) { /* the drag works without capture */ }
  ev.preventDefault();
}

function dragMove(ev) {
  if (!drag || ev.pointerId !== drag.id || !state || !state.flick) return;
  const at = R.ringAngle($("picture"), ev.clientX, ev.clientY);
  if (at === null) return;
  drag.total += wrap180(at - drag.last);
  drag.last = at;
  const f = state.flick;
  const aim = Math.max(-f.max_deg, Math.min(f.max_deg, drag.total));
  R.showAim($("picture"), drag.from, aim);
  const radio = document.getElementById("dir-" + (aim >= 0 ? "ccw" : "cw"));
  if (radio) radio.checked = true;
  const slider = $("deg");
  if (slider) { slider.value = String(Math.max(1, Math.round(Math.abs(aim)))); $("deg-out").textContent = slider.value; }
}

function dragEnd(ev) {
  if (!drag || ev.pointerId !== drag.id) return;
  const d = drag;
  drag = null;
  R.showAim($("picture"), null, null);
  swallowClick = true;
  setTimeout(() => { swallowClick = false; }, 0);
  const f = state && state.flick;
  if (!f || ev.type === "pointercancel") return;
  const deg = Math.min(f.max_deg, Math.round(Math.abs(d.total)));
  if (deg < 1) return;                    // a tap on the marble: no flick
  const dir = d.total >= 0 ? "ccw" : "cw";
  if (!f.directions.includes(dir)) {
    banner(`this flick goes ${f.directions.map((x) => (x === "cw" ? "clockwise" : "anticlockwise")).join(" or ")} only: draw the marble that way`, "error");
    return;
  }
  banner(null);
  send({ op: "flick", dir, deg });
}

{
  const root = $("picture");
  root.addEventListener("pointerdown", dragStart);
  root.addEventListener("pointermove", dragMove);
  root.addEventListener("pointerup", dragEnd);
  root.addEventListener("pointercancel", dragEnd);
  root.addEventListener("click", (ev) => { if (swallowClick) { ev.stopPropagation(); ev.preventDefault(); } }, true);
}

$("banner").addEventListener("click", () => banner(null));     // a message floats over the page: a click puts it away
$("banner").title = "click to close";
$("sound-on").checked = sound.isEnabled();
$("sound-on").addEventListener("change", (e) => sound.setEnabled(e.target.checked));
if (token) $("lobby-link").setAttribute("href", "/" + query());
connect();
loadSide();
