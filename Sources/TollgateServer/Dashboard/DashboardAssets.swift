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
    <script src="/dashboard/chart.min.js" defer></script>
    <script src="/dashboard/app.js" defer></script>
    </head>
    <body>
    <a class="skip" href="#main">Skip to content</a>
    <header class="bar">
      <span class="brand">Tollgate</span>
      <span id="app-name" class="app"></span>
      <nav id="nav" hidden>
        <a href="#overview">Overview</a>
        <a href="#placements">Placements</a>
        <a href="#experiments">Experiments</a>
        <a href="#apple-ads">Apple Ads</a>
        <a href="#configuration">Configuration</a>
        <a href="#profiles">Profiles</a>
        <a href="#keys">Keys</a>
        <a href="#webhooks">Webhooks</a>
      </nav>
      <button id="sign-out" type="button" hidden>Sign out</button>
    </header>
    <main id="main" tabindex="-1">
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
    .skip { position: absolute; left: -9999px; top: 0; background: #fff; padding: 8px 12px; z-index: 2; }
    .skip:focus { left: 8px; top: 8px; }
    h3 { font-size: 14px; margin: 18px 0 8px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
    .figure .note { color: var(--muted); font-size: 13px; margin-top: 2px; }
    .hint { color: var(--muted); margin: 0 0 14px; }
    .ok { color: #2b8a3e; }
    .chart { position: relative; height: 280px; }
    .controls { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; margin-bottom: 16px; }
    .controls label { margin: 0; }
    .tag { display: inline-block; margin-left: 10px; padding: 1px 8px; border-radius: 10px; background: #e8eefc; color: var(--accent); font-size: 12px; font-weight: 600; vertical-align: middle; }
    .verdict { font-weight: 600; }
    .experiment table { margin-bottom: 8px; }
    .experiment .card { border: 0; padding: 0; margin-bottom: 8px; }
    th.num { text-align: right; }
    td small { color: var(--muted); }
    textarea { width: 100%; min-height: 420px; padding: 10px; border: 1px solid var(--line); border-radius: 6px; font: 13px/1.45 ui-monospace, "DejaVu Sans Mono", monospace; tab-size: 2; }
    textarea:focus-visible, select:focus-visible, [tabindex]:focus-visible, a:focus-visible { outline: 3px solid #9db5f2; outline-offset: 2px; }
    .problems { margin: 8px 0 0; padding-left: 20px; }
    .problems li { margin: 4px 0; }
    .problems code { background: #fdecea; padding: 1px 4px; border-radius: 4px; }
    .summary { white-space: pre-line; }
    .actions { display: flex; gap: 8px; flex-wrap: wrap; }
    .actions button { margin: 0; }
    button.secondary { color: var(--ink); }
    button.secondary[data-armed="yes"], button.secondary[data-key], button.secondary[data-revision] { color: var(--bad); }
    button:disabled { opacity: .6; cursor: default; }
    pre.document { max-height: 320px; overflow: auto; background: var(--bg); padding: 10px; border-radius: 6px; font-size: 12px; }
    .inline .row { display: flex; gap: 8px; }
    .inline .row button { margin: 0; white-space: nowrap; }
    .columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 0 20px; }
    dl.pairs { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0; }
    dl.pairs dt { color: var(--muted); }
    dl.pairs dd { margin: 0; word-break: break-word; }
    .status { padding: 1px 8px; border-radius: 10px; font-size: 13px; background: var(--bg); }
    .status-delivered { background: #e6f4ea; color: #1e6b30; }
    .status-parked { background: #fdecea; color: var(--bad); }
    .status-pending { background: #fff4e0; color: #8a5300; }
    #deliveries-table td { white-space: nowrap; }
    #deliveries-table td:nth-child(7) { white-space: normal; min-width: 140px; }
    #deliveries-table pre.document { white-space: pre-wrap; word-break: break-all; max-width: 420px; margin: 8px 0 0; }
    #webhooks-table td:nth-child(2) { word-break: break-all; min-width: 180px; }
    #deliveries-table .actions { flex-wrap: nowrap; }
    #deliveries-table a { color: var(--accent); }
    .card > h3:first-child { margin-top: 0; }
    .grid + .card { margin-top: 16px; }
    pre.document span { display: block; min-height: 1.2em; }
    pre.document span.add { background: #e6f4ea; color: #1e6b30; }
    pre.document span.del { background: #fdecea; color: var(--bad); }
    pre.document span.gap { color: var(--muted); }
    .diff { margin-top: 8px; min-width: 280px; }
    .scroll:focus-visible { outline: 3px solid #9db5f2; }
    @media (max-width: 600px) {
      .chart { height: 220px; }
      nav { gap: 6px 14px; flex-wrap: wrap; flex-basis: 100%; order: 3; }
      .bar { padding: 10px 14px; }
      main { padding: 14px; }
      .figure .value { font-size: 22px; }
    }
    """

  /// The script: core (sign-in, API client, router), then the pages.
  static let script = scriptCore + scriptReports + scriptAdmin
}
