// People: an app's members and invitations (owners), and each person's own account page.

const roleNames = ["owner", "admin", "editor", "support", "analyst", "viewer"];
const roleHints = {
  owner: "everything, people included", admin: "keys, webhooks, credentials, configuration",
  editor: "configuration, paywalls, experiments, saved lists", support: "profiles, order lookup, access grants, webhook redelivery",
  analyst: "every report and integration status", viewer: "overview and reports, no profile data"
};

// An invitation just made, its link shown once on the next render.
let invitedNow = null;

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
    if (member.locked_until) {
      const unlock = el("button", { type: "button", class: "secondary", "data-unlock": member.email }, "Unlock");
      unlock.addEventListener("click", act(cell, base + "/unlock"));
      cell.append(unlock);
    }
    const state = member.disabled ? "disabled" : member.locked_until ? "locked until " + when(member.locked_until) : "active";
    return [member.email + (member.id === me ? " (you)" : ""), member.name || "", role, when(member.joined_at),
      el("span", { class: "status status-" + (member.disabled ? "parked" : "delivered") }, state), cell];
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
    ? [el("div", { id: "new-invitation", class: "card" }, el("h2", {}, "Invitation for " + invitedNow.email + " (" + invitedNow.role + ")"),
        el("p", {}, "Send this link to them: it works once, until " + when(invitedNow.expires_at) + ", and is not shown again."),
        el("code", { id: "invitation-link", class: "secret" }, invitedNow.url || invitationLink(invitedNow.token)))]
    : [];
  invitedNow = null;
  view.replaceChildren(el("h1", {}, "People"), ...notice,
    table("People", [["E-mail"], ["Name"], ["Role"], ["Joined"], ["State"], [""]], rows, { id: "people-table" }),
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
  view.replaceChildren(el("h1", {}, "Your account"),
    el("div", { class: "card" }, el("p", {}, el("strong", {}, fresh.person.email), fresh.person.name ? " — " + fresh.person.name : ""),
      el("p", { class: "hint" }, "This session ends after 12 hours without use, and on " + when(fresh.expires_at) + " at the latest.")),
    table("Your apps", [["App"], ["Role"], ["What it allows"]],
      fresh.apps.map((app) => [app.name, app.role, roleHints[app.role] || app.permissions.join(", ")]), { id: "account-apps" }),
    el("div", { class: "card narrow-left" }, el("h2", {}, "Change your password"), form),
    el("div", { class: "card narrow-left" }, el("h2", {}, "Sessions"),
      el("p", {}, "Signed in somewhere you no longer use? End every session, this one too."), everywhere));
};
