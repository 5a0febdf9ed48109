// Home: today's date, market overview, portfolio (net worth, cash, day change, eye toggle), holdings and
// favorites with edit mode (delete, swipe-to-delete, drag or move buttons to reorder). Prices update live.
import * as api from '../api.js';
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as live from '../live.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import * as favorites from '../favorites.js';
import { h, clear, change, toast, failure, loading, empty, monogram, eyeToggle } from '../ui.js';
import { performanceChart } from '../performance.js';

export async function render(view, params, scope) {
  const account = store.account();
  if (!account) { clear(view, empty(t('common.no_account'), h('a.button.primary', { href: '#/account' }, t('home.open_account')))); return; }
  const id = api.enc(account.id);
  const currency = account.currency;

  const overview = h('section.overview', { 'aria-label': t('home.market_overview') }, loading(t('home.loading_markets')));
  const portfolio = h('section.card.portfolio', { 'aria-label': t('home.portfolio') }, loading());
  const holdings = h('section.card', { 'aria-labelledby': 'holdings-title' }, loading());
  const favs = h('section.card', { 'aria-labelledby': 'favorites-title' }, loading());
  const performance = performanceChart(account, { period: '1M' });
  const leaders = h('section.card.leaders', { 'aria-label': t('home.leaders') });
  const viewed = store.recent();
  const recent = viewed.length ? h('nav.recent', { 'aria-label': t('search.recent') }, h('h2.sr-label', t('search.recent')),
    h('ul.chips', viewed.slice(0, 10).map((r) => h('li', h('a.chip', { href: `#/stock/${api.enc(r.symbol)}`, title: r.name }, r.symbol))))) : null;
  clear(view,
    h('header.page-head', h('p.today', F.longDate()), h('h1', account.name)),
    performance.element,
    overview,
    recent,
    h('div.home-grid', h('div', portfolio, leaders, holdings), favs));

  // Market overview: indices, refreshed quietly.
  async function loadOverview() {
    try {
      const o = await api.get('/market/overview');
      clear(overview, h('ul.indices', o.indices.map((i) => h('li.index-card',
        h('span.index-name', F.indexName(i.symbol, i.name)),
        h('span.index-value', D.format(D.parse(i.value), 2)),
        change(i.change_percent, `${F.signedNumber(i.change)} (${F.percent(i.change_percent)})`)))));
    } catch (error) {
      if (!overview.querySelector('.indices')) clear(overview, failure(error, loadOverview));
    }
  }

  // Portfolio and holdings from the account (server-valued), refreshed on order updates and every 10 s.
  let detail = null;
  let stopHoldingQuotes = () => {};
  async function loadAccount() {
    try {
      detail = await api.get(`/accounts/${id}`);
      store.updateAccount(detail);
      renderPortfolio();
      renderLeaders();
      renderHoldings();
    } catch (error) {
      if (!detail) { clear(portfolio, failure(error, loadAccount)); clear(holdings); }
    }
  }

  function amount(text) { return store.amountsHidden() ? '••••••' : F.money(text, currency); }

  /** Cash held for open buy orders: what the cash balance has and the trade sheet cannot spend (a cash account). */
  function held() {
    if (detail.multiplier > 1) return null;
    const cash = D.parse(detail.cash);
    const power = D.parse(detail.buying_power);
    const gap = cash && power ? D.sub(cash, power) : null;
    return gap && D.sign(gap) > 0 ? gap : null;
  }

  function renderPortfolio() {
    const hidden = store.amountsHidden();
    const reserved = held();
    clear(portfolio,
      h('div.card-head', h('h2', t('home.net_worth')),
        eyeToggle(hidden, () => store.setAmountsHidden(!store.amountsHidden()))),
      h('p.net-worth', { dataset: { testid: 'net-worth' } }, amount(detail.equity)),
      h('dl.figures',
        h('div', h('dt', t('home.cash')), h('dd', { dataset: { testid: 'cash' } }, amount(detail.cash))),
        reserved ? h('div.held', h('dt', t('home.held')), h('dd', { dataset: { testid: 'held' } }, amount(D.format(reserved, null, false)))) : null,
        h('div', h('dt', t('home.day_change')), h('dd', { dataset: { testid: 'day-change' } }, hidden ? '••••' : change(detail.day_change, F.signedMoney(detail.day_change, currency)))),
        h('div', h('dt', t('home.holdings_value')), h('dd', amount(detail.market_value)))),
      h('p.definition', t('home.day_change_help')));
  }

  /** The three largest positions by value, and the holdings that made most today (up to five): each holding's part
   * of the day change, so a holding bought today below its price is a gainer even on a day its price fell. */
  function renderLeaders() {
    const positions = detail.positions ?? [];
    if (!positions.length) { clear(leaders); leaders.hidden = true; return; }
    leaders.hidden = false;
    const hidden = store.amountsHidden();
    const equity = D.parse(detail.equity);
    const byValue = [...positions].sort((a, b) => D.cmp(D.parse(b.market_value), D.parse(a.market_value))).slice(0, 3);
    const dayPL = (p) => D.parse(p.day_pl ?? '0');
    const gainers = positions.filter((p) => D.sign(dayPL(p)) > 0).sort((a, b) => D.cmp(dayPL(b), dayPL(a))).slice(0, 5);
    const share = (p) => (D.sign(equity) ? D.format(D.div(D.parse(p.market_value), equity, 6), null, false) : '0');
    clear(leaders,
      h('div.leader-col', { dataset: { testid: 'top-positions' } }, h('h3', t('home.top_positions')),
        h('ol', byValue.map((p) => h('li', h('a', { href: F.stockRoute(p.symbol), title: p.symbol }, F.instrumentLabel(p.symbol)),
          h('span.sub', hidden ? '••••' : t('home.of_portfolio', { share: F.percent(share(p), { fraction: true }).replace('+', '') })))))),
      h('div.leader-col', { dataset: { testid: 'day-gainers' } }, h('h3', t('home.gainers')),
        gainers.length
          ? h('ol', gainers.map((p) => h('li', h('a', { href: F.stockRoute(p.symbol), title: p.symbol }, F.instrumentLabel(p.symbol)),
            hidden ? h('span.sub', '••••') : change(p.day_pl, F.signedMoney(p.day_pl, currency)))))
          : h('p.sub', t('home.no_gainers'))));
  }

  function renderHoldings() {
    stopHoldingQuotes();
    const positions = detail.positions ?? [];
    const rows = new Map();
    clear(holdings, h('div.card-head', h('h2#holdings-title', t('home.holdings')),
      positions.length ? h('span.sub', t('home.holdings_columns')) : null),
      positions.length === 0
        ? firstSteps()
        : h('ul.rows', positions.map((p) => {
          const row = holdingRow(p);
          rows.set(p.symbol, { row, p });
          return row;
        })));
    // Live prices update the row in place (a focused link keeps its focus). Options are valued as the account's
    // figures value them (the live feed quotes stocks).
    stopHoldingQuotes = live.watch(positions.filter((p) => !F.optionUnderlying(p.symbol)).map((p) => p.symbol), (q) => {
      const entry = rows.get(q.symbol);
      if (!entry) return;
      const p = { ...entry.p, current_price: q.last };
      const mv = D.mul(D.parse(p.qty), D.parse(q.last));
      const cost = D.parse(p.cost_basis);
      const pl = D.sub(mv, cost);
      p.market_value = D.format(D.round(mv, 2), null, false);
      p.unrealized_pl = D.format(D.round(pl, 2), null, false);
      p.unrealized_plpc = D.sign(cost) ? D.format(D.div(pl, cost, 6), null, false) : '0';
      entry.p = p;
      fillHolding(entry.row, p);
    });
  }

  /** A new account's first hour: what to do, in three steps, with a stock of its market to start from. */
  function firstSteps() {
    const example = account.market === 'cn' ? '600519' : 'AAPL';
    return h('div.first-steps', { dataset: { testid: 'first-steps' } },
      h('p', t('home.first.intro', { cash: F.money(detail.cash, currency) })),
      h('ol',
        h('li', t('home.first.find'), ' ', h('a', { href: '#/explore' }, t('home.first.explore')), ' · ',
          h('a', { href: F.stockRoute(example) }, example)),
        h('li', t('home.first.buy')),
        h('li', t('home.first.follow'))));
  }

  function holdingRow(p) {
    const row = h(F.optionUnderlying(p.symbol) ? 'li.row.option' : 'li.row', h('a.row-link', { href: F.stockRoute(p.symbol), dataset: { symbol: p.symbol } },
      monogram(F.optionUnderlying(p.symbol) ?? p.symbol),
      h('span.row-main', h('span.sym', p.symbol), h('span.name', F.contractName(p.symbol, p.name)),
        p.position_delta ? h('span.sub.greeks', { dataset: { role: 'greeks' }, title: t('home.greeks_help') },
          t('home.greeks', { delta: F.signedNumber(p.position_delta, 0), theta: F.signedMoney(D.format(D.round(D.parse(p.position_theta), 2), 2, false), currency) })) : null),
      h('span.row-mid', h('span.shares', F.holdingQty(p.symbol, p.qty)), h('span.sub', { dataset: { role: 'price' } })),
      h('span.row-end', h('span.value', { dataset: { role: 'value' } }), h('span', { dataset: { role: 'change' } }))));
    fillHolding(row, p);
    return row;
  }

  function fillHolding(row, p) {
    const hidden = store.amountsHidden();
    row.querySelector('[data-role="price"]').textContent = F.price(p.current_price);
    row.querySelector('[data-role="value"]').textContent = hidden ? '••••' : F.money(p.market_value, currency);
    clear(row.querySelector('[data-role="change"]'), hidden ? h('span.sub', '••••')
      : change(p.unrealized_pl, `${F.signedMoney(p.unrealized_pl, currency)} (${F.percent(p.unrealized_plpc, { fraction: true })})`));
  }

  // Favorites with edit mode.
  let list = null;
  let editing = false;
  let stopFavQuotes = () => {};
  async function loadFavorites() {
    try {
      list = await favorites.load(account.id);
      renderFavorites();
    } catch (error) {
      if (!list) clear(favs, failure(error, loadFavorites));
    }
  }

  function renderFavorites() {
    stopFavQuotes();
    const items = list?.items ?? [];
    const ul = h('ul.rows.favorites', { dataset: { editing: String(editing) } });
    const rowFor = new Map();
    items.forEach((item, index) => {
      const row = favoriteRow(item, index, items.length);
      rowFor.set(item.symbol, row);
      ul.append(row);
    });
    clear(favs,
      h('div.card-head', h('h2#favorites-title', t('home.favorites')),
        items.length ? h('button.link', { type: 'button', 'aria-pressed': String(editing), onclick: () => { editing = !editing; renderFavorites(); } },
          t(editing ? 'home.done' : 'home.edit')) : null),
      items.length ? ul : empty(t('home.no_favorites')));
    stopFavQuotes = live.watch(items.map((i) => i.symbol), (q) => {
      const row = rowFor.get(q.symbol);
      const item = items.find((i) => i.symbol === q.symbol);
      if (!row || !item) return;
      Object.assign(item, { price: q.last, change: q.change, change_percent: q.change_percent });
      fillFavorite(row, item);
    });
    if (editing) enableDrag(ul);
  }

  function favoriteRow(item, index, count) {
    const info = [monogram(item.symbol), h('span.row-main', h('span.sym', item.symbol), h('span.name', item.name)),
      h('span.row-end', h('span.value', { dataset: { role: 'price' } }), h('span', { dataset: { role: 'change' } }))];
    if (!editing) {
      const li = h('li.row', h('a.row-link', { href: `#/stock/${api.enc(item.symbol)}`, dataset: { symbol: item.symbol } }, info));
      enableSwipe(li, item.symbol);
      return fillFavorite(li, item);
    }
    return fillFavorite(h('li.row.editing', { dataset: { symbol: item.symbol } },
      h('button.icon-button.delete', { type: 'button', 'aria-label': t('favorites.remove_label', { symbol: item.symbol }), onclick: () => removeFavorite(item.symbol) }, '−'),
      h('span.row-link', info),
      h('span.reorder',
        h('button.icon-button', { type: 'button', 'aria-label': t('home.move_up', { symbol: item.symbol }), disabled: index === 0, onclick: () => moveFavorite(item.symbol, index - 1) }, '↑'),
        h('button.icon-button', { type: 'button', 'aria-label': t('home.move_down', { symbol: item.symbol }), disabled: index === count - 1, onclick: () => moveFavorite(item.symbol, index + 1) }, '↓'),
        h('span.drag-handle', { 'aria-hidden': 'true', title: t('home.drag') }, '≡'))), item);
  }

  function fillFavorite(row, item) {
    row.querySelector('[data-role="price"]').textContent = F.price(item.price);
    clear(row.querySelector('[data-role="change"]'), change(item.change_percent, `${F.signedNumber(item.change)} (${F.percent(item.change_percent)})`));
    return row;
  }

  async function removeFavorite(symbol) {
    try {
      list = await favorites.remove(account.id, list.id, symbol);
      if (!list.items.length) editing = false;
      renderFavorites();
      toast(t('favorites.removed', { symbol }), 'success');
    } catch (error) { toast(error.message, 'error'); }
  }

  async function moveFavorite(symbol, to) {
    try {
      list = await favorites.move(account.id, list.id, symbol, to);
      renderFavorites();
      favs.querySelector(`li[data-symbol="${CSS.escape(symbol)}"] .drag-handle`)?.closest('li')?.querySelector('button[aria-label^="Move"]:not([disabled])')?.focus();
    } catch (error) { toast(error.message, 'error'); }
  }

  /** Drag by the handle (mouse or touch) within the favorites list only; drop moves the symbol there. */
  function enableDrag(ul) {
    ul.querySelectorAll('.drag-handle').forEach((handle) => {
      handle.addEventListener('pointerdown', (down) => {
        down.preventDefault();
        const li = handle.closest('li');
        const symbol = li.dataset.symbol;
        li.classList.add('dragging');
        // Listen on the document: moving the row in the DOM drops any pointer capture on the handle.
        const moveHandler = (event) => {
          const siblings = [...ul.children].filter((c) => c !== li);
          const after = siblings.find((c) => event.clientY < c.getBoundingClientRect().top + c.offsetHeight / 2);
          if (li.nextElementSibling !== (after ?? null)) ul.insertBefore(li, after ?? null);
        };
        const up = () => {
          document.removeEventListener('pointermove', moveHandler);
          document.removeEventListener('pointerup', up);
          document.removeEventListener('pointercancel', up);
          li.classList.remove('dragging');
          const to = [...ul.children].indexOf(li);
          const from = list.items.findIndex((i) => i.symbol === symbol);
          if (to !== from) moveFavorite(symbol, to);
        };
        document.addEventListener('pointermove', moveHandler);
        document.addEventListener('pointerup', up);
        document.addEventListener('pointercancel', up);
      });
    });
  }

  /** Swipe left on touch reveals Delete (a row never moves vertically: scrolling still works). */
  function enableSwipe(li, symbol) {
    let startX = null;
    let dx = 0;
    const link = li.firstChild;
    li.addEventListener('touchstart', (e) => { startX = e.touches[0].clientX; dx = 0; }, { passive: true });
    li.addEventListener('touchmove', (e) => {
      if (startX === null) return;
      dx = Math.min(0, e.touches[0].clientX - startX);
      link.style.transform = `translateX(${Math.max(dx, -96)}px)`;
    }, { passive: true });
    li.addEventListener('touchend', () => {
      if (dx < -72) {
        link.style.transform = 'translateX(-96px)';
        if (!li.querySelector('.swipe-delete')) {
          li.append(h('button.swipe-delete', { type: 'button', onclick: () => removeFavorite(symbol) }, t('alerts.delete')));
        }
      } else {
        link.style.transform = '';
        li.querySelector('.swipe-delete')?.remove();
      }
      startX = null;
    });
  }

  const offStore = store.onChange((what) => { if (what === 'hide' && detail) { renderPortfolio(); renderLeaders(); renderHoldings(); } });
  const offOrders = live.on('order', (u) => { if (u.account_id === account.id) { loadAccount(); performance.reload(); } });
  const timer = setInterval(() => { loadOverview(); loadAccount(); }, 10000);
  const chartTimer = setInterval(() => performance.reload({ quiet: true }), 60000);
  scope.onCleanup(() => { offStore(); offOrders(); clearInterval(timer); stopHoldingQuotes(); stopFavQuotes(); clearInterval(chartTimer); performance.destroy(); });

  await Promise.all([loadOverview(), loadAccount(), loadFavorites()]);
}
