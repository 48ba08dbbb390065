// The lobby: pick a game, its players and the ring; resume a save; see the boards' health.
import { el } from "/static/dom.js";
const params = new URLSearchParams(location.search);
const token = params.get("t");
const q = token ? "?t=" + encodeURIComponent(token) : "";
const $ = (id) => document.getElementById(id);
let lobby = null;

function banner(text) {
  const b = $("banner");
  b.hidden = !text;
  b.className = "error";
  b.textContent = text || "";
}

function game() { return lobby.games.find((g) => g.name === $("game").value); }

function playerRow(kind, name) {
  const g = game();
  const li = el("li", { class: "player-row" });
  const nameIn = el("input", { type: "text", class: "pname", value: name, "aria-label": "name", maxlength: "40" });
  let plays;
  if (kind === "solo") {
    plays = el("select", { class: "plays", "aria-label": "solo player" }, ...g.solo.map((s) => el("option", { value: "solo:" + s.key, text: s.name + " (solo player)" })));
    nameIn.hidden = true;
  } else {
    const opts = [el("option", { value: "human", text: "a person" })].concat(g.levels.map((lv) => el("option", { value: lv, text: `the computer, ${lv}`, selected: kind === "bot" && lv === g.default_level })));
    plays = el("select", { class: "plays", "aria-label": "who plays" }, ...opts);
  }
  li.append(nameIn, " ", plays, " ", el("button", { type: "button", "data-action": "remove", text: "remove", onclick: () => li.remove() }));
  return li;
}

function resetPlayers() {
  const g = game();
  const rows = $("player-rows");
  rows.replaceChildren(playerRow("human", "You"));
  if (g.max_players > 1 && !g.solo.length) rows.append(playerRow("bot", "Cy"));
  else if (g.solo.length) rows.append(playerRow("solo", ""));
  const n = g.min_players - rows.children.length;
  for (let i = 0; i < n; i++) rows.append(playerRow("bot", "Computer " + (rows.children.length + 1)));
  $("add-solo").hidden = !g.solo.length;
  $("difficulty-box").hidden = !g.solo.length;
  $("hard-box").hidden = !g.hard;
}

function drawRings() {
  const box = $("rings");
  box.replaceChildren();
  for (const r of lobby.rings) {
    const id = "ring-" + r.ring;
    box.append(el("label", { for: id, class: "ring-choice" }, el("input", { type: "radio", name: "ring", id, value: r.ring, checked: r.ring === "sim" }), ` ${r.words} `));
  }
  const port = $("port");
  for (const b of lobby.boards) port.append(el("option", { value: b.device, text: `${b.device} ${b.description}` }));
}

function health(h) {
  return ["link", "sensors", "calibration", "level"].filter((k) => h[k]).map((k) => `${k}: ${h[k]}`).join("; ");
}

function drawRooms() {
  const ul = $("rooms");
  ul.replaceChildren();
  if (!lobby.rooms.length) ul.append(el("li", { text: "none yet" }));
  for (const r of lobby.rooms) {
    const li = el("li", { "data-room": r.room },
      el("a", { href: r.links.table, text: `${r.title}: ${r.players.join(", ")}` }),
      ` (${r.moves} moves${r.over ? ", over" : ""}) `,
      el("div", { class: "health", text: health(r.health) }));
    const seats = el("ul", { class: "seat-links" });
    for (const s of r.links.seats) seats.append(el("li", {}, el("a", { href: s.url, text: `${s.name}'s own screen` })));
    li.append(seats);
    ul.append(li);
  }
}

function drawSaves() {
  const ul = $("saves");
  ul.replaceChildren();
  if (!lobby.saves.length) ul.append(el("li", { text: "no saves yet" }));
  for (const s of lobby.saves) {
    ul.append(el("li", {}, `${s.game}: ${(s.players || []).join(", ")}, ${s.moves} moves, ${s.when} `,
      el("button", { type: "button", "data-action": "resume", "data-path": s.path, text: "resume", onclick: () => resume(s.path) })));
  }
}

async function post(body) {
  banner(null);
  const r = await fetch("/api/rooms" + q, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await r.json().catch(() => ({ error: "the server gave no answer" }));
  if (!r.ok) { banner(data.error || "the game could not start"); return; }
  location.href = data.links.table;
}

function resume(path) { post({ resume: path }); }

async function start(ev) {
  ev.preventDefault();
  const players = [...$("player-rows").children].map((li) => {
    const v = li.querySelector(".plays").value;
    if (v.startsWith("solo:")) return { name: v.slice(5), plays: "solo" };
    return { name: li.querySelector(".pname").value, plays: v };
  });
  const ring = document.querySelector("input[name=ring]:checked");
  const body = { game: $("game").value, players, ring: ring ? ring.value : "sim" };
  if ($("port").value) body.port = $("port").value;
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  if (!$("difficulty-box").hidden) body.difficulty = Number($("difficulty").value);
  if (!$("hard-box").hidden && $("hard").checked) body.hard = true;
  post(body);
}

async function load() {
  const r = await fetch("/api/lobby" + q);
  if (!r.ok) { banner(await r.text()); return; }
  lobby = await r.json();
  const sel = $("game");
  sel.replaceChildren(...lobby.games.map((g) => el("option", { value: g.name, text: g.title })));
  sel.value = lobby.games[0].name;
  sel.addEventListener("change", resetPlayers);
  resetPlayers();
  drawRings();
  drawRooms();
  drawSaves();
  if (lobby.lan) {
    $("pairing").hidden = false;
    $("lobby-qr").innerHTML = lobby.lobby_qr || "";
    $("lobby-url").textContent = lobby.lobby;
  }
}

$("add-person").addEventListener("click", () => $("player-rows").append(playerRow("human", "Player " + ($("player-rows").children.length + 1))));
$("add-bot").addEventListener("click", () => $("player-rows").append(playerRow("bot", "Computer " + ($("player-rows").children.length + 1))));
$("add-solo").addEventListener("click", () => $("player-rows").append(playerRow("solo", "")));
$("new-form").addEventListener("submit", start);
load();
