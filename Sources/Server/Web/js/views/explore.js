// Explore: top gainers, losers and most active of the account's market or of the crypto pairs (a US-dollar account
// trades both), and the week's earnings reports (the largest companies of each day first); tap a row for the stock.
import * as api from '../api.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import { h, clear, change, failure, empty, loading, segmented, monogram } from '../ui.js';

export async function render(view, params, scope) {
  const market = store.account()?.market ?? 'us';
  let kind = 'gainers';
  // Stocks, or (for a US-dollar account, as Alpaca's) crypto pairs.
  let assetClass = 'stocks';
  const list = h('section.card', { 'aria-live': 'polite' }, loading());
  const earnings = h('section.card.earnings', { 'aria-labelledby': 'earnings-title' }, h('h2#earnings-title', t('explore.earnings')), loading());
  const sub = h('p.sub', t(market === 'cn' ? 'explore.cn' : 'explore.us'));
  clear(view, h('header.page-head', h('h1', t('explore.title')), h('a.button', { href: '#/backtest' }, t('backtest.title')), sub),
    market === 'us' ? segmented(t('explore.asset_class'), [['stocks', t('explore.stocks')], ['crypto', t('explore.crypto')]], assetClass,
      (v) => { assetClass = v; sub.textContent = t(v === 'crypto' ? 'explore.crypto_pairs' : 'explore.us'); load(true); }) : null,
    segmented(t('explore.movers'), ['gainers', 'losers', 'active'].map((k) => [k, t(`explore.${k}`)]), kind, (v) => { kind = v; load(true); }),
    list, earnings);

  async function loadEarnings() {
    try {
      const { earnings: reports } = await api.get('/earnings' + api.query({ market }));
      const days = new Map();
      for (const r of reports) days.set(r.date, [...(days.get(r.date) ?? []), r]);
      const size = (r) => Number(r.market_cap_millions ?? 0);
      clear(earnings, h('h2#earnings-title', t('explore.earnings')), days.size === 0 ? empty(t('explore.earnings_none'))
        : [...days].map(([date, list]) => {
          const top = [...list].sort((a, b) => size(b) - size(a)).slice(0, 5);
          return h('div.earnings-day', h('h3', F.calendarDate(date)), h('ul.rows', top.map((r) =>
            h('li.row', h('a.row-link', { href: `#/stock/${api.enc(r.symbol)}`, dataset: { symbol: r.symbol } },
              monogram(r.symbol),
              h('span.row-main', h('span.sym', r.symbol), h('span.name', r.name ?? '')),
              h('span.row-end', h('span.sub', r.time ? t(`earnings.time.${r.time}`) : '')))))),
          list.length > top.length ? h('p.sub', t('explore.earnings_more', { n: list.length - top.length })) : null);
        }));
    } catch (error) {
      clear(earnings, h('h2#earnings-title', t('explore.earnings')), failure(error, loadEarnings));
    }
  }
  loadEarnings();

  // Each load's answer is shown only if no later load was asked for meanwhile: switching to crypto while the first
  // stock list is still coming must not end with the stocks.
  let generation = 0;
  async function load(showSpinner) {
    const mine = ++generation;
    if (showSpinner) clear(list, loading());
    try {
      const rows = await api.get('/market/movers' + api.query({ market, kind, limit: 20, asset_class: assetClass }));
      if (mine !== generation) return;
      clear(list, rows.length === 0 ? empty(t('explore.none')) : h('ol.rows', rows.map((m) =>
        h('li.row', h('a.row-link', { href: `#/stock/${api.enc(m.symbol)}`, dataset: { symbol: m.symbol } },
          monogram(m.symbol),
          h('span.row-main', h('span.sym', m.symbol), h('span.name', F.displayName(m))),
          h('span.row-mid', h('span.sub', t('explore.volume', { volume: F.compact(m.volume) }))),
          h('span.row-end', h('span.value', F.price(m.last)), change(m.change_percent, F.percent(m.change_percent))))))));
    } catch (error) {
      if (mine !== generation) return;
      if (showSpinner || !list.querySelector('.rows')) clear(list, failure(error, () => load(true)));
    }
  }
  const timer = setInterval(() => load(false), 15000);
  scope.onCleanup(() => clearInterval(timer));
  await load(true);
}
