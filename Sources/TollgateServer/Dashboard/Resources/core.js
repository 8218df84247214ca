"use strict";
// The secret key lives in this tab's sessionStorage only and goes out as the Bearer header.
const keyName = "tollgate.secretKey";
// The user's languages as the browser states them (the engine's own default can differ).
const locales = navigator.languages && navigator.languages.length ? [...navigator.languages] : undefined;
const numbers = new Intl.NumberFormat(locales);
const percent = new Intl.NumberFormat(locales, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
const $ = (id) => document.getElementById(id);
const palette = ["#2457d6", "#d9480f", "#2b8a3e", "#862e9c", "#c2255c", "#0b7285", "#5c940d", "#e67700"];

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === undefined || child === null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, method, payload) {
  const key = sessionStorage.getItem(keyName);
  const headers = { "Authorization": "Bearer " + key };
  if (payload !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method: method || "GET", headers, body: payload === undefined ? undefined : JSON.stringify(payload)
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error((body.error && body.error.message) || ("HTTP " + response.status));
    error.status = response.status;
    error.code = body.error && body.error.code;
    error.details = (body.error && body.error.details) || [];
    throw error;
  }
  return body;
}

// The answer, or null when the server says 404.
const orNull = (promise) => promise.catch((error) => {
  if (error.status === 404) return null;
  throw error;
});

const count = (value) => value === undefined || value === null ? "—" : numbers.format(value);
const share = (value) => value === undefined || value === null ? "—" : percent.format(value);
const when = (text) => text ? new Date(text).toLocaleString(locales) : "—";
const dayLabel = (iso) => new Date(iso + "T00:00:00Z").toLocaleDateString(locales, { timeZone: "UTC", month: "short", day: "numeric" });

function money(amount, currency) {
  try {
    return new Intl.NumberFormat(locales, { style: "currency", currency }).format(amount);
  } catch (error) {
    return numbers.format(amount) + " " + currency;
  }
}

// Revenue by currency ({USD: {gross: 12.5}, …} or {USD: 12.5}) as one line.
function moneyList(byCurrency) {
  const codes = Object.keys(byCurrency || {}).sort();
  if (codes.length === 0) return "—";
  const amount = (value) => typeof value === "number" ? value : value.gross;
  return codes.map((code) => money(amount(byCurrency[code]), code)).join(" + ");
}

// Revenue in the reporting currency when it converts, else per currency (naming the currencies
// without a rate: the server leaves a total it cannot make whole absent).
function revenueText(row) {
  if (row.reporting && row.reporting.gross !== undefined) return money(row.reporting.gross, row.reporting.currency);
  const list = Object.keys(row.revenue || {}).length ? moneyList(row.revenue) : "—";
  if (row.reporting && row.reporting.unconverted.length) {
    return list + " (no " + row.reporting.currency + " rate for " + row.reporting.unconverted.join(", ") + ")";
  }
  return list;
}

function figure(label, value, note) {
  return el("div", { class: "figure" }, el("div", { class: "label" }, label), el("div", { class: "value" }, value),
    note ? el("div", { class: "note" }, note) : null);
}

// A table in a card that scrolls sideways on narrow screens (and by keyboard: it is focusable).
// columns: [label, "num"?]; rows: arrays of cells (text or nodes).
function table(label, columns, rows, attributes) {
  const head = el("tr", {}, ...columns.map(([name, kind]) => el("th", { scope: "col", class: kind === "num" ? "num" : null }, name)));
  const body = rows.map((cells) => el("tr", {}, ...cells.map((cell, index) =>
    el("td", { class: columns[index] && columns[index][1] === "num" ? "num" : null }, cell))));
  return el("div", Object.assign({ class: "card scroll", tabindex: "0", role: "region", "aria-label": label }, attributes || {}),
    el("table", {}, el("thead", {}, head), el("tbody", {}, ...body)));
}

const empty = (text) => el("p", { class: "empty" }, text);

// A refused configuration (the server's 422) as shown under its form: how many problems, then
// each at its JSON path, in a list with `id`.
function refusal(error, id) {
  const problems = error.details.map((detail) => el("li", {}, el("code", {}, detail.path), " " + detail.message));
  return [el("p", { class: "error", role: "alert" },
    "Not applied: " + (problems.length ? problems.length + (problems.length === 1 ? " problem." : " problems.") : error.message)),
    problems.length ? el("ul", { id, class: "problems" }, ...problems) : null].filter(Boolean);
}

// Charts are drawn once the canvas is in the page — a page renders into a draft that joins the
// page only when all its answers are in, so this waits frame by frame — unless the user moved to
// another page first; the previous page's are destroyed.
let liveCharts = [];
function chart(label, config, height) {
  if (typeof Chart === "undefined") return el("p", { class: "empty" }, "Charts need Debian's libjs-chart.js on the server.");
  const canvas = el("canvas", { role: "img", "aria-label": label });
  const serial = routeSerial;
  const draw = () => {
    if (serial !== routeSerial) return;
    if (canvas.isConnected) liveCharts.push(new Chart(canvas, config));
    else requestAnimationFrame(draw);
  };
  requestAnimationFrame(draw);
  const box = el("div", { class: "chart" }, canvas);
  if (height) box.style.height = height + "px";
  return box;
}

// The day the app switched over to Tollgate — its first live install, when it also has imported
// profiles — or null. Time charts draw it as a dashed line: what comes before it was imported.
async function switchOverDay() {
  return (await api("/v1/admin/imports")).switch_over_day || null;
}

// A Chart.js plugin drawing the switch-over day on a chart whose labels are `periods`
// ({start, end} days): a dashed line at the period holding the day, labelled.
function switchOverMarker(periods, day) {
  const index = day ? periods.findIndex((period) => period.start <= day && day <= period.end) : -1;
  return {
    id: "switchOver",
    afterDatasetsDraw(chart) {
      if (index < 0) return;
      const x = chart.scales.x.getPixelForValue(index);
      const { top, bottom, right } = chart.chartArea;
      const context = chart.ctx;
      const label = "Tollgate from " + dayLabel(day);
      context.save();
      context.strokeStyle = "#495057";
      context.setLineDash([4, 4]);
      context.beginPath();
      context.moveTo(x, top);
      context.lineTo(x, bottom);
      context.stroke();
      context.setLineDash([]);
      context.font = "12px system-ui, sans-serif";
      const width = context.measureText(label).width;
      const left = Math.max(chart.chartArea.left, Math.min(x + 4, right - width - 4));
      // On a light box, so the lines under it do not cross the words.
      context.fillStyle = "rgba(255, 255, 255, 0.9)";
      context.fillRect(left - 2, top + 1, width + 4, 15);
      context.fillStyle = "#343a40";
      context.fillText(label, left, top + 12);
      context.restore();
    }
  };
}

// The hint under a chart that shows the switch-over day.
function switchOverHint(periods, day) {
  if (!day || !periods.some((period) => period.start <= day && day <= period.end)) return null;
  return el("p", { class: "hint", id: "switch-over" }, "Dashed line: " + dayLabel(day)
    + ", the first install with Tollgate's SDK. Before it, the figures come from imported customers and their App Store history.");
}

function showSignIn(message) {
  $("sign-in").hidden = false;
  $("nav").hidden = true;
  $("sign-out").hidden = true;
  $("app-name").textContent = "";
  $("view").replaceChildren();
  const error = $("sign-in-error");
  error.hidden = !message;
  error.textContent = message || "";
  $("key").focus();
}

// What pages remember between visits (a lookup, a chosen placement) belongs to one sign-in.
const forgetOnSignIn = [];

async function signIn(key) {
  for (const forget of forgetOnSignIn) forget();
  sessionStorage.setItem(keyName, key);
  try {
    const app = await api("/v1/admin/app");
    $("sign-in").hidden = true;
    $("nav").hidden = false;
    $("sign-out").hidden = false;
    $("app-name").textContent = app.name;
    route();
  } catch (error) {
    sessionStorage.removeItem(keyName);
    showSignIn(error.status === 401 || error.status === 403
      ? "This key does not open the admin API: paste the app's secret key (tg_sec_…)."
      : "The server did not answer: " + error.message);
  }
}

// The configuration's names for flows and audiences (ids where there is none).
async function names() {
  const config = await orNull(api("/v1/admin/config"));
  const document = config ? config.document : {};
  const flows = {};
  const audiences = { default: "Everyone else (default flow)" };
  for (const flow of document.flows || []) flows[flow.id] = flow.name || flow.id;
  for (const audience of document.audiences || []) audiences[audience.id] = audience.name || audience.id;
  return { config, document, flows, audiences, placements: (document.placements || []).map((p) => p.id) };
}

const pages = {};

async function route() {
  if (!sessionStorage.getItem(keyName)) return showSignIn();
  const name = (location.hash || "#overview").slice(1);
  const page = pages[name] ? name : "overview";
  for (const link of document.querySelectorAll("nav a")) {
    if (link.getAttribute("href") === "#" + page) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  for (const old of liveCharts) old.destroy();
  liveCharts = [];
  // A page renders into a draft that replaces the view only if no newer route started meanwhile:
  // a slow answer never overwrites the page the user moved on to.
  const serial = ++routeSerial;
  const view = $("view");
  view.setAttribute("aria-busy", "true");
  view.replaceChildren(el("p", { class: "loading" }, "Loading…"));
  const draft = el("div");
  try {
    await pages[page](draft);
    if (serial !== routeSerial) return;
    view.replaceChildren(...draft.childNodes);
  } catch (error) {
    if (serial !== routeSerial) return;
    if (error.status === 401) return showSignIn("The key stopped working (revoked?): sign in again.");
    view.replaceChildren(el("h1", {}, "Something went wrong"),
      el("p", { class: "error", role: "alert" }, "Could not load this page: " + error.message),
      el("button", { type: "button", id: "retry" }, "Try again"));
    $("retry").addEventListener("click", route);
  } finally {
    if (serial === routeSerial) view.removeAttribute("aria-busy");
  }
}

let routeSerial = 0;

document.addEventListener("DOMContentLoaded", () => {
  $("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    signIn($("key").value.trim());
  });
  $("sign-out").addEventListener("click", () => {
    sessionStorage.removeItem(keyName);
    showSignIn();
  });
  window.addEventListener("hashchange", route);
  const key = sessionStorage.getItem(keyName);
  if (key) signIn(key);
  else showSignIn();
});
