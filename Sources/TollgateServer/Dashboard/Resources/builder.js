// The Paywalls page: a flow's paywall document edited with forms or as JSON, previewed live in
// two phone frames with sample store prices, and applied through the configuration (so history,
// diff and rollback work as for any change). The preview draws resolvePaywall's tree, the same
// tree the SDK's AdaptyUI draws.

const paywallTemplateNames = ["classic", "cards", "minimal"];
const paywallBlockTypes = ["image", "title", "subtitle", "text", "features", "products", "purchase_button", "restore_button", "custom_button", "legal", "footer"];
const paywallColorRoles = ["background", "text", "secondary_text", "accent", "on_accent", "card"];
const paywallPhones = [["iPhone 15", 390, 844], ["iPhone SE", 375, 667]];
const clone = (value) => JSON.parse(JSON.stringify(value));

// The builder's state survives re-renders of the page (not reloads).
let paywallState = null;
let paywallNotice = null;

// Plausible store answers for a product id, editable on the page: the preview needs prices.
function samplePrice(id) {
  const lower = id.toLowerCase();
  const title = id.split(/[_\-.]/).filter(Boolean).map((word) => word[0].toUpperCase() + word.slice(1)).join(" ");
  const [price, period] = lower.includes("week") ? ["2.99", "P1W"] : lower.includes("month") ? ["6.99", "P1M"]
    : lower.includes("annual") || lower.includes("year") ? ["39.99", "P1Y"] : lower.includes("lifetime") ? ["99.99", null] : ["9.99", "P1M"];
  const intro = period === "P1Y" || lower.includes("trial") || lower.includes("intro") ? { kind: "free_trial", period: "P1W" } : null;
  return { id, title, price, display_price: "$" + price, period, intro };
}

// A template's document for a flow: its product slots ($1, $2, …) become the flow's products;
// slots the flow has no product for are left out.
function documentFromTemplate(template, products) {
  const document = clone(template.document);
  const slot = (value) => /^\$\d+$/.test(value || "") ? products[Number(value.slice(1)) - 1] : value;
  for (const block of document.blocks) {
    if (block.type !== "products") continue;
    block.products = block.products.map((item) => ({ ...item, product: slot(item.product) })).filter((item) => item.product);
    block.selected = slot(block.selected);
    if (!block.products.some((item) => item.product === block.selected)) block.selected = block.products.length ? block.products[0].product : undefined;
  }
  return document;
}

pages.paywalls = async (view) => {
  const current = await orNull(api("/v1/admin/config"));
  const templates = await Promise.all(paywallTemplateNames.map(async (name) => {
    const response = await fetch("/dashboard/template-" + name + ".json");
    return { key: name, ...(await response.json()) };
  }));
  if (!current || !(current.document.flows || []).length) {
    view.replaceChildren(el("h1", {}, "Paywalls"), empty("No flows yet: add one on the Configuration page, then design its paywall here."));
    return;
  }
  const flows = current.document.flows;
  if (!paywallState || paywallState.revision !== current.revision || !flows.some((flow) => flow.id === paywallState.flowId)) {
    const first = flows.find((flow) => flow.paywall) || flows[0];
    paywallState = { revision: current.revision, flowId: first.id, appearance: "light", eligible: false, selected: null, tab: "blocks", prices: {} };
    loadFlow(first);
  }
  const state = paywallState;

  function loadFlow(flow) {
    paywallState.flowId = flow.id;
    paywallState.products = [...flow.products];
    paywallState.document = flow.paywall ? clone(flow.paywall) : null;
    paywallState.locale = flow.paywall ? flow.paywall.default_locale : "en";
    paywallState.selected = null;
  }

  const preview = el("div", { id: "paywall-preview", class: "previews" });
  const editor = el("div", { id: "paywall-editor" });
  const result = el("div", { id: "paywall-result", role: "status" });
  const controls = el("div", { class: "controls", id: "paywall-controls" });
  const prices = el("div", { id: "paywall-prices" });

  function changed() { drawPreview(); }
  function rebuilt() { drawControls(); drawEditor(); drawPrices(); drawPreview(); }

  function storeProducts() {
    return state.products.map((id) => {
      if (!state.prices[id]) state.prices[id] = samplePrice(id);
      return state.prices[id];
    });
  }

  function drawControls() {
    const flowSelect = el("select", { id: "paywall-flow", "aria-label": "Flow" },
      ...flows.map((flow) => el("option", { value: flow.id, selected: flow.id === state.flowId }, flow.name + " (" + flow.id + ")" + (flow.paywall ? "" : " · no paywall"))));
    flowSelect.addEventListener("change", () => { loadFlow(flows.find((flow) => flow.id === flowSelect.value)); rebuilt(); });
    const children = [el("label", { for: "paywall-flow" }, "Flow"), flowSelect];
    if (state.document) {
      const localeSelect = el("select", { id: "paywall-locale", "aria-label": "Locale" },
        ...paywallLocales(state.document).map((locale) => el("option", { value: locale, selected: locale === state.locale }, locale)));
      localeSelect.addEventListener("change", () => { state.locale = localeSelect.value; rebuilt(); });
      const newLocale = el("input", { id: "paywall-new-locale", placeholder: "de", "aria-label": "New locale", size: "6", class: "short" });
      const addLocale = el("button", { type: "button", id: "paywall-add-locale", class: "secondary" }, "Add locale");
      addLocale.addEventListener("click", () => {
        const locale = newLocale.value.trim();
        if (!/^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(locale)) { newLocale.setAttribute("aria-invalid", "true"); return; }
        for (const text of paywallTexts(state.document)) if (text[locale] === undefined) text[locale] = text[state.document.default_locale] || "";
        state.locale = locale;
        rebuilt();
      });
      const appearance = el("select", { id: "paywall-appearance", "aria-label": "Appearance" },
        ...["light", "dark"].map((name) => el("option", { value: name, selected: name === state.appearance }, name === "light" ? "Light" : "Dark")));
      appearance.addEventListener("change", () => { state.appearance = appearance.value; changed(); });
      const eligible = el("input", { type: "checkbox", id: "paywall-eligible", class: "check", checked: state.eligible });
      eligible.addEventListener("change", () => { state.eligible = eligible.checked; changed(); });
      children.push(el("label", { for: "paywall-locale" }, "Locale"), localeSelect, newLocale, addLocale,
        el("label", { for: "paywall-appearance" }, "Appearance"), appearance,
        el("label", { for: "paywall-eligible", class: "inline-check" }, eligible, " Eligible for the intro offer"));
    }
    controls.replaceChildren(...children);
  }

  // A text field bound to `holder[key][locale]`.
  function localized(label, holder, key, id) {
    const input = el("input", { id, value: (holder[key] || {})[state.locale] || "" });
    input.addEventListener("input", () => {
      holder[key] = holder[key] || {};
      holder[key][state.locale] = input.value;
      changed();
    });
    return el("div", { class: "field" }, el("label", { for: id }, label + " (" + state.locale + ")"), input);
  }

  function plain(label, holder, key, id, type) {
    const input = el("input", { id, type: type || "text", value: holder[key] === undefined ? "" : String(holder[key]) });
    input.addEventListener("input", () => {
      holder[key] = type === "number" ? Number(input.value) : input.value;
      changed();
    });
    return el("div", { class: "field" }, el("label", { for: id }, label), input);
  }

  function choice(label, holder, key, id, options) {
    const select = el("select", { id }, ...options.map(([value, text]) => el("option", { value, selected: holder[key] === value }, text)));
    select.addEventListener("change", () => { holder[key] = select.value; changed(); });
    return el("div", { class: "field" }, el("label", { for: id }, label), select);
  }

  function small(text, onClick, attributes) {
    const button = el("button", { type: "button", class: "secondary", ...(attributes || {}) }, text);
    button.addEventListener("click", onClick);
    return button;
  }

  function blockFields(block, index) {
    const id = (name) => "block-" + index + "-" + name;
    switch (block.type) {
      case "image": {
        const file = el("input", { type: "file", id: id("file"), accept: "image/png,image/jpeg,image/webp" });
        const status = el("span", { class: "hint" }, block.asset ? "Image " + block.asset.slice(0, 12) + "…" : "No image yet.");
        file.addEventListener("change", async () => {
          if (!file.files.length) return;
          status.textContent = "Uploading…";
          try {
            const response = await fetch("/v1/admin/assets", { method: "POST", body: file.files[0],
              credentials: "same-origin",
              headers: Object.assign(consoleHeaders("POST"), { "Content-Type": file.files[0].type || "application/octet-stream" }) });
            const body = await response.json();
            if (!response.ok) throw new Error(body.error ? body.error.message : "HTTP " + response.status);
            block.asset = body.sha256;
            status.textContent = "Image " + body.sha256.slice(0, 12) + "… (" + body.width + " × " + body.height + ")";
            changed();
          } catch (error) {
            status.textContent = "Not uploaded: " + error.message;
          }
        });
        return [el("div", { class: "field" }, el("label", { for: id("file") }, "Image (PNG, JPEG or WebP)"), file, status),
          plain("Height (points)", block, "height", id("height"), "number")];
      }
      case "features": {
        block.features = block.features || [];
        return [...block.features.map((feature, line) => el("div", { class: "row" },
          plain("Icon (SF Symbol)", feature, "icon", id("icon-" + line)), localized("Text", feature, "text", id("feature-" + line)),
          small("Remove", () => { block.features.splice(line, 1); rebuilt(); }, { "aria-label": "Remove feature " + (line + 1) }))),
        small("Add a feature", () => { block.features.push({ icon: "checkmark.circle.fill", text: { [state.locale]: "" } }); rebuilt(); })];
      }
      case "products": {
        block.products = block.products || [];
        const options = state.products.map((product) => [product, product]);
        return [choice("Layout", block, "layout", id("layout"), [["list", "List"], ["cards", "Cards"]]),
          choice("Preselected", block, "selected", id("selected"), block.products.map((item) => [item.product, item.product])),
          ...block.products.map((item, line) => el("fieldset", { class: "item" }, el("legend", {}, "Product " + (line + 1)),
            choice("Product", item, "product", id("product-" + line), options),
            localized("Detail", item, "detail", id("detail-" + line)),
            localized("Detail with the intro offer", item, "intro_detail", id("intro-detail-" + line)),
            localized("Badge", item, "badge", id("badge-" + line)),
            small("Remove", () => { block.products.splice(line, 1); rebuilt(); }, { "aria-label": "Remove product " + (line + 1) }))),
          small("Add a product", () => { block.products.push({ product: state.products[0], detail: { [state.locale]: "{price} per {period}" } }); rebuilt(); })];
      }
      case "purchase_button":
        return [localized("Text", block, "text", id("text")), localized("Text with the intro offer", block, "intro_text", id("intro-text"))];
      case "custom_button":
        return [localized("Text", block, "text", id("text")), plain("Action id (the app receives it)", block, "action_id", id("action-id"))];
      case "legal":
        return [localized("Terms link", block, "terms_text", id("terms-text")), plain("Terms URL", block, "terms_url", id("terms-url")),
          localized("Privacy link", block, "privacy_text", id("privacy-text")), plain("Privacy URL", block, "privacy_url", id("privacy-url")),
          choice("Links open", block, "links_presentation", id("links-presentation"), [["browser", "In the browser"], ["in_app", "In the app"]])];
      default:
        return [localized("Text", block, "text", id("text"))];
    }
  }

  function drawEditor() {
    const tabs = el("div", { class: "tabs", role: "tablist" }, ...[["blocks", "Blocks"], ["style", "Style"], ["json", "JSON"]].map(([key, label]) => {
      const tab = el("button", { type: "button", role: "tab", id: "tab-" + key, "aria-selected": String(state.tab === key), class: state.tab === key ? "tab current" : "tab" }, label);
      tab.addEventListener("click", () => { state.tab = key; drawEditor(); });
      return tab;
    }));
    const templateSelect = el("select", { id: "paywall-template", "aria-label": "Template" },
      ...templates.map((template) => el("option", { value: template.key, selected: template.key === state.template }, template.name + " — " + template.description)));
    templateSelect.addEventListener("change", () => { state.template = templateSelect.value; });
    const useTemplate = small(state.document ? "Replace with template" : "Start from template", () => {
      state.template = templateSelect.value;
      const template = templates.find((candidate) => candidate.key === templateSelect.value);
      state.document = documentFromTemplate(template, state.products);
      state.locale = state.document.default_locale;
      state.selected = null;
      rebuilt();
    }, { id: "use-template" });
    const products = el("input", { id: "flow-products", value: state.products.join(", ") });
    products.addEventListener("change", () => {
      state.products = products.value.split(",").map((id) => id.trim()).filter(Boolean);
      rebuilt();
    });
    const head = [el("div", { class: "row template" }, el("label", { for: "paywall-template" }, "Template"), templateSelect, useTemplate),
      el("div", { class: "field" }, el("label", { for: "flow-products" }, "Flow products (store ids, comma-separated)"), products)];
    if (!state.document) {
      editor.replaceChildren(...head, empty("This flow has no paywall yet: start from a template."));
      return;
    }
    const document = state.document;
    let panel;
    if (state.tab === "blocks") {
      panel = el("ol", { class: "blocks", id: "paywall-blocks" }, ...document.blocks.map((block, index) => {
        const move = (offset) => () => {
          const [moved] = document.blocks.splice(index, 1);
          document.blocks.splice(index + offset, 0, moved);
          rebuilt();
        };
        return el("li", { class: "block", "data-type": block.type },
          el("div", { class: "row" }, el("strong", {}, block.type.replace("_", " ")),
            index > 0 ? small("↑", move(-1), { "aria-label": "Move " + block.type + " up" }) : null,
            index < document.blocks.length - 1 ? small("↓", move(1), { "aria-label": "Move " + block.type + " down" }) : null,
            small("Remove", () => { document.blocks.splice(index, 1); rebuilt(); }, { "aria-label": "Remove " + block.type })),
          ...blockFields(block, index));
      }));
      const type = el("select", { id: "new-block-type", "aria-label": "Block type" }, ...paywallBlockTypes.map((name) => el("option", { value: name }, name.replace("_", " "))));
      const add = small("Add block", () => {
        const block = { type: type.value };
        if (["title", "subtitle", "text", "purchase_button", "restore_button", "custom_button", "footer"].includes(type.value)) block.text = { [state.locale]: "" };
        if (type.value === "custom_button") block.action_id = "login";
        if (type.value === "features") block.features = [];
        if (type.value === "products") { block.layout = "list"; block.products = state.products.map((product) => ({ product, detail: { [state.locale]: "{price} per {period}" } })); }
        if (type.value === "legal") Object.assign(block, { terms_text: { [state.locale]: "Terms" }, terms_url: "https://", privacy_text: { [state.locale]: "Privacy" }, privacy_url: "https://" });
        if (type.value === "image") block.height = 180;
        document.blocks.push(block);
        rebuilt();
      }, { id: "add-block" });
      panel = el("div", {}, panel, el("div", { class: "row" }, type, add));
    } else if (state.tab === "style") {
      const style = document.style;
      const colors = ["light", "dark"].map((appearance) => el("fieldset", { class: "item" }, el("legend", {}, appearance === "light" ? "Light colours" : "Dark colours"),
        ...paywallColorRoles.map((role) => {
          const input = el("input", { type: "color", id: "color-" + appearance + "-" + role, value: style.colors[appearance][role] });
          input.addEventListener("input", () => { style.colors[appearance][role] = input.value.toUpperCase(); changed(); });
          return el("div", { class: "field color" }, el("label", { for: "color-" + appearance + "-" + role }, role.replace("_", " ")), input);
        })));
      const textStyles = ["title", "body", "caption"].map((name) => el("fieldset", { class: "item" }, el("legend", {}, name),
        plain("Size", style.text_styles[name], "size", "style-" + name + "-size", "number"),
        choice("Weight", style.text_styles[name], "weight", "style-" + name + "-weight", ["regular", "medium", "semibold", "bold"].map((weight) => [weight, weight]))));
      const screen = document.screen;
      panel = el("div", { class: "style" }, el("div", { class: "columns" }, ...colors),
        el("div", { class: "columns" }, ...textStyles),
        el("div", { class: "columns" }, plain("Corner radius", style, "corner_radius", "style-corner-radius", "number"),
          plain("Spacing", style, "spacing", "style-spacing", "number"),
          choice("Close button", screen.close_button, "position", "close-position", [["top_right", "Top right"], ["top_left", "Top left"], ["none", "None"]]),
          plain("Close button delay (ms)", screen.close_button, "delay_ms", "close-delay", "number")));
    } else {
      const text = el("textarea", { id: "paywall-json", spellcheck: "false", rows: "24" });
      text.value = JSON.stringify(document, null, 2);
      const problem = el("p", { class: "error", role: "alert", hidden: true });
      const use = small("Use this JSON", () => {
        try {
          state.document = JSON.parse(text.value);
          rebuilt();
        } catch (error) {
          problem.textContent = "Not JSON: " + error.message;
          problem.hidden = false;
        }
      }, { id: "use-json" });
      panel = el("div", {}, text, use, problem);
    }
    editor.replaceChildren(...head, tabs, panel);
  }

  function drawPrices() {
    const rows = storeProducts().map((product) => {
      const input = (key, label) => {
        const field = el("input", { value: product[key] || "", "aria-label": label + " of " + product.id, class: "short" });
        field.addEventListener("input", () => {
          product[key] = field.value || null;
          if (key === "display_price") product.price = (field.value.match(/[\d.,]+/) || ["0"])[0].replace(",", ".");
          changed();
        });
        return field;
      };
      const trial = el("input", { type: "checkbox", class: "check", checked: !!product.intro, "aria-label": "Free week of " + product.id });
      trial.addEventListener("change", () => { product.intro = trial.checked ? { kind: "free_trial", period: "P1W" } : null; changed(); });
      return [product.id, input("display_price", "Price"), input("period", "Period"), trial];
    });
    prices.replaceChildren(el("h3", {}, "Sample store prices"),
      table("Sample store prices", [["Product"], ["Price"], ["Period"], ["Free week"]], rows, { id: "paywall-prices-table" }));
  }

  function drawPreview() {
    if (!state.document) { preview.replaceChildren(); return; }
    let tree;
    try {
      tree = resolvePaywall({ document: state.document, products: storeProducts(), locale: state.locale, appearance: state.appearance,
        eligible_for_intro: state.eligible, selected: state.selected });
    } catch (error) {
      preview.replaceChildren(el("p", { class: "error", role: "alert" }, "Cannot preview: " + (error.message || error.code || error)));
      return;
    }
    preview.replaceChildren(...paywallPhones.map(([name, width, height]) => el("figure", { class: "phone-frame" },
      el("div", { class: "phone", "data-size": width + "x" + height }, drawPaywall(tree, width, height)),
      el("figcaption", {}, name + " · " + width + " × " + height))));
  }

  function drawPaywall(tree, width, height) {
    const color = (role) => tree.colors[role] || role;
    const screen = el("div", { class: "screen", role: "img", "aria-label": "Paywall preview " + width + " × " + height });
    screen.style.width = width + "px";
    screen.style.height = height + "px";
    screen.style.background = color(tree.background.color || "background");
    if (tree.background.image) {
      screen.style.backgroundImage = "url(/v1/assets/" + tree.background.image + ")";
      screen.style.backgroundSize = "cover";
    }
    const font = (node, style, role) => {
      const text = tree.text_styles[style] || { size: 17, weight: "regular" };
      node.style.fontSize = text.size + "px";
      node.style.fontWeight = { regular: 400, medium: 500, semibold: 600, bold: 700 }[text.weight] || 400;
      node.style.color = color(role);
      return node;
    };
    const stack = el("div", { class: "stack" });
    stack.style.gap = tree.spacing + "px";
    // Below the status bar (safe area) and the close button's row.
    const top = (tree.safe_area === "respect" ? 54 : 0) + (tree.close_button.position === "none" ? tree.spacing : 44);
    stack.style.padding = top + "px " + tree.spacing + "px " + tree.spacing + "px";
    for (const block of tree.blocks) {
      let node;
      switch (block.type) {
        case "image":
          // No file picked yet: a placeholder where the image will be (the SDK draws nothing).
          node = block.image ? el("img", { class: "image", alt: "", src: "/v1/assets/" + block.image })
            : font(el("div", { class: "image placeholder" }, "Image: pick a file"), "caption", "secondary_text");
          node.style.height = (block.height || 180) + "px";
          node.style.borderRadius = tree.corner_radius + "px";
          break;
        case "features":
          node = el("ul", { class: "features" }, ...block.features.map((feature) => {
            const icon = el("span", { class: "icon", title: feature.icon, "aria-hidden": "true" });
            icon.style.background = color("accent");
            return el("li", {}, icon, font(el("span", {}, feature.text), "body", "text"));
          }));
          break;
        case "products":
          node = el("div", { class: "products " + block.layout }, ...block.products.map((product) => {
            const card = el("button", { type: "button", class: "product", "data-product": product.id, "aria-pressed": String(product.selected) },
              el("span", { class: "line" }, font(el("span", {}, product.title), "body", "text"),
                product.badge ? font(el("span", { class: "badge" }, product.badge), "caption", "on_accent") : null),
              font(el("span", { class: "detail" }, product.detail), "caption", "secondary_text"));
            card.style.background = color(product.selected ? "card" : "background");
            card.style.borderColor = color(product.selected ? "accent" : "card");
            card.style.borderRadius = tree.corner_radius + "px";
            const badge = card.querySelector(".badge");
            if (badge) badge.style.background = color("accent");
            card.addEventListener("click", () => { state.selected = product.id; changed(); });
            return card;
          }));
          break;
        case "purchase_button":
          node = font(el("div", { class: "purchase" }, block.text), "body", "on_accent");
          node.style.background = color("accent");
          node.style.borderRadius = tree.corner_radius + "px";
          break;
        case "legal":
          node = el("div", { class: "legal" }, ...block.links.map((link) => font(el("span", { title: link.url }, link.title), "caption", "secondary_text")));
          break;
        case "restore_button":
          node = font(el("div", { class: "restore" }, block.text), "caption", "secondary_text");
          break;
        case "custom_button":
          node = font(el("div", { class: "custom", title: "Action: " + block.action }, block.text), "body", "accent");
          break;
        case "footer":
          node = font(el("p", { class: "footer" }, block.text), "caption", "secondary_text");
          break;
        default:
          node = font(el("p", { class: block.type }, block.text), block.style, block.type === "subtitle" ? "secondary_text" : "text");
      }
      node.setAttribute("data-block", block.type);
      stack.append(node);
    }
    screen.append(stack);
    if (tree.close_button.position !== "none") {
      const close = el("span", { class: "close " + tree.close_button.position, "aria-hidden": "true" }, "×");
      close.style.color = color("secondary_text");
      close.style.top = (tree.safe_area === "respect" ? 54 : 8) + "px";
      screen.append(close);
    }
    return screen;
  }

  const apply = el("button", { type: "button", id: "apply-paywall" }, "Validate and apply");
  apply.addEventListener("click", async () => {
    const document = clone(current.document);
    const flow = document.flows.find((candidate) => candidate.id === state.flowId);
    flow.products = state.products;
    if (state.document) flow.paywall = state.document;
    apply.disabled = true;
    try {
      const answer = await api("/v1/admin/config", "PUT", document);
      paywallNotice = "Applied as revision " + answer.revision + ": the SDK gets the paywall on its next request.";
      paywallState = null;
      route();
    } catch (error) {
      apply.disabled = false;
      result.replaceChildren(...refusal(error, "paywall-errors"));
    }
  });
  if (paywallNotice) {
    result.replaceChildren(el("p", { class: "ok", role: "status" }, paywallNotice));
    paywallNotice = null;
  }
  rebuilt();
  view.replaceChildren(el("h1", {}, "Paywalls"),
    el("p", { class: "hint" }, "Design a flow's paywall; the SDK's AdaptyUI draws it. Applying it makes a new configuration revision (see Configuration for history and rollback)."),
    controls,
    el("div", { class: "builder" }, el("div", { class: "card" }, editor),
      el("div", {}, preview, el("div", { class: "card" }, prices, apply, result))));
};
