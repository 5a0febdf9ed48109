// Profit or loss at expiration, as the underlying's closing price varies, of option legs and the shares beside them:
// a trade in the option sheet, or what a learner holds on one underlying. The curve is straight between strikes, so
// its exact decimal values at the strikes and at the ends of the range are the whole of it; the SVG draws them with
// the zero line, the stock's price now and the breakevens marked.
import * as D from './decimal.js';
import * as F from './format.js';
import { t } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';

/**
 * Profit or loss of `legs` if the underlying closes at `x` on expiration day. A leg is an option
 * `{ right: 'call' | 'put', strike, qty, price, multiplier }` (qty in contracts, negative when written; price the
 * premium per share paid or received) or shares `{ right: null, qty, price }` (price: what each cost, or is worth now).
 * Every number is a decimal (decimal.js).
 */
export function profitAt(legs, x) {
  let total = D.zero;
  for (const leg of legs) {
    if (!leg.right) {
      total = D.add(total, D.mul(leg.qty, D.sub(x, leg.price)));
      continue;
    }
    const intrinsic = leg.right === 'call' ? D.sub(x, leg.strike) : D.sub(leg.strike, x);
    const value = D.sign(intrinsic) > 0 ? intrinsic : D.zero;
    total = D.add(total, D.mul(D.mul(leg.qty, leg.multiplier), D.sub(value, leg.price)));
  }
  return total;
}

const ratio = (text) => D.parse(text);
const LOW = ratio('0.7');
const HIGH = ratio('1.3');

/**
 * The points the curve bends at, with the ends of the range (30% below the lowest strike or price, 30% above the
 * highest, to the cent): `[{ x, pl }]` in increasing x.
 */
export function payoffPoints(legs, spot) {
  const strikes = legs.filter((l) => l.right).map((l) => l.strike);
  const marks = [...strikes, ...(spot ? [spot] : [])];
  if (!marks.length) return [];
  const min = marks.reduce((a, b) => (D.cmp(a, b) <= 0 ? a : b));
  const max = marks.reduce((a, b) => (D.cmp(a, b) >= 0 ? a : b));
  const xs = [D.round(D.mul(min, LOW), 2), ...strikes, D.round(D.mul(max, HIGH), 2)]
    .sort(D.cmp)
    .filter((x, i, all) => i === 0 || D.cmp(x, all[i - 1]) !== 0);
  return xs.map((x) => ({ x, pl: profitAt(legs, x) }));
}

/** The closing prices at which the profit is zero, to the cent: where the curve meets or crosses the zero line. */
export function breakevens(points) {
  const found = [];
  points.forEach((p, i) => {
    if (D.sign(p.pl) === 0) {
      found.push(D.round(p.x, 2));
      return;
    }
    const next = points[i + 1];
    if (!next || D.sign(next.pl) === 0 || D.sign(p.pl) === D.sign(next.pl)) return;
    // Straight between the two points: x = a + (b − a) × (−pl_a) ÷ (pl_b − pl_a).
    const step = D.div(D.mul(D.sub(next.x, p.x), D.neg(p.pl)), D.sub(next.pl, p.pl), 4);
    found.push(D.round(D.add(p.x, step), 2));
  });
  return found.filter((x, i) => i === 0 || D.cmp(x, found[i - 1]) !== 0);
}

function node(name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

/**
 * The chart in a figure, with a caption that says what it shows and where it breaks even. The figure carries the
 * exact points (`data-points`: [[price, profit], …]) and breakevens (`data-breakevens`) it was drawn from.
 */
export function payoffFigure(legs, spot, currency, caption) {
  const points = payoffPoints(legs, spot);
  const even = breakevens(points);
  const w = 600, hgt = 180, pad = 8;
  const svg = node('svg', { viewBox: `0 0 ${w} ${hgt}`, class: 'payoff-chart', role: 'img', 'aria-label': t('options.payoff.title') });
  const figure = document.createElement('figure');
  figure.className = 'payoff';
  figure.dataset.testid = 'payoff';
  figure.dataset.points = JSON.stringify(points.map((p) => [D.format(p.x, null, false), D.format(p.pl, null, false)]));
  figure.dataset.breakevens = JSON.stringify(even.map((x) => D.format(x, 2, false)));
  if (points.length < 2) return figure;
  const xs = points.map((p) => Number(D.format(p.x, null, false)));
  const ys = points.map((p) => Number(D.format(p.pl, null, false)));
  const [x0, x1] = [xs[0], xs[xs.length - 1]];
  const top = Math.max(0, ...ys), bottom = Math.min(0, ...ys);
  const span = top - bottom || 1;
  const px = (x) => pad + ((x - x0) * (w - 2 * pad)) / (x1 - x0 || 1);
  const py = (y) => pad + ((top - y) * (hgt - 2 * pad)) / span;
  svg.append(node('line', { class: 'zero', x1: pad, x2: w - pad, y1: py(0).toFixed(1), y2: py(0).toFixed(1) }));
  if (spot) {
    const s = px(Number(D.format(spot, null, false)));
    svg.append(node('line', { class: 'spot', x1: s.toFixed(1), x2: s.toFixed(1), y1: pad, y2: hgt - pad }));
  }
  // Profit above the zero line, loss below: the same line, clipped into two colours.
  const line = points.map((p, i) => `${px(xs[i]).toFixed(1)},${py(ys[i]).toFixed(1)}`).join(' ');
  const zeroY = py(0);
  const clip = (id, y, height) => {
    const c = node('clipPath', { id });
    c.append(node('rect', { x: 0, y: y.toFixed(1), width: w, height: Math.max(0, height).toFixed(1) }));
    return c;
  };
  const key = `payoff-${Math.random().toString(36).slice(2, 8)}`;
  const defs = node('defs', {});
  defs.append(clip(`${key}-up`, 0, zeroY), clip(`${key}-down`, zeroY, hgt - zeroY));
  svg.append(defs,
    node('polyline', { class: 'gain', points: line, 'clip-path': `url(#${key}-up)` }),
    node('polyline', { class: 'loss', points: line, 'clip-path': `url(#${key}-down)` }));
  for (const x of even) {
    svg.append(node('circle', { class: 'breakeven', cx: px(Number(D.format(x, null, false))).toFixed(1), cy: zeroY.toFixed(1), r: 4 }));
  }
  const money = (v) => F.money(D.format(v, 2, false), currency);
  const signed = (v) => F.signedMoney(D.format(v, 2, false), currency);
  const [first, last] = [points[0], points[points.length - 1]];
  const ends = t('options.payoff.ends', { low: money(first.x), lowPl: signed(first.pl), high: money(last.x), highPl: signed(last.pl) });
  const caption_ = document.createElement('figcaption');
  caption_.append(
    Object.assign(document.createElement('strong'), { textContent: caption ?? t('options.payoff.title') }),
    Object.assign(document.createElement('span'), {
      className: 'sub',
      textContent: [
        even.length ? t('options.payoff.breakeven', { prices: even.map(money).join(', ') }) : t('options.payoff.no_breakeven'),
        ends,
      ].join(' · '),
    }));
  figure.append(svg, caption_);
  return figure;
}
