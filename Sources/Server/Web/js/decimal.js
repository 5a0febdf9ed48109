// Exact decimal arithmetic for amounts, prices and quantities the app computes or formats.
// The API sends decimals as strings ("317.83"); they never pass through floating point here.
// A value is {n: BigInt, s: scale} meaning n / 10^s.

const DECIMAL = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/;

export function parse(text) {
  if (text === null || text === undefined) return null;
  const m = DECIMAL.exec(String(text));
  if (!m || (m[2] === '' && (m[3] === undefined || m[3] === ''))) return null;
  const frac = m[3] || '';
  const n = BigInt((m[2] || '0') + frac) * (m[1] === '-' ? -1n : 1n);
  return { n, s: frac.length };
}

function align(a, b) {
  const s = Math.max(a.s, b.s);
  return [a.n * 10n ** BigInt(s - a.s), b.n * 10n ** BigInt(s - b.s), s];
}

export const add = (a, b) => { const [x, y, s] = align(a, b); return { n: x + y, s }; };
export const sub = (a, b) => { const [x, y, s] = align(a, b); return { n: x - y, s }; };
export const mul = (a, b) => ({ n: a.n * b.n, s: a.s + b.s });
export const cmp = (a, b) => { const [x, y] = align(a, b); return x < y ? -1 : x > y ? 1 : 0; };
export const sign = (a) => (a.n < 0n ? -1 : a.n > 0n ? 1 : 0);
export const neg = (a) => ({ n: -a.n, s: a.s });
export const abs = (a) => (a.n < 0n ? neg(a) : a);
export const zero = { n: 0n, s: 0 };

/** a ÷ b rounded half away from zero to `places` digits; null when b is zero. */
export function div(a, b, places) {
  if (b.n === 0n) return null;
  let num = a.n * 10n ** BigInt(b.s + places + 1);
  let den = b.n * 10n ** BigInt(a.s);
  if (den < 0n) { num = -num; den = -den; }
  let q = num / den;
  const last = q % 10n;
  q /= 10n;
  if (last >= 5n) q += 1n;
  if (last <= -5n) q -= 1n;
  return { n: q, s: places };
}

/** Multiplies by 10^k (k may be negative): 0.0123 → 1.23 with k = 2, exactly. */
export function shift(a, k) {
  return k >= 0 ? { n: a.n * 10n ** BigInt(k), s: a.s } : { n: a.n, s: a.s - k };
}

/** Rounds half away from zero to `places` digits. */
export function round(a, places) {
  if (a.s <= places) return { n: a.n * 10n ** BigInt(places - a.s), s: places };
  const f = 10n ** BigInt(a.s - places);
  const q = a.n / f;
  const r = a.n % f;
  const half = 2n * (r < 0n ? -r : r) >= f;
  return { n: half ? q + (a.n < 0n ? -1n : 1n) : q, s: places };
}

/** Is `a` a whole multiple of the integer `lot`? */
export function isMultipleOf(a, lot) {
  const f = 10n ** BigInt(a.s);
  return a.n % (BigInt(lot) * f) === 0n;
}

export const isInteger = (a) => a.n % 10n ** BigInt(a.s) === 0n;

/**
 * Text with exactly `places` decimals (or, with places = null, the shortest exact text) and, when `group`
 * is set, thousands separators: format(parse("1234.5"), 2, true) → "1,234.50".
 */
export function format(a, places = 2, group = true) {
  let v = places === null ? trim(a) : round(a, places);
  const negative = v.n < 0n;
  let digits = (negative ? -v.n : v.n).toString().padStart(v.s + 1, '0');
  let int = digits.slice(0, digits.length - v.s);
  const frac = digits.slice(digits.length - v.s);
  if (group) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (negative ? '-' : '') + int + (frac ? '.' + frac : '');
}

function trim(a) {
  let { n, s } = a;
  while (s > 0 && n % 10n === 0n) { n /= 10n; s -= 1; }
  return { n, s };
}

/** A number for charts only (display geometry, never money). */
export const toNumber = (a) => Number(format(a, null, false));
