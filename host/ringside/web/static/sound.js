// Short sounds for the table page, generated with WebAudio (no sound files):
//   play("landing")   a wooden knock: the marble came to rest
//   play("turn")      two rising notes: the turn passed to another player
// setEnabled(bool) / isEnabled() keep the choice in localStorage. play() never throws: no
// WebAudio, a browser that has not yet allowed sound, or storage refused are all silent.

const KEY = "ringside.sound";
let ctx = null;
let enabledCache = null;

function storageGet() {
  try {
    return window.localStorage.getItem(KEY);
  } catch (e) {
    return null;
  }
}

export function isEnabled() {
  if (enabledCache === null) enabledCache = storageGet() !== "off";
  return enabledCache;
}

export function setEnabled(on) {
  enabledCache = Boolean(on);
  try {
    window.localStorage.setItem(KEY, enabledCache ? "on" : "off");
  } catch (e) {
    // private windows may refuse storage: the choice holds for this page only
  }
}

function context() {
  if (ctx) return ctx;
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  ctx = new AC();
  return ctx;
}

function tone(ac, t0, freq, toFreq, dur, gain, type) {
  const osc = ac.createOscillator();
  const amp = ac.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (toFreq) osc.frequency.exponentialRampToValueAtTime(toFreq, t0 + dur);
  amp.gain.setValueAtTime(0.0001, t0);
  amp.gain.exponentialRampToValueAtTime(gain, t0 + 0.008);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(amp).connect(ac.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

const SOUNDS = {
  landing(ac, t) {
    tone(ac, t, 520, 180, 0.16, 0.5, "triangle");
    tone(ac, t, 1400, 700, 0.05, 0.15, "sine");
  },
  turn(ac, t) {
    tone(ac, t, 523.25, null, 0.18, 0.25, "sine");
    tone(ac, t + 0.12, 783.99, null, 0.26, 0.25, "sine");
  },
};

// Browsers start audio only after a person has touched the page: the first click or key on
// it wakes the audio, so the next landing is heard.
function unlock() {
  try {
    if (!isEnabled()) return;
    const ac = context();
    if (ac && ac.state === "suspended") {
      const p = ac.resume();
      if (p && p.catch) p.catch(() => {});
    }
  } catch (e) {
    // no audio here: stay silent
  }
}
if (typeof document !== "undefined") {
  for (const ev of ["pointerdown", "keydown"]) document.addEventListener(ev, unlock, { once: true, capture: true });
}

/** Play a short sound ("landing" or "turn"); false when it could not be played (muted, no
 *  audio, not yet allowed by the browser), true when it was started. Never throws. */
export function play(kind) {
  try {
    if (!isEnabled() || !(kind in SOUNDS)) return false;
    const ac = context();
    if (!ac) return false;
    if (ac.state === "suspended") {
      // allowed only after a click on the page: try, and stay silent until then
      const p = ac.resume();
      if (p && p.catch) p.catch(() => {});
      if (ac.state === "suspended") return false;
    }
    SOUNDS[kind](ac, ac.currentTime + 0.01);
    return true;
  } catch (e) {
    return false;
  }
}
