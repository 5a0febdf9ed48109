// The web app's texts: one catalogue per language (i18n/en.js, i18n/zh-Hans.js, keyed alike — a test fails when
// a key is missing in either). t('key', {name: value}) fills {name}; t.count('key', n) picks key.one or key.other.
// The language is the user's choice (kept on the server, so notifications and pushes use it too), else the
// browser's; numbers, dates and money are formatted with its locale (format.js).
import en from './i18n/en.js';
import zhHans from './i18n/zh-Hans.js';

const catalogues = { en, 'zh-Hans': zhHans };
/** The languages the Settings switch offers, each named in itself. */
export const AVAILABLE = ['en', 'zh-Hans'];
export const NAMES = { en: 'English', 'zh-Hans': '简体中文' };
let current = 'en';

/** The language for a BCP 47 tag ("zh-CN" → zh-Hans), or null. */
export function fromTag(tag) {
  const lower = String(tag || '').toLowerCase();
  if (lower === 'en' || lower.startsWith('en-')) return 'en';
  if (lower === 'zh' || lower.startsWith('zh-hans') || ['zh-cn', 'zh-sg', 'zh-my'].includes(lower)) return 'zh-Hans';
  return null;
}

/** Picks the language: the user's choice, else the first of the browser's languages papertrade has. */
export function choose(userChoice) {
  const wanted = [userChoice, ...(navigator.languages || [navigator.language])].map(fromTag).filter(Boolean);
  current = wanted.find((l) => AVAILABLE.includes(l)) ?? 'en';
  document.documentElement.lang = current;
  // theme.js reads it before the next first paint: Chinese defaults to red-up price colours.
  localStorage.setItem('papertrade.language', current);
  document.dispatchEvent(new Event('papertrade:theme'));
  return current;
}

export const lang = () => current;
/** The Intl locale of the language. */
export const locale = () => (current === 'zh-Hans' ? 'zh-CN' : 'en-US');

export function t(key, values = {}) {
  const template = catalogues[current][key] ?? en[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
/**
 * Adds a screen's own texts (`{ en: {...}, 'zh-Hans': {...} }`, from i18n/<screen>.<language>.js) to the catalogues:
 * screens outside the offline shell bring their words with them.
 */
export function addTexts(chunks) {
  for (const [language, texts] of Object.entries(chunks)) Object.assign(catalogues[language], texts);
}

/** Whether the catalogues have `key` (for words from data that we translate when we know them). */
t.has = (key) => key in en;
t.count = (key, n, values = {}) => t(`${key}.${Number(n) === 1 ? 'one' : 'other'}`, { n, ...values });
