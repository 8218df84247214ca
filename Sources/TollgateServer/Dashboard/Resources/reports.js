const periodNames = { "today": "Revenue today", "7_days": "Revenue, last 7 days", "30_days": "Revenue, last 30 days" };

// The overview's business chart: net revenue per period as bars, MRR, active subscriptions and
// trials as lines, over 30 days by day, 90 by week or 365 by month.
const overviewState = { days: 30, environment: "production" };
forgetOnSignIn.push(() => Object.assign(overviewState, { days: 30, environment: "production" }));

async function businessCard() {
  const by = overviewState.days === 30 ? "day" : overviewState.days === 90 ? "week" : "month";
  const [report, switchOver] = await Promise.all([api("/v1/admin/stats/subscriptions?" + new URLSearchParams({
    from: isoDaysAgo(overviewState.days - 1), to: isoDaysAgo(0), by, environment: overviewState.environment }).toString()),
  switchOverDay()]);
  const period = el("select", { id: "overview-days" }, ...[[30, "Last 30 days, by day"], [90, "Last 90 days, by week"],
    [365, "Last 365 days, by month"]].map(([days, label]) => el("option", { value: String(days), selected: days === overviewState.days }, label)));
  period.addEventListener("change", () => { overviewState.days = Number(period.value); route(); });
  const store = el("select", { id: "overview-environment" }, ...[["production", "Production"], ["sandbox", "Sandbox"]].map(([value, label]) =>
    el("option", { value, selected: value === overviewState.environment }, label)));
  store.addEventListener("change", () => { overviewState.environment = store.value; route(); });
  const currency = report.currency;
  const last = report.periods[report.periods.length - 1];
  // A period whose money could not be converted has no net: then the total is unknown too.
  const net = report.periods.every((p) => p.net !== undefined) ? report.periods.reduce((total, p) => total + p.net, 0) : undefined;
  const amount = (value) => value === undefined || value === null || !currency ? "—" : money(value, currency);
  const any = report.periods.some((p) => p.active_subscriptions || p.active_trials || p.gross || p.refunded);
  const body = any ? chart("Net revenue, MRR, active subscriptions and trials", {
    type: "bar",
    data: { labels: report.periods.map((p) => dayLabel(p.start)), datasets: [
      { label: "Net revenue" + (currency ? " (" + currency + ")" : ""), data: report.periods.map((p) => p.net === undefined ? null : p.net),
        backgroundColor: palette[0] + "99", yAxisID: "money", order: 2 },
      { type: "line", label: "MRR", data: report.periods.map((p) => p.mrr === undefined ? null : p.mrr), borderColor: palette[2],
        backgroundColor: palette[2], borderDash: [6, 4], yAxisID: "money", order: 1 },
      { type: "line", label: "Active subscriptions", data: report.periods.map((p) => p.active_subscriptions), borderColor: palette[1],
        backgroundColor: palette[1], yAxisID: "count", order: 0 },
      { type: "line", label: "Active trials", data: report.periods.map((p) => p.active_trials), borderColor: palette[3],
        backgroundColor: palette[3], yAxisID: "count", order: 0 }] },
    options: { maintainAspectRatio: false, interaction: { mode: "index", intersect: false },
      scales: { money: { type: "linear", position: "left", beginAtZero: true, ticks: { callback: (value) => currency ? money(value, currency) : numbers.format(value) } },
        count: { type: "linear", position: "right", beginAtZero: true, grid: { drawOnChartArea: false }, ticks: { precision: 0 } } } },
    plugins: [switchOverMarker(report.periods, switchOver)]
  }, 300) : empty("No subscriptions in this period in the " + report.environment + " store.");
  return [
    el("h2", { class: "section" }, "Subscriptions"),
    el("div", { class: "controls" }, el("label", { for: "overview-days" }, "Period"), period,
      el("label", { for: "overview-environment" }, "Store"), store),
    el("div", { class: "grid", id: "business" },
      figure("Net revenue in the period", amount(net)), figure("MRR", amount(last && last.mrr)),
      figure("Active subscriptions", count(last ? last.active_subscriptions : 0)), figure("Active trials", count(last ? last.active_trials : 0))),
    el("div", { class: "card" }, body, any ? switchOverHint(report.periods, switchOver) : null)];
}

pages.overview = async (view) => {
  // The subscription business is a report: a role without reports sees the rest.
  const [data, business] = await Promise.all([api("/v1/admin/overview"), can("reports:read") ? businessCard() : []]);
  const requests = data.requests;
  const funnel = data.funnel;
  const revenue = data.revenue.map((period) => figure(periodNames[period.period] || period.period, revenueText(period),
    count(period.transactions) + (period.transactions === 1 ? " transaction" : " transactions")));
  const steps = [["Tokens received", funnel.received], ["Resolved by Apple", funnel.resolved], ["Applied (attributed)", funnel.applied],
    ["Not attributed", funnel.not_attributed], ["Failed", funnel.failed], ["Waiting for Apple", funnel.pending]];
  // Developer-mode answers only show up while an app is being tested.
  if (funnel.test_ignored > 0) steps.push(["Test answers (ignored)", funnel.test_ignored]);
  const funnelChart = funnel.received === 0
    ? empty("No Apple Ads tokens yet. The SDK sends one on an install's first launch (AdServices), and Apple resolves it here.")
    : chart("Attribution funnel", {
      type: "bar",
      data: { labels: steps.map((step) => step[0]), datasets: [{ label: "Tokens", data: steps.map((step) => step[1]), backgroundColor: palette[0] }] },
      options: { indexAxis: "y", maintainAspectRatio: false, plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } }
    });
  view.replaceChildren(
    el("h1", {}, "Overview"),
    el("div", { class: "grid", id: "revenue" }, ...revenue),
    ...business,
    el("h2", { class: "section" }, "Apple Ads attribution"),
    el("div", { class: "grid", id: "funnel" }, ...steps.map((step) => figure(step[0], count(step[1])))),
    el("div", { class: "card" }, funnelChart),
    el("h2", { class: "section" }, "This server since it started"),
    el("div", { class: "grid", id: "requests" },
      figure("Configuration revision", data.revision === 0 ? "none yet" : count(data.revision)),
      figure("Placements", count(data.placements.length)),
      figure("Requests answered", count(requests.total)),
      figure("Client errors (4xx)", count(requests.client_errors)),
      figure("Server errors (5xx)", count(requests.server_errors)),
      figure("Tokens waiting (all apps)", count(data.attribution.queue_depth))),
    data.placements.length === 0
      ? empty("No configuration yet: open Configuration to write one, or run tollgate import FILE --app NAME.")
      : el("p", {}, "Placements: " + data.placements.join(", ")));
};

pages.placements = async (view) => {
  const known = await names();
  if (!known.config) {
    view.replaceChildren(el("h1", {}, "Placements"),
      empty("No configuration yet: open Configuration to write one, or run tollgate import FILE --app NAME."));
    return;
  }
  const reports = await Promise.all(known.document.placements.map((placement) =>
    api("/v1/admin/stats/placements/" + encodeURIComponent(placement.id))));
  const cards = known.document.placements.map((placement, index) => {
    const viewers = {};
    let total = 0;
    for (const audience of reports[index].audiences) {
      const sum = audience.variations.reduce((all, variation) => all + variation.unique_viewers, 0);
      viewers[audience.audience_id] = sum;
      total += sum;
    }
    const part = (audience) => total > 0 ? share((viewers[audience] || 0) / total) : "—";
    const rows = (placement.targets || []).map((target, position) => [
      String(position + 1), known.audiences[target.audience] || target.audience,
      target.experiment
        ? "Experiment " + target.experiment.name + ": " + target.experiment.variations.map((v) => (known.flows[v.flow] || v.flow) + " " + v.weight + " %").join(", ")
        : known.flows[target.flow] || target.flow,
      part(target.audience)]);
    rows.push(["—", "Everyone else", known.flows[placement.default] || placement.default, part("default")]);
    return el("section", { class: "placement" }, el("h2", { class: "section" }, placement.id),
      table("Targets of " + placement.id, [["#"], ["Audience"], ["Shows"], ["Share of viewers, 30 days", "num"]], rows,
        { "data-placement": placement.id }));
  });
  view.replaceChildren(el("h1", {}, "Placements"),
    el("p", { class: "hint" }, "Targets are tried in order; the first audience a profile matches decides. Shares count unique viewers over the last 30 days."),
    ...(cards.length ? cards : [empty("The configuration has no placements yet: add one under Configuration.")]));
};

// Which placement and range the experiments page shows.
const experimentState = { placement: null, days: 30 };
forgetOnSignIn.push(() => { experimentState.placement = null; experimentState.days = 30; appleAdsState.by = "campaign"; appleAdsState.sort = "ids"; appleAdsState.environment = "production"; });

function isoDaysAgo(days) {
  return new Date(Date.now() - days * 86400000).toISOString().slice(0, 10);
}

pages.experiments = async (view) => {
  const known = await names();
  if (known.placements.length === 0) {
    view.replaceChildren(el("h1", {}, "Experiments"),
      empty("No placements yet: add one with an experiment target under Configuration."));
    return;
  }
  if (!known.placements.includes(experimentState.placement)) {
    const withExperiment = known.document.placements.find((placement) => (placement.targets || []).some((target) => target.experiment));
    experimentState.placement = (withExperiment || known.document.placements[0]).id;
  }
  const placement = experimentState.placement;
  const range = "?from=" + isoDaysAgo(experimentState.days - 1) + "&to=" + isoDaysAgo(0);
  const path = "/v1/admin/stats/placements/" + encodeURIComponent(placement);
  const [report, series] = await Promise.all([api(path + range), api(path + "/days" + range)]);

  const picker = el("select", { id: "experiment-placement" }, ...known.placements.map((id) =>
    el("option", { value: id, selected: id === placement }, id)));
  picker.addEventListener("change", () => { experimentState.placement = picker.value; route(); });
  const period = el("select", { id: "experiment-days" }, ...[7, 30, 90, 365].map((days) =>
    el("option", { value: String(days), selected: days === experimentState.days }, "Last " + days + " days")));
  period.addEventListener("change", () => { experimentState.days = Number(period.value); route(); });

  const cards = report.audiences.map((audience) => {
    const decision = audience.decision;
    const byRevenue = !decision || decision.metric !== "conversion";
    const currency = (decision && decision.currency) || report.reporting_currency;
    const name = (id) => {
      const variation = audience.variations.find((each) => each.variation_id === id);
      return variation ? (known.flows[variation.flow_id] || variation.flow_id) : id;
    };
    const said = {
      revenue_per_viewer: ["revenue per viewer", "likely to earn the most per viewer",
        decision ? "every variation needs " + count(decision.minimum_viewers_per_variation) + " unique viewers and "
          + count(decision.minimum_payers_per_variation) + " paying viewers" : ""],
      conversion: ["conversion", "likely to convert best",
        decision ? "every variation needs " + count(decision.minimum_viewers_per_variation) + " unique viewers and the experiment "
          + count(decision.minimum_purchasers) + " purchasers" : ""],
    };
    // One sentence per metric, the deciding one first: which leads, by what, how sure.
    const sentence = (metric, verdict, deciding) => {
      const [label, sure, needs] = said[metric];
      const lead = deciding ? "Decided by " + label + ": " : "By " + label + ": ";
      if (verdict.status === "ok") return lead + name(verdict.leader) + " leads, " + share(verdict.probability) + " " + sure + ".";
      if (verdict.status === "no_revenue_currency") return lead + "payers paid in several currencies; set a reporting currency with rates to compare.";
      return lead + "not enough data yet (" + needs + ").";
    };
    const verdicts = [];
    if (decision) {
      const order = byRevenue ? ["revenue_per_viewer", "conversion"] : ["conversion", "revenue_per_viewer"];
      order.forEach((metric, index) => verdicts.push(el("p", {
        class: index === 0 ? (decision[metric].status === "ok" ? "verdict" : "hint") : "hint",
      }, sentence(metric, decision[metric], index === 0))));
    }
    const perViewer = (amount) => amount === undefined || amount === null || !currency ? "—" : money(amount, currency);
    const revenueColumns = [["Paying viewers", "num"], ["Net revenue", "num"], ["Per viewer", "num"], ["95 % interval", "num"], ["P(best per viewer)", "num"]];
    const conversionColumns = [["Purchasers", "num"], ["Conversion", "num"], ["95 % interval", "num"], ["P(best conversion)", "num"]];
    const rows = audience.variations.map((variation) => {
      const revenue = [count(variation.paying_viewers), perViewer(variation.net_revenue), perViewer(variation.revenue_per_viewer),
        variation.revenue_per_viewer_interval ? perViewer(variation.revenue_per_viewer_interval[0]) + " – " + perViewer(variation.revenue_per_viewer_interval[1]) : "—",
        share(variation.revenue_probability_to_be_best)];
      const conversion = [count(variation.purchasers), share(variation.conversion_rate),
        variation.conversion_interval ? share(variation.conversion_interval[0]) + " – " + share(variation.conversion_interval[1]) : "—",
        share(variation.probability_to_be_best)];
      return [el("span", {}, known.flows[variation.flow_id] || variation.flow_id, el("br"), el("small", {}, variation.flow_id)),
        count(variation.unique_viewers), ...(byRevenue ? revenue.concat(conversion) : conversion.concat(revenue)), revenueText(variation)];
    });
    const columns = [["Variation"], ["Unique viewers", "num"],
      ...(byRevenue ? revenueColumns.concat(conversionColumns) : conversionColumns.concat(revenueColumns)), ["Gross", "num"]];
    const parts = [el("h2", {}, known.audiences[audience.audience_id] || audience.audience_name,
      audience.experiment ? el("span", { class: "tag" }, "Experiment " + audience.experiment) : null), ...verdicts,
      table("Variations for " + audience.audience_name, columns, rows, { "data-audience": audience.audience_id })];
    if (audience.variations.length > 1) {
      const charts = ["revenue_per_viewer", "conversion"].map((metric) => intervalChart(audience, known, metric, currency));
      parts.push(...(byRevenue ? charts : charts.reverse()), conversionChart(audience, series.days, report, known));
    }
    return el("section", { class: "card experiment" }, ...parts);
  });
  view.replaceChildren(el("h1", {}, "Experiments"),
    el("div", { class: "controls" },
      el("label", { for: "experiment-placement" }, "Placement"), picker,
      el("label", { for: "experiment-days" }, "Period"), period),
    ...(cards.length ? cards : [empty("Nobody has seen this placement's paywalls in this period. Views arrive as the SDK logs flow_shown events.")]));
};

// Every UTC day from `first` to `last` (ISO dates), inclusive.
function daysBetween(first, last) {
  const days = [];
  for (let time = Date.parse(first + "T00:00:00Z"); time <= Date.parse(last + "T00:00:00Z"); time += 86400000) {
    days.push(new Date(time).toISOString().slice(0, 10));
  }
  return days;
}

// Each variation's conversion with its 95 % credible interval, as floating bars.
function intervalChart(audience, known, metric, currency) {
  const revenue = metric === "revenue_per_viewer";
  const interval = (variation) => revenue ? variation.revenue_per_viewer_interval : variation.conversion_interval;
  const point = (variation) => revenue ? variation.revenue_per_viewer : variation.conversion_rate;
  const shown = audience.variations.filter(interval);
  if (shown.length === 0) return null;
  const format = (value) => revenue ? money(value, currency) : percent.format(value);
  const name = revenue ? "Revenue per viewer" : "Conversion";
  const colors = shown.map((variation, index) => palette[index % palette.length]);
  return el("div", {}, el("h3", {}, name + " and its 95 % credible interval"), chart(name + " intervals for " + audience.audience_name, {
    type: "bar",
    data: {
      labels: shown.map((variation) => known.flows[variation.flow_id] || variation.flow_id),
      datasets: [
        { type: "line", label: name, data: shown.map(point), showLine: false,
          pointRadius: 6, pointStyle: "rectRot", borderColor: "#1b1f24", backgroundColor: "#1b1f24" },
        { label: "95 % interval", data: shown.map(interval), backgroundColor: colors.map((color) => color + "55"),
          borderColor: colors, borderWidth: 1, barPercentage: 0.5 }]
    },
    options: { indexAxis: "y", maintainAspectRatio: false,
      scales: { x: { beginAtZero: true, ticks: { callback: format } } },
      plugins: { tooltip: { callbacks: { label: (item) => Array.isArray(item.raw)
        ? "95 % interval: " + format(item.raw[0]) + " – " + format(item.raw[1])
        : name + ": " + format(item.raw) } } } }
  }, shown.length * 56 + 70));
}

// Conversion so far (purchasers / unique viewers, summed day by day) per variation, over at
// least the last week of the period.
function conversionChart(audience, days, report, known) {
  const rows = days.filter((row) => row.audience_id === audience.audience_id);
  if (rows.length === 0) return empty("No daily figures in this period.");
  const first = rows.map((row) => row.day).sort()[0];
  const weekBefore = new Date(Date.parse(report.to + "T00:00:00Z") - 6 * 86400000).toISOString().slice(0, 10);
  const earliest = first < weekBefore ? first : weekBefore;
  const labels = daysBetween(earliest > report.from ? earliest : report.from, report.to);
  const datasets = audience.variations.map((variation, index) => {
    let viewers = 0;
    let purchasers = 0;
    const points = labels.map((label) => {
      for (const row of rows) {
        if (row.day === label && row.variation_id === variation.variation_id) { viewers += row.unique_viewers; purchasers += row.purchasers; }
      }
      return viewers > 0 ? purchasers / viewers : null;
    });
    return { label: known.flows[variation.flow_id] || variation.flow_id, data: points, borderColor: palette[index % palette.length],
      backgroundColor: palette[index % palette.length], tension: 0.2, pointRadius: 3 };
  });
  return el("div", {}, el("h3", {}, "Conversion over time (cumulative)"), chart("Conversion over time for " + audience.audience_name, {
    type: "line",
    data: { labels: labels.map(dayLabel), datasets },
    options: { maintainAspectRatio: false, scales: { y: { beginAtZero: true, ticks: { callback: (value) => percent.format(value) } } },
      plugins: { tooltip: { callbacks: { label: (item) => item.dataset.label + ": " + percent.format(item.parsed.y) } } } }
  }));
}

const appleAdsState = { by: "campaign", sort: "ids", environment: "production" };

// Spend figures of a row in the report's currency (or per currency when none converts them all).
const ratioText = (value) => value === undefined || value === null ? "—" : numbers.format(Math.round(value * 100) / 100) + "×";
function spendText(report, spend) {
  if (!spend) return "—";
  if (report.currency && spend.total !== undefined && spend.total !== null) return money(spend.total, report.currency);
  return moneyList(spend.by_currency);
}
const inCurrency = (report, value) => value === undefined || value === null || !report.currency ? "—" : money(value, report.currency);

// The importer: configured, the key (write-only: never shown), last and next run, failure.
function appleAdsImportCard(status) {
  const lines = [];
  if (!status.configured) {
    lines.push(el("p", {}, "Spend import is off: add apple_ads_api {org_id, client_id, team_id, key_id} to the configuration, then upload the key below."));
  } else {
    lines.push(el("p", {}, "Organization " + status.org_id + ". Key: " + (status.credentials
      ? "configured (SHA-256 " + status.credentials.key_fingerprint.slice(0, 12) + "…), uploaded " + when(status.credentials.uploaded_at) + ", last used " + when(status.credentials.last_used_at)
      : "not uploaded")));
  }
  const importer = status.importer;
  if (importer) {
    const state = importer.status === "failed" ? "stopped (" + importer.failure + ")" : importer.status;
    lines.push(el("p", { id: "apple-ads-import-status" }, "Importer: " + state + ". Last run " + when(importer.last_run_at)
      + ", last success " + when(importer.last_success_at) + (importer.next_run_at ? ", next run " + when(importer.next_run_at) : "")
      + (importer.run ? ", run in progress " + importer.run.from + " … " + importer.run.to + " (next day " + importer.run.next_day + ")" : "") + "."));
    if (importer.resumes_at) {
      lines.push(el("p", { class: "hint" }, "The instance running it stopped renewing its lease: the run resumes at " + when(importer.resumes_at) + "."));
    }
    if (importer.rows_skipped) {
      lines.push(el("p", { class: "hint" }, count(importer.rows_skipped) + " report rows could not be read and were left out (the rest imported); the last: " + (importer.last_skipped || "—")));
    }
    if (importer.last_error) lines.push(el("p", { class: "error" }, "Last error: " + importer.last_error));
  }
  const key = el("textarea", { id: "apple-ads-key", class: "key", rows: "4", spellcheck: "false", autocomplete: "off",
    placeholder: "-----BEGIN EC PRIVATE KEY-----", "aria-label": "Apple Ads API private key (PEM)" });
  const message = el("p", { id: "apple-ads-key-message", role: "status" });
  const fail = (error) => { message.className = "error"; message.textContent = error.message; };
  const save = el("button", { type: "button", id: "apple-ads-key-save" }, "Save key");
  save.addEventListener("click", async () => {
    save.disabled = true;
    try {
      await api("/v1/admin/apple-ads/credentials", "POST", { private_key: key.value });
      key.value = "";
      route();
    } catch (error) {
      fail(error);
      save.disabled = false;
    }
  });
  const run = el("button", { type: "button", class: "secondary", id: "apple-ads-run" }, "Import now");
  run.disabled = !status.credentials;
  run.addEventListener("click", async () => {
    run.disabled = true;
    try {
      await api("/v1/admin/apple-ads/import", "POST");
      route();
    } catch (error) {
      fail(error);
      run.disabled = false;
    }
  });
  const writes = can("integrations:write");
  return el("section", { class: "card", id: "apple-ads-import", "aria-label": "Spend import" },
    el("h2", {}, "Spend import"), ...lines,
    writes ? el("label", { for: "apple-ads-key" }, "Private key (PEM, P-256) — sealed on the server, never shown again") : null,
    writes ? key : null, writes ? el("div", { class: "controls" }, save, run) : null, message);
}

pages["apple-ads"] = async (view) => {
  // The spend importer's status is an integration's: roles that only read reports see the report.
  const [report, status] = await Promise.all([
    api("/v1/admin/stats/apple-ads?by=" + appleAdsState.by + "&environment=" + appleAdsState.environment),
    can("integrations:read") ? api("/v1/admin/apple-ads/status") : null]);
  const select = (id, options, value, set) => {
    const node = el("select", { id }, ...options.map(([key, label]) => el("option", { value: key, selected: key === value }, label)));
    node.addEventListener("change", () => { set(node.value); route(); });
    return node;
  };
  const by = select("apple-ads-by", [["campaign", "Campaign"], ["ad_group", "Ad group"], ["keyword", "Keyword"]],
    appleAdsState.by, (value) => { appleAdsState.by = value; });
  const environment = select("apple-ads-environment", [["production", "Production"], ["sandbox", "Sandbox"]],
    appleAdsState.environment, (value) => { appleAdsState.environment = value; });
  const withSpend = report.rows.some((row) => row.spend);
  const sort = select("apple-ads-sort", [["ids", "Campaign"], ["installs", "Installs"], ["spend", "Spend"], ["cpi", "CPI"], ["roas", "ROAS"]],
    appleAdsState.sort, (value) => { appleAdsState.sort = value; });
  const key = {
    installs: (row) => row.installs, spend: (row) => row.spend ? row.spend.total || 0 : -1,
    cpi: (row) => row.spend && row.spend.cpi !== undefined ? -row.spend.cpi : -Infinity, roas: (row) => row.spend && row.spend.roas !== undefined ? row.spend.roas : -1,
  }[appleAdsState.sort];
  const sorted = key ? [...report.rows].sort((a, b) => key(b) - key(a)) : report.rows;
  const named = (id, name) => name ? name + " (" + id + ")" : String(id);
  const columns = [["Campaign"]];
  if (report.by !== "campaign") columns.push(["Ad group"]);
  if (report.by === "keyword") columns.push(["Keyword"]);
  columns.push(["Installs", "num"], ["AA flow in time", "num"], ["Purchasers", "num"], ["Conversion", "num"]);
  // With spend, proceeds of the cohort stand where gross revenue stood.
  if (withSpend) columns.push(["Apple installs", "num"], ["Spend", "num"], ["CPI", "num"], ["Proceeds", "num"], ["ROAS", "num"], ["ROAS d30", "num"], ["Payback", "num"]);
  else columns.push(["Revenue", "num"]);
  const rows = sorted.map((row) => {
    const cells = [withSpend ? named(row.campaign_id, row.campaign_name) : String(row.campaign_id)];
    if (report.by !== "campaign") cells.push(withSpend ? named(row.ad_group_id, row.ad_group_name) : String(row.ad_group_id));
    if (report.by === "keyword") cells.push(row.keyword_id === 0 ? "search match" : withSpend ? named(row.keyword_id, row.keyword) : String(row.keyword_id));
    cells.push(count(row.installs), share(row.aa_flow_in_time_share), count(row.purchasers), share(row.conversion_rate));
    if (!withSpend) cells.push(revenueText(row));
    else {
      const spend = row.spend;
      cells.push(spend ? count(spend.apple_installs) : "—", spendText(report, spend), spend ? inCurrency(report, spend.cpi) : "—",
        spend ? inCurrency(report, spend.proceeds) : "—", spend ? ratioText(spend.roas) : "—", spend ? ratioText(spend.roas_day_30) : "—",
        spend ? (spend.payback_day !== undefined && spend.payback_day !== null ? "day " + spend.payback_day : "not yet") : "—");
    }
    return cells;
  });
  // Cumulative proceeds per attributed install by cohort age against what an install cost.
  let curve = null;
  const curved = report.rows.filter((row) => row.spend && row.spend.curve.length);
  if (withSpend && report.by === "campaign" && curved.length && report.currency) {
    const palette = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2"];
    const datasets = curved.flatMap((row, index) => [
      { label: named(row.campaign_id, row.campaign_name) + ": proceeds per install", data: row.spend.curve.map((point) => ({ x: point.age, y: point.proceeds_per_install })),
        borderColor: palette[index % palette.length], tension: 0.2 },
      { label: named(row.campaign_id, row.campaign_name) + ": CPI", data: row.spend.curve.map((point) => ({ x: point.age, y: point.spend_per_install })),
        borderColor: palette[index % palette.length], borderDash: [6, 4], pointRadius: 0 },
    ]);
    curve = el("section", { class: "card", "aria-label": "Payback curves" }, el("h2", {}, "Payback: proceeds per install against CPI (" + report.currency + ")"),
      chart("Cumulative proceeds per attributed install by cohort age, and spend per attributed install, per campaign", {
        type: "line", data: { datasets },
        options: { maintainAspectRatio: false, parsing: true, scales: { x: { type: "linear", title: { display: true, text: "Days since install" } },
          y: { beginAtZero: true, title: { display: true, text: report.currency } } } },
      }, 280));
  }
  const notes = [];
  if (withSpend && report.unconverted.length) notes.push(el("p", { class: "hint" }, "No rate for " + report.unconverted.join(", ") + ": figures that would include them are not converted (shown as —)."));
  view.replaceChildren(el("h1", {}, "Apple Ads"),
    el("div", { class: "controls" }, el("label", { for: "apple-ads-by" }, "Group by"), by, el("label", { for: "apple-ads-sort" }, "Sort by"), sort,
      el("label", { for: "apple-ads-environment" }, "Store"), environment),
    el("p", { class: "hint" }, "Installs attributed by Apple from " + report.from + " to " + report.to
      + ". AA flow in time: installs whose first launch showed the Apple Ads-targeted paywall before the timeout."
      + (withSpend ? " Spend, Apple installs and CPI as Apple Ads reports them; ROAS is net revenue ÷ spend; payback is the first cohort age whose proceeds reached spend." : "")),
    ...notes,
    rows.length
      ? table("Apple Ads " + report.by, columns, rows, { id: "apple-ads-table" })
      : empty("No attributed installs in the last 30 days. They appear once the SDK sends an install's AdServices token and Apple attributes it to a campaign."),
    ...(curve ? [curve] : []),
    ...(status ? [appleAdsImportCard(status)] : []));
};

// Subscriptions over time: what `GET /v1/admin/stats/subscriptions` answers, as a chart, a
// table and a CSV download, with its grouping, environment and product filter.
const subscriptionState = { days: 90, by: "week", environment: "production", product: "", origin: "" };
forgetOnSignIn.push(() => Object.assign(subscriptionState, { days: 90, by: "week", environment: "production", product: "", origin: "" }));

const subscriptionColumns = [
  ["start", "Period", null], ["active_subscriptions", "Active", "count"], ["active_trials", "Trials", "count"],
  ["new_trials", "New trials", "count"], ["trial_conversions", "Trial → paid", "count"],
  ["new_paid_subscriptions", "New paid", "count"], ["renewals", "Renewals", "count"],
  ["expirations", "Expirations", "count"], ["churn_rate", "Churn", "share"], ["billing_retries", "Billing retry", "count"],
  ["grace_periods", "Grace", "count"], ["refunds", "Refunds", "count"], ["gross", "Gross", "money"],
  ["refunded", "Refunded", "money"], ["net", "Net", "money"], ["proceeds", "Proceeds", "money"], ["mrr", "MRR", "money"],
];

pages.subscriptions = async (view) => {
  const known = await names();
  const products = [...new Set((known.document.flows || []).flatMap((flow) => flow.products || []))].sort();
  const query = new URLSearchParams({ from: isoDaysAgo(subscriptionState.days - 1), to: isoDaysAgo(0),
    by: subscriptionState.by, environment: subscriptionState.environment });
  if (subscriptionState.product) query.set("product_id", subscriptionState.product);
  if (subscriptionState.origin) query.set("origin", subscriptionState.origin);
  const [report, switchOver] = await Promise.all([api("/v1/admin/stats/subscriptions?" + query.toString()), switchOverDay()]);
  const select = (id, options, value, set) => {
    const node = el("select", { id }, ...options.map(([key, label]) => el("option", { value: key, selected: key === value }, label)));
    node.addEventListener("change", () => { set(node.value); route(); });
    return node;
  };
  const controls = el("div", { class: "controls" },
    el("label", { for: "subscriptions-days" }, "Period"),
    select("subscriptions-days", [[30, "Last 30 days"], [90, "Last 90 days"], [365, "Last 365 days"]].map(([d, l]) => [String(d), l]),
      String(subscriptionState.days), (value) => { subscriptionState.days = Number(value); }),
    el("label", { for: "subscriptions-by" }, "By"),
    select("subscriptions-by", [["day", "Day"], ["week", "Week"], ["month", "Month"]], subscriptionState.by,
      (value) => { subscriptionState.by = value; }),
    el("label", { for: "subscriptions-environment" }, "Store"),
    select("subscriptions-environment", [["production", "Production"], ["sandbox", "Sandbox"]], subscriptionState.environment,
      (value) => { subscriptionState.environment = value; }),
    el("label", { for: "subscriptions-product" }, "Product"),
    select("subscriptions-product", [["", "All products"], ...products.map((id) => [id, id])], subscriptionState.product,
      (value) => { subscriptionState.product = value; }),
    el("label", { for: "subscriptions-origin" }, "Customers"),
    select("subscriptions-origin", [["", "All"], ["import", "Imported"], ["live", "Live"]], subscriptionState.origin,
      (value) => { subscriptionState.origin = value; }));
  const currency = report.currency;
  const cell = (period, [key, , kind]) => {
    const value = period[key];
    if (key === "start") {
      return el("span", { class: "nowrap" }, period.start === period.end ? dayLabel(period.start) : dayLabel(period.start) + " – " + dayLabel(period.end));
    }
    if (kind === "share") return share(value);
    if (kind === "money") return value === undefined || value === null || !currency ? "—" : money(value, currency);
    return count(value);
  };
  const rows = report.periods.map((period) => subscriptionColumns.map((column) => cell(period, column)));
  const download = el("button", { type: "button", id: "subscriptions-csv" }, "Download CSV");
  download.addEventListener("click", () => {
    const lines = [subscriptionColumns.map(([key]) => key).concat(["end", "currency"]).join(",")].concat(report.periods.map((period) =>
      subscriptionColumns.map(([key]) => period[key] === undefined || period[key] === null ? "" : String(period[key]))
        .concat([period.end, currency || ""]).join(",")));
    const link = el("a", { href: URL.createObjectURL(new Blob([lines.join("\n") + "\n"], { type: "text/csv" })),
      download: "subscriptions-" + report.from + "-" + report.to + ".csv" });
    document.body.append(link);
    link.click();
    link.remove();
  });
  const any = report.periods.some((period) => period.active_subscriptions || period.active_trials || period.new_trials
    || period.new_paid_subscriptions || period.refunds);
  const labels = report.periods.map((period) => dayLabel(period.start));
  const trend = chart("Active subscriptions, trials and MRR", {
    type: "line",
    data: { labels, datasets: [
      { label: "Active subscriptions", data: report.periods.map((p) => p.active_subscriptions), borderColor: palette[0], backgroundColor: palette[0], yAxisID: "count" },
      { label: "Active trials", data: report.periods.map((p) => p.active_trials), borderColor: palette[1], backgroundColor: palette[1], yAxisID: "count" },
      { label: "MRR" + (currency ? " (" + currency + ")" : ""), data: report.periods.map((p) => p.mrr === undefined ? null : p.mrr),
        borderColor: palette[2], backgroundColor: palette[2], borderDash: [6, 4], yAxisID: "money" }] },
    options: { maintainAspectRatio: false, interaction: { mode: "index", intersect: false },
      scales: { count: { type: "linear", position: "left", beginAtZero: true, ticks: { precision: 0 } },
        money: { type: "linear", position: "right", beginAtZero: true, grid: { drawOnChartArea: false },
          ticks: { callback: (value) => currency ? money(value, currency) : numbers.format(value) } } } },
    plugins: [switchOverMarker(report.periods, switchOver)]
  }, 300);
  view.replaceChildren(el("h1", {}, "Subscriptions"), controls,
    el("p", { class: "hint" }, report.environment + " store, " + report.from + " to " + report.to
      + ". Active figures and MRR are at the end of each period; the rest happened in it."
      + (report.unconverted.length ? " No rate configured for " + report.unconverted.join(", ") + ": money that includes them is not converted (shown as —)." : "")),
    any ? el("section", { class: "card" }, el("h2", {}, "Active subscriptions, trials and MRR"), trend,
      switchOverHint(report.periods, switchOver)) : null,
    any ? el("div", { class: "controls" }, download) : null,
    any ? table("Subscriptions by " + report.by, subscriptionColumns.map(([, label, kind]) => [label, kind ? "num" : null]), rows,
      { id: "subscriptions-table" })
      : empty("No subscriptions in this period. They appear as the SDK and the App Store's notifications send transactions."));
};

// Install cohorts: a triangle of net revenue per install by cohort and age (shaded by value),
// and LTV curves per segment (each age over the cohorts that reached it).
// Only the segments with the most installs are split out (the rest summed into "others"): a
// thousand keywords would be a thousand curves and a table no one reads.
const cohortState = { by: "week", segment: "source", environment: "production", top: "20" };
forgetOnSignIn.push(() => Object.assign(cohortState, { by: "week", segment: "source", environment: "production", top: "20" }));

pages.cohorts = async (view) => {
  const [report, switchOver] = await Promise.all([api("/v1/admin/stats/cohorts?" + new URLSearchParams(cohortState).toString()),
    switchOverDay()]);
  const select = (id, options, key) => {
    const node = el("select", { id }, ...options.map(([value, label]) => el("option", { value, selected: value === cohortState[key] }, label)));
    node.addEventListener("change", () => { cohortState[key] = node.value; route(); });
    return node;
  };
  const controls = el("div", { class: "controls" },
    el("label", { for: "cohorts-by" }, "Cohorts by"),
    select("cohorts-by", [["day", "Day"], ["week", "Week"], ["month", "Month"]], "by"),
    el("label", { for: "cohorts-segment" }, "Split by"),
    select("cohorts-segment", [["none", "Nothing"], ["source", "Organic / Apple Ads"], ["campaign", "Campaign"], ["ad_group", "Ad group"],
      ["keyword", "Keyword"], ["variation", "First paywall shown"], ["country", "Country"], ["origin", "Imported or live"]], "segment"),
    el("label", { for: "cohorts-top" }, "Segments"),
    select("cohorts-top", [["10", "Top 10"], ["20", "Top 20"], ["50", "Top 50"]], "top"),
    el("label", { for: "cohorts-environment" }, "Store"),
    select("cohorts-environment", [["production", "Production"], ["sandbox", "Sandbox"]], "environment"));
  const currency = report.currency;
  const ages = [0, 1, 3, 7, 14, 30, 60, 90, 180, 365];
  const amount = (value) => value === undefined || value === null || !currency ? "—" : money(value, currency);
  const intro = el("p", { class: "hint" }, "Profiles installed from " + report.from + " to " + report.to + " (" + report.environment
    + " money). Each cell: net revenue per install from install through that age (LTV); ages a cohort has not reached yet are empty."
    + (report.segments_in_others ? " The " + cohortState.top + " segments with the most installs are shown; the other "
      + count(report.segments_in_others) + " are summed in others." : ""));
  if (report.cohorts.length === 0) {
    view.replaceChildren(el("h1", {}, "Cohorts"), controls, intro,
      empty("No installs in this period. Installs are profiles the SDK creates on an app's first launch."));
    return;
  }
  const top = Math.max(0, ...report.cohorts.flatMap((cohort) => cohort.ages.map((figures) => figures.net_per_install || 0)));
  // The sum of the segments past the top is marked by the server: a segment may be called "others".
  const segmentOf = (cohort) => cohort.others ? "others (" + count(report.segments_in_others) + " segments)" : cohort.segment;
  const rows = report.cohorts.map((cohort) => {
    const byAge = Object.fromEntries(cohort.ages.map((figures) => [figures.age, figures]));
    return [
      el("span", { class: "nowrap" }, cohort.start === cohort.end ? dayLabel(cohort.start) : dayLabel(cohort.start) + " – " + dayLabel(cohort.end),
        switchOver && cohort.start <= switchOver && switchOver <= cohort.end
          ? el("span", { class: "marker", title: "The first install with Tollgate's SDK: earlier cohorts were imported" }, "switch-over") : null),
      report.segment === "none" ? null : segmentOf(cohort), count(cohort.installs),
      ...ages.map((age) => {
        const figures = byAge[age];
        if (!figures) return "";
        const cell = el("span", { class: "heat", title: share(figures.paying_share) + " paying, "
          + count(figures.active_subscriptions) + " active" }, amount(figures.net_per_install));
        // Shaded by value, through the CSSOM (the page's policy allows no inline style attribute).
        if (top > 0 && figures.net_per_install) cell.style.backgroundColor = "rgba(36, 87, 214, " + (0.08 + 0.5 * figures.net_per_install / top).toFixed(3) + ")";
        return cell;
      })].filter((cell) => cell !== null);
  });
  const columns = [["Cohort"], ...(report.segment === "none" ? [] : [["Segment"]]), ["Installs", "num"], ...ages.map((age) => ["Day " + age, "num"])];
  // LTV per segment: for each age, net revenue over the installs of the cohorts that reached it.
  const segments = [...new Set(report.cohorts.map(segmentOf))].sort();
  const curves = segments.map((segment, index) => ({
    label: segment, borderColor: palette[index % palette.length], backgroundColor: palette[index % palette.length], spanGaps: true,
    data: ages.map((age) => {
      let installs = 0;
      let net = 0;
      for (const cohort of report.cohorts) {
        const figures = segmentOf(cohort) === segment && cohort.ages.find((each) => each.age === age);
        if (figures && figures.net_per_install !== undefined) { installs += cohort.installs; net += figures.net_per_install * cohort.installs; }
      }
      return installs > 0 ? net / installs : null;
    })
  }));
  const ltv = currency ? chart("LTV per install by age", {
    type: "line", data: { labels: ages.map((age) => "Day " + age), datasets: curves },
    options: { maintainAspectRatio: false, scales: { y: { beginAtZero: true, ticks: { callback: (value) => money(value, currency) } } },
      plugins: { tooltip: { callbacks: { label: (item) => item.dataset.label + ": " + money(item.parsed.y, currency) } } } }
  }, 280) : empty("Payers paid in several currencies: set a reporting currency with rates to compare money.");
  const switched = switchOver && report.cohorts.some((cohort) => cohort.start <= switchOver && switchOver <= cohort.end)
    ? el("p", { class: "hint", id: "switch-over" }, "The cohort marked switch-over holds " + dayLabel(switchOver)
      + ", the first install with Tollgate's SDK; earlier cohorts are imported customers (split them with Imported or live).") : null;
  view.replaceChildren(el("h1", {}, "Cohorts"), controls, intro,
    el("section", { class: "card" }, el("h2", {}, "LTV per install by age"), ltv), switched,
    table("Net revenue per install by cohort and age", columns, rows, { id: "cohorts-table" }));
};
