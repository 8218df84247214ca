// People: an app's members and invitations (owners), and each person's own account page.

const roleNames = ["owner", "admin", "editor", "support", "analyst", "viewer"];
const roleHints = {
  owner: "everything, people included", admin: "keys, webhooks, credentials, configuration",
  editor: "configuration, paywalls, experiments, saved lists", support: "profiles, order lookup, access grants, webhook redelivery",
  analyst: "every report and integration status", viewer: "overview and reports, no profile data"
};

// An invitation just made, its link shown once on the next render.
let invitedNow = null;

// A QR code of `text` drawn on a canvas from Debian's qrcode-generator (no remote service).
function qrCanvas(text) {
  if (typeof qrcode === "undefined") {
    return el("p", { class: "hint" }, "QR codes need Debian's node-qrcode-generator on the server: type the key below into your app.");
  }
  const qr = qrcode(0, "M");
  qr.addData(text);
  qr.make();
  const count = qr.getModuleCount();
  const scale = 5;
  const margin = 4;
  const size = (count + 2 * margin) * scale;
  const canvas = el("canvas", { id: "two-factor-qr", width: String(size), height: String(size), role: "img",
    "aria-label": "QR code of your two-factor key" });
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, size, size);
  context.fillStyle = "#000000";
  for (let row = 0; row < count; row++) {
    for (let column = 0; column < count; column++) {
      if (qr.isDark(row, column)) context.fillRect((column + margin) * scale, (row + margin) * scale, scale, scale);
    }
  }
  return canvas;
}

// The account page's two-factor card: set up (QR code, key, first code, recovery codes) or turn off.
function twoFactorCard(person) {
  const card = el("div", { class: "card narrow-left", id: "two-factor" });
  const result = el("p", { role: "status", id: "two-factor-result" });
  if (person.two_factor) {
    const password = el("input", { id: "two-factor-password", type: "password", autocomplete: "current-password", required: true });
    const form = el("form", { id: "two-factor-off" }, el("label", { for: "two-factor-password" }, "Your password"), password,
      el("button", { type: "submit", class: "secondary" }, "Turn off two-factor sign-in"), result);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await api("/v1/console/two-factor/disable", "POST", { password: password.value });
        route();
      } catch (error) {
        result.className = "error";
        result.textContent = error.message;
      }
    });
    card.append(el("h2", {}, "Two-factor sign-in: on"),
      el("p", {}, "Signing in asks for a code from your authenticator app. Recovery codes left: " + count(person.recovery_codes_left) + "."),
      form);
    return card;
  }
  const start = el("button", { type: "button", id: "two-factor-start" }, "Set up two-factor sign-in");
  start.addEventListener("click", async () => {
    let setup;
    try {
      setup = await api("/v1/console/two-factor/setup", "POST");
    } catch (error) {
      result.className = "error";
      result.textContent = error.message;
      return;
    }
    const code = el("input", { id: "two-factor-code", autocomplete: "one-time-code", inputmode: "numeric", required: true });
    const form = el("form", { id: "two-factor-confirm" }, el("label", { for: "two-factor-code" }, "The 6-digit code it shows now"), code,
      el("button", { type: "submit" }, "Turn on"), result);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const answer = await api("/v1/console/two-factor/confirm", "POST", { code: code.value.trim() });
        const done = el("button", { type: "button", id: "two-factor-done" }, "I saved them");
        done.addEventListener("click", () => route());
        card.replaceChildren(el("h2", {}, "Two-factor sign-in: on"),
          el("p", {}, "Save these recovery codes somewhere safe: each signs you in once without your phone. They are not shown again."),
          el("ul", { id: "recovery-codes", class: "codes" }, ...answer.recovery_codes.map((text) => el("li", {}, el("code", {}, text)))), done);
      } catch (error) {
        result.className = "error";
        result.textContent = error.message;
        code.focus();
      }
    });
    card.replaceChildren(el("h2", {}, "Set up two-factor sign-in"),
      el("p", {}, "Scan this with an authenticator app (1Password, Google Authenticator, Authy …), or type the key."),
      qrCanvas(setup.uri), el("p", {}, "Key: ", el("code", { id: "two-factor-secret" }, setup.secret.replace(/(.{4})/g, "$1 ").trim())),
      form);
    code.focus();
  });
  card.append(el("h2", {}, "Two-factor sign-in: off"),
    el("p", {}, "Add a code from your phone to your password, so a stolen password alone does not open the console."), start, result);
  return card;
}

// The console's link for an invitation token (the token after #: never sent to a server).
const invitationLink = (token) => location.origin + "/dashboard/#invitation=" + encodeURIComponent(token);

pages.people = async (view) => {
  const data = await api("/v1/admin/people");
  const me = session.person.id;
  const act = (cell, path, method, payload) => async () => {
    try {
      await api(path, method || "POST", payload);
      route();
    } catch (error) {
      if (error.status === 401) return route();
      cell.replaceChildren(el("span", { class: "error", role: "alert" }, error.message));
    }
  };
  const policy = el("input", { type: "checkbox", id: "require-two-factor", checked: data.require_two_factor });
  const policyResult = el("span", { role: "status" });
  policy.addEventListener("change", async () => {
    try {
      await api("/v1/admin/security", "PUT", { require_two_factor: policy.checked });
      policyResult.className = "ok";
      policyResult.textContent = policy.checked ? " Required from now on." : " No longer required.";
    } catch (error) {
      policy.checked = !policy.checked;
      policyResult.className = "error";
      policyResult.textContent = " " + error.message;
    }
  });
  const rows = data.people.map((member) => {
    const cell = el("div", { class: "actions" });
    const base = "/v1/admin/people/" + member.id;
    const role = el("select", { "aria-label": "Role of " + member.email, "data-person": member.email },
      ...roleNames.map((name) => el("option", { value: name, selected: name === member.role }, name)));
    role.addEventListener("change", act(cell, base, "PUT", { role: role.value }));
    if (member.id !== me) {
      cell.append(member.disabled
        ? el("button", { type: "button", class: "secondary", "data-enable": member.email }, "Enable")
        : confirmingButton("Disable", "Confirm disable", { "data-disable": member.email }, act(cell, base + "/disable")));
      if (member.disabled) cell.lastChild.addEventListener("click", act(cell, base + "/enable"));
      cell.append(confirmingButton("Remove", "Confirm remove", { "data-remove": member.email }, act(cell, base, "DELETE")));
    }
    if (member.id !== me) {
      const reset = el("button", { type: "button", class: "secondary", "data-reset": member.email }, "Reset password");
      reset.addEventListener("click", async () => {
        try {
          invitedNow = Object.assign(await api(base + "/reset-password", "POST"), { reset: true });
          route();
        } catch (error) {
          cell.replaceChildren(el("span", { class: "error", role: "alert" }, error.message));
        }
      });
      cell.append(reset);
      if (member.two_factor) {
        cell.append(confirmingButton("Reset two-factor", "Confirm reset", { "data-reset-two-factor": member.email },
          act(cell, base + "/reset-two-factor")));
      }
    }
    if (member.locked_until) {
      const unlock = el("button", { type: "button", class: "secondary", "data-unlock": member.email }, "Unlock");
      unlock.addEventListener("click", act(cell, base + "/unlock"));
      cell.append(unlock);
    }
    const state = member.disabled ? "disabled" : member.locked_until ? "locked until " + when(member.locked_until) : "active";
    return [member.email + (member.id === me ? " (you)" : ""), member.name || "", role, member.two_factor ? "on" : "off",
      when(member.joined_at), el("span", { class: "status status-" + (member.disabled ? "parked" : "delivered") }, state), cell];
  });
  const email = el("input", { id: "invite-email", type: "email", autocomplete: "off", required: true, placeholder: "ana@example.com" });
  const role = el("select", { id: "invite-role" },
    ...roleNames.map((name) => el("option", { value: name, selected: name === "editor" }, name + " — " + roleHints[name])));
  const problem = el("p", { class: "error", role: "alert", hidden: true, id: "invite-error" });
  const form = el("form", { id: "invite-form" }, el("label", { for: "invite-email" }, "E-mail"), email,
    el("label", { for: "invite-role" }, "Role"), role, el("button", { type: "submit" }, "Invite"), problem);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      invitedNow = await api("/v1/admin/invitations", "POST", { email: email.value.trim(), role: role.value });
      route();
    } catch (error) {
      problem.hidden = false;
      problem.textContent = error.message;
    }
  });
  const notice = invitedNow
    ? [el("div", { id: "new-invitation", class: "card" },
        el("h2", {}, (invitedNow.reset ? "Password-reset link for " : "Invitation for ") + invitedNow.email + " (" + invitedNow.role + ")"),
        el("p", {}, "Send this link to them: it works once, until " + when(invitedNow.expires_at) + ", and is not shown again."
          + (invitedNow.reset ? " Their sessions end when they use it." : "")),
        el("code", { id: "invitation-link", class: "secret" }, invitedNow.url || invitationLink(invitedNow.token)))]
    : [];
  invitedNow = null;
  view.replaceChildren(el("h1", {}, "People"), ...notice,
    table("People", [["E-mail"], ["Name"], ["Role"], ["Two-factor"], ["Joined"], ["State"], [""]], rows, { id: "people-table" }),
    el("div", { class: "card" }, el("label", { class: "check", for: "require-two-factor" }, policy,
      " Require two-factor sign-in for everyone in this app"), policyResult,
      el("p", { class: "hint" }, "Someone without it can still sign in, but reaches only their account page until they set it up. Keys are not affected.")),
    el("div", { class: "card narrow-left" }, el("h2", {}, "Invite someone"), form),
    el("h2", { class: "section" }, "Open invitations"),
    data.invitations.length
      ? table("Open invitations", [["E-mail"], ["Role"], ["Invited by"], ["Expires"]],
        data.invitations.map((invitation) => [invitation.email, invitation.role, invitation.invited_by, when(invitation.expires_at)]),
        { id: "invitations-table" })
      : empty("No open invitations."));
};

pages.account = async (view) => {
  const fresh = await api("/v1/console/session");
  session = fresh;
  const current = el("input", { id: "current-password", type: "password", autocomplete: "current-password", required: true });
  const next = el("input", { id: "new-password", type: "password", autocomplete: "new-password", minlength: "12", required: true });
  const result = el("p", { role: "status", id: "password-result" });
  const form = el("form", { id: "password-form" },
    el("label", { for: "current-password" }, "Current password"), current,
    el("label", { for: "new-password" }, "New password"), next,
    el("p", { class: "hint" }, "At least 12 characters. Every other session of yours ends."),
    el("button", { type: "submit" }, "Change password"), result);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      session = await api("/v1/console/password", "POST", { current_password: current.value, new_password: next.value });
      current.value = "";
      next.value = "";
      result.className = "ok";
      result.textContent = "Changed. Your other sessions ended.";
    } catch (error) {
      if (error.status === 401) return route();
      result.className = "error";
      result.textContent = error.message;
    }
  });
  const everywhere = confirmingButton("Sign out everywhere", "Confirm: sign out on every device", { id: "sign-out-everywhere" },
    () => signOut(true));
  const app = currentApp();
  const needed = app && app.requires_two_factor && !fresh.person.two_factor
    ? [el("p", { class: "error", role: "alert", id: "two-factor-needed" }, "The owners of " + app.name
        + " require two-factor sign-in: set it up below to open the app's pages.")]
    : [];
  view.replaceChildren(el("h1", {}, "Your account"), ...needed,
    el("div", { class: "card" }, el("p", {}, el("strong", {}, fresh.person.email), fresh.person.name ? " — " + fresh.person.name : ""),
      el("p", { class: "hint" }, "This session ends after 12 hours without use, and on " + when(fresh.expires_at) + " at the latest.")),
    table("Your apps", [["App"], ["Role"], ["What it allows"]],
      fresh.apps.map((app) => [app.name, app.role, roleHints[app.role] || app.permissions.join(", ")]), { id: "account-apps" }),
    ...(fresh.person.has_password
      ? [twoFactorCard(fresh.person), el("div", { class: "card narrow-left" }, el("h2", {}, "Change your password"), form)]
      : [el("div", { class: "card narrow-left", id: "single-sign-on-account" }, el("h2", {}, "Single sign-on"),
          el("p", {}, "You sign in with your company's identity provider: your password and second factor are kept there."))]),
    el("div", { class: "card narrow-left" }, el("h2", {}, "Sessions"),
      el("p", {}, "Signed in somewhere you no longer use? End every session, this one too."), everywhere));
};
