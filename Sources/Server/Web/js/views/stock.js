// Stock detail: price, change, market status, favorite star, charts, stats, A-share depth and limits, about,
// news and insights (when the feed has them), your position, Buy and Sell. A crypto pair's page is the same page for
// a coin: trading around the clock (UTC), its order book, its steps and fees, the quantity held in the coin. A
// currency pair's page shows its rate, chart and IDEALPRO book, the forex week's status in New York time, and sends
// the user to the currency sheet (the dollar account) or a transfer between accounts to convert; what the account
// holds of the pair's other currency.
import * as api from '../api.js';
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as live from '../live.js';
import * as store from '../store.js';
import * as favorites from '../favorites.js';
import { stockChart } from '../chart.js';
import { openTradeSheet } from './trade.js';
import { openAlertSheet, activeCounts } from '../alerts.js';
import { optionChain } from '../options.js';
import { t, locale } from '../i18n.js';
import { h, clear, change, toast, failure, loading, monogram, icon } from '../ui.js';

const PHASES = ['continuous', 'closed', 'lunch_break', 'pre_market', 'post_market', 'opening_auction', 'pre_open', 'closing_auction'];
const CITIES = ['America/New_York', 'Asia/Shanghai'];

// The recently viewed list a swipe is moving through: kept while swiping so the order holds still.
let swiping = null;

export async function render(view, [symbolParam], scope) {
  const symbol = (symbolParam || '').toUpperCase();
  const account = store.account();
  let quote;
  let profile = null;
  try {
    [quote, profile] = await Promise.all([
      api.get(`/quotes/${api.enc(symbol)}`),
      api.get(`/stocks/${api.enc(symbol)}/profile`).catch(() => null),
    ]);
  } catch (error) {
    clear(view, failure(error.status === 404 ? new Error(t('stock.unknown', { symbol })) : error,
      error.status === 404 ? null : () => render(view, [symbol], scope)));
    return;
  }
  const currency = quote.currency;
  if (!swiping) store.noteViewed(symbol, quote.name);
  const recentOrder = swiping ?? store.recent();
  swiping = null;
  const timeZone = profile?.time_zone || (quote.market === 'cn' ? 'Asia/Shanghai' : 'America/New_York');
  // A crypto pair: its coin ("BTC"), steps (smallest order, quantity and price steps) from the profile.
  const coin = quote.kind === 'crypto' ? (profile?.crypto?.coin ?? F.coinOf(symbol)) : null;
  const steps = profile?.crypto ?? null;
  // A pair priced in another coin (BTC/USDT): its prices are in that coin; what it holds is the base coin's dollar pair.
  const quoteCoin = steps?.quote_coin ?? null;
  const priceText = (x) => (quoteCoin ? `${F.price(x)} ${quoteCoin}` : F.currencySymbol(currency) + F.price(x));
  // A currency pair (`EUR.USD`): its two currencies.
  const pair = quote.kind === 'forex' ? symbol.split('.') : null;
  const showDepth = quote.market === 'cn' || !!coin || !!pair;

  const head = h('section.stock-head');
  const status = h('p.market-status', { role: 'status' });
  const earnings = h('p.earnings-note', { hidden: true, dataset: { testid: 'earnings' } });
  const haltNote = h('p.halt-note', { hidden: true, role: 'status', dataset: { testid: 'halted' } });
  const stats = h('section.card', { 'aria-labelledby': 'stats-title' });
  const depth = h('section.card.depth', { 'aria-labelledby': 'depth-title', hidden: !showDepth });
  const position = h('section.card.position', { 'aria-labelledby': 'position-title' }, loading());
  const about = h('section.card', { 'aria-labelledby': 'about-title' });
  const insights = h('section.card', { 'aria-labelledby': 'news-title', hidden: true });
  const chart = stockChart(symbol, timeZone);
  const options = quote.market === 'us' && !coin && !pair ? optionChain(symbol, currency) : null;
  const star = h('button.icon-button.star', { type: 'button' });
  const alertBell = h('button.icon-button.alert-bell', {
    type: 'button', 'aria-label': t('stock.alert_label', { symbol }), title: t('stock.alert_title'),
    onclick: () => openAlertSheet(symbol, { currency: quoteCoin ?? currency, last: quote.last, onCreated: showAlerts }),
  }, icon('M6 8a6 6 0 1 1 12 0c0 7 3 8 3 8H3s3-1 3-8M10 20a2 2 0 0 0 4 0M19 3v4M17 5h4'));
  // The bell says when the stock already has alerts (a count on it, and in its label).
  async function showAlerts() {
    let n = 0;
    try { n = (await activeCounts())[symbol] ?? 0; } catch { return; }
    alertBell.classList.toggle('has-alerts', n > 0);
    alertBell.querySelector('.badge')?.remove();
    if (n) alertBell.append(h('span.badge', { dataset: { testid: 'alert-count' } }, String(n)));
    alertBell.setAttribute('aria-label', n ? t.count('stock.alerts_set', n, { symbol }) : t('stock.alert_label', { symbol }));
  }
  showAlerts();
  const tradeBar = h('div.trade-bar',
    h('button.buy', { type: 'button', onclick: () => trade('buy') }, t('stock.buy')),
    h('button.sell', { type: 'button', onclick: () => trade('sell') }, t('stock.sell')));
  // A pair: bought and sold in the dollar account (its sheet says what is paid and received); converting between the
  // dollar and yuan accounts is a transfer.
  const actions = pair
    ? h('div.forex-actions', tradeBar, h('div.forex-note', { dataset: { testid: 'forex-note' } }, h('p', t('stock.forex.convert_note')),
      h('a.button.secondary', { href: '#/account' }, t('account.move'))))
    : tradeBar;

  clear(view, h('div.stock', head, status, haltNote, earnings, actions, h('div.stock-grid',
    h('div.stock-main', chart.element, stats, depth, options?.element),
    h('div.stock-side', position, about, insights))));
  scope.onCleanup(() => { chart.destroy(); options?.destroy(); });

  const priceLine = h('div.stock-price');
  clear(head, monogram(symbol, profile?.logo),
    h('div.stock-title', h('h1', F.displayName(quote) || symbol), h('p.sub', `${symbol} · ${quote.exchange ?? ''}`)),
    alertBell, star, priceLine);
  // Swipe the header left or right to move through recently viewed stocks (as the tracker app did).
  let touch = null;
  head.addEventListener('touchstart', (e) => { touch = e.touches.length === 1 ? [e.touches[0].clientX, e.touches[0].clientY] : null; }, { passive: true });
  head.addEventListener('touchend', (e) => {
    if (!touch) return;
    const dx = e.changedTouches[0].clientX - touch[0];
    const dy = e.changedTouches[0].clientY - touch[1];
    touch = null;
    if (Math.abs(dx) < 60 || Math.abs(dy) > 40) return;
    const i = recentOrder.findIndex((r) => r.symbol === symbol);
    const next = recentOrder[dx < 0 ? i + 1 : i - 1];
    if (i < 0 || !next) return;
    swiping = recentOrder;
    scope.navigate('stock/' + next.symbol);
  });
  /** Only the price line changes with each quote (the star keeps its focus). */
  function renderHead() {
    clear(priceLine,
      h('span.price', { dataset: { testid: 'price' } }, priceText(quote.last)),
      change(quote.change, `${F.signedNumber(quote.change)} (${F.percent(quote.change_percent)})`));
  }

  function renderStats() {
    const rows = [
      ['open', F.price(quote.open)], ['high', F.price(quote.high)], ['low', F.price(quote.low)],
      ['prev_close', F.price(quote.previous_close)], ['volume', F.compact(quote.volume)], ['turnover', F.compact(quote.turnover)],
      ['week52_high', F.price(profile?.week52_high)], ['week52_low', F.price(profile?.week52_low)],
    ];
    if (quote.market === 'cn' && !coin) rows.push(['limit_up', F.price(quote.limit_up)], ['limit_down', F.price(quote.limit_down)]);
    clear(stats, h('h2#stats-title', t('stock.stats')), h('dl.stats', rows.map(([k, v]) => h('div', h('dt', t(`stock.stat.${k}`)), h('dd', v)))));
  }

  function renderDepth() {
    if (!showDepth) return;
    const size = (text) => (coin ? F.coins(text) : F.qty(text));
    const level = (side, l, i) => h('tr', h('th', { scope: 'row' }, t(`stock.depth.${side}`, { n: i + 1 })), h('td', F.price(l.price)), h('td', size(l.size)));
    const asks = [...(quote.asks ?? [])].slice(0, 5).map((l, i) => level('ask', l, i)).reverse();
    const bids = (quote.bids ?? []).slice(0, 5).map((l, i) => level('bid', l, i));
    clear(depth, h('h2#depth-title', t('stock.depth.title')),
      h('div.table-scroll', h('table.depth-table', h('thead', h('tr', ['level', 'price', coin ? 'size' : 'shares'].map((k) => h('th', { scope: 'col' }, t(`stock.depth.${k}`, { coin }))))),
        h('tbody.asks', asks), h('tbody.bids', bids))));
  }

  /** While the stock is halted: why, and when trading resumes (orders wait for the reopening). */
  function renderHalt() {
    const halt = quote.halted ? quote.halt : null;
    haltNote.hidden = !halt;
    if (!halt) return;
    const until = new Date(halt.end).toLocaleTimeString(locale(), { timeZone, hour: '2-digit', minute: '2-digit' });
    const reason = ['news_pending', 'volatility_pause'].includes(halt.reason) ? t(`stock.halt.${halt.reason}`) : '';
    clear(haltNote, icon('M10 4H6v16h4zM18 4h-4v16h4z'), h('strong', t('stock.halted')), reason ? h('span', reason) : null,
      h('span.sub', t('stock.halt.until', { time: until })));
  }

  /** "Earnings in 3 days, after the close", when the company has a report coming. */
  function renderEarnings() {
    const next = profile?.next_earnings;
    earnings.hidden = !next;
    if (!next) return;
    const when = next.days <= 0 ? t('stock.next_earnings.when.today') : next.days === 1 ? t('stock.next_earnings.when.tomorrow')
      : t('stock.next_earnings.when.days', { n: next.days });
    const time = next.time ? t(`stock.next_earnings.time.${next.time}`) : '';
    const period = next.fiscal_quarter ? t(`earnings.period${quote.market === 'cn' ? '_cn' : ''}.${next.fiscal_quarter}`, { year: next.fiscal_year }) : '';
    clear(earnings, icon('M4 5h16v15H4zM4 10h16M9 3v4M15 3v4'), h('span', t('stock.next_earnings', { when, time })),
      h('span.sub', [period, F.calendarDate(next.date)].filter(Boolean).join(' · ')));
  }

  async function renderStatus() {
    if (pair) {
      // The forex week: open from Sunday 17:00 to Friday 17:00 New York time.
      const time = new Date(quote.time).toLocaleTimeString(locale(), { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit' });
      const open = quote.phase === 'continuous';
      clear(status, h(`span.dot.${open ? 'open' : 'closed'}`, { 'aria-hidden': 'true' }),
        t(open ? 'stock.forex_status.open' : 'stock.forex_status.closed', { time }));
      return;
    }
    if (coin) {
      // A coin never closes: the status is the market's time (its quote's) in UTC, the pair's trading day.
      const time = new Date(quote.time).toLocaleTimeString(locale(), { timeZone: 'UTC', hour: '2-digit', minute: '2-digit' });
      clear(status, h('span.dot.open', { 'aria-hidden': 'true' }), t('stock.crypto_status', { time }));
      return;
    }
    try {
      const s = await api.get('/market/status' + api.query({ market: quote.market }));
      const time = new Date(s.local_time).toLocaleTimeString(locale(), { timeZone: s.time_zone, hour: '2-digit', minute: '2-digit' });
      const city = CITIES.includes(s.time_zone) ? t(`city.${s.time_zone}`) : s.time_zone.split('/').pop().replace('_', ' ');
      const phase = PHASES.includes(s.phase) ? t(`stock.phase.${s.phase}`) : s.phase;
      clear(status, h(`span.dot.${s.is_open ? 'open' : 'closed'}`, { 'aria-hidden': 'true' }), t('stock.status', { phase, city, time }));
    } catch { clear(status); }
  }

  let favList = null;
  function renderStar() {
    const on = favorites.contains(favList, symbol);
    star.textContent = on ? '★' : '☆';
    star.classList.toggle('on', on);
    star.setAttribute('aria-pressed', String(on));
    star.setAttribute('aria-label', t(on ? 'stock.favorite_remove' : 'stock.favorite_add', { symbol }));
  }
  star.addEventListener('click', async () => {
    if (!account) return;
    try {
      if (favorites.contains(favList, symbol)) {
        favList = await favorites.remove(account.id, favList.id, symbol);
        toast(t('favorites.removed', { symbol }), 'success');
      } else {
        favList = await favorites.add(account.id, symbol);
        toast(t('favorites.added', { symbol }), 'success');
      }
      renderStar();
    } catch (error) { toast(error.message, 'error'); }
  });

  let held = null;
  async function loadPosition() {
    if (!account) { clear(position); return; }
    try {
      const detail = await api.get(`/accounts/${api.enc(account.id)}`);
      store.updateAccount(detail);
      const holding = quoteCoin ? `${coin}/USD` : symbol;
      held = (detail.positions ?? []).find((p) => p.symbol === holding) ?? null;
      renderPosition();
    } catch (error) { if (!held) clear(position, failure(error, loadPosition)); }
  }

  function renderPosition() {
    if (pair) {
      // What the account holds of the pair's other currency (euros for EUR.USD in a dollar account).
      const other = pair[0] === account?.currency ? pair[1] : pair[0];
      const b = (store.account()?.balances ?? []).find((x) => x.currency === other && x.pair === symbol);
      clear(position, h('h2#position-title', t('stock.position')), b && D.sign(D.parse(b.amount)) > 0
        ? h('dl.figures', { dataset: { testid: 'currency-held' } },
          h('div', h('dt', t('stock.forex.held')), h('dd', F.currencyAmount(b.amount, b.currency))),
          h('div', h('dt', t('stock.forex.worth')), h('dd', F.money(b.value, account.currency))),
          h('div', h('dt', t('stock.forex.cost')), h('dd', F.money(b.cost, account.currency))),
          h('div', h('dt', t('stock.change')), h('dd', change(b.unrealized_pl, F.signedMoney(b.unrealized_pl, account.currency)))))
        : h('p.empty-position', t('stock.forex.no_position', { currency: other })));
      return;
    }
    const otherMarket = account && account.market !== quote.market;
    if (!held) {
      clear(position, h('h2#position-title', t('stock.position')),
        h('p.empty-position', coin && !otherMarket ? t('stock.no_coins', { coin }) : otherMarket
          ? t(quote.market === 'cn' ? 'stock.other_market.cn' : 'stock.other_market.us', { symbol, currency: quote.currency })
          : t('stock.no_shares', { symbol })));
      return;
    }
    clear(position, h('h2#position-title', t('stock.position')), h('dl.figures',
      h('div', h('dt', t(coin ? 'stock.quantity' : 'stock.shares')), h('dd', coin ? F.holdingQty(symbol, held.qty) : F.qty(held.qty))),
      h('div', h('dt', t('stock.avg_cost')), h('dd', F.money(held.avg_entry_price, currency))),
      h('div', h('dt', t('stock.total_cost')), h('dd', F.money(held.cost_basis, currency))),
      h('div', h('dt', t('stock.market_value')), h('dd', F.money(held.market_value, currency))),
      h('div', h('dt', t('stock.change')), h('dd', change(held.unrealized_pl, `${F.signedMoney(held.unrealized_pl, currency)} (${F.percent(held.unrealized_plpc, { fraction: true })})`))),
      held.side === 'short'
        ? h('div', h('dt', t('stock.side')), h('dd', t('stock.short')))
        : h('div', h('dt', t(coin ? 'stock.available' : 'stock.sellable')), h('dd', coin ? F.holdingQty(symbol, held.qty_available) : F.qty(held.qty_available)))));
  }

  function renderAbout() {
    const p = profile;
    const rows = [[t('stock.exchange'), `${quote.exchange ?? '—'}${p?.market === 'cn' ? t('stock.cn_suffix') : ''}`]];
    if (pair) {
      rows.push([t('stock.crypto.kind'), t('stock.forex.kind', { base: pair[0], quote: pair[1] })],
        [t('stock.forex.price'), t('stock.forex.price_text', { base: pair[0], quote: pair[1] })],
        [t('stock.forex.hours'), t('stock.forex.hours_text')]);
    }
    if (steps) {
      rows.push([t('stock.crypto.kind'), t('stock.crypto.pair', { coin, currency: quoteCoin ?? currency })],
        [t('stock.crypto.min_order'), F.holdingQty(symbol, steps.min_order_size)],
        [t('stock.crypto.increment'), F.holdingQty(symbol, steps.min_trade_increment)],
        [t('stock.crypto.price_increment'), quoteCoin ? `${F.coins(steps.price_increment)} ${quoteCoin}` : F.money(steps.price_increment, currency, Math.max(2, (steps.price_increment.split('.')[1] ?? '').length))],
        [t('stock.crypto.fees'), t('stock.crypto.fees_text')]);
    }
    // GICS sectors are a fixed list we translate; an industry is the data's own words (GICS sub-industry or the
    // provider's), shown as given and labelled so in Chinese.
    const sectorKey = p?.sector ? `sector.${p.sector.toLowerCase().replace(/[^a-z]+/g, '_')}` : null;
    if (p?.sector) rows.push([t('stock.sector'), t.has(sectorKey) ? t(sectorKey) : h('span', { lang: 'en' }, p.sector)]);
    if (p?.industry) rows.push([t('stock.industry_as_given'), h('span', { lang: 'en' }, p.industry)]);
    if (p?.listing_date) rows.push([t('stock.listed'), F.shortDate(p.listing_date)]);
    if (p?.market === 'cn' && p.round_lot > 1) rows.push([t('stock.board_lot'), F.shares(p.round_lot)]);
    if (p?.market_cap_millions) rows.push([t('stock.market_cap'), F.compact(p.market_cap_millions + '000000')]);
    clear(about, h('h2#about-title', t('stock.about')),
      h('dl.about', rows.map(([k, v]) => h('div', h('dt', k), h('dd', v))),
        p?.website ? h('div', h('dt', t('stock.website')), h('dd', h('a', { href: p.website, target: '_blank', rel: 'noopener' }, p.website.replace(/^https?:\/\//, '')))) : null),
      p?.peers?.length ? h('div.peers', h('h3', t('stock.peers')), h('ul.chips', p.peers.map((peer) =>
        h('li', h('a.chip', { href: `#/stock/${api.enc(peer.symbol)}`, title: peer.name }, peer.symbol))))) : null);
  }

  function renderInsights() {
    const p = profile;
    const parts = [];
    if (p?.news?.length) {
      parts.push(h('h3', t('stock.news')), h('ul.news', p.news.map((n) => h('li',
        h('a', { href: n.url, target: '_blank', rel: 'noopener' }, n.headline),
        h('p.sub', t('stock.news_source', { source: n.source, time: F.dateTime(n.time, timeZone) }))))));
    }
    if (p?.recommendations?.length) {
      parts.push(h('h3', t('stock.recommendations')), h('table.small',
        h('thead', h('tr', ['period', 'strong_buy', 'buy', 'hold', 'sell', 'strong_sell'].map((k) => h('th', { scope: 'col' }, t(`stock.rec.${k}`))))),
        h('tbody', p.recommendations.map((r) => h('tr', h('td', r.period), h('td', r.strong_buy), h('td', r.buy), h('td', r.hold), h('td', r.sell), h('td', r.strong_sell))))));
    }
    if (p?.earnings?.length) {
      parts.push(h('h3', t('stock.earnings')), h('table.small',
        h('thead', h('tr', ['rec.period', 'earn.actual', 'earn.estimate', 'earn.surprise'].map((k) => h('th', { scope: 'col' }, t(`stock.${k}`))))),
        h('tbody', p.earnings.map((e) => h('tr', h('td', e.period), h('td', F.price(e.actual)), h('td', F.price(e.estimate)),
          h('td', change(e.surprise_percent, F.percent(e.surprise_percent))))))));
    }
    insights.hidden = parts.length === 0;
    clear(insights, h('h2#news-title', t('stock.insights')), parts);
  }

  function trade(side) {
    // (The currency sheet loads when first opened: it needs the network anyway, so the offline shell leaves it out.)
    if (pair) {
      import('./forex.js').then(({ openForexSheet }) => openForexSheet({ symbol, side, quote, onDone: loadPosition }))
        .catch((error) => toast(error.message, 'error'));
      return;
    }
    openTradeSheet({ symbol, side, quote, held, steps: coin ? { coin, ...steps } : null, onDone: loadPosition });
  }

  renderHead();
  renderStats();
  renderDepth();
  renderAbout();
  renderInsights();
  renderStar();
  renderStatus();
  renderEarnings();
  renderHalt();
  loadPosition();
  if (account) favorites.load(account.id).then((l) => { favList = l; renderStar(); }).catch(() => {});

  const stopQuotes = live.watch([symbol], (q) => {
    quote = { ...quote, ...q };
    renderHead();
    renderStats();
    renderDepth();
    renderHalt();
    chart.update(q);
  });
  const offOrders = live.on('order', (u) => { if (u.account_id === account?.id && u.order.symbol === symbol) loadPosition(); });
  const statusTimer = setInterval(renderStatus, 30000);
  scope.onCleanup(() => { stopQuotes(); offOrders(); clearInterval(statusTimer); });
}
