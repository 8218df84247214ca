// Paywall resolution: (document, store products, locale, appearance, eligibility, selection) →
// a tree of blocks with final texts. The same step as the SDK's PaywallResolution (Swift); both
// are checked against Fixtures/paywalls/ (this one in Chromium by the console test).

const paywallSupportedVersion = 1;
const paywallTokens = ["price", "period", "price_per_week", "price_per_month", "product_title", "intro_offer", "intro_price", "trial_days"];
const paywallWords = {
  en: { units: { D: ["day", "days"], W: ["week", "weeks"], M: ["month", "months"], Y: ["year", "years"] }, free: "free" },
  fr: { units: { D: ["jour", "jours"], W: ["semaine", "semaines"], M: ["mois", "mois"], Y: ["an", "ans"] }, free: "gratuit" },
  de: { units: { D: ["Tag", "Tage"], W: ["Woche", "Wochen"], M: ["Monat", "Monate"], Y: ["Jahr", "Jahre"] }, free: "gratis" },
  es: { units: { D: ["día", "días"], W: ["semana", "semanas"], M: ["mes", "meses"], Y: ["año", "años"] }, free: "gratis" },
};

const normalizeLocale = (locale) => locale.toLowerCase().replaceAll("_", "-");
const byCodePoint = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

// The best locale among `available` (as the server and SDK pick remote configs): exact, bare
// language, another region of it, `en`, else the first.
function bestLocale(requested, available) {
  const sorted = [...available].sort(byCodePoint);
  if (!sorted.length) return null;
  if (requested) {
    const wanted = normalizeLocale(requested);
    const language = wanted.split("-")[0];
    const found = sorted.find((l) => normalizeLocale(l) === wanted) || sorted.find((l) => normalizeLocale(l) === language)
      || sorted.find((l) => normalizeLocale(l).startsWith(language + "-"));
    if (found) return found;
  }
  return sorted.find((l) => normalizeLocale(l) === "en") || sorted[0];
}

// Every localized text of a document (objects by locale), in document order.
function paywallTexts(document) {
  const texts = [];
  const add = (text) => { if (text && typeof text === "object") texts.push(text); };
  for (const block of document.blocks || []) {
    [block.text, block.intro_text, block.terms_text, block.privacy_text].forEach(add);
    (block.features || []).forEach((feature) => add(feature.text));
    (block.products || []).forEach((item) => [item.title, item.detail, item.intro_detail, item.badge].forEach(add));
  }
  return texts;
}

// Every locale a document has texts in, its default first.
function paywallLocales(document) {
  return [...new Set([document.default_locale, ...paywallTexts(document).flatMap((text) => Object.keys(text))])];
}

function paywallDocumentLocale(document, requested) {
  const locales = paywallLocales(document);
  const best = bestLocale(requested, locales) || document.default_locale;
  const wanted = normalizeLocale(requested);
  const language = wanted.split("-")[0];
  const normalized = normalizeLocale(best);
  return normalized === wanted || normalized === language || normalized.startsWith(language + "-") ? best : document.default_locale;
}

function parsePeriod(period) {
  const match = /^P(\d+)([DWMY])$/.exec(period || "");
  if (!match || Number(match[1]) <= 0) return null;
  return [Number(match[1]), match[2]];
}

// `amount` written like the store's display price: its number replaced, with its decimals (0 or 2) and mark.
function writtenLike(amount, displayPrice) {
  const characters = [...displayPrice];
  const digit = (c) => c !== undefined && c >= "0" && c <= "9";
  const start = characters.findIndex(digit);
  if (start < 0) return displayPrice;
  let end = start;
  while (end + 1 < characters.length && (digit(characters[end + 1])
    || (",.".includes(characters[end + 1]) && end + 2 < characters.length && digit(characters[end + 2])))) end += 1;
  const number = characters.slice(start, end + 1);
  const markAt = number.length - 3;
  const mark = number.length >= 4 && ",.".includes(number[markAt]) ? number[markAt] : null;
  let text;
  if (mark) {
    const cents = Math.round(amount * 100);
    const fraction = String(cents % 100);
    text = Math.trunc(cents / 100) + mark + (fraction.length === 1 ? "0" + fraction : fraction);
  } else {
    text = String(Math.round(amount));
  }
  return characters.slice(0, start).join("") + text + characters.slice(end + 1).join("");
}

function paywallTokenValue(token, product, locale) {
  if (!product) return "";
  const table = paywallWords[normalizeLocale(locale).split("-")[0]] || paywallWords.en;
  switch (token) {
    case "price": return product.display_price;
    case "product_title": return product.title;
    case "period": {
      const period = parsePeriod(product.period);
      if (!period) return "";
      const names = table.units[period[1]];
      return period[0] === 1 ? names[0] : period[0] + " " + names[1];
    }
    case "price_per_week": case "price_per_month": {
      const period = parsePeriod(product.period);
      const price = Number(product.price);
      if (!period || product.price === "" || Number.isNaN(price)) return "";
      const [count, unit] = period;
      const weeks = { D: count / 7, W: count, M: count * 52 / 12, Y: count * 52 }[unit];
      const months = { D: count / 30, W: count * 12 / 52, M: count, Y: count * 12 }[unit];
      return writtenLike(price / (token === "price_per_week" ? weeks : months), product.display_price);
    }
    case "intro_price": return (product.intro && product.intro.display_price) || "";
    case "intro_offer":
      if (!product.intro) return "";
      return product.intro.kind === "free_trial" ? table.free : product.intro.display_price || "";
    case "trial_days": {
      const intro = product.intro;
      const period = intro && intro.kind === "free_trial" ? parsePeriod(intro.period) : null;
      return period ? String(period[0] * { D: 1, W: 7, M: 30, Y: 365 }[period[1]]) : "";
    }
    default: return "";
  }
}

function fillPaywallTokens(text, product, locale) {
  return text.replace(/\{([^{}]*)\}/g, (whole, name) => (paywallTokens.includes(name) ? paywallTokenValue(name, product, locale) : whole));
}

// Throws {code: "unsupported_version"} for a document newer than this console reads.
function resolvePaywall(input) {
  const document = input.document;
  if (document.version > paywallSupportedVersion) throw Object.assign(new Error("unsupported version"), { code: "unsupported_version" });
  const locale = paywallDocumentLocale(document, input.locale);
  const products = new Map();
  for (const product of input.products) if (!products.has(product.id)) products.set(product.id, product);
  const picker = document.blocks.find((block) => block.type === "products");
  const offered = ((picker && picker.products) || []).map((item) => item.product).filter((id) => products.has(id));
  const selectedId = [input.selected, picker && picker.selected].filter((id) => id !== undefined && id !== null).find((id) => offered.includes(id))
    || offered[0] || (input.products[0] && input.products[0].id);
  const selected = selectedId !== undefined ? products.get(selectedId) : undefined;
  const text = (value) => (value ? value[locale] ?? value[document.default_locale] ?? "" : "");
  const eligible = (product) => input.eligible_for_intro && !!(product && product.intro);
  const fill = (template, intro, product) => fillPaywallTokens(text(eligible(product) && intro ? intro : template), product, locale);
  const appearance = input.appearance === "dark" ? "dark" : "light";
  const colors = document.style.colors[appearance] || {};
  const blocks = [];
  for (const block of document.blocks) {
    const resolved = { type: block.type };
    switch (block.type) {
      case "image":
        if (block.asset !== undefined) resolved.image = block.asset;
        if (block.height !== undefined) resolved.height = block.height;
        break;
      case "title":
        Object.assign(resolved, { text: fill(block.text, block.intro_text, selected), style: "title" });
        break;
      case "subtitle": case "text": case "purchase_button": case "restore_button":
        Object.assign(resolved, { text: fill(block.text, block.intro_text, selected), style: "body" });
        break;
      case "custom_button":
        Object.assign(resolved, { text: fill(block.text, null, selected), style: "body", action: block.action_id });
        break;
      case "footer":
        Object.assign(resolved, { text: fill(block.text, block.intro_text, selected), style: "caption" });
        break;
      case "features":
        resolved.style = "body";
        resolved.features = (block.features || []).map((feature) => ({ icon: feature.icon, text: fillPaywallTokens(text(feature.text), selected, locale) }));
        break;
      case "products":
        resolved.layout = block.layout || "list";
        resolved.style = "body";
        resolved.products = (block.products || []).filter((item) => products.has(item.product)).map((item) => {
          const product = products.get(item.product);
          const line = {
            id: product.id, title: item.title ? fill(item.title, null, product) : product.title,
            detail: fill(item.detail, item.intro_detail, product), selected: product.id === selectedId,
          };
          if (item.badge) line.badge = fill(item.badge, null, product);
          return line;
        });
        break;
      case "legal":
        resolved.style = "caption";
        resolved.links = [[block.terms_text, block.terms_url], [block.privacy_text, block.privacy_url]]
          .filter(([, url]) => url !== undefined && url !== null)
          .map(([title, url]) => (block.links_presentation === "in_app" ? { title: text(title), url, presentation: "in_app" } : { title: text(title), url }));
        break;
      default:
        continue;
    }
    blocks.push(resolved);
  }
  const background = {};
  if (document.screen.background.color !== undefined) background.color = colors[document.screen.background.color] ?? document.screen.background.color;
  if (document.screen.background.image !== undefined) background.image = document.screen.background.image;
  return {
    locale, appearance, colors, background, safe_area: document.screen.safe_area, close_button: document.screen.close_button,
    corner_radius: document.style.corner_radius, spacing: document.style.spacing, text_styles: document.style.text_styles, blocks,
  };
}
