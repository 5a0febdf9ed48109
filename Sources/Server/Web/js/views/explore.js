// Explore: top gainers, losers and most active of the account's market; tap a row for the stock.
import * as api from '../api.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import { h, clear, change, failure, empty, loading, segmented, monogram } from '../ui.js';

export async function render(view, params, scope) {
  const market = store.account()?.market ?? 'us';
  let kind = 'gainers';
  const list = h('section.card', { 'aria-live': 'polite' }, loading());
  clear(view, h('header.page-head', h('h1', t('explore.title')), h('a.button', { href: '#/backtest' }, t('backtest.title')),
    h('p.sub', t(market === 'cn' ? 'explore.cn' : 'explore.us'))),
    segmented(t('explore.movers'), ['gainers', 'losers', 'active'].map((k) => [k, t(`explore.${k}`)]), kind, (v) => { kind = v; load(true); }),
    list);

  async function load(showSpinner) {
    if (showSpinner) clear(list, loading());
    try {
      const rows = await api.get('/market/movers' + api.query({ market, kind, limit: 20 }));
      clear(list, rows.length === 0 ? empty(t('explore.none')) : h('ol.rows', rows.map((m) =>
        h('li.row', h('a.row-link', { href: `#/stock/${api.enc(m.symbol)}`, dataset: { symbol: m.symbol } },
          monogram(m.symbol),
          h('span.row-main', h('span.sym', m.symbol), h('span.name', m.name)),
          h('span.row-mid', h('span.sub', t('explore.volume', { volume: F.compact(m.volume) }))),
          h('span.row-end', h('span.value', F.price(m.last)), change(m.change_percent, F.percent(m.change_percent))))))));
    } catch (error) {
      if (showSpinner || !list.querySelector('.rows')) clear(list, failure(error, () => load(true)));
    }
  }
  const timer = setInterval(() => load(false), 15000);
  scope.onCleanup(() => clearInterval(timer));
  await load(true);
}
