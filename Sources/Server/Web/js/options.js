// The option chain card on a stock page: pick an expiration, calls or puts, and read each strike's bid, ask, last,
// volume, open interest, implied volatility and delta. Strikes near the price come first; shaded rows are in the
// money. Hidden for stocks without listed options (A-shares, small caps).
import * as api from './api.js';
import * as D from './decimal.js';
import * as F from './format.js';
import { t, locale } from './i18n.js';
import { h, clear, segmented } from './ui.js';

/** Strikes shown each side of the price before "show all". */
const NEAR = 6;

/** "12.6%" from a ratio ("0.1263"). */
function volatility(text) {
  const v = D.parse(text);
  return v ? D.format(D.round(D.shift(v, 2), 1), 1) + '%' : '—';
}

/** "0.13" from "0.1295": delta to two places, signed for puts. */
function delta(text) {
  const v = D.parse(text);
  return v ? D.format(D.round(v, 2), 2) : '—';
}

/** An expiration date as the learner's calendar shows it (the date is New York's; shown as a date, not a time). */
function expirationDate(iso) {
  return new Date(`${iso}T12:00:00Z`).toLocaleDateString(locale(), { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}

export function optionChain(symbol, currency) {
  const element = h('section.card.options', { 'aria-labelledby': 'options-title', hidden: true });
  let expirations = [];
  let expiration = null;
  let right = 'call';
  let showAll = false;
  let chain = null;
  let destroyed = false;
  let timer = null;

  async function load() {
    try {
      const listed = await api.get(`/options/${api.enc(symbol)}`);
      if (destroyed) return;
      expirations = listed.expirations;
      expiration = (expirations.find((e) => e.days >= 7) ?? expirations[expirations.length - 1])?.date ?? null;
      if (!expiration) return;
      element.hidden = false;
      await refresh();
      timer = setInterval(refresh, 30000);
    } catch {
      element.hidden = true; // no options on this stock
    }
  }

  async function refresh() {
    if (!expiration || destroyed) return;
    try {
      const next = await api.get(`/options/${api.enc(symbol)}/chain` + api.query({ expiration }));
      if (destroyed) return;
      chain = next;
      render();
    } catch { /* keep the last chain on screen */ }
  }

  function row(r) {
    const side = r[right];
    if (!side) return null;
    return h(`tr${side.in_the_money ? '.itm' : ''}`, { dataset: { symbol: side.symbol } },
      h('th', { scope: 'row' }, F.price(r.strike)),
      h('td', F.price(side.bid)), h('td', F.price(side.ask)),
      h('td.not-narrow', side.last ? F.price(side.last) : '—'),
      h('td.wide-only', F.compact(String(side.volume))), h('td.wide-only', F.compact(String(side.open_interest))),
      h('td', volatility(side.implied_volatility)), h('td', delta(side.delta)));
  }

  function render() {
    if (!chain) return;
    const rows = chain.rows;
    const atm = rows.findIndex((r) => r.strike === chain.at_the_money);
    const from = showAll || atm < 0 ? 0 : Math.max(0, atm - NEAR);
    const to = showAll || atm < 0 ? rows.length : Math.min(rows.length, atm + NEAR + 1);
    const body = [];
    const price = D.parse(chain.price);
    let marked = false;
    for (const r of rows.slice(from, to)) {
      // The price line sits between the strikes below and above the stock's price.
      if (!marked && price && D.cmp(D.parse(r.strike), price) > 0) {
        marked = true;
        body.push(h('tr.price-line', h('td', { colspan: 8 }, t('options.underlying_at', { symbol, price: F.currencySymbol(currency) + F.price(chain.price) }))));
      }
      body.push(row(r));
    }
    const columns = [['strike', ''], ['bid', ''], ['ask', ''], ['last', '.not-narrow'], ['volume', '.wide-only'], ['open_interest', '.wide-only'], ['iv', ''], ['delta', '']];
    const select = h('select#option-expiration', { onchange: (e) => { expiration = e.target.value; showAll = false; refresh(); } },
      expirations.map((e) => h('option', { value: e.date, selected: e.date === expiration },
        (e.days === 0 ? t('options.expires_today', { date: expirationDate(e.date) }) : t('options.expires_in', { date: expirationDate(e.date), days: e.days }))
        + ' · ' + t(`options.kind.${e.kind}`))));
    clear(element,
      h('h2#options-title', t('options.title')),
      h('p.sub', t('options.help')),
      h('div.option-controls',
        h('label', { for: 'option-expiration' }, t('options.expiration')), select,
        segmented(t('options.title'), [['call', t('options.calls')], ['put', t('options.puts')]], right, (value) => { right = value; render(); })),
      h('div.table-scroll', h('table.option-chain',
        h('thead', h('tr', columns.map(([key, cls]) => h(`th${cls}`, { scope: 'col' }, t(`options.col.${key}`))))),
        h('tbody', body))),
      rows.length > to - from || showAll
        ? h('button.link', { type: 'button', onclick: () => { showAll = !showAll; render(); } },
          showAll ? t('options.show_near') : t('options.show_all', { n: rows.length }))
        : null,
      h('p.sub.legend', t('options.legend')));
  }

  load();
  return {
    element,
    destroy() { destroyed = true; clearInterval(timer); },
  };
}
