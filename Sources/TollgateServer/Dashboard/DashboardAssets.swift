/// The console's page, script and style sheet. Every value from the server is put into the
/// page with `textContent` (never as HTML), so a flow named `<img src=x onerror=alert(1)>`
/// shows as text; the page has no inline script or style, so the CSP needs no `unsafe-inline`.
enum DashboardAssets {
  static let page = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Tollgate</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/dashboard/app.css">
    <script src="/dashboard/app.js" defer></script>
    </head>
    <body>
    <header class="bar">
      <span class="brand">Tollgate</span>
      <span id="app-name" class="app"></span>
      <nav id="nav" hidden>
        <a href="#overview">Overview</a>
        <a href="#placements">Placements</a>
        <a href="#keys">Keys</a>
      </nav>
      <button id="sign-out" type="button" hidden>Sign out</button>
    </header>
    <main id="main">
      <section id="sign-in" class="card narrow" hidden>
        <h1>Sign in</h1>
        <p>Paste the app's <strong>secret key</strong> (<code>tg_sec_…</code>). It stays in this tab only and is
        sent to this server as the Bearer header.</p>
        <form id="sign-in-form">
          <label for="key">Secret key</label>
          <input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required>
          <button type="submit">Sign in</button>
          <p id="sign-in-error" class="error" role="alert" hidden></p>
        </form>
      </section>
      <section id="view" aria-live="polite"></section>
    </main>
    </body>
    </html>
    """

  static let style = """
    :root { --ink: #1b1f24; --muted: #5b6572; --line: #d9dee5; --accent: #2457d6; --bad: #b42318; --bg: #f6f7f9; }
    * { box-sizing: border-box; }
    [hidden] { display: none !important; }
    body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
    .bar { display: flex; flex-wrap: wrap; align-items: center; gap: 12px 20px; padding: 12px 24px; background: #fff; border-bottom: 1px solid var(--line); }
    .brand { font-weight: 700; }
    .app { color: var(--muted); }
    nav { display: flex; gap: 16px; flex: 1; }
    nav a { color: var(--muted); text-decoration: none; padding: 4px 0; border-bottom: 2px solid transparent; }
    nav a[aria-current="page"] { color: var(--ink); border-bottom-color: var(--accent); }
    nav a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #9db5f2; outline-offset: 2px; }
    main { max-width: 1120px; margin: 0 auto; padding: 24px; }
    h1 { font-size: 22px; margin: 0 0 16px; }
    h2 { font-size: 16px; margin: 0 0 12px; }
    .card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 20px; margin-bottom: 20px; }
    .narrow { max-width: 460px; margin: 40px auto; }
    label { display: block; font-weight: 600; margin: 12px 0 6px; }
    input { width: 100%; padding: 9px 10px; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
    button { margin-top: 14px; padding: 8px 16px; border: 0; border-radius: 6px; background: var(--accent); color: #fff; font: inherit; cursor: pointer; }
    #sign-out { margin: 0; background: transparent; color: var(--muted); border: 1px solid var(--line); }
    button.secondary { margin: 0; padding: 4px 10px; background: #fff; color: var(--bad); border: 1px solid var(--line); }
    select { padding: 8px; border: 1px solid var(--line); border-radius: 6px; font: inherit; background: #fff; }
    .narrow-left { max-width: 460px; }
    code.secret { display: block; padding: 10px; background: var(--bg); border-radius: 6px; word-break: break-all; }
    .error { color: var(--bad); }
    .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 16px; }
    .figure { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px; }
    .figure .label { color: var(--muted); font-size: 13px; }
    .figure .value { font-size: 26px; font-weight: 650; margin-top: 4px; font-variant-numeric: tabular-nums; }
    table { width: 100%; border-collapse: collapse; }
    th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
    th { color: var(--muted); font-weight: 600; font-size: 13px; }
    td.num { text-align: right; font-variant-numeric: tabular-nums; }
    .empty { color: var(--muted); }
    .section { margin-top: 28px; }
    td.targets { white-space: pre-line; }
    .loading { color: var(--muted); }
    .scroll { overflow-x: auto; }
    @media (max-width: 600px) {
      .bar { padding: 10px 14px; }
      main { padding: 14px; }
      .figure .value { font-size: 22px; }
    }
    """

  static let script = """
    "use strict";
    // The secret key lives in this tab's sessionStorage only and goes out as the Bearer header.
    const keyName = "tollgate.secretKey";
    const numbers = new Intl.NumberFormat(undefined);
    const $ = (id) => document.getElementById(id);

    function el(tag, attributes, ...children) {
      const node = document.createElement(tag);
      for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
      for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
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
        throw error;
      }
      return body;
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

    async function signIn(key) {
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

    function figure(label, value) {
      return el("div", { class: "figure" }, el("div", { class: "label" }, label), el("div", { class: "value" }, value));
    }

    async function overview(view) {
      const data = await api("/v1/admin/overview");
      const requests = data.requests;
      const attribution = data.attribution;
      view.replaceChildren(
        el("h1", {}, "Overview"),
        el("div", { class: "grid" },
          figure("Configuration revision", data.revision === 0 ? "none yet" : numbers.format(data.revision)),
          figure("Placements", numbers.format(data.placements.length)),
          figure("Requests answered", numbers.format(requests.total)),
          figure("Client errors (4xx)", numbers.format(requests.client_errors)),
          figure("Server errors (5xx)", numbers.format(requests.server_errors))),
        el("h2", { class: "section" }, "Apple Ads attribution since the server started"),
        el("div", { class: "grid" },
          figure("Waiting for Apple", numbers.format(attribution.queue_depth)),
          ...Object.keys(attribution.outcomes).sort().map((outcome) => figure(outcome, numbers.format(attribution.outcomes[outcome])))),
        data.placements.length === 0
          ? el("p", { class: "empty" }, "No configuration yet: import one with tollgate import FILE --app NAME, or PUT /v1/admin/config.")
          : el("p", {}, "Placements: " + data.placements.join(", ")));
    }

    async function placements(view) {
      const config = await api("/v1/admin/config").catch((error) => {
        if (error.status === 404) return null;
        throw error;
      });
      if (!config) {
        view.replaceChildren(el("h1", {}, "Placements"),
          el("p", { class: "empty" }, "No configuration yet: import one with tollgate import FILE --app NAME."));
        return;
      }
      const rows = [];
      for (const placement of config.document.placements || []) {
        const targets = (placement.targets || []).map((target) => target.experiment
          ? target.audience + " → " + target.experiment.name + " (" + target.experiment.variations.map((v) => v.flow + " " + v.weight + "%").join(", ") + ")"
          : target.audience + " → " + target.flow);
        rows.push(el("tr", {}, el("td", {}, placement.id), el("td", { class: "targets" }, targets.join("\\n") || "—"), el("td", {}, placement.default)));
      }
      view.replaceChildren(el("h1", {}, "Placements"),
        el("div", { class: "card scroll" }, el("table", {},
          el("thead", {}, el("tr", {}, el("th", {}, "Placement"), el("th", {}, "Targets, in order"), el("th", {}, "Default flow"))),
          el("tbody", {}, ...rows))));
    }

    const when = (text) => text ? new Date(text).toLocaleString() : "—";

    // A key just created, shown once on the next render of the keys page.
    let justCreated = null;

    async function keys(view) {
      const data = await api("/v1/admin/keys");
      const rows = data.keys.map((key) => {
        const action = el("td", {});
        if (!key.revoked_at) {
          const button = el("button", { type: "button", class: "secondary", "data-key": key.id }, "Revoke");
          button.addEventListener("click", async () => {
            if (button.dataset.armed !== "yes") {
              button.dataset.armed = "yes";
              button.textContent = "Confirm revoke";
              return;
            }
            try {
              await api("/v1/admin/keys/" + encodeURIComponent(key.id), "DELETE");
              route();
            } catch (error) {
              action.replaceChildren(el("span", { class: "error", role: "alert" }, error.message));
            }
          });
          action.append(button);
        }
        return el("tr", {}, el("td", {}, key.id), el("td", {}, key.kind), el("td", {}, key.label || ""),
          el("td", {}, when(key.created_at)), el("td", {}, when(key.last_used_at)), el("td", {}, when(key.revoked_at)), action);
      });
      const kind = el("select", { id: "new-kind" }, el("option", { value: "public" }, "public (SDK)"), el("option", { value: "secret" }, "secret (admin)"));
      const label = el("input", { id: "new-label", maxlength: "200", placeholder: "e.g. iOS 2.4" });
      const problem = el("p", { class: "error", role: "alert", hidden: "" });
      const form = el("form", { id: "create-key" },
        el("label", { for: "new-kind" }, "Kind"), kind,
        el("label", { for: "new-label" }, "Label (optional)"), label,
        el("button", { type: "submit" }, "Create key"), problem);
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        try {
          justCreated = await api("/v1/admin/keys", "POST", { kind: kind.value, label: label.value || null });
          route();
        } catch (error) {
          problem.hidden = false;
          problem.textContent = error.message;
        }
      });
      const notice = justCreated
        ? [el("div", { id: "new-key", class: "card" }, el("h2", {}, "New " + justCreated.kind + " key " + justCreated.id),
            el("p", {}, "Copy it now: it is stored hashed and will not be shown again."),
            el("code", { id: "new-key-value", class: "secret" }, justCreated.key))]
        : [];
      justCreated = null;
      view.replaceChildren(el("h1", {}, "Keys"), ...notice,
        el("div", { class: "card scroll" }, el("table", {},
          el("thead", {}, el("tr", {}, ...["Id", "Kind", "Label", "Created", "Last used", "Revoked", ""].map((name) => el("th", {}, name)))),
          el("tbody", {}, ...rows))),
        el("div", { class: "card narrow-left" }, el("h2", {}, "Create a key"), form));
    }

    const pages = { overview, placements, keys };

    async function route() {
      if (!sessionStorage.getItem(keyName)) return showSignIn();
      const name = (location.hash || "#overview").slice(1);
      const page = pages[name] || overview;
      for (const link of document.querySelectorAll("nav a")) {
        if (link.getAttribute("href") === "#" + name) link.setAttribute("aria-current", "page");
        else link.removeAttribute("aria-current");
      }
      const view = $("view");
      view.replaceChildren(el("p", { class: "loading" }, "Loading…"));
      try {
        await page(view);
      } catch (error) {
        if (error.status === 401) return showSignIn("The key stopped working (revoked?): sign in again.");
        view.replaceChildren(el("p", { class: "error", role: "alert" }, "Could not load this page: " + error.message));
      }
    }

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
    """
}
