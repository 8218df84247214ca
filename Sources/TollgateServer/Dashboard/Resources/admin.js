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
// What a support action did, shown once above the re-rendered profile.
let profileNotice = null;
forgetOnSignIn.push(() => { profileQuery = ""; profileNotice = null; configNotice = null; justCreated = null; deliveryState.status = ""; });
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
  const notice = profileNotice ? el("p", { class: "notice", id: "profile-notice", role: "status" }, profileNotice) : "";
  profileNotice = null;
  view.replaceChildren(el("h1", {}, "Profiles"), el("div", { class: "card narrow-left" }, form), notice, results);
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
        levels.map((level) => [level.id, level.is_active ? "active" : "inactive",
          level.store === "promotional" ? "given by hand" : level.vendor_product_id, when(level.activated_at),
          level.is_lifetime ? "lifetime" : when(level.expires_at), level.will_renew ? "yes" : "no"]))
      : empty("No access levels: nothing bought yet."),
    supportActions(profile, activity, known),
    el("h3", {}, "Timeline"),
    timeline(activity),
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

// Support's hand on one profile: give or take back an access level, pull the history from Apple.
function supportActions(profile, activity, known) {
  const levels = (known.document.access_levels || []).map((level) => level.id);
  const message = el("p", { class: "support-message", role: "status" });
  const fail = (error) => { message.className = "support-message error"; message.textContent = error.message; };
  const done = (text) => { message.className = "support-message"; message.textContent = text; };
  const level = el("select", { id: "grant-level-" + profile.id, "aria-label": "Access level" }, ...levels.map((id) => el("option", { value: id }, id)));
  const length = el("select", { id: "grant-length-" + profile.id, "aria-label": "For how long" },
    ...[["7", "7 days"], ["30", "30 days"], ["365", "1 year"], ["lifetime", "for life"]].map(([value, label]) => el("option", { value }, label)));
  const reason = el("input", { id: "grant-reason-" + profile.id, type: "text", maxlength: "500", placeholder: "Why (kept in the audit log)", "aria-label": "Reason" });
  const again = (text) => { profileNotice = text; return route(); };
  const grant = el("button", { type: "button", class: "grant" }, "Grant");
  grant.addEventListener("click", async () => {
    const body = { reason: reason.value };
    if (length.value === "lifetime") body.lifetime = true;
    else body.expires_at = new Date(Date.now() + Number(length.value) * 86400000).toISOString();
    try {
      await api("/v1/admin/profiles/" + profile.id + "/access-levels/" + encodeURIComponent(level.value) + "/grant", "POST", body);
      await again("Granted " + level.value + (body.lifetime ? " for life." : " until " + when(body.expires_at) + "."));
    } catch (error) { fail(error); }
  });
  const standing = (activity.grants || []).filter((item) => item.is_active);
  const revokes = [...new Set(standing.map((item) => item.access_level_id))].map((id) => {
    const button = el("button", { type: "button", class: "secondary revoke" }, "Revoke " + id);
    button.addEventListener("click", async () => {
      try {
        await api("/v1/admin/profiles/" + profile.id + "/access-levels/" + encodeURIComponent(id) + "/revoke", "POST", {});
        await again("Took back " + id + ".");
      } catch (error) { fail(error); }
    });
    return button;
  });
  const refresh = el("button", { type: "button", class: "secondary refresh" }, "Refresh from Apple");
  refresh.disabled = activity.transactions.length === 0;
  refresh.title = refresh.disabled ? "Apple finds a customer's history by one of their transactions; this profile has none." : "";
  refresh.addEventListener("click", async () => {
    refresh.disabled = true;
    done("Asking Apple…");
    try {
      const found = await api("/v1/admin/profiles/" + profile.id + "/app-store/refresh", "POST");
      await again("Apple answered " + count(found.transactions) + " transaction(s); " + count(found.changed) + " changed this profile.");
    } catch (error) {
      fail(error);
      refresh.disabled = false;
    }
  });
  return el("div", { class: "card support" }, el("h3", {}, "Support"),
    levels.length
      ? el("div", { class: "controls" }, level, length, reason, grant, ...revokes)
      : empty("The configuration has no access levels to give."),
    el("div", { class: "controls" }, refresh), message);
}

// Everything that happened to a profile's purchases, newest first: transactions, App Store
// notifications (delivered or recovered), refund requests and their answers, grants.
function timeline(activity) {
  const rows = [];
  for (const item of activity.transactions) {
    rows.push([item.purchased_at, "Transaction", item.product_id + " " + (item.reason || item.type).toLowerCase()
      + (item.price === undefined ? "" : ", " + money(item.price, item.currency || "XXX")) + " (" + item.transaction_id + ")"]);
    if (item.revoked_at) rows.push([item.revoked_at, "Refunded", item.product_id + " (" + item.transaction_id + ")"]);
  }
  for (const item of activity.notifications || []) {
    rows.push([item.signed_at, "Notification", item.type + (item.subtype ? " / " + item.subtype : "")
      + (item.origin === "recovered" ? " — recovered from Apple's history" : " — delivered")]);
  }
  for (const item of activity.refund_requests || []) {
    const answer = item.answer ? "answered: " + (item.answer.refundPreference || "no preference") + ", " + item.answer.deliveryStatus
      : item.status === "not_sent" ? "not answered (" + (item.last_error === "no_consent" ? "no consent" : "answers off") + ")" : item.status;
    rows.push([item.requested_at, "Refund request", (item.reason || "no reason") + " for " + item.product_id + " — " + answer
      + (item.outcome ? "; Apple " + item.outcome + " it" : "")]);
  }
  for (const item of activity.grants || []) {
    rows.push([item.granted_at, "Granted", item.access_level_id + " " + (item.is_lifetime ? "for life" : "until " + when(item.expires_at))
      + " by " + item.granted_by + ": " + item.reason]);
    if (item.revoked_at) rows.push([item.revoked_at, "Revoked", item.access_level_id + " by " + (item.revoked_by || "")]);
  }
  rows.sort((a, b) => (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0));
  return rows.length
    ? table("Timeline", [["When"], ["What"], ["Detail"]], rows.map(([at, what, detail]) => [when(at), what, detail]))
    : empty("Nothing yet: purchases, notifications, refund requests and grants appear here.");
}

// A key just created, shown once on the next render of the keys page.
let justCreated = null;
// Whose actions the audit log shows ("": everyone's).
const auditState = { actor: "" };
forgetOnSignIn.push(() => { auditState.actor = ""; });

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
    return [key.id, key.kind, key.scopes ? key.scopes.join(", ") : "—", key.label || "", when(key.created_at), when(key.last_used_at),
      when(key.expires_at), when(key.revoked_at), action];
  });
  const kind = el("select", { id: "new-kind" }, el("option", { value: "public" }, "public (SDK)"), el("option", { value: "secret" }, "secret (admin)"));
  const scope = el("select", { id: "new-scope" }, ...[["all", "all: every admin route"], ["reports:read", "reports:read: reports (a BI tool)"],
    ["config:write", "config:write: the configuration (a deploy job)"], ["profiles:read", "profiles:read: profiles"],
    ["support", "support: profiles, grants, order lookup, redelivery"]].map(([value, text]) => el("option", { value }, text)));
  const expiry = el("select", { id: "new-expiry" }, ...[["", "never"], ["30", "in 30 days"], ["90", "in 90 days"], ["365", "in a year"]]
    .map(([value, text]) => el("option", { value }, text)));
  const secretOnly = el("div", { hidden: true }, el("label", { for: "new-scope" }, "Scope"), scope,
    el("label", { for: "new-expiry" }, "Expires"), expiry);
  kind.addEventListener("change", () => { secretOnly.hidden = kind.value !== "secret"; });
  const label = el("input", { id: "new-label", maxlength: "200", placeholder: "e.g. iOS 2.4" });
  const problem = el("p", { class: "error", role: "alert", hidden: true });
  const form = el("form", { id: "create-key" },
    el("label", { for: "new-kind" }, "Kind"), kind, secretOnly,
    el("label", { for: "new-label" }, "Label (optional)"), label,
    el("button", { type: "submit" }, "Create key"), problem);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const limits = kind.value === "secret"
      ? { scopes: [scope.value], expires_in_days: expiry.value ? Number(expiry.value) : null } : {};
    try {
      justCreated = await api("/v1/admin/keys", "POST", Object.assign({ kind: kind.value, label: label.value || null }, limits));
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
  // The audit log, filtered by who did it: the people and keys seen in the latest 200 entries.
  const [recent, audit] = await Promise.all([api("/v1/admin/audit?limit=200"),
    api("/v1/admin/audit?limit=20" + (auditState.actor ? "&actor=" + encodeURIComponent(auditState.actor) : ""))]);
  const actors = [...new Set(recent.entries.map((entry) => entry.actor).concat(auditState.actor ? [auditState.actor] : []))].sort();
  const who = el("select", { id: "audit-actor" }, el("option", { value: "" }, "Everyone"),
    ...actors.map((actor) => el("option", { value: actor, selected: actor === auditState.actor }, actor)));
  who.addEventListener("change", () => { auditState.actor = who.value; route(); });
  const describe = (detail) => Object.entries(detail || {}).map(([name, value]) => name + " " + (typeof value === "string" ? value : JSON.stringify(value))).join(", ");
  view.replaceChildren(el("h1", {}, "Keys"), ...notice,
    table("Keys", [["Id"], ["Kind"], ["Scopes"], ["Label"], ["Created"], ["Last used"], ["Expires"], ["Revoked"], [""]], rows, { id: "keys-table" }),
    el("div", { class: "card narrow-left" }, el("h2", {}, "Create a key"), form),
    el("h2", { class: "section" }, "Recent admin actions"),
    el("div", { class: "controls" }, el("label", { for: "audit-actor" }, "Who"), who),
    audit.entries.length
      ? table("Audit log", [["When"], ["Who"], ["What"], ["Details"], ["From"]],
        audit.entries.map((entry) => [when(entry.at), entry.actor, entry.action, describe(entry.detail),
          [entry.address, entry.session].filter(Boolean).join(" ") || "—"]), { id: "audit-table" })
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
    if (can("webhooks:write")) cell.append(confirmingButton("Rotate secret", "Confirm rotation", { "data-webhook": webhook.id }, async () => {
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
// A profile id that opens the profile on the profiles page.
function profileLink(id) {
  const link = el("a", { href: "#profiles", "data-profile-link": id }, id);
  link.addEventListener("click", () => { profileQuery = id; });
  return link;
}

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
          t.revoked ? "yes" : "no", t.owners.length ? el("span", {}, ...t.owners.map(profileLink)) : "no profile yet"]), { id: "app-store-order-table" }));
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
  if (!can("integrations:read")) {
    // Support: the customer lookup only.
    view.replaceChildren(el("h1", {}, "App Store"), orderSearch());
    return;
  }
  const [status, refunds, imports, histories] = await Promise.all([api("/v1/admin/app-store/status"),
    api("/v1/admin/app-store/refund-requests"), api("/v1/admin/imports"), api("/v1/admin/history-import")]);
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
      ...(can("integrations:write") ? [
        el("label", { for: "app-store-key" }, "In-App Purchase key (.p8) — sealed on the server, never shown again"), key,
        el("div", { class: "controls" },
          action("app-store-key-save", "Save key", "/v1/admin/app-store/credentials", () => ({ private_key: key.value }), true),
          action("app-store-recover", "Recover now", "/v1/admin/app-store/recover", null, Boolean(status.credentials)),
          action("app-store-test", "Send a TEST notification", "/v1/admin/app-store/test-notification", null, Boolean(status.credentials)))] : []),
      el("p", { id: "app-store-test-status" }, testLine), message),
    ...(can("support") ? [orderSearch()] : []),
    el("h2", { class: "section" }, "Notification recovery"),
    rows.length
      ? table("Notification recovery", [["Environment"], ["Status"], ["Window covered"], ["Recovered", "num"], ["Already known", "num"],
        ["Refused", "num"], ["Reconciled", "num"], ["Last success"], ["Next run"], ["Last error"]], rows, { id: "app-store-recoveries" })
      : empty("No recovery runs yet: it starts once the key is uploaded."),
    refundRequests(refunds),
    importCard(imports, histories));
};

// Customers brought from before Tollgate: the latest imports, and their App Store histories as
// they are fetched from Apple — redrawn in place every 5 seconds while some are pending.
function importCard(overview, histories) {
  const finished = histories.done + histories.failed;
  const left = histories.estimated_seconds_left;
  const duration = (seconds) => seconds < 90 ? seconds + " s" : seconds < 5400 ? Math.round(seconds / 60) + " min"
    : Math.round(seconds / 360) / 10 + " h";
  const rows = overview.imports.map((item) => [when(item.started_at), item.source, count(item.lines), count(item.imported),
    count(item.existing), count(item.refused), count(item.histories), item.finished_at ? when(item.finished_at) : "running"]);
  const card = el("section", { class: "card", id: "app-store-imports", "aria-label": "Customers from before Tollgate" },
    el("h2", {}, "Customers from before Tollgate"),
    overview.switch_over_day ? el("p", {}, "Switched over on " + dayLabel(overview.switch_over_day)
      + " (the first install with Tollgate's SDK); the Overview, Subscriptions and Cohorts pages mark that day.") : null,
    histories.customers
      ? el("div", { id: "history-import" },
        el("p", {}, "App Store histories: " + count(finished) + " of " + count(histories.customers) + " customers done"
          + (histories.failed ? " (" + count(histories.failed) + " failed)" : "") + ", " + count(histories.pending) + " pending; "
          + count(histories.transactions) + " transactions recorded" + (histories.refused ? ", " + count(histories.refused) + " refused" : "")
          + (histories.pending && left !== null && left !== undefined ? "; about " + duration(left) + " left." : ".")),
        el("progress", { max: String(histories.customers), value: String(finished), "aria-label": "Histories fetched" }),
        histories.pending && histories.last_error ? el("p", { class: "error" }, "Last error (retried): " + histories.last_error) : null)
      : null,
    rows.length
      ? table("Profile imports", [["Started"], ["Source"], ["Lines", "num"], ["Imported", "num"], ["Already there", "num"],
        ["Refused", "num"], ["Histories", "num"], ["Finished"]], rows, { id: "profile-imports" })
      : empty("No imports yet. Bring the customers of your previous provider with tollgate import profiles FILE --app NAME (docs/migrating.md)."));
  if (histories.pending > 0) {
    setTimeout(async () => {
      if (!card.isConnected) return;
      try {
        const [again, progress] = await Promise.all([api("/v1/admin/imports"), api("/v1/admin/history-import")]);
        if (card.isConnected) card.replaceWith(importCard(again, progress));
      } catch (error) {
        // The next visit to the page shows the error.
      }
    }, 5000);
  }
  return card;
}

// Apple's refund requests over the last 30 days: what was answered, and how Apple decided.
function refundRequests(report) {
  const totals = report.totals;
  const counts = (row) => [count(row.requests), count(row.answered), count(row.not_sent), count(row.pending + row.expired + row.failed),
    count(row.refunded), count(row.declined), count(row.open)];
  const columns = [["Requests", "num"], ["Answered", "num"], ["Not sent", "num"], ["Unanswered", "num"], ["Refunded", "num"], ["Declined", "num"], ["Open", "num"]];
  return el("section", { id: "app-store-refunds", "aria-label": "Refund requests" },
    el("h2", { class: "section" }, "Refund requests (last 30 days)"),
    el("p", { class: "hint" }, "Apple asks for consumption information when a customer requests a refund; Tollgate answers only when app_store.refund_requests enables it and the customer consented."),
    totals.requests
      ? el("div", {},
        el("h3", {}, "By reason"),
        table("Refund requests by reason", [["Reason"], ...columns], report.by_reason.map((row) => [row.key, ...counts(row)]), { id: "refund-reasons" }),
        el("h3", {}, "By product"),
        table("Refund requests by product", [["Product"], ...columns], report.by_product.map((row) => [row.key, ...counts(row)])),
        el("h3", {}, "Latest requests"),
        table("Latest refund requests", [["Requested"], ["Product"], ["Reason"], ["Answer"], ["Apple"], ["Profile"]],
          report.requests.slice(0, 50).map((item) => [when(item.requested_at), item.product_id, item.reason || "—",
            item.status === "answered" ? (item.answer && item.answer.refundPreference || "sent") : item.status.replace("_", " ") + (item.last_error ? " (" + item.last_error + ")" : ""),
            item.outcome || "open", (item.owners || []).length ? el("span", {}, ...item.owners.map(profileLink)) : "—"])))
      : empty("No refund requests in the last 30 days."));
}
