// Small DOM helpers shared by the lobby and the table page (plain ES module, no build step).

/** el("button", {class: "x", text: "go", onclick: fn}, ...children): one element. An attribute
 *  that is null, undefined or false is left out; true is present and empty. */
export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "onclick") e.addEventListener("click", v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}
