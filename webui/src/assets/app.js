// The Desktop page: poll the chosen window's image, send input aimed at the geometry the image
// was taken with, show and decide pending approvals, show recent actions. No dependencies.
"use strict";
const $ = (id) => document.getElementById(id);
const view = { machine: "local", windowId: "", geometry: null, busy: false, paused: false };
window.cuView = view; // lets a person (or a test) pause polling from the console

// The page's own secret (served in its HTML, never a cookie): every request that changes
// something carries it, so a replayed cookie alone does nothing.
const PAGE_SECRET = document.querySelector('meta[name="cu-page"]').content;

async function api(path, options = {}) {
  const headers = { ...(options.headers || {}), "x-cu-page": PAGE_SECRET };
  const response = await fetch(path, { credentials: "same-origin", ...options, headers });
  if (!response.ok) {
    let error = { code: String(response.status), message: response.statusText };
    try { error = (await response.json()).error || error; } catch (_) { /* not JSON */ }
    throw Object.assign(new Error(error.message), error);
  }
  return response;
}

function say(text, isError = false) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

async function loadMachines() {
  const { machines } = await (await api("/api/machines")).json();
  $("machine").replaceChildren(...machines.map((m) => new Option(m, m)));
  $("machine").value = view.machine;
}

async function loadWindows() {
  const { windows } = await (await api(`/api/windows/${encodeURIComponent(view.machine)}`)).json();
  const options = windows.map((w) => new Option(`${w.title} — ${w.app}`, w.id));
  $("window").replaceChildren(new Option("(choose a window)", ""), ...options);
  if (windows.some((w) => w.id === view.windowId)) $("window").value = view.windowId;
}

async function refresh() {
  if (!view.windowId || view.busy || view.paused) return;
  view.busy = true;
  const aimed = `${view.machine}/${view.windowId}`;
  try {
    const response = await api(`/api/capture/${encodeURIComponent(view.machine)}/${encodeURIComponent(view.windowId)}`);
    const geometry = JSON.parse(response.headers.get("x-geometry") || "null");
    const blob = await response.blob();
    if (aimed !== `${view.machine}/${view.windowId}`) return; // another window was chosen meanwhile
    const old = $("screen").src;
    $("screen").src = URL.createObjectURL(blob);
    if (old.startsWith("blob:")) URL.revokeObjectURL(old);
    view.geometry = geometry;
    $("frame").dataset.geometry = JSON.stringify(geometry);
    say(geometry ? `${geometry.w}×${geometry.h} at ${geometry.x},${geometry.y}` : "Window image");
  } catch (e) {
    say(`${e.code}: ${e.message}`, true);
  } finally {
    view.busy = false;
  }
}

// A point on the image, in window-relative pixels of the geometry it was taken with.
function pointOf(event) {
  const box = $("screen").getBoundingClientRect();
  const g = view.geometry;
  const x = Math.round(((event.clientX - box.left) / box.width) * g.w);
  const y = Math.round(((event.clientY - box.top) / box.height) * g.h);
  return { x: Math.min(Math.max(x, 0), g.w - 1), y: Math.min(Math.max(y, 0), g.h - 1) };
}

async function send(event) {
  if (!view.geometry) return;
  try {
    await api("/api/input", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ machine: view.machine, window_id: view.windowId, geometry: view.geometry, event }),
    });
    say(`Sent ${event.kind}.`);
    setTimeout(refresh, 150);
  } catch (e) {
    say(`${e.code}: ${e.message}`, true);
    if (e.code === "WINDOW_MOVED" || e.code === "WINDOW_NOT_FOUND") {
      view.paused = false;
      await loadWindows().catch(() => {});
      await refresh();
      say(`${e.code}: the window changed; the view is refreshed, aim again.`, true);
    }
  }
}

let press = null;
let pendingClick = null;
$("screen").addEventListener("pointerdown", (e) => {
  if (e.button !== 0) return;
  press = pointOf(e);
  $("frame").focus();
});
$("screen").addEventListener("pointerup", (e) => {
  if (e.button !== 0 || !press) return;
  const to = pointOf(e);
  const from = press;
  press = null;
  if (Math.hypot(to.x - from.x, to.y - from.y) > 6) {
    send({ kind: "drag", from, to, button: "left" });
    return;
  }
  if (pendingClick) { clearTimeout(pendingClick); pendingClick = null; send({ kind: "click", at: to, button: "left", count: 2 }); return; }
  pendingClick = setTimeout(() => { pendingClick = null; send({ kind: "click", at: to, button: "left", count: 1 }); }, 250);
});
$("screen").addEventListener("contextmenu", (e) => { e.preventDefault(); send({ kind: "click", at: pointOf(e), button: "right", count: 1 }); });
$("screen").addEventListener("wheel", (e) => {
  e.preventDefault();
  send({ kind: "scroll", at: pointOf(e), dx: Math.sign(e.deltaX), dy: Math.sign(e.deltaY) });
}, { passive: false });

const KEYS = { Enter: "Return", Backspace: "BackSpace", Escape: "Escape", Tab: "Tab", Delete: "Delete",
  ArrowLeft: "Left", ArrowRight: "Right", ArrowUp: "Up", ArrowDown: "Down", Home: "Home", End: "End",
  PageUp: "Prior", PageDown: "Next", " ": "space" };
$("frame").addEventListener("keydown", (e) => {
  if (!view.geometry || e.isComposing) return;
  const mods = [e.ctrlKey && "ctrl", e.altKey && "alt", e.metaKey && "super"].filter(Boolean);
  let name = KEYS[e.key] || (/^F\d{1,2}$/.test(e.key) ? e.key : null);
  if (!name && e.key.length === 1 && mods.length === 0) { e.preventDefault(); send({ kind: "text", text: e.key }); return; }
  if (!name && e.key.length === 1) name = e.key.toLowerCase();
  if (!name) return;
  e.preventDefault();
  if (e.shiftKey && mods.length) mods.push("shift");
  send({ kind: "key", combo: [...mods, name].join("+") });
});
$("text-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("text").value;
  if (text) send({ kind: "text", text }).then(() => { $("text").value = ""; });
});
$("key-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const combo = $("keys").value.trim();
  if (combo) send({ kind: "key", combo });
});

$("machine").addEventListener("change", async () => { view.machine = $("machine").value; choose(""); await loadWindows(); });
function choose(windowId) {
  view.windowId = windowId;
  view.geometry = null;
  delete $("frame").dataset.geometry;
  $("screen").removeAttribute("src");
  view.busy = false; // a capture still in flight for the old window is discarded when it lands
  refresh();
}
$("window").addEventListener("change", () => choose($("window").value));
$("front").addEventListener("click", async () => {
  if (!view.windowId) return;
  try {
    await api("/api/activate", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ machine: view.machine, window_id: view.windowId }) });
    say("Brought to the front.");
    setTimeout(refresh, 200);
  } catch (e) { say(`${e.code}: ${e.message}`, true); }
});
$("refresh").addEventListener("click", () => { loadWindows().then(refresh).catch((e) => say(e.message, true)); });

async function loadApprovals() {
  const { approvals } = await (await api("/api/approvals")).json();
  $("approvals-panel").hidden = approvals.length === 0;
  $("approvals").replaceChildren(...approvals.map((a) => {
    const li = document.createElement("li");
    li.className = "approval";
    li.dataset.id = a.id;
    const where = `/api/approvals/${encodeURIComponent(a.machine)}/${a.id}`;
    if (a.has_crop) { const img = new Image(); img.src = `${where}/crop`; img.alt = "Where it would act"; li.append(img); }
    const what = document.createElement("div");
    what.className = "what";
    const target = a.target ? `${a.target.role} “${a.target.name}”` : `the point ${a.point ? `${a.point.x},${a.point.y}` : ""}`;
    what.textContent = `${a.action} on ${target} — window “${a.title}” on ${a.machine} (blocked word: ${a.matched_rule})`;
    const yes = Object.assign(document.createElement("button"), { textContent: "Approve", className: "approve" });
    const no = Object.assign(document.createElement("button"), { textContent: "Deny", className: "deny" });
    const decide = (approve) => api(where, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ approve }) })
      .then(loadApprovals).catch((e) => say(e.message, true));
    yes.onclick = () => decide(true);
    no.onclick = () => decide(false);
    li.append(what, yes, no);
    return li;
  }));
}

async function loadAudit() {
  const { records } = await (await api("/api/audit")).json();
  $("audit").replaceChildren(...records.slice(0, 12).map((r) => {
    const li = document.createElement("li");
    li.textContent = [r.time, r.machine, r.action, r.name && `“${r.name}”`, r.result, r.error_code, r.approval].filter(Boolean).join(" · ");
    return li;
  }));
}

(async () => {
  try { await loadMachines(); await loadWindows(); } catch (e) { say(e.message, true); }
  setInterval(refresh, 1000);
  setInterval(() => loadApprovals().catch(() => {}), 700);
  setInterval(() => loadAudit().catch(() => {}), 2000);
  loadApprovals().catch(() => {});
  loadAudit().catch(() => {});
})();
