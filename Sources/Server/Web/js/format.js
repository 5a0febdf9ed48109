// How amounts, changes, quantities and dates look in the app. Inputs are the API's decimal strings.
import * as D from './decimal.js';
import { t, lang, locale } from './i18n.js';

const SYMBOLS = { USD: '$', CNY: '¥' };

export const currencySymbol = (currency) => SYMBOLS[currency] ?? '';

/** "$1,234.56", "-¥12.30"; "—" when missing. */
export function money(text, currency = 'USD', places = 2) {
  const v = D.parse(text);
  if (!v) return '—';
  const body = D.format(D.abs(v), places);
  return (D.sign(v) < 0 ? '-' : '') + currencySymbol(currency) + body;
}

/** "27,700.00 EUR", "150,120 JPY": an amount of a currency by its code, to its minor unit (the yen has none). */
export function currencyAmount(text, currency) {
  const v = D.parse(text);
  if (!v) return '—';
  return `${D.format(v, currency === 'JPY' ? 0 : 2)} ${currency}`;
}

/** "+$1.20", "-$3.00", "$0.00": for changes and signed transaction amounts. */
export function signedMoney(text, currency = 'USD') {
  const v = D.parse(text);
  if (!v) return '—';
  const s = D.sign(D.round(v, 2));
  return (s > 0 ? '+' : s < 0 ? '-' : '') + currencySymbol(currency) + D.format(D.abs(v), 2);
}

/** A price with the places it needs (at least 2): "317.80", "0.0123". */
export function price(text) {
  const v = D.parse(text);
  if (!v) return '—';
  // Up to four decimals; a coin under a dollar (DOGE at $0.412345) keeps its six.
  const below1 = D.cmp(D.abs(v), { n: 1n, s: 0 }) < 0;
  return D.format(v, Math.max(2, Math.min(v.s, below1 ? 6 : 4)));
}

/** A quote's name in the user's language: its Chinese name on Chinese screens where there is one (比特币). */
export function displayName(quote) {
  return (lang() === 'zh-Hans' && quote?.chinese_name) || quote?.name;
}

/** The coin of a crypto pair ("BTC/USD" → "BTC"), or null for any other symbol. */
export function coinOf(symbol) {
  const i = (symbol ?? '').indexOf('/');
  return i > 0 ? symbol.slice(0, i) : null;
}

/** A coin quantity to eight decimals at most, without trailing zeros ("0.01246875", "2.5"). */
export function coins(text) {
  const v = D.parse(text);
  return v ? D.format(D.parse(D.format(v, 8, false)), null) : '—';
}

/** "+1.23%" from a percent string ("1.23"); `fraction` for ratios ("0.0123" → "+1.23%"). */
export function percent(text, { fraction = false } = {}) {
  let v = D.parse(text);
  if (!v) return '—';
  if (fraction) v = D.shift(v, 2);
  // Two places; a small change that would read as 0.00% (¥15.84 on ¥1,000,000) gets the places it needs, up to six,
  // so a return never reads as nothing beside a money gain.
  let places = 2;
  while (places < 6 && D.sign(v) && !D.sign(D.round(v, places))) places += 1;
  const r = D.round(v, places);
  return (D.sign(r) > 0 ? '+' : '') + D.format(r, places) + '%';
}

export function signedNumber(text, places = 2) {
  const v = D.parse(text);
  if (!v) return '—';
  const r = D.round(v, places);
  return (D.sign(r) > 0 ? '+' : '') + D.format(r, places);
}

/** "3", "1,200", "0.5": quantities keep their exact digits. */
export function qty(text) {
  const v = D.parse(text);
  return v ? D.format(v, null) : '—';
}

/** "1.2M", "35.4K" for volumes and turnover (display only); in Chinese "3.52万", "1.20亿". */
export function compact(text) {
  const v = D.parse(text);
  if (!v) return '—';
  const units = lang() === 'zh-Hans' ? [[12, '万亿'], [8, '亿'], [4, '万']] : [[12, 'T'], [9, 'B'], [6, 'M'], [3, 'K']];
  const whole = D.abs(v);
  for (const [exp, unit] of units) {
    if (D.cmp(whole, { n: 10n ** BigInt(exp), s: 0 }) >= 0) {
      return (D.sign(v) < 0 ? '-' : '') + D.format(D.shift(whole, -exp), 2) + unit;
    }
  }
  return D.format(v, null);
}

/** 'up' | 'down' | 'flat' for colouring and arrows. */
export function direction(text) {
  const v = D.parse(text);
  if (!v) return 'flat';
  const s = D.sign(D.round(v, 4));
  return s > 0 ? 'up' : s < 0 ? 'down' : 'flat';
}

export const ARROWS = { up: '▲', down: '▼', flat: '▶' };

/** "Saturday, November 21, 2026" ("2026年11月21日星期六") in the app's language. */
export function longDate(date = new Date()) {
  return date.toLocaleDateString(locale(), { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
}

/** "Nov 21, 14:05" (today: "14:05"), optionally in an exchange's time zone. */
export function dateTime(iso, timeZone) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  // "Today" in the zone the time is shown in (the exchange's, when given), not the browser's.
  const day = (date) => date.toLocaleDateString('en-CA', timeZone ? { timeZone } : {});
  const sameDay = day(d) === day(new Date());
  const options = sameDay ? { hour: '2-digit', minute: '2-digit' }
    : { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' };
  if (timeZone) options.timeZone = timeZone;
  return d.toLocaleString(locale(), options);
}

export function shortDate(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString(locale(), { year: 'numeric', month: 'short', day: 'numeric' });
}

/** A calendar date ("2026-10-28", no time of day) as "Wed, Oct 28" ("10月28日周三"); with `year`, the year too. */
export function calendarDate(ymd, { year = false } = {}) {
  const [y, m, d] = String(ymd).split('-').map(Number);
  if (!y || !m || !d) return '';
  const options = { weekday: 'short', month: 'short', day: 'numeric' };
  if (year) options.year = 'numeric';
  return new Date(y, m - 1, d).toLocaleDateString(locale(), options);
}

/** An index's name as the app's language knows it ("上证指数"), else the server's. */
export const indexName = (symbol, name) => { const known = t(`index.${symbol}`); return known === `index.${symbol}` ? name : known; };

/** A fee's name as people know it ("Stamp duty", "印花税"). */
export const feeName = (kind) => { const name = t(`fee.${kind}`); return name === `fee.${kind}` ? kind : name; };

/** "1 share", "3 shares", "1.5 shares". */
export function shares(text) {
  const v = D.parse(text);
  const one = v && D.cmp(v, { n: 1n, s: 0 }) === 0;
  return t(one ? 'shares.one' : 'shares.other', { qty: qty(text) });
}

/** The underlying of an OCC option symbol ("AAPL261218C00250000" → "AAPL"), or null for any other symbol. */
export function optionUnderlying(symbol) {
  // The root may be adjusted after a split (NVDA1): its underlying is the root without the digit.
  const m = /^([A-Z][A-Z0-9]{0,5})\d{6}[CP]\d{8}$/.exec(symbol ?? '');
  return m ? m[1].replace(/\d+$/, '') : null;
}

/**
 * An option contract's name in the user's language: the server's (Alpaca's "AAPL Dec 18 2026 250 Call") in English
 * (made from the symbol when there is none), "AAPL 2026年12月18日 250 看涨" in Chinese; `name` unchanged for anything
 * that is not an OCC symbol.
 */
export function contractName(symbol, name) {
  const m = /^([A-Z][A-Z0-9]{0,5})(\d{2})(\d{2})(\d{2})([CP])(\d{8})$/.exec(symbol ?? '');
  if (!m || (name && !lang().startsWith('zh'))) return name;
  const strike = D.format(D.shift({ n: BigInt(m[6]), s: 0 }, -3), null, false);
  if (!lang().startsWith('zh')) {
    const month = new Date(Date.UTC(2000, +m[3] - 1, 1)).toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
    return `${m[1]} ${month} ${m[4]} 20${m[2]} ${strike} ${m[5] === 'C' ? 'Call' : 'Put'}`;
  }
  const date = new Date(`20${m[2]}-${m[3]}-${m[4]}T12:00:00Z`).toLocaleDateString(locale(),
    { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
  return `${m[1]} ${date} ${strike} ${t(m[5] === 'C' ? 'options.right.call' : 'options.right.put')}`;
}

/** What a row calls a symbol: an option contract by its name (`contractName`), a stock by its symbol. */
export function instrumentLabel(symbol) { return optionUnderlying(symbol) ? contractName(symbol) : symbol; }

/** The stock page a symbol's row leads to: an option's underlying, else the symbol's own. */
export function stockRoute(symbol) {
  return `#/stock/${encodeURIComponent(optionUnderlying(symbol) ?? symbol)}`;
}

/** "2 contracts" for an option's quantity ("2 contracts written" for a short one), "0.5 BTC" for a crypto pair's,
 * "1,000.00 USD" for a currency pair's, "2 shares" for a stock's. */
export function holdingQty(symbol, text) {
  const coin = coinOf(symbol);
  if (coin) return `${coins(text)} ${coin}`;
  // A currency pair's quantity is an amount of its base currency ("27,700.00 EUR" of EUR.USD).
  const pair = /^([A-Z]{3})\.([A-Z]{3})$/.exec(symbol);
  if (pair) return currencyAmount(text, pair[1]);
  if (!optionUnderlying(symbol)) return shares(text);
  const v = D.parse(text);
  const one = v && D.cmp(D.abs(v), { n: 1n, s: 0 }) === 0;
  const written = v && D.sign(v) < 0;
  return t(`contracts${written ? '.written' : ''}.${one ? 'one' : 'other'}`, { qty: qty(written ? text.replace('-', '') : text) });
}
