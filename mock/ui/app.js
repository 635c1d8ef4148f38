// The control panel of replymock: plain JavaScript over the admin API
// (/__mock/...), no build step and nothing fetched from elsewhere.
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "replymock-admin-token";
let lastSeq = 0;
const logRows = [];

// admin calls the admin API with the token kept in this tab, if any.
async function admin(method, path, body) {
  const headers = {};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers["Authorization"] = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch("/__mock/" + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const env = await resp.json().catch(() => null);
  if (resp.status === 401) {
    $("token-button").hidden = false;
    askToken(token ? t("token-refused") : "");
    throw new Error(t("token-needed-error"));
  }
  if (!resp.ok || !env || !env.success) {
    throw new Error((env && env.error && env.error.message) || method + " " + path + ": " + resp.status);
  }
  return env.data;
}

// The banner shows an error until the person dismisses it, or their next
// action replaces it (with its own error, or by working). A poll's error
// (the server went away) shows too, and goes when that poll works again;
// a poll never takes away the error of an action.
let errorOf = "";

function showError(err, of) {
  $("error").textContent = String(err.message || err);
  $("error-box").hidden = false;
  errorOf = of || "action";
}

function clearError(of) {
  if (errorOf !== "" && errorOf !== (of || "action")) return;
  $("error-box").hidden = true;
  $("error").textContent = "";
  errorOf = "";
}

// --- read-only mode ---------------------------------------------------------

// The controls that change the server: with --read-only they cannot act,
// so they are off, each saying why (and the note under the header).
const WRITES = ["scenario-switch", "latency", "latency-apply", "error-rate", "error-status", "error-apply", "drop", "page-drift", "stale-read", "counts-lag",
  "rate-limit", "rate-requests", "rate-window", "auth", "strict", "heal", "clear-log", "reset",
  "shop-advance", "shop-advance-apply", "snapshot-restore"];
let readOnly = false;

function offIfReadOnly(el) {
  el.disabled = readOnly;
  if (readOnly) {
    el.title = t("read-only-control");
    el.setAttribute("aria-describedby", "read-only-note");
  } else {
    el.removeAttribute("title");
    el.removeAttribute("aria-describedby");
  }
}

function showReadOnly(on) {
  readOnly = on;
  $("read-only-note").hidden = !on;
  WRITES.forEach((id) => offIfReadOnly($(id)));
  document.querySelectorAll("#fault-list button").forEach(offIfReadOnly);
}

// --- times ----------------------------------------------------------------

// Every time on the page is in one format: the viewer's locale (the
// browser's own, in the page's language) and time zone. The API's times
// (YYYY-MM-DD HH:MM:SS) are UTC; each shown one keeps its value as the
// server wrote it in its title.
function timeLocale() {
  const l = lang();
  return (navigator.languages || [navigator.language]).find((x) => String(x).toLowerCase().startsWith(l)) || NUMBERS;
}

function formatTime(d) {
  return d.toLocaleTimeString(timeLocale(), { timeStyle: "medium" });
}

function formatDateTime(d) {
  return d.toLocaleDateString(timeLocale(), { dateStyle: "medium" }) + ", " + formatTime(d);
}

// apiTime reads a time of the API (UTC).
function apiTime(s) { return new Date(s.replace(" ", "T") + "Z"); }

// timeElement shows an API time, with its value as written.
function timeElement(s) {
  const el = document.createElement("time");
  const d = apiTime(s);
  el.dateTime = d.toISOString();
  el.textContent = formatDateTime(d);
  el.title = s + " UTC";
  return el;
}

// --- long texts -------------------------------------------------------------

// Texts a person opened whole, by review and field: the poll redraws the
// list, and they stay open.
const opened = new Set();

// clip cuts text to at most max characters at a word's end, with an
// ellipsis.
function clip(text, max) {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  let cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  if (space > max / 2) cut = cut.slice(0, space);
  return cut.replace(/[\s,.;:!?—–-]+$/u, "") + "…";
}

// clipped shows text cut at max characters, with a button that opens it
// whole and closes it again.
function clipped(key, text, max) {
  const span = document.createElement("span");
  span.className = "clip";
  if (text.replace(/\s+/g, " ").trim().length <= max) {
    span.textContent = text;
    return [span];
  }
  const b = document.createElement("button");
  b.type = "button";
  b.className = "link";
  const show = () => {
    const open = opened.has(key);
    span.textContent = open ? text : clip(text, max);
    b.textContent = t(open ? "less-text" : "more-text");
    b.setAttribute("aria-expanded", String(open));
  };
  b.addEventListener("click", () => {
    if (opened.has(key)) opened.delete(key);
    else opened.add(key);
    show();
  });
  show();
  return [span, " ", b];
}

function askToken(message) {
  $("token-error").textContent = message || "";
  const d = $("token-dialog");
  if (!d.open) d.showModal();
  $("token-input").focus();
}

// --- scenario -------------------------------------------------------------

let scenarios = [];

async function loadScenarios() {
  const data = await admin("GET", "scenarios");
  scenarios = data.scenarios;
  const sel = $("scenario-select");
  const keep = sel.value;
  sel.replaceChildren(...scenarios.map((s) => {
    const o = document.createElement("option");
    o.value = s.name;
    o.textContent = s.name;
    return o;
  }));
  sel.value = keep && document.activeElement === sel ? keep : data.active;
  describeScenario();
  $("active-scenario").textContent = data.active;
}

function describeScenario() {
  const s = scenarios.find((x) => x.name === $("scenario-select").value);
  $("scenario-description").textContent = s ? (s.descriptions && s.descriptions[lang()]) || s.description : "";
  $("scenario-extends").textContent = s && s.extends ? t("based-on", { name: s.extends }) : "";
  $("scenario-extends").hidden = !(s && s.extends);
}

async function switchScenario() {
  $("heal-status").textContent = ""; // Heal's account no longer holds
  await admin("PUT", "scenario", { name: $("scenario-select").value });
  await refreshAll();
}

// --- faults ---------------------------------------------------------------

// Controls a person has changed but not applied yet: the poll leaves them
// as they are, so that an edit is not undone under the person's hands.
const editing = new Set();

// shows reports whether the poll may set control id to the server's value.
function shows(id) {
  return !editing.has(id) && document.activeElement !== $(id);
}

// applied marks controls as showing what the server does again.
function applied(...ids) {
  ids.forEach((id) => editing.delete(id));
}

// The page's own faults carry these names; applying one replaces it.
const PANEL = { latency: "panel:latency", error: "panel:error", drop: "panel:drop", page_drift: "panel:page_drift", stale_read: "panel:stale_read", counts_lag: "panel:counts_lag", reply_rejected: "panel:reply_rejected" };

// LIVE are the panel's switches of the faults that play a live service:
// each checkbox's id and the fault it puts in place.
const LIVE = {
  page_drift: ["page-drift", { method: "GET", path: "/feedbacks", page_drift: { arrive: 3, answer: 1 } }],
  stale_read: ["stale-read", { method: "GET", path: "/settings/ai", stale_read: { reads: 2 } }],
  counts_lag: ["counts-lag", { method: "GET", path: "/feedbacks", counts_lag: { changes: 3 } }],
  reply_rejected: ["reply-rejected", { method: "GET", path: "/feedbacks", probability: 0.3, reply_rejected: { reject: 1 } }],
};

async function replaceFault(name, fault) {
  // One call puts the switch in place of the old one: no request sees
  // both, or neither.
  if (fault) await admin("PUT", "faults", Object.assign({ name }, fault));
  else {
    const data = await admin("GET", "faults");
    for (const f of data.faults) {
      if (f.name === name) await admin("DELETE", "faults/" + encodeURIComponent(f.id));
    }
  }
  await loadFaults();
}

async function applyLatency() {
  const ms = Number($("latency").value);
  applied("latency");
  await replaceFault(PANEL.latency, ms > 0 ? { latency: { fixed: ms + "ms" } } : null);
}

async function applyErrors() {
  const rate = Number($("error-rate").value) / 100;
  const status = Number($("error-status").value);
  applied("error-rate", "error-status");
  await replaceFault(PANEL.error, rate > 0 ? { probability: rate, error: { status } } : null);
}

async function applyDrop() {
  await replaceFault(PANEL.drop, $("drop").checked ? { drop: true } : null);
}

async function applyLive(kind) {
  const [id, fault] = LIVE[kind];
  await replaceFault(PANEL[kind], $(id).checked ? fault : null);
}

// scenarioAuthOff: the page let API requests past the scenario's own
// bearer auth (an override of type none), until switched back or healed.
let scenarioAuthOff = false;

async function applyOverrides() {
  const o = { auth: null, rate_limit: null, strict: $("strict").checked ? true : null };
  if ($("auth").checked) o.auth = { type: "bearer", tokens: ["demo-token"] };
  else if (scenarioAuthOff) o.auth = { type: "none" };
  if ($("rate-limit").checked) {
    o.rate_limit = { requests: Math.max(1, Number($("rate-requests").value)), window: Math.max(1, Number($("rate-window").value)) + "s" };
  }
  applied("rate-requests", "rate-window");
  await admin("PUT", "overrides", o);
  await loadFaults();
}

// serves reports whether a scenario, as GET /__mock/faults tells it,
// answers requests as asked by itself: no faults of its own, no bearer
// auth, no rate limit.
function serves(f) {
  return f.scenario_faults.length === 0 && f.scenario_auth !== "bearer" && !f.scenario_rate_limit;
}

// The last scenario this browser saw serving: what Heal switches back to.
const SERVING_KEY = "replymock-serving-scenario";

// The scenario the server started with (health): Heal's second choice.
let startScenario = "";

// heal brings the API back to serving: it removes every run-time fault
// and switch, for every session, and switches from a scenario that fails
// requests (down, flaky, unauthorized…) to the scenario this browser last
// saw serving, else default. Settings, data and the journal stay as they
// are. It says what it did.
async function heal() {
  for (const id of ["latency", "error-rate", "error-status", "rate-requests", "rate-window"]) applied(id);
  const [before, over] = await Promise.all([admin("GET", "faults"), admin("GET", "overrides")]);
  const removed = (await admin("DELETE", "faults")).removed;
  const off = [];
  if (over.auth) off.push(t("sw-auth"));
  if (over.rate_limit) off.push(t("sw-rate"));
  if (over.strict !== null && over.strict !== undefined) off.push(t("sw-strict"));
  await admin("PUT", "overrides", { auth: null, rate_limit: null, strict: null });
  let switched = null;
  if (!serves(before)) {
    // The scenario this browser saw serving, else the one the server
    // started with, else default.
    const known = (name) => name && name !== before.scenario && scenarios.some((s) => s.name === name);
    const to = [localStorage.getItem(SERVING_KEY), startScenario].find(known) || "default";
    if (to !== before.scenario) {
      await admin("PUT", "scenario", { name: to });
      switched = { from: before.scenario, to };
    }
  }
  await refreshAll();
  const did = [];
  if (removed > 0) did.push(t(removed === 1 ? "healed-one-fault" : "healed-faults", { n: removed }));
  if (off.length > 0) did.push(t("healed-switches", { what: off.join(", ") }));
  if (switched) did.push(t("healed-scenario", switched));
  let text = did.length > 0 ? t("healed", { what: did.join("; ") }) : t("healed-nothing");
  const after = await admin("GET", "faults");
  if (!serves(after)) text += " " + t("still-fails", { name: after.scenario });
  $("heal-status").textContent = text;
}

// The fault kinds, in the order of the server's kind table
// (mock/internal/fault): the NAME of each word "kind-NAME" in i18n.js. A
// fault asks for a kind with its field NAME.
const FAULT_KINDS = Object.keys(MESSAGES.en).filter((k) => k.startsWith("kind-")).map((k) => k.slice("kind-".length));

// What the list says after a kind's word, for the kinds that say more.
const KIND_DETAILS = {
  latency: (l) => l.fixed || (l.min ? l.min + "–" + l.max : t("median") + " " + l.median + ", p99 " + l.p99),
  error: (e) => e.status,
};

function describeFault(f) {
  const parts = [];
  if (f.method || f.path) parts.push((f.method || "*") + " " + (f.path || "*"));
  for (const kind of FAULT_KINDS) {
    if (!f[kind]) continue;
    const detail = KIND_DETAILS[kind];
    parts.push(t("kind-" + kind) + (detail ? " " + detail(f[kind]) : ""));
  }
  if (f.probability !== undefined) parts.push(Math.round(f.probability * 100) + "%");
  if (f.after) parts.push(t("f-after", { n: f.after }));
  if (f.times) parts.push(t("f-times", { n: f.times }));
  return (f.name ? f.name + ": " : "") + parts.join(", ");
}

async function loadFaults() {
  const [data, over] = await Promise.all([admin("GET", "faults"), admin("GET", "overrides")]);
  const items = [];
  const ofScenario = t("of-scenario", { name: data.scenario }) + " · ";
  scenarioAuthOff = !!(over.auth && over.auth.type === "none");
  if (serves(data)) localStorage.setItem(SERVING_KEY, data.scenario);
  if (data.scenario_auth === "bearer") {
    // The scenario's own auth: every API request without its token is a 401.
    const li = document.createElement("li");
    li.className = "scenario-auth";
    const span = document.createElement("span");
    span.textContent = ofScenario + t(scenarioAuthOff ? "auth-off" : "auth-on");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t(scenarioAuthOff ? "auth-require" : "auth-let-in");
    b.addEventListener("click", () => run(async () => { scenarioAuthOff = !scenarioAuthOff; await applyOverrides(); }));
    offIfReadOnly(b);
    li.append(span, b);
    items.push(li);
  }
  if (data.scenario_rate_limit) {
    const rl = data.scenario_rate_limit;
    const replaced = over.rate_limit ? " " + t("rate-replaced") : "";
    items.push(textItem(ofScenario + t("scenario-rate", { n: rl.requests, w: rl.window }) + replaced));
  }
  for (const f of data.scenario_faults) {
    const li = document.createElement("li");
    li.textContent = ofScenario + describeFault(f);
    items.push(li);
  }
  for (const f of data.faults) {
    const li = document.createElement("li");
    const span = document.createElement("span");
    span.textContent = describeFault(f);
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t("remove");
    b.setAttribute("aria-label", t("remove-fault", { fault: describeFault(f) }));
    b.addEventListener("click", () => run(async () => { await admin("DELETE", "faults/" + encodeURIComponent(f.id)); await loadFaults(); }));
    offIfReadOnly(b);
    li.append(span, b);
    items.push(li);
  }
  if (over.auth && over.auth.type === "bearer") items.push(textItem(t("runtime-auth")));
  if (over.rate_limit) items.push(textItem(t("runtime-rate", { n: over.rate_limit.requests, w: over.rate_limit.window })));
  if (over.strict !== null && over.strict !== undefined) items.push(textItem(t(over.strict ? "strict-on" : "strict-off")));
  if (items.length === 0) items.push(textItem(t("none-behaves")));
  $("fault-list").replaceChildren(...items);
  // The controls show what the server does, also after a reload.
  $("auth").checked = !!(over.auth && over.auth.type === "bearer");
  $("rate-limit").checked = !!over.rate_limit;
  $("strict").checked = over.strict === true;
  if (over.rate_limit && shows("rate-requests") && shows("rate-window")) {
    $("rate-requests").value = over.rate_limit.requests;
    $("rate-window").value = parseInt(over.rate_limit.window, 10) || $("rate-window").value;
  }
  $("drop").checked = data.faults.some((f) => f.name === PANEL.drop);
  for (const [kind, [id]] of Object.entries(LIVE)) $(id).checked = data.faults.some((f) => f.name === PANEL[kind]);
  const latency = data.faults.find((f) => f.name === PANEL.latency);
  const errors = data.faults.find((f) => f.name === PANEL.error);
  if (shows("latency")) {
    $("latency").value = latency ? parseInt(latency.latency.fixed, 10) || 0 : 0;
    showLatency();
  }
  if (shows("error-rate")) {
    $("error-rate").value = errors ? Math.round((errors.probability === undefined ? 1 : errors.probability) * 100) : 0;
    $("error-rate-value").textContent = $("error-rate").value + "%";
  }
  if (errors && shows("error-status")) $("error-status").value = String(errors.error.status);
}

// showLatency writes the latency control's value, in milliseconds.
function showLatency() {
  $("latency-value").textContent = t("n-ms", { n: $("latency").value });
}

// faultLabel is a journal entry's fault ("down: error 503, rate limit")
// in the page's language: the faults' names stay, the words of their
// kinds, of the rate limit and of a client gone are translated.
function faultLabel(text) {
  const goneSuffix = " (client gone)";
  const gone = text.endsWith(goneSuffix);
  if (gone) text = text.slice(0, -goneSuffix.length);
  const labels = text.split(", ").map((label) => {
    if (label === "rate limit") return t("j-rate-limit");
    const cut = label.lastIndexOf(": ");
    const name = cut >= 0 ? label.slice(0, cut + 2) : "";
    const words = (cut >= 0 ? label.slice(cut + 2) : label).split(" ");
    return name + words.map((w) => (FAULT_KINDS.includes(w) ? t("kind-" + w) : w)).join(" ");
  });
  return labels.join(", ") + (gone ? " " + t("j-client-gone") : "");
}

function textItem(text) {
  const li = document.createElement("li");
  li.textContent = text;
  return li;
}

// --- request log -----------------------------------------------------------

async function pollLog() {
  const data = await admin("GET", "requests?limit=300&since=" + lastSeq);
  for (const e of data.requests) {
    lastSeq = Math.max(lastSeq, e.seq);
    logRows.unshift(e);
  }
  logRows.splice(300);
  if (data.requests.length > 0) renderLog();
}

// failReason says why a request failed: the fault that acted on it (a
// fault's name and what it did), else the error code of the answer; for
// a request served as asked, only a fault (latency) that acted on it.
function failReason(e) {
  if (e.fault) return faultLabel(e.fault);
  if (e.status !== 0 && e.status < 400) return "";
  try {
    const env = JSON.parse(e.response);
    if (env && env.error && env.error.code) return env.error.code + (env.error.field ? " (" + env.error.field + ")" : "");
  } catch { /* not JSON, or cut for the journal */ }
  return "";
}

function renderLog() {
  const rows = logRows.map((e) => {
    const tr = document.createElement("tr");
    tr.tabIndex = 0;
    tr.dataset.seq = e.seq;
    // Status and path first: on a phone, they are what fits.
    const cells = [e.status === 0 ? t("no-answer") : String(e.status), e.method, e.path + (e.query ? "?" + e.query : ""),
      formatTime(new Date(e.time)), e.duration_ms.toFixed(1), e.session, e.scenario, failReason(e)];
    cells.forEach((c, i) => {
      const td = document.createElement("td");
      td.textContent = c;
      if (i === 2) {
        td.className = "path";
        // On a phone the last column is out of sight: why the request
        // failed shows under its path.
        const why = failReason(e);
        if (why) {
          const span = document.createElement("span");
          span.className = "why";
          span.textContent = why;
          td.append(span);
        }
      }
      if (i === 3) td.title = e.time;
      if (i === 0) td.className = "status s" + String(e.status).charAt(0);
      if (i === 0 && e.warnings && e.warnings.length > 0) {
        // Beside the status: on a phone it is what shows.
        const mark = document.createElement("span");
        mark.className = "warn-mark";
        mark.textContent = " ⚠";
        mark.title = e.warnings.join("\n");
        mark.setAttribute("aria-label", t(e.warnings.length === 1 ? "one-warning" : "n-warnings", { n: e.warnings.length }));
        td.append(mark);
      }
      tr.append(td);
    });
    const open = () => showDetail(e, tr);
    tr.addEventListener("click", open);
    tr.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); open(); } });
    return tr;
  });
  $("log-body").replaceChildren(...rows);
}

function showDetail(e, tr) {
  document.querySelectorAll("#log-body tr.selected").forEach((r) => r.classList.remove("selected"));
  tr.classList.add("selected");
  $("detail-title").textContent = e.method + " " + e.path + " → " + (e.status || t("no-answer")) + " " + t("request-id", { id: e.request_id });
  const headers = Object.entries(e.headers || {}).map(([k, v]) => k + ": " + v).join("\n");
  $("detail-request").textContent = e.method + " " + e.path + (e.query ? "?" + e.query : "") + "\n" + headers + "\n\n" + pretty(e.body);
  $("detail-response").textContent = pretty(e.response) + (e.truncated ? "\n… " + t("cut") : "");
  const warnings = e.warnings || [];
  $("detail-warnings").replaceChildren(...warnings.map(textItem));
  $("detail-warnings-box").hidden = warnings.length === 0;
  $("log-detail").hidden = false;
}

function pretty(text) {
  if (!text) return "";
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
}

// --- data and settings -----------------------------------------------------

async function loadData() {
  const d = await admin("GET", "data");
  $("reviews").textContent = d.total.toLocaleString(NUMBERS);
  // Reviews a test seeded (PUT /__mock/data) for the default session.
  $("seeded").textContent = d.seeded ? " " + t(d.seeded.mode === "replace" ? "seeded-replace" : "seeded-append", { n: d.seeded.count.toLocaleString(NUMBERS) }) : "";
  const swatch = (color, text) => {
    const span = document.createElement("span");
    span.style.color = color;
    span.textContent = "■ ";
    return [span, text];
  };
  $("answered-line").replaceChildren(...swatch("#3056d3", t("n-answered", { n: d.answered }) + ", "), ...swatch("#f0b400", t("n-waiting", { n: d.unanswered })));
  drawChart(d.by_rating);
  $("sample").replaceChildren(...d.newest.map((f) => {
    const li = document.createElement("li");
    const stars = document.createElement("span");
    stars.className = "stars";
    stars.textContent = "★".repeat(f.product_valuation) + "☆".repeat(5 - f.product_valuation);
    const text = f.text || f.pros;
    const answer = f.answer_text ? clipped(f.id + ":answer", f.answer_text, 120) : [t(f.answer_state === "draft" ? "a-draft" : "not-answered")];
    if (f.answer_state === "rejected") answer.unshift(t("a-rejected") + ": "); // unanswered again, its text kept
    li.append(stars, f.user_name ? " " + f.user_name + ", " : " ", timeElement(f.created_date), ": ",
      ...(text ? clipped(f.id + ":text", text, 140) : [t("rating-only")]),
      document.createElement("br"), "↳ ", ...answer);
    return li;
  }));
}

function drawChart(byRating) {
  const svg = $("chart");
  const ns = "http://www.w3.org/2000/svg";
  const max = Math.max(1, ...byRating.map((r) => r.answered + r.unanswered));
  const keep = svg.querySelector("title");
  svg.replaceChildren(keep);
  byRating.forEach((r, i) => {
    const x = 20 + i * 60, h = 110;
    const hAns = (r.answered / max) * h, hUn = (r.unanswered / max) * h;
    const bar = (y, height, color, label) => {
      const rect = document.createElementNS(ns, "rect");
      Object.entries({ x, y, width: 40, height, fill: color }).forEach(([k, v]) => rect.setAttribute(k, v));
      const t = document.createElementNS(ns, "title");
      t.textContent = label;
      rect.append(t);
      svg.append(rect);
    };
    bar(120 - hAns, hAns, "#3056d3", r.rating + "★ " + t("n-answered", { n: r.answered }));
    bar(120 - hAns - hUn, hUn, "#f0b400", r.rating + "★ " + t("n-waiting", { n: r.unanswered }));
    const label = document.createElementNS(ns, "text");
    Object.entries({ x: x + 20, y: 138, "text-anchor": "middle", "font-size": 12 }).forEach(([k, v]) => label.setAttribute(k, v));
    label.textContent = r.rating + "★ " + (r.answered + r.unanswered);
    svg.append(label);
  });
}

// loadShop shows a living shop's clock, with a control to move it ahead;
// for a scenario without a shop (the clock answers 400) it hides.
async function loadShop() {
  let clock = null;
  try {
    clock = await admin("GET", "clock");
  } catch {
    clock = null;
  }
  $("shop").hidden = !clock;
  $("shop").dataset.scenario = clock ? clock.scenario : "";
  if (!clock) return;
  const now = apiTime(clock.now);
  $("shop-clock").textContent = formatDateTime(now);
  $("shop-clock").dateTime = now.toISOString();
  $("shop-clock").title = clock.now + " UTC";
  $("shop-kind").textContent = t(clock.frozen ? "clock-frozen" : "clock-real");
}

async function advanceShop() {
  await admin("POST", "clock", { advance: $("shop-advance").value });
  await Promise.all([loadShop(), loadData()]);
}

// --- snapshots ------------------------------------------------------------

// authHeaders are the admin token's header, if this tab has one.
function authHeaders() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { Authorization: "Bearer " + token } : {};
}

// saveSnapshot downloads the default session's snapshot as a YAML file.
async function saveSnapshot() {
  const resp = await fetch("/__mock/snapshot?session=default", { headers: authHeaders() });
  if (!resp.ok) {
    const env = await resp.json().catch(() => null);
    throw new Error((env && env.error && env.error.message) || "GET snapshot: " + resp.status);
  }
  const blob = await resp.blob();
  const file = "replymock-default-" + new Date().toISOString().replace(/[:.]/g, "-") + ".yaml";
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = file;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  $("snapshot-status").textContent = t("snapshot-saved", { file });
}

// restoreSnapshot makes the default session what a snapshot file says.
async function restoreSnapshot(file) {
  const text = await file.text();
  const headers = authHeaders();
  headers["Content-Type"] = text.trimStart().startsWith("{") ? "application/json" : "application/yaml";
  const resp = await fetch("/__mock/snapshot?session=default", { method: "POST", headers, body: text });
  const env = await resp.json().catch(() => null);
  if (!resp.ok || !env || !env.success) {
    const e = env && env.error;
    throw new Error(e ? (e.field ? e.field + ": " : "") + e.message : "POST snapshot: " + resp.status);
  }
  const dropped = env.data.dropped || [];
  $("snapshot-status").textContent = dropped.length
    ? t("snapshot-dropped", { file: file.name, what: dropped.join("; ") })
    : t("snapshot-restored", { file: file.name });
  await refreshAll();
}

async function loadSettings() {
  const d = await admin("GET", "settings");
  const s = d.settings;
  const row = (who, e) => {
    const tr = document.createElement("tr");
    [who, e.reply_mode, e.tone, e.signature, e.empty_review_mode || "—", e.reply_from_date || t("always")].forEach((c) => {
      const td = document.createElement("td");
      td.textContent = c;
      tr.append(td);
    });
    return tr;
  };
  $("settings-body").replaceChildren(...s.feedback.map((e) => row(t("n-star-reviews", { n: e.rating }), e)), row(t("questions"), s.question));
  $("unified").textContent = t(s.feedback[0].use_unified_settings === 1 ? "unified" : "separate");
}

// --- wiring ----------------------------------------------------------------

// run does what a person asked for: its error shows until dismissed or
// replaced; done, it takes away the error of an earlier action.
async function run(fn) {
  try {
    await fn();
    clearError();
  } catch (err) {
    showError(err);
  }
}

// poll refreshes what the page shows; its error shows while it lasts.
async function poll(name, fn) {
  try {
    await fn();
    clearError(name);
  } catch (err) {
    showError(err, name);
  }
}

async function refreshAll() {
  const health = await fetch("/__mock/health").then((r) => r.json());
  $("version").textContent = health.data.version || "devel";
  startScenario = health.data.start_scenario;
  // The token control only where a token is needed (or one was refused).
  if (health.data.token_required) $("token-button").hidden = false;
  showReadOnly(!!health.data.read_only);
  await Promise.all([loadScenarios(), loadFaults(), loadData(), loadSettings(), loadShop()]);
}

document.addEventListener("DOMContentLoaded", () => {
  translatePage();
  showLatency();
  $("lang").value = lang();
  $("lang").addEventListener("change", () => {
    setLang($("lang").value);
    showLatency();
    renderLog();
    run(refreshAll);
  });
  $("scenario-select").addEventListener("change", describeScenario);
  $("scenario-switch").addEventListener("click", () => run(switchScenario));
  $("latency").addEventListener("input", () => { editing.add("latency"); showLatency(); });
  $("latency-apply").addEventListener("click", () => run(applyLatency));
  $("error-rate").addEventListener("input", () => { editing.add("error-rate"); $("error-rate-value").textContent = $("error-rate").value + "%"; });
  $("error-status").addEventListener("change", () => editing.add("error-status"));
  $("error-apply").addEventListener("click", () => run(applyErrors));
  $("drop").addEventListener("change", () => run(applyDrop));
  for (const kind of Object.keys(LIVE)) $(LIVE[kind][0]).addEventListener("change", () => run(() => applyLive(kind)));
  $("auth").addEventListener("change", () => run(applyOverrides));
  $("strict").addEventListener("change", () => run(applyOverrides));
  $("rate-limit").addEventListener("change", () => run(applyOverrides));
  for (const id of ["rate-requests", "rate-window"]) {
    $(id).addEventListener("input", () => editing.add(id));
    $(id).addEventListener("change", () => { if ($("rate-limit").checked) run(applyOverrides); });
  }
  $("heal").addEventListener("click", () => run(heal));
  $("error-dismiss").addEventListener("click", () => { errorOf = ""; clearError(); });
  $("shop-advance-apply").addEventListener("click", () => run(advanceShop));
  $("snapshot-save").addEventListener("click", () => run(saveSnapshot));
  $("snapshot-restore").addEventListener("click", () => $("snapshot-file").click());
  $("snapshot-file").addEventListener("change", () => {
    const f = $("snapshot-file").files[0];
    $("snapshot-file").value = "";
    if (f) run(() => restoreSnapshot(f));
  });
  $("reset").addEventListener("click", () => run(async () => {
    if (!confirm(t("reset-confirm"))) return;
    await admin("POST", "reset");
    $("heal-status").textContent = "";
    logRows.length = 0;
    renderLog();
    await refreshAll();
  }));
  $("clear-log").addEventListener("click", () => run(async () => { await admin("DELETE", "requests"); logRows.length = 0; renderLog(); }));
  $("token-button").addEventListener("click", () => askToken(""));
  $("token-form").addEventListener("submit", () => {
    sessionStorage.setItem(TOKEN_KEY, $("token-input").value);
    run(refreshAll);
  });
  run(refreshAll);
  setInterval(() => poll("log", pollLog), 1000);
  // A living shop moves on its own: its arrivals and answers show within
  // the poll, without a reload.
  setInterval(() => poll("refresh", async () => Promise.all([loadData(), loadSettings(), loadFaults(), loadShop()])), 5000);
});
