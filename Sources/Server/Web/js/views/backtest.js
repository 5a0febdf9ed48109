// Backtest: pick symbols, dates and a strategy (built in, or the account's queue rules), run it on the server through
// the real engine, and read the report — figures, equity and drawdown charts, monthly returns, the trades.
import * as api from '../api.js';
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import { h, clear, toast, failure, empty, loading } from '../ui.js';

const STRATEGIES = ['sma-cross', 'buy-and-hold', 'queue-rules'];
const TIMEFRAMES = ['1Day', '1Hour', '30Min', '15Min', '5Min', '1Min'];
// The bundled real history is daily, and 5-minute for these symbols (BundledHistory.fiveMinuteSymbols).
const REAL_FIVE_MINUTE = ['000338'];

export async function render(view, params, scope) {
  const account = store.account();
  const report = h('section.card.backtest-report', { 'aria-live': 'polite' });
  const recent = h('section.card', { 'aria-labelledby': 'bt-recent-title' });
  const day = (d) => d.toISOString().slice(0, 10);
  const today = new Date();
  const yearAgo = new Date(today.getTime() - 365 * 86400000);

  const symbols = h('input#bt-symbols', { autocomplete: 'off', autocapitalize: 'characters', placeholder: 'AAPL, MSFT',
    value: params[0] ?? (account?.market === 'cn' ? '600519' : 'AAPL') });
  const from = h('input#bt-from', { type: 'date', value: day(yearAgo) });
  const to = h('input#bt-to', { type: 'date', value: day(new Date(today.getTime() - 86400000)) });
  const source = h('select#bt-source', ['feed', 'real'].map((v) => h('option', { value: v }, t(`backtest.source.${v}`))));
  const timeframe = h('select#bt-timeframe', TIMEFRAMES.map((v) => h('option', { value: v }, t(`backtest.timeframe.${v}`))));
  const strategy = h('select#bt-strategy', STRATEGIES.map((s) => h('option', { value: s }, t(`backtest.strategy.${s}`))));
  const fast = h('input#bt-fast', { inputMode: 'numeric', value: '10' });
  const slow = h('input#bt-slow', { inputMode: 'numeric', value: '30' });
  const smaFields = h('div.field-row', h('div.field', h('label', { for: 'bt-fast' }, t('backtest.fast')), fast),
    h('div.field', h('label', { for: 'bt-slow' }, t('backtest.slow')), slow));
  const rulesNote = h('p.field-help', t('backtest.rules_note', { account: account?.name ?? '' }));
  const qty = h('input#bt-qty', { inputMode: 'decimal', value: account?.market === 'cn' ? '100' : '10' });
  // What a new account of the market starts with (AccountRules.defaultCash): ¥1,000,000 buys a lot of 600519.
  const cash = h('input#bt-cash', { inputMode: 'decimal', value: account?.market === 'cn' ? '1000000' : '100000' });
  const fill = h('select#bt-fill', ['next-open', 'close'].map((v) => h('option', { value: v }, t(`backtest.fill.${v}`))));
  // The market's real fees, none, or the learner's own: an amount per order (4.95) or a percentage (0.1%).
  const commission = h('select#bt-commission', ['real', 'none', 'custom'].map((v) => h('option', { value: v }, t(`backtest.commission.${v}`))));
  const customCommission = h('input#bt-commission-custom', { autocomplete: 'off', inputMode: 'decimal', placeholder: '4.95 / 0.1%', 'aria-label': t('backtest.commission.custom') });
  const submit = h('button.primary.wide', { type: 'submit' }, t('backtest.run'));
  const field = (id, label, control, help) => h('div.field', h('label', { for: id }, label), control, help ? h('p.field-help', help) : null);

  function sync() {
    smaFields.hidden = strategy.value !== 'sma-cross';
    rulesNote.hidden = strategy.value !== 'queue-rules';
    qty.disabled = strategy.value === 'queue-rules';
    customCommission.hidden = commission.value !== 'custom';
    // The bundled real history is daily, and 5-minute for a few symbols: the other bar sizes are offered for the
    // market data only.
    const real = source.value === 'real';
    const named = symbols.value.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
    const fiveMinute = named.length > 0 && named.every((s) => REAL_FIVE_MINUTE.includes(s));
    for (const option of timeframe.options) {
      option.disabled = real && option.value !== '1Day' && !(option.value === '5Min' && fiveMinute);
    }
    if (timeframe.selectedOptions[0]?.disabled) timeframe.value = '1Day';
    timeframe.disabled = real && !fiveMinute;
  }
  strategy.addEventListener('change', sync);

  // Shares per order, until the learner types their own: about three fifths of the starting cash at the first
  // symbol's price now, shared among the symbols and rounded down to the board lot — so the report compares a
  // strategy that invests much of the account with buy and hold (all of it), not 10 shares with 100,000. (Three
  // fifths: the price a year ago may have been higher, and an order the cash cannot pay for is refused.)
  let qtyTyped = false;
  qty.addEventListener('input', () => { qtyTyped = true; });
  async function sizeQty() {
    const named = symbols.value.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
    const money = D.parse(cash.value);
    if (qtyTyped || source.value !== 'feed' || !named.length || !money || D.sign(money) <= 0) return;
    let quote;
    try { quote = await api.get(`/quotes/${api.enc(named[0])}`); } catch { return; }
    const price = D.parse(quote.last);
    if (!price || D.sign(price) <= 0 || qtyTyped) return;
    const lot = quote.market === 'cn' ? 100n : 1n;
    // ⌊cash × 3/5 ÷ (price × symbols × lot)⌋ lots, in exact decimals.
    const scale = 10n ** BigInt(Math.max(money.s, price.s));
    const budget = money.n * (scale / 10n ** BigInt(money.s)) * 3n;
    const cost = price.n * (scale / 10n ** BigInt(price.s)) * 5n * BigInt(named.length) * lot;
    const lots = budget / cost;
    qty.value = String((lots > 0n ? lots : 1n) * lot);
  }
  for (const control of [symbols, cash]) control.addEventListener('change', sizeQty);
  source.addEventListener('change', sizeQty);
  commission.addEventListener('change', sync);
  source.addEventListener('change', sync);
  symbols.addEventListener('input', sync);
  sync();
  sizeQty();

  const form = h('form.card.backtest-form', { novalidate: true, 'aria-labelledby': 'bt-title' },
    h('h2#bt-title', t('backtest.setup')),
    field('bt-symbols', t('backtest.symbols'), symbols, t('backtest.symbols_help')),
    field('bt-source', t('backtest.source'), source, t('backtest.source_help')),
    h('div.field-row', field('bt-from', t('backtest.from'), from), field('bt-to', t('backtest.to'), to)),
    field('bt-timeframe', t('backtest.timeframe'), timeframe, t('backtest.timeframe_help')),
    field('bt-strategy', t('backtest.strategy'), strategy), smaFields, rulesNote,
    h('div.field-row', field('bt-qty', t('backtest.qty'), qty), field('bt-cash', t('backtest.cash'), cash)),
    field('bt-fill', t('backtest.fill'), fill, t('backtest.fill_help')),
    field('bt-commission', t('backtest.commission'), h('div.field-row', commission, customCommission), t('backtest.commission_help')),
    submit);

  let stopped = false;
  scope.onCleanup(() => { stopped = true; });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = {
      symbols: symbols.value.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean),
      from: from.value, to: to.value, strategy: strategy.value, qty: qty.value.trim(), cash: cash.value.trim(),
      fill: fill.value, commission: commission.value === 'custom' ? customCommission.value.trim() || 'real' : commission.value, source: source.value, timeframe: timeframe.value,
    };
    if (strategy.value === 'sma-cross') body.params = { fast: fast.value.trim(), slow: slow.value.trim() };
    if (strategy.value === 'queue-rules') {
      if (!account) { toast(t('common.no_account'), 'error'); return; }
      body.account_id = account.id;
      delete body.qty;
      if (!body.symbols.length) delete body.symbols;
    }
    submit.disabled = true;
    try {
      const job = await api.post('/backtests', body);
      await follow(job.id);
    } catch (error) { toast(error.message, 'error'); }
    submit.disabled = false;
  });

  async function follow(id) {
    const bar = h('progress', { max: 100, value: 0 });
    clear(report, h('h2', t('backtest.running')), bar);
    while (!stopped) {
      const job = await api.get(`/backtests/${api.enc(id)}`);
      bar.value = Number(job.progress);
      if (job.status === 'done') { drawReport(job); loadRecent(); return; }
      if (job.status === 'failed') { clear(report, h('h2', t('backtest.failed')), h('p.error-text', job.error)); loadRecent(); return; }
      await new Promise((r) => setTimeout(r, 400));
    }
  }

  function drawReport(job) {
    const r = job.result;
    const pct = (v) => (v === null || v === undefined ? '—' : F.percent(v, { fraction: true }));
    const num = (v) => (v === null || v === undefined ? '—' : F.signedNumber(v));
    // A size, not a change: no sign (a volatility of +18% read as a gain).
    const plainPct = (v) => (v === null || v === undefined ? '—' : F.percent(v, { fraction: true }).replace('+', ''));
    const money = (v) => F.money(v, r.currency);
    const figures = [
      ['backtest.final_equity', money(r.final_equity)], ['backtest.return', pct(r.return)],
      ['backtest.buy_and_hold', pct(r.buy_and_hold_return)], ['backtest.cagr', pct(r.cagr)],
      ['backtest.sharpe', num(r.sharpe)], ['backtest.sortino', num(r.sortino)],
      ['backtest.max_drawdown', pct(r.max_drawdown)], ['backtest.volatility', plainPct(r.volatility)],
      ['backtest.trades', String(r.trades)], ['backtest.win_rate', r.win_rate ? plainPct(r.win_rate) : '—'],
      ['backtest.profit_factor', r.profit_factor ?? '—'], ['backtest.fees', money(r.fees)],
      ['backtest.exposure', r.exposure ? plainPct(r.exposure) : '—'],
      ['backtest.bars', F.qty(String(r.bars))],
    ];
    const months = monthlyTable(r.monthly_returns);
    clear(report,
      h('div.card-head', h('h2', t('backtest.report', { symbols: r.symbols.join(', ') })),
        h('span.sub', `${F.shortDate(r.start)} – ${F.shortDate(r.end)} · ${t(`backtest.timeframe.${job.request.timeframe}`)}`)),
      h('p', h('a.button.download-report', { href: `/api/v1/backtests/${api.enc(job.id)}/report.html`, target: '_blank', rel: 'noopener',
        download: `backtest-${job.id}.html` }, t('backtest.download'))),
      r.warnings.length ? h('ul.warnings', r.warnings.map((w) => h('li', w))) : null,
      h('dl.figures.backtest-figures', figures.map(([k, v]) => h('div',
        h('dt', t(k)), h('dd', { dataset: { figure: k.split('.')[1] } }, v), h('dd.definition', t(`backtest.def.${k.split('.')[1]}`))))),
      h('h3', t('backtest.equity')), lineChart(r.equity.map((p) => Number(p.equity)), 'equity',
        { label: (v) => F.money(v.toFixed(2), r.currency), start: r.start, end: r.end }),
      h('h3', t('backtest.drawdown')), lineChart(r.equity.map((p) => Number(p.drawdown)), 'drawdown',
        { label: (v) => F.percent(v.toFixed(4), { fraction: true }).replace('+', ''), start: r.start, end: r.end }),
      months ? [h('h3', t('backtest.monthly')), months] : null,
      h('h3', t('backtest.trade_list')),
      r.trade_list.length ? h('div.table-scroll', h('table.small.trades',
        h('thead', h('tr', ['backtest.symbol', 'backtest.entry', 'backtest.exit', 'backtest.shares', 'backtest.pnl'].map((k) => h('th', { scope: 'col' }, t(k))))),
        h('tbody', r.trade_list.slice(-50).reverse().map((x) => h('tr',
          h('td', x.symbol),
          h('td', `${F.price(x.entry_price)} · ${F.shortDate(x.entry_time)}`),
          h('td', x.exit_price ? `${F.price(x.exit_price)} · ${F.shortDate(x.exit_time)}` : t('backtest.open')),
          h('td', F.qty(x.qty)),
          h('td', h(`span.chg.${F.direction(x.pnl)}`, F.signedMoney(x.pnl, r.currency)))))))) : empty(t('backtest.no_trades')));
  }

  async function loadRecent() {
    try {
      const jobs = await api.get('/backtests');
      clear(recent, h('h2#bt-recent-title', t('backtest.recent')), jobs.length ? h('ul.rows', jobs.map((j) => h('li.row',
        h('button.link.row-main', { type: 'button', onclick: () => follow(j.id) },
          h('span.sym', `${j.request.symbols.join(', ')} · ${t(`backtest.strategy.${j.request.strategy}`)}`),
          h('span.sub', `${j.request.from} – ${j.request.to}${j.request.timeframe === '1Day' ? '' : ` · ${t(`backtest.timeframe.${j.request.timeframe}`)}`}`)),
        h(`span.status.${j.status === 'done' ? 'filled' : j.status === 'failed' ? 'failed' : 'pending'}`, t(`backtest.status.${j.status}`))))) : empty(t('backtest.none')));
    } catch (error) { clear(recent, failure(error, loadRecent)); }
  }

  clear(view, h('header.page-head', h('h1', t('backtest.title')), h('p.sub', t('backtest.intro'))),
    h('div.queue-grid.backtest-grid', h('div', form, recent), report));
  clear(report, empty(t('backtest.empty')));
  await loadRecent();
}

/**
 * A line through the values, scaled to the box (an SVG, no library), with its axes in text beside it: the highest and
 * lowest value (`label` formats them) and the first and last date; the same words name the chart for screen readers.
 */
function lineChart(values, kind, { label, start, end }) {
  const w = 600, hgt = 160, pad = 6;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  svg.setAttribute('class', `backtest-chart ${kind}`);
  svg.setAttribute('aria-hidden', 'true');
  if (values.length < 2) return svg;
  const min = Math.min(...values), max = Math.max(...values);
  const [from, to] = [F.shortDate(start), F.shortDate(end)];
  const box = h('figure.backtest-chart-box', {
    dataset: { testid: `${kind}-chart` }, role: 'img',
    'aria-label': t('backtest.chart_label', { what: t(`backtest.${kind}`), first: label(values[0]), last: label(values[values.length - 1]),
      high: label(max), low: label(min), from, to }),
  },
  h('div.y-axis', { 'aria-hidden': 'true' }, h('span', label(max)), h('span', label(min))), svg,
  h('div.x-axis', { 'aria-hidden': 'true' }, h('span', from), h('span', to)));
  const span = max - min || 1;
  const x = (i) => pad + (i * (w - 2 * pad)) / (values.length - 1);
  const y = (v) => pad + ((max - v) * (hgt - 2 * pad)) / span;
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' '));
  svg.append(line);
  return box;
}

/** Years down, months across; each cell the month's time-weighted return. */
function monthlyTable(months) {
  if (!months.length) return null;
  const years = [...new Set(months.map((m) => m.year))];
  return h('div.table-scroll', h('table.monthly',
    h('thead', h('tr', h('th', { scope: 'col' }, ''), Array.from({ length: 12 }, (_, i) => h('th', { scope: 'col' }, String(i + 1))))),
    h('tbody', years.map((y) => h('tr', h('th', { scope: 'row' }, String(y)),
      Array.from({ length: 12 }, (_, i) => {
        const m = months.find((x) => x.year === y && x.month === i + 1);
        return h('td', m ? h(`span.chg.${F.direction(m.return)}`, F.percent(m.return, { fraction: true })) : '');
      }))))));
}
