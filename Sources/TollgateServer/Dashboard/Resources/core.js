"use strict";
// The console signs a person in: the session lives in an HttpOnly cookie the page cannot read;
// what the page keeps is who signed in, their apps and roles, and the session's CSRF token
// (sent back with every change). Only the chosen app's name is remembered in this tab.
let session = null;
const appKey = "tollgate.app";
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

// The app the console shows: the one chosen in this tab, else the person's first.
function currentApp() {
  if (!session || session.apps.length === 0) return null;
  return session.apps.find((app) => app.name === sessionStorage.getItem(appKey)) || session.apps[0];
}

// Whether the person's role in the current app allows `permission` (the server decides; the
// console only hides what would be refused).
function can(permission) {
  const app = currentApp();
  if (Array.isArray(permission)) return permission.some(can);
  return !!app && app.permissions.includes(permission);
}

// The headers of a console request: the app, and for a change the session's CSRF token.
function consoleHeaders(method) {
  const headers = {};
  const app = currentApp();
  if (app) headers["X-Tollgate-App"] = app.name;
  if (method && method !== "GET" && session) headers["X-CSRF-Token"] = session.csrf_token;
  return headers;
}

async function api(path, method, payload) {
  const headers = consoleHeaders(method || "GET");
  if (payload !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method: method || "GET", headers, credentials: "same-origin",
    body: payload === undefined ? undefined : JSON.stringify(payload)
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

// Which permission each page needs (the server refuses the rest; the console hides it).
const pagePermissions = {
  overview: "overview:read", placements: "reports:read", paywalls: "config:write", experiments: "reports:read",
  subscriptions: "reports:read", cohorts: "reports:read", "apple-ads": "reports:read",
  // Support finds customers by order id there; the integration's status is for the rest.
  "app-store": ["integrations:read", "support"],
  configuration: "config:write", profiles: "profiles:read", keys: "keys:write", webhooks: "support",
  people: "people:write", account: "overview:read"
};

// Hides every form but `shown` (sign-in, invitation) and the console itself.
function showOnly(shown) {
  for (const id of ["sign-in", "invitation"]) $(id).hidden = id !== shown;
  $("nav").hidden = true;
  $("session").hidden = true;
  $("app-name").textContent = "";
  $("view").replaceChildren();
}

function showSignIn(message) {
  session = null;
  showOnly("sign-in");
  const error = $("sign-in-error");
  error.hidden = !message;
  error.textContent = message || "";
  $("password").value = "";
  $("code").value = "";
  $("code-field").hidden = true;
  $("email").focus();
}

// What pages remember between visits (a lookup, a chosen placement) belongs to one sign-in.
const forgetOnSignIn = [];

// Shows the console for the session just opened or found.
function startConsole(answer) {
  for (const forget of forgetOnSignIn) forget();
  session = answer;
  showOnly(null);
  $("nav").hidden = false;
  $("session").hidden = false;
  $("person").textContent = session.person.name || session.person.email;
  $("person").title = session.person.email;
  const picker = $("app-picker");
  picker.replaceChildren(...session.apps.map((app) => el("option", { value: app.name, selected: app === currentApp() }, app.name + " (" + app.role + ")")));
  picker.hidden = session.apps.length < 2;
  $("app-name").textContent = session.apps.length === 1 ? currentApp().name : "";
  for (const link of document.querySelectorAll("nav a")) {
    link.hidden = !can(pagePermissions[link.getAttribute("href").slice(1)]);
  }
  if (session.apps.length === 0) {
    $("view").replaceChildren(el("h1", {}, "No app yet"),
      el("p", {}, "You belong to no app any more: ask an owner of an app to invite you again."));
    return;
  }
  route();
}

async function signIn(email, password, code) {
  try {
    const answer = await api("/v1/console/sign-in", "POST", { email, password, code: code || null });
    startConsole(answer);
  } catch (error) {
    if (error.code === "two_factor_code_required" || (code && error.status === 401)) {
      // The password was right: the code is asked for next to it, the fields kept.
      $("code-field").hidden = false;
      $("code").value = "";
      $("code").focus();
      $("sign-in-error").hidden = false;
      $("sign-in-error").textContent = error.message;
      return;
    }
    showSignIn(error.status === 401 || error.status === 429 ? error.message : "The server did not answer: " + error.message);
  }
}

// Why a single sign-on came back without a session (`#sso_error=CODE`); the detail is in the
// server's log, never in the address bar.
const singleSignOnErrors = {
  not_configured: "Single sign-on is not set up on this server.",
  cancelled: "Single sign-on was cancelled at your identity provider.",
  expired: "That sign-in took too long, was finished already, or began in another browser: try again.",
  provider_unavailable: "Your identity provider could not be reached or sent an answer Tollgate cannot use. Try again; if it persists, your administrator finds the reason in the server's log.",
  token_invalid: "Your identity provider's answer could not be verified, so you were not signed in. Your administrator finds the reason in the server's log.",
  email_unverified: "Your identity provider does not confirm your e-mail address.",
  domain_not_allowed: "Your e-mail address's domain may not sign in here.",
  not_invited: "You have no account here yet: ask an owner of the app to invite your e-mail address.",
  disabled: "Your account is disabled: ask an owner of the app."
};

// Offers "Sign in with …" when the server has single sign-on.
async function offerSingleSignOn() {
  try {
    const sso = await api("/v1/console/sso");
    $("sso").hidden = !sso.enabled;
    if (sso.enabled) $("sso-start").textContent = "Sign in with " + sso.label;
  } catch (error) {
    $("sso").hidden = true;
  }
}

async function signOut(everywhere) {
  try {
    await api(everywhere ? "/v1/console/sign-out-everywhere" : "/v1/console/sign-out", "POST");
  } catch (error) {
    // Signed out already (the session had ended): the sign-in page is the answer either way.
  }
  showSignIn(everywhere ? "Signed out on every device." : null);
}

// An invitation link (#invitation=TOKEN): what it offers, and a password to accept it with.
async function showInvitation(token) {
  showOnly("invitation");
  const box = $("invitation");
  let offer;
  try {
    offer = await api("/v1/console/invitations/" + encodeURIComponent(token));
  } catch (error) {
    box.replaceChildren(el("h1", {}, "Invitation"), el("p", { class: "error", role: "alert", id: "invitation-error" }, error.message),
      el("p", {}, el("a", { href: "#overview", id: "to-sign-in" }, "Sign in")));
    return;
  }
  const fresh = !offer.existing_person || offer.resets_password;
  const reset = offer.resets_password;
  const name = el("input", { id: "invitation-name", autocomplete: "name", maxlength: "200" });
  const password = el("input", { id: "invitation-password", type: "password", required: true,
    autocomplete: fresh ? "new-password" : "current-password", minlength: fresh ? "12" : null, "aria-describedby": "invitation-help" });
  const problem = el("p", { class: "error", role: "alert", id: "invitation-error", hidden: true });
  const form = el("form", { id: "invitation-form" },
    el("label", { for: "invitation-email" }, "E-mail"),
    el("input", { id: "invitation-email", value: offer.email, readonly: true, autocomplete: "username" }),
    fresh && !reset ? el("label", { for: "invitation-name" }, "Your name (optional)") : null, fresh && !reset ? name : null,
    el("label", { for: "invitation-password" }, reset ? "Choose a new password" : fresh ? "Choose a password" : "Your password"), password,
    el("p", { class: "hint", id: "invitation-help" }, fresh
      ? "At least 12 characters. A few unrelated words make a good one; common passwords are refused."
      : "You already sign in as " + offer.email + ": your password adds this app to your account."),
    el("button", { type: "submit" }, reset ? "Set the new password" : fresh ? "Join " + offer.app : "Add " + offer.app), problem);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const answer = await api("/v1/console/invitations/" + encodeURIComponent(token) + "/accept", "POST",
        { password: password.value, name: fresh && !reset && name.value.trim() ? name.value.trim() : null });
      // The link has done its work: it leaves the address bar and the history.
      history.replaceState(null, "", location.pathname + "#overview");
      sessionStorage.setItem(appKey, offer.app);
      startConsole(answer);
    } catch (error) {
      problem.hidden = false;
      problem.textContent = error.message;
      password.focus();
    }
  });
  box.replaceChildren(el("h1", {}, reset ? "Choose a new password" : "Join " + offer.app),
    reset
      ? el("p", {}, "An owner of ", el("strong", {}, offer.app), " sent you this link. It works once, until " + when(offer.expires_at)
        + "; your other sessions end when you use it.")
      : el("p", {}, "You are invited to ", el("strong", {}, offer.app), " as ", el("strong", {}, offer.role),
        ". The invitation works once, until " + when(offer.expires_at) + "."), form);
  (fresh && !reset ? name : password).focus();
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
  const hash = location.hash || "#overview";
  if (hash.startsWith("#invitation=")) return showInvitation(decodeURIComponent(hash.slice("#invitation=".length)));
  if (!session) return showSignIn();
  const name = hash.slice(1);
  // A page the role does not open shows the first one it does.
  const allowed = (page) => pages[page] && can(pagePermissions[page]);
  const page = allowed(name) ? name : Object.keys(pagePermissions).find(allowed);
  if (!page) return;
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
    if (error.status === 401) return showSignIn("Your session ended: sign in again.");
    if (error.code === "two_factor_required") {
      view.replaceChildren(el("h1", {}, "Two-factor sign-in needed"), el("p", { class: "error", role: "alert" }, error.message),
        el("p", {}, el("a", { href: "#account", id: "to-account" }, "Set it up on your account page")));
      return;
    }
    view.replaceChildren(el("h1", {}, "Something went wrong"),
      el("p", { class: "error", role: "alert" }, "Could not load this page: " + error.message),
      el("button", { type: "button", id: "retry" }, "Try again"));
    $("retry").addEventListener("click", route);
  } finally {
    if (serial === routeSerial) view.removeAttribute("aria-busy");
  }
}

let routeSerial = 0;

document.addEventListener("DOMContentLoaded", async () => {
  $("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    signIn($("email").value.trim(), $("password").value, $("code").value.trim());
  });
  $("sign-out").addEventListener("click", () => signOut(false));
  $("app-picker").addEventListener("change", () => {
    sessionStorage.setItem(appKey, $("app-picker").value);
    startConsole(session);
  });
  $("sso-start").addEventListener("click", () => location.assign("/v1/console/sso/start"));
  offerSingleSignOn();
  window.addEventListener("hashchange", route);
  if ((location.hash || "").startsWith("#invitation=")) return route();
  const hash = location.hash || "";
  if (hash.startsWith("#sso_error=")) {
    history.replaceState(null, "", location.pathname);
    const code = decodeURIComponent(hash.slice("#sso_error=".length));
    return showSignIn(singleSignOnErrors[code] || "Single sign-on failed (" + code + ").");
  }
  try {
    startConsole(await api("/v1/console/session"));
  } catch (error) {
    showSignIn(error.status === 401 ? null : "The server did not answer: " + error.message);
  }
});
