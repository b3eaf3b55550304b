// The play page's strings: the page's language and its gettext catalog
// (hub/locale/LANG/LC_MESSAGES/web.po), which the hub chose from ?lang=
// and Accept-Language and put in the page (hub/web/i18n.py).  A key is
// the English text; {0}, {1}... are filled in by t().

const body = document.body;
export const language = body.dataset.lang || "en";
const CATALOG = JSON.parse(body.dataset.catalog || "{}");
const LANGUAGES = {en: "English", zh: "中文"};

export function t(text, ...args) {
  const translated = CATALOG[text] || text;
  return translated.replace(/\{(\d+)\}/g, (_, i) => String(args[i]));
}

// The other languages, as [code, name in that language].
export function otherLanguages() {
  return Object.entries(LANGUAGES).filter(([code]) => code !== language);
}
