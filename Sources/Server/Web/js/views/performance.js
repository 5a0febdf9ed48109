// Performance: the account chart with its period tabs, every figure next to its definition, the monthly returns
// table, the drawdown chart and each holding's performance. Figures come from the server, which computes them
// exactly (GET /accounts/{id}/performance); the hide-amounts eye hides money and returns here too.
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { loadLibrary, css, readable } from '../chart.js';
import { performanceChart } from '../performance.js';
import { t, locale } from '../i18n.js';
import { h, clear, change, empty, eyeToggle } from '../ui.js';

const FIGURES = ['twr', 'mwr', 'mwr_annualized', 'total_return', 'price_return', 'realized_pnl', 'unrealized_pnl', 'dividends', 'fees', 'volatility', 'sharpe', 'sortino', 'max_drawdown'];

export async function render(view, params, scope) {
  const account = store.account();
  if (!account) { clear(view, empty(t('common.no_account'), h('a.button.primary', { href: '#/account' }, t('home.open_account')))); return; }
  const currency = account.currency;
  const figures = h('section.card', { 'aria-labelledby': 'figures-title' });
  const monthly = h('section.card', { 'aria-labelledby': 'monthly-title' });
  const drawdown = h('section.card', { 'aria-labelledby': 'drawdown-title' });
  const holdings = h('section.card', { 'aria-labelledby': 'holding-performance-title' });
  let report = null;
  let drawdownChart = null;

  // The screen's title is the h1: the chart's card says what it shows, and has no link to this screen.
  const chart = performanceChart(account, { period: '1Y', onReport: (r) => { report = r; renderAll(); },
    title: t('perf.chart_title'), details: false });
  const day = (ymd) => F.calendarDate(ymd, { year: true }) || ymd;
  clear(view,
    h('header.page-head', h('h1', t('perf.title')),
      eyeToggle(store.amountsHidden(), () => store.setAmountsHidden(!store.amountsHidden()))),
    chart.element, figures, monthly, drawdown, holdings);

  const hidden = () => store.amountsHidden();
  const money = (text) => (hidden() ? '••••' : text == null ? '—' : change(text, F.signedMoney(text, currency)));
  const pct = (text) => (hidden() ? '••••' : text == null ? '—' : change(text, F.percent(text, { fraction: true })));
  const plainPct = (text) => (hidden() ? '••••' : text == null ? '—' : F.percent(text, { fraction: true }).replace('+', ''));
  const ratio = (text) => (text == null ? '—' : D.format(D.parse(text), 2));

  function renderAll() {
    if (!report) return;
    renderFigures();
    renderMonthly();
    renderDrawdown();
    renderHoldings();
  }

  function renderFigures() {
    const d = report.definitions;
    const dd = report.max_drawdown == null ? '—'
      : [pct(report.max_drawdown), h('span.sub', ` ${day(report.max_drawdown_start)} → ${day(report.max_drawdown_end)}`,
        report.max_drawdown_recovery ? t('perf.recovered', { date: day(report.max_drawdown_recovery) }) : t('perf.not_recovered'))];
    const value = {
      twr: pct(report.twr), mwr: pct(report.mwr), mwr_annualized: pct(report.mwr_annualized),
      total_return: money(report.total_return), price_return: money(report.price_return),
      realized_pnl: money(report.realized_pnl), unrealized_pnl: money(report.unrealized_pnl), dividends: money(report.dividends),
      // A spread, not a gain: no sign, no up/down colour.
      fees: hidden() ? '••••' : F.money(report.fees, currency), volatility: plainPct(report.volatility),
      sharpe: ratio(report.sharpe), sortino: ratio(report.sortino), max_drawdown: dd,
    };
    const rows = [
      ...FIGURES.map((key) => [t(`perf.fig.${key}`), key, value[key]]),
      [report.benchmark?.name ?? t('perf.benchmark'), 'benchmark', pct(report.benchmark?.return)],
    ];
    clear(figures, h('div.card-head', h('h2#figures-title', t('perf.figures')), h('span.sub', `${day(report.start)} → ${day(report.end)}`)),
      h('dl.figure-list', rows.map(([label, key, value]) => h('div.figure-row', { dataset: { testid: `figure-${key}` } },
        h('dt', label), h('dd', value), h('dd.definition', d[key] ?? '')))));
  }

  function renderMonthly() {
    const months = Array.from({ length: 12 }, (_, m) => new Date(2000, m, 1).toLocaleString(locale(), { month: 'short' }));
    const years = new Map();
    for (const m of report.monthly) {
      const [y, mo] = m.month.split('-');
      if (!years.has(y)) years.set(y, new Array(12).fill(null));
      years.get(y)[+mo - 1] = m.twr;
    }
    clear(monthly, h('div.card-head', h('h2#monthly-title', t('perf.monthly')), h('span.sub', t('perf.time_weighted'))),
      years.size === 0 ? empty(t('perf.no_full_day'))
        : h('div.table-scroll', h('table.monthly', { dataset: { testid: 'monthly-returns' } },
          h('thead', h('tr', h('th', { scope: 'col' }, t('perf.year')), months.map((m) => h('th', { scope: 'col' }, m)))),
          h('tbody', [...years].map(([y, months]) => h('tr', h('th', { scope: 'row' }, y),
            months.map((v) => h('td', v == null ? '' : pct(v)))))))));
  }

  // The drawdown chart and the observer that refits it go together: a removed chart must never be refitted (the
  // library throws "Object is disposed"), and the observer fires once more when the screen is left.
  let drawdownResize = null;
  let left = false;
  function removeDrawdown() {
    drawdownResize?.disconnect();
    drawdownResize = null;
    drawdownChart?.remove();
    drawdownChart = null;
  }

  async function renderDrawdown() {
    removeDrawdown();
    const readout = h('p.readout.chart-readout#drawdown-readout', { 'aria-live': 'polite' });
    const area = h('div.chart-area.drawdown-area', {
      tabIndex: 0, role: 'group', 'aria-label': `${t('perf.drawdown_label')}. ${t('chart.keys')}`, 'aria-describedby': readout.id });
    clear(drawdown, h('div.card-head', h('h2#drawdown-title', t('perf.drawdown')), h('span.sub', t('perf.drawdown_sub'))), area, readout);
    if (report.drawdown.length < 2) { clear(area, empty(t('perf.no_history'))); return; }
    let LWC;
    try { LWC = await loadLibrary(); } catch (error) { clear(area, empty(error.message)); return; }
    if (left || !area.isConnected) return;  // left, or redrawn meanwhile
    drawdownChart = LWC.createChart(area, {
      autoSize: true,
      layout: { background: { color: 'transparent' }, textColor: css('--muted'), attributionLogo: true },
      grid: { vertLines: { visible: false }, horzLines: { color: css('--grid') } },
      rightPriceScale: { borderColor: css('--grid') },
      timeScale: { borderColor: css('--grid'), fixLeftEdge: true, fixRightEdge: true },
      // A drawdown under 0.05% reads 0.0%, never "-0.0%".
      localization: { priceFormatter: (v) => `${(Math.abs(v) < 0.05 ? 0 : v).toFixed(1)}%` },
      handleScroll: false, handleScale: false,
    });
    const red = css('--down');
    // Filled between the line and 0% only: a flat 0% (no drawdown yet) is a line, not a block down to the axis.
    const series = drawdownChart.addSeries(LWC.BaselineSeries, {
      baseValue: { type: 'price', price: 0 }, lineWidth: 1,
      topLineColor: red, topFillColor1: 'transparent', topFillColor2: 'transparent',
      bottomLineColor: red, bottomFillColor1: red + '08', bottomFillColor2: red + '55',
      // The scale reaches at least 1% down: a fall of a few cents is a sliver near 0%, not a chart-high wedge.
      autoscaleInfoProvider: (original) => {
        const range = original()?.priceRange;
        return { priceRange: { minValue: Math.min(range?.minValue ?? 0, -1), maxValue: Math.max(range?.maxValue ?? 0, 0) } };
      },
    });
    const points = report.drawdown.map((p) => ({ time: p.date, value: D.toNumber(D.shift(D.parse(p.value), 2)) }));
    series.setData(points);
    const fall = new Map(report.drawdown.map((p) => [p.date, p.value]));
    readable(area, drawdownChart, series, points, (p) => clear(readout, p
      ? `${F.calendarDate(p.time, { year: true })} · ${F.percent(fall.get(p.time), { fraction: true })}` : ''));
    drawdownChart.timeScale().fitContent();
    const drawn = drawdownChart;
    drawdownResize = new ResizeObserver(() => requestAnimationFrame(() => { if (drawdownChart === drawn) drawn.timeScale().fitContent(); }));
    drawdownResize.observe(area);
  }

  function renderHoldings() {
    const rows = report.holdings;
    clear(holdings, h('div.card-head', h('h2#holding-performance-title', t('perf.holdings'))),
      rows.length === 0 ? empty(t('perf.no_holdings'))
        : h('div.table-scroll', h('table.holding-performance', { dataset: { testid: 'holding-performance' } },
          h('thead', h('tr', ['symbol', 'shares', 'avg_cost', 'value', 'unrealized', 'realized', 'share', 'today'].map((c) => h('th', { scope: 'col' }, t(`perf.col.${c}`))))),
          h('tbody', rows.map((p) => h('tr',
            h('th', { scope: 'row' }, h('a', { href: F.stockRoute(p.symbol) }, p.symbol)),
            h('td', F.shares(p.qty)), h('td', F.price(p.avg_cost)),
            h('td', hidden() ? '••••' : F.money(p.market_value, currency)),
            h('td', money(p.unrealized_pnl), ' ', pct(p.unrealized_pnl_pct)),
            h('td', money(p.realized_pnl)),
            h('td', hidden() ? '••••' : F.percent(p.share, { fraction: true }).replace('+', '')),
            h('td', money(p.day_change))))))),
      rows.length ? h('p.definition', t('perf.holdings_note')) : null);
  }

  const offStore = store.onChange((what) => { if (what === 'hide') renderAll(); });
  scope.onCleanup(() => { left = true; offStore(); chart.destroy(); removeDrawdown(); });
}
