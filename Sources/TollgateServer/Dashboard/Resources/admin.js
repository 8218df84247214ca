// A button that acts on its second click (the first one asks).
function confirmingButton(label, confirmLabel, attributes, action) {
  const button = el("button", Object.assign({ type: "button", class: "secondary" }, attributes), label);
  button.addEventListener("click", async () => {
    if (button.dataset.armed !== "yes") {
      button.dataset.armed = "yes";
      button.textContent = confirmLabel;
      return;
    }
    button.disabled = true;
    await action(button);
  });
  return button;
}

// The lines of `after` against `before` (longest common subsequence), with two lines of context
// around each change and "…" for what is left out.
function lineDiff(before, after) {
  const a = before ? before.split("\n") : [];
  const b = after.split("\n");
  const common = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const all = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) { all.push({ kind: " ", text: a[i] }); i++; j++; }
    else if (i < a.length && (j === b.length || common[i + 1][j] >= common[i][j + 1])) { all.push({ kind: "-", text: a[i] }); i++; }
    else { all.push({ kind: "+", text: b[j] }); j++; }
  }
  const near = all.map((line, index) => all.slice(Math.max(0, index - 2), index + 3).some((other) => other.kind !== " "));
  const shown = [];
  all.forEach((line, index) => {
    if (near[index]) shown.push(line);
    else if (shown.length === 0 || shown[shown.length - 1].kind !== "…") shown.push({ kind: "…", text: "" });
  });
  return shown;
}

// What the configuration page says after a save or a rollback, shown once.
let configNotice = null;

pages.configuration = async (view) => {
  const [current, history] = await Promise.all([orNull(api("/v1/admin/config")), api("/v1/admin/config/history")]);
  const editor = el("textarea", { id: "config-editor", spellcheck: "false", autocapitalize: "off", rows: "24", "aria-describedby": "config-help" });
  editor.value = current ? JSON.stringify(current.document, null, 2) : JSON.stringify({ flows: [], audiences: [], placements: [] }, null, 2);
  const result = el("div", { id: "config-result", role: "status" });
  const apply = el("button", { type: "submit", id: "apply-config" }, "Validate and apply");
  const form = el("form", { id: "config-form" }, el("label", { for: "config-editor" }, "Document"), editor,
    el("p", { id: "config-help", class: "hint" }, "The whole document is checked first; with any problem nothing is applied and each problem is listed at its JSON path."),
    apply, result);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let document;
    try {
      document = JSON.parse(editor.value);
    } catch (error) {
      result.replaceChildren(el("p", { class: "error", role: "alert" }, "Not applied: this is not JSON (" + error.message + ")."));
      return;
    }
    apply.disabled = true;
    try {
      const answer = await api("/v1/admin/config", "PUT", document);
      configNotice = { revision: answer.revision, secrets: answer.webhook_secrets || {} };
      route();
    } catch (error) {
      apply.disabled = false;
      result.replaceChildren(...refusal(error, "config-errors"));
      const first = result.querySelector("code");
      if (first) first.scrollIntoView({ block: "nearest" });
    }
  });
  if (configNotice) {
    const secrets = Object.entries(configNotice.secrets);
    result.replaceChildren(el("p", { class: "ok", role: "status" }, "Applied as revision " + configNotice.revision + ": the SDK gets it on its next request."),
      ...secrets.map(([id, secret]) => el("p", {}, "Signing secret of new webhook " + id + " (shown once): ", el("code", { class: "secret" }, secret))));
    configNotice = null;
  }

  const rows = history.revisions.map((revision) => {
    const actions = el("div", { class: "actions" });
    const show = el("button", { type: "button", class: "secondary", "aria-expanded": "false", "data-diff": String(revision.revision) }, "Changes");
    const detail = el("div", { class: "diff", hidden: true });
    show.addEventListener("click", async () => {
      if (!detail.hidden) { detail.hidden = true; show.setAttribute("aria-expanded", "false"); return; }
      const [now, before] = await Promise.all([api("/v1/admin/config/revisions/" + revision.revision),
        revision.revision > 1 ? orNull(api("/v1/admin/config/revisions/" + (revision.revision - 1))) : null]);
      const lines = lineDiff(before ? JSON.stringify(before.document, null, 2) : "", JSON.stringify(now.document, null, 2));
      detail.replaceChildren(el("p", { class: "hint" }, before ? "Against revision " + (revision.revision - 1) + ":" : "The first document:"),
        el("pre", { class: "document" }, ...lines.map((line) => el("span", { class: { "+": "add", "-": "del", "…": "gap" }[line.kind] || "same" },
          line.kind + " " + line.text))));
      detail.hidden = false;
      show.setAttribute("aria-expanded", "true");
    });
    actions.append(show);
    if (!revision.current) {
      actions.append(confirmingButton("Roll back to this", "Confirm rollback", { "data-revision": String(revision.revision) }, async () => {
        try {
          const answer = await api("/v1/admin/config/rollback", "POST", { revision: revision.revision });
          configNotice = { revision: answer.revision, secrets: answer.webhook_secrets || {} };
          route();
        } catch (error) {
          actions.replaceChildren(el("span", { class: "error", role: "alert" }, error.message));
        }
      }));
    }
    return [String(revision.revision) + (revision.current ? " (current)" : ""), when(revision.applied_at), revision.applied_by || "—",
      el("div", { class: "summary" }, revision.summary || "—"), el("div", {}, actions, detail)];
  });
  view.replaceChildren(el("h1", {}, "Configuration"),
    el("p", { class: "hint" }, current ? "Revision " + current.revision + ", applied " + when(current.applied_at) + "." : "No configuration yet: write the first one below."),
    el("div", { class: "card" }, form),
    el("h2", { class: "section" }, "History"),
    rows.length
      ? table("Configuration history", [["Revision"], ["Applied"], ["By"], ["What changed"], [""]], rows, { id: "config-history" })
      : empty("Nothing applied yet."));
};

// The last lookup on the profiles page.
let profileQuery = "";
forgetOnSignIn.push(() => { profileQuery = ""; configNotice = null; justCreated = null; deliveryState.status = ""; });
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

pages.profiles = async (view) => {
  const input = el("input", { id: "profile-query", type: "search", autocomplete: "off", spellcheck: "false",
    placeholder: "Profile id (UUID) or customer user id" });
  input.value = profileQuery;
  const form = el("form", { id: "profile-form", class: "inline" }, el("label", { for: "profile-query" }, "Look up a profile"),
    el("div", { class: "row" }, input, el("button", { type: "submit" }, "Look up")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    profileQuery = input.value.trim();
    route();
  });
  const results = el("div", { id: "profile-results" });
  view.replaceChildren(el("h1", {}, "Profiles"), el("div", { class: "card narrow-left" }, form), results);
  if (!profileQuery) {
    results.append(empty("Paste a profile id (the SDK's profileId) or your app's customer user id."));
    return;
  }
  results.append(el("p", { class: "loading" }, "Looking up…"));
  let found = [];
  if (uuidPattern.test(profileQuery)) {
    const one = await orNull(api("/v1/admin/profiles/" + encodeURIComponent(profileQuery.toLowerCase())));
    if (one) found = [one];
  }
  if (found.length === 0) {
    found = (await api("/v1/admin/profiles?customer_user_id=" + encodeURIComponent(profileQuery))).profiles;
  }
  if (found.length === 0) {
    results.replaceChildren(empty("No profile has the id or customer user id " + profileQuery + "."));
    return;
  }
  const known = await names();
  const details = await Promise.all(found.map(async (profile) => profileCard(profile, await api("/v1/admin/profiles/" + profile.id + "/activity"), known)));
  results.replaceChildren(...(found.length > 1 ? [el("p", {}, found.length + " profiles carry this customer user id.")] : []), ...details);
};

function definitionList(pairs) {
  return el("dl", { class: "pairs" }, ...pairs.flatMap(([term, value]) => [el("dt", {}, term), el("dd", {}, value === undefined || value === null || value === "" ? "—" : value)]));
}

function profileCard(profile, activity, known) {
  const install = profile.install || {};
  const custom = Object.entries(profile.custom_attributes || {}).sort(([a], [b]) => a.localeCompare(b));
  const ads = activity.apple_ads;
  const statuses = Object.entries(activity.attribution_status || {}).map(([source, status]) => source + ": " + status).join(", ");
  const levels = Object.values(profile.access_levels || {});
  return el("section", { class: "profile", "data-profile": profile.id },
    el("h2", { class: "section" }, "Profile " + profile.id),
    el("div", { class: "columns" },
      el("div", { class: "card" }, el("h3", {}, "Attributes"), definitionList([
        ["Customer user id", profile.customer_user_id], ["Created", when(profile.created_at)], ["Updated", when(profile.updated_at)],
        ["Version", count(profile.version)], ["App version", install.app_version], ["OS", install.os_version], ["Device", install.device_model],
        ["Locale", install.locale], ["Store country", install.store_country], ["SDK", install.sdk_version],
        ...custom.map(([name, value]) => [name, typeof value === "string" ? value : JSON.stringify(value)])])),
      el("div", { class: "card" }, el("h3", {}, "Attribution"), definitionList([
        ["Status", statuses || "no token received"], ["Sources applied", (profile.applied_attribution_sources || []).join(", ")],
        ...(ads ? [["Campaign", ads.payload.campaignId], ["Ad group", ads.payload.adGroupId], ["Keyword", ads.payload.keywordId],
          ["Country", ads.payload.countryOrRegion], ["Click", ads.payload.clickDate], ["Resolved", when(ads.resolved_at)], ["Test", ads.test ? "yes" : "no"]] : [])]))),
    el("h3", {}, "Access levels"),
    levels.length
      ? table("Access levels", [["Access level"], ["Active"], ["Product"], ["Activated"], ["Expires"], ["Renews"]],
        levels.map((level) => [level.id, level.is_active ? "active" : "inactive", level.vendor_product_id, when(level.activated_at),
          level.is_lifetime ? "lifetime" : when(level.expires_at), level.will_renew ? "yes" : "no"]))
      : empty("No access levels: nothing bought yet."),
    el("h3", {}, "Transactions"),
    activity.transactions.length
      ? table("Transactions", [["Transaction"], ["Product"], ["Kind"], ["Purchased"], ["Price", "num"], ["Refunded"], ["Paywall"]],
        activity.transactions.map((transaction) => [transaction.transaction_id, transaction.product_id,
          (transaction.reason || transaction.type) + (transaction.environment === "Sandbox" ? " (sandbox)" : ""), when(transaction.purchased_at),
          transaction.price === undefined ? "—" : money(transaction.price, transaction.currency || "XXX"),
          transaction.revoked_at ? when(transaction.revoked_at) : "—", paywallCredit(transaction, known)]))
      : empty("No transactions: the SDK sends them after a purchase, the App Store after renewals."),
    el("h3", {}, "A/B assignments"),
    activity.assignments.length
      ? table("Assignments", [["Placement"], ["Audience"], ["Variation"], ["Assigned"]],
        activity.assignments.map((row) => [row.placement_id, known.audiences[row.audience_id] || row.audience_id,
          known.flows[row.variation_id.split(":").pop()] || row.variation_id, when(row.assigned_at)]))
      : empty("No assignments: the profile has not reached an experiment."),
    el("h3", {}, "Recent paywall views"),
    activity.events.length
      ? table("Recent paywall views", [["Seen"], ["Placement"], ["Audience"], ["Flow"]],
        activity.events.map((row) => [when(row.received_at), row.placement_id, known.audiences[row.audience_id] || row.audience_id, known.flows[row.flow_id] || row.flow_id]))
      : empty("No paywall views logged yet."));
}

// A key just created, shown once on the next render of the keys page.
let justCreated = null;

pages.keys = async (view) => {
  const data = await api("/v1/admin/keys");
  const rows = data.keys.map((key) => {
    const action = el("div", {});
    if (!key.revoked_at) {
      action.append(confirmingButton("Revoke", "Confirm revoke", { "data-key": key.id }, async () => {
        try {
          await api("/v1/admin/keys/" + encodeURIComponent(key.id), "DELETE");
          route();
        } catch (error) {
          if (error.status === 401) return route();
          action.replaceChildren(el("span", { class: "error", role: "alert" }, error.message));
        }
      }));
    }
    return [key.id, key.kind, key.label || "", when(key.created_at), when(key.last_used_at), when(key.revoked_at), action];
  });
  const kind = el("select", { id: "new-kind" }, el("option", { value: "public" }, "public (SDK)"), el("option", { value: "secret" }, "secret (admin)"));
  const label = el("input", { id: "new-label", maxlength: "200", placeholder: "e.g. iOS 2.4" });
  const problem = el("p", { class: "error", role: "alert", hidden: true });
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
  const audit = await api("/v1/admin/audit?limit=20");
  const describe = (detail) => Object.entries(detail || {}).map(([name, value]) => name + " " + (typeof value === "string" ? value : JSON.stringify(value))).join(", ");
  view.replaceChildren(el("h1", {}, "Keys"), ...notice,
    table("Keys", [["Id"], ["Kind"], ["Label"], ["Created"], ["Last used"], ["Revoked"], [""]], rows, { id: "keys-table" }),
    el("div", { class: "card narrow-left" }, el("h2", {}, "Create a key"), form),
    el("h2", { class: "section" }, "Recent admin actions"),
    audit.entries.length
      ? table("Audit log", [["When"], ["Who"], ["What"], ["Details"]],
        audit.entries.map((entry) => [when(entry.at), entry.actor, entry.action, describe(entry.detail)]), { id: "audit-table" })
      : empty("No admin actions yet: creating or revoking keys, applying configurations and redelivering webhooks are recorded here."));
};

const deliveryState = { status: "" };

pages.webhooks = async (view) => {
  const data = await api("/v1/admin/webhooks/deliveries?limit=50" + (deliveryState.status ? "&status=" + deliveryState.status : ""));
  const filter = el("select", { id: "delivery-status" }, ...[["", "All"], ["pending", "Pending"], ["delivered", "Delivered"], ["parked", "Parked"]].map(([value, label]) =>
    el("option", { value, selected: value === deliveryState.status }, label)));
  filter.addEventListener("change", () => { deliveryState.status = filter.value; route(); });
  const known = await names();
  const endpoints = (known.document.webhooks || []).map((webhook) => {
    const cell = el("div", { class: "actions" });
    cell.append(confirmingButton("Rotate secret", "Confirm rotation", { "data-webhook": webhook.id }, async () => {
      try {
        const answer = await api("/v1/admin/webhooks/" + encodeURIComponent(webhook.id) + "/rotate-secret", "POST");
        cell.replaceChildren(el("div", {}, el("p", { class: "hint" }, "New signing secret (shown once; the old one stops now):"),
          el("code", { class: "secret", "data-secret": webhook.id }, answer.secret)));
      } catch (error) {
        cell.replaceChildren(el("span", { class: "error", role: "alert" }, error.message));
      }
    }));
    return [webhook.id, webhook.url, (webhook.events || []).join(", "), cell];
  });
  const rows = data.deliveries.map((delivery) => {
    const action = el("div", { class: "actions" });
    const body = el("pre", { class: "document", hidden: true }, delivery.body);
    const show = el("button", { type: "button", class: "secondary", "aria-expanded": "false" }, "Body");
    show.addEventListener("click", () => {
      body.hidden = !body.hidden;
      show.setAttribute("aria-expanded", String(!body.hidden));
    });
    action.append(show);
    const button = el("button", { type: "button", class: "secondary", "data-delivery": String(delivery.id) }, "Redeliver");
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const answer = await api("/v1/admin/webhooks/deliveries/" + delivery.id + "/redeliver", "POST");
        const status = answer.deliveries.length ? answer.deliveries[0].status : "pending";
        action.replaceChildren(el("span", { class: "ok", role: "status" }, "Queued again (" + status + ")"));
      } catch (error) {
        action.replaceChildren(el("span", { class: "error", role: "alert" }, error.message));
      }
    });
    action.append(button);
    const answer = delivery.last_status ? "HTTP " + delivery.last_status : delivery.last_error || "—";
    // The profile opens on the profiles page.
    const profile = el("a", { href: "#profiles", title: delivery.profile_id, "data-profile-link": delivery.profile_id },
      delivery.profile_id.slice(0, 8) + "…");
    profile.addEventListener("click", () => { profileQuery = delivery.profile_id; });
    return [String(delivery.id), delivery.webhook_id, delivery.event_type, profile,
      el("span", { class: "status status-" + delivery.status }, delivery.status), count(delivery.attempts), answer,
      when(delivery.created_at), el("div", {}, action, body)];
  });
  view.replaceChildren(el("h1", {}, "Webhooks"),
    endpoints.length
      ? table("Webhook endpoints", [["Webhook"], ["URL"], ["Events"], [""]], endpoints, { id: "webhooks-table" })
      : empty("No webhooks configured: add one under Configuration, e.g. \"webhooks\": [{\"id\": \"backend\", \"url\": \"https://…\", \"events\": [\"*\"]}]."),
    el("h2", { class: "section" }, "Deliveries"),
    el("div", { class: "controls" }, el("label", { for: "delivery-status" }, "Status"), filter),
    el("p", { class: "hint" }, "The 50 newest. Pending deliveries are retried from 30 s to 6 h apart for 72 h, then parked; redeliver puts one back in line."),
    rows.length
      ? table("Webhook deliveries", [["Id", "num"], ["Webhook"], ["Event"], ["Profile"], ["Status"], ["Attempts", "num"], ["Last answer"], ["Created"], [""]], rows, { id: "deliveries-table" })
      : empty(deliveryState.status ? "No " + deliveryState.status + " deliveries." : "No deliveries yet: add a webhook (url and events) to the configuration, and each purchase or attribution event is sent to it."));
};

// The paywall the reports credit a transaction to, and the one the SDK named where they differ.
function paywallCredit(transaction, known) {
  const name = (id) => known.flows[id.split(":").pop()] || id;
  const credited = transaction.variation_id ? name(transaction.variation_id) : "unattributed";
  if (!transaction.sdk_variation_id) return credited;
  return el("span", {}, credited, el("br"), el("small", {}, "SDK named: " + name(transaction.sdk_variation_id)));
}

// Support: a customer by the order id on their Apple receipt e-mail → the transactions and the
// profiles that own them.
function orderSearch() {
  const input = el("input", { id: "app-store-order", placeholder: "MQ5LTJ8KW2", autocomplete: "off", spellcheck: "false" });
  const result = el("div", { id: "app-store-order-result", role: "status" });
  const find = el("button", { type: "button", id: "app-store-order-find" }, "Find order");
  const lookUp = async () => {
    const id = input.value.trim();
    if (!id) return;
    find.disabled = true;
    result.replaceChildren(el("p", { class: "loading" }, "Asking Apple…"));
    try {
      const order = await api("/v1/admin/app-store/orders/" + encodeURIComponent(id));
      result.replaceChildren(table("Order " + order.order_id, [["Transaction"], ["Original"], ["Product"], ["Purchased"], ["Store"], ["Refunded"], ["Owned by"]],
        order.transactions.map((t) => [t.transaction_id, t.original_transaction_id, t.product_id, when(t.purchase_date), t.environment,
          t.revoked ? "yes" : "no", t.owners.length ? t.owners.join(", ") : "no profile yet"]), { id: "app-store-order-table" }));
    } catch (error) {
      result.replaceChildren(el("p", { class: "error" }, error.message));
    }
    find.disabled = false;
  };
  find.addEventListener("click", lookUp);
  input.addEventListener("keydown", (event) => { if (event.key === "Enter") lookUp(); });
  return el("section", { class: "card", id: "app-store-orders", "aria-label": "Find a customer by order id" },
    el("h2", {}, "Find a customer by order id"),
    el("p", { class: "hint" }, "The order id is on the customer's Apple receipt e-mail; Apple answers with the order's purchases."),
    el("label", { for: "app-store-order" }, "Order id"), el("div", { class: "controls" }, input, find), result);
}

// The App Store Server API: the key (write-only), each environment's notification recovery, the
// setup check (a TEST notification), and the actions an operator takes on them.
pages["app-store"] = async (view) => {
  const status = await api("/v1/admin/app-store/status");
  const message = el("p", { id: "app-store-message", role: "status" });
  const fail = (error) => { message.className = "error"; message.textContent = error.message; };
  const action = (id, label, path, body, enabled) => {
    const button = el("button", { type: "button", class: id === "app-store-key-save" ? null : "secondary", id }, label);
    button.disabled = !enabled;
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await api(path, "POST", body ? body() : undefined);
        route();
      } catch (error) {
        fail(error);
        button.disabled = false;
      }
    });
    return button;
  };
  const lines = [status.configured
    ? el("p", {}, "Issuer " + status.issuer_id + ", key " + status.key_id + ", bundle " + status.bundle_id + ". In-App Purchase key: "
      + (status.credentials ? "uploaded " + when(status.credentials.uploaded_at) + " (SHA-256 " + status.credentials.key_fingerprint.slice(0, 12) + "…)" : "not uploaded") + ".")
    : el("p", {}, "Off: add app_store.server_api {issuer_id, key_id} to the configuration (App Store Connect → Users and Access → Integrations → In-App Purchase), then upload the key below.")];
  const key = el("textarea", { id: "app-store-key", class: "key", rows: "4", spellcheck: "false", autocomplete: "off",
    placeholder: "-----BEGIN PRIVATE KEY-----", "aria-label": "In-App Purchase key (.p8)" });
  const rows = status.recoveries.map((recovery) => [recovery.environment,
    recovery.status === "failed" ? "stopped (" + recovery.failure + ")" : recovery.status,
    recovery.covered_to ? when(recovery.covered_from) + " … " + when(recovery.covered_to) : "—",
    count(recovery.recovered), count(recovery.already_known), count(recovery.refused), count(recovery.reconciled),
    when(recovery.last_success_at), recovery.next_run_at ? when(recovery.next_run_at) : "—", recovery.last_error || ""]);
  const test = status.test_notification;
  const testLine = test
    ? "TEST notification (" + test.environment + "), requested " + when(test.requested_at) + ": "
      + (test.received_at ? "arrived " + when(test.received_at) + " — the notification URL works."
        : test.error ? "Apple could not be asked: " + test.error
          : test.sent_at ? "Apple sent it " + when(test.sent_at) + "; not arrived yet (check the notification URL in App Store Connect)." : "asking Apple…")
    : "No TEST notification requested yet.";
  view.replaceChildren(
    el("h1", {}, "App Store"),
    el("p", { class: "hint" }, "Notifications Apple could not deliver are recovered from the App Store Server API and applied once, like delivered ones (docs/app-store-server-api.md)."),
    el("section", { class: "card", id: "app-store-setup", "aria-label": "App Store Server API" },
      el("h2", {}, "App Store Server API"), ...lines,
      el("label", { for: "app-store-key" }, "In-App Purchase key (.p8) — sealed on the server, never shown again"), key,
      el("div", { class: "controls" },
        action("app-store-key-save", "Save key", "/v1/admin/app-store/credentials", () => ({ private_key: key.value }), true),
        action("app-store-recover", "Recover now", "/v1/admin/app-store/recover", null, Boolean(status.credentials)),
        action("app-store-test", "Send a TEST notification", "/v1/admin/app-store/test-notification", null, Boolean(status.credentials))),
      el("p", { id: "app-store-test-status" }, testLine), message),
    orderSearch(),
    el("h2", { class: "section" }, "Notification recovery"),
    rows.length
      ? table("Notification recovery", [["Environment"], ["Status"], ["Window covered"], ["Recovered", "num"], ["Already known", "num"],
        ["Refused", "num"], ["Reconciled", "num"], ["Last success"], ["Next run"], ["Last error"]], rows, { id: "app-store-recoveries" })
      : empty("No recovery runs yet: it starts once the key is uploaded."));
};
