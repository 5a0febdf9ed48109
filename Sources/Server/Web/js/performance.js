// The account performance chart (home screen and Performance screen): an area line of the account's value over a
// period (GET /accounts/{id}/performance), period tabs, a crosshair read-out of value and date, the benchmark
// index overlaid on the same scale, and TWR next to MWR with their one-line definitions. Amounts obey the
// hide-amounts eye. Charts use Lightweight Charts (./chart.js loads it).
import * as api from './api.js';
import * as D from './decimal.js';
import * as F from './format.js';
import * as store from './store.js';
import { loadLibrary, zoneOffset, css, readable, unreadable } from './chart.js';
import { t, locale } from './i18n.js';
import { h, clear, segmented, loading, failure, empty, change } from './ui.js';

export const PERIODS = ['1D', '1W', '1M', '3M', 'YTD', '1Y', 'ALL'];

export function timeZoneOf(account) { return account.market === 'cn' ? 'Asia/Shanghai' : 'America/New_York'; }

export function fetchPerformance(accountId, period) {
  return api.get(`/accounts/${api.enc(accountId)}/performance` + api.query({ period }));
}

let charts = 0;  // numbers each chart's read-out id (home and the Performance screen may both have one)

/** {element, reload(), destroy()}; `onReport(report)` gets each loaded report (the Performance screen's figures). */
export function performanceChart(account, { period = '1M', onReport, title = t('perf.title'), details = true } = {}) {
  const currency = account.currency;
  const timeZone = timeZoneOf(account);
  const readout = h('p.readout', { id: `performance-readout-${++charts}`, dataset: { testid: 'performance-readout' }, 'aria-live': 'polite' });
  const area = h('div.chart-area.performance-area', {
    tabIndex: 0, role: 'group', 'aria-label': `${t('perf.chart_label')}. ${t('chart.keys')}`, 'aria-describedby': readout.id });
  const returns = h('div.returns');
  const benchmarkToggle = h('button.chip', { type: 'button', 'aria-pressed': 'false', dataset: { testid: 'benchmark-toggle' } }, t('perf.benchmark'));
  const tabs = segmented(t('perf.period'), PERIODS.map((p) => [p, t(`perf.period.${p}`)]), period, (p) => { period = p; load(); });
  tabs.classList.add('period-tabs');
  const element = h('section.card.performance-card', { 'aria-labelledby': 'performance-title' },
    h('div.card-head', h('h2#performance-title', title), details ? h('a.link', { href: '#/performance' }, t('perf.details')) : null),
    readout, area, h('div.chart-foot', tabs, benchmarkToggle), returns);

  let chart = null;
  let report = null;
  let showBenchmark = false;
  let requested = 0;
  let destroyed = false;  // the screen was left: loads and draws still in flight must not make a chart

  benchmarkToggle.addEventListener('click', () => {
    showBenchmark = !showBenchmark;
    benchmarkToggle.setAttribute('aria-pressed', String(showBenchmark));
    draw();
  });

  // A resized chart (a phone turned, a window widened) fits its points to the new width again.
  let resize = null;
  function destroyChart() { unreadable(area); resize?.disconnect(); resize = null; chart?.remove(); chart = null; }

  const hidden = () => store.amountsHidden();
  const amount = (text) => (hidden() ? '••••••' : F.money(text, currency));

  function dateLabel(iso) {
    const intraday = period === '1D' || period === '1W';
    return new Date(iso).toLocaleString(locale(), intraday
      ? { timeZone, month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
      : { timeZone, year: 'numeric', month: 'short', day: 'numeric' });
  }

  function showReadout(point) {
    if (!report) return;
    const last = point ?? report.equity[report.equity.length - 1];
    if (!last) { clear(readout); return; }
    // The gain over the period up to that point: the period's total return (what the figures and, over 1D, Home's
    // day change say) less what came after the point — the value's change since, net of money moved in since.
    const points = report.equity;
    const at = points.indexOf(last);
    let after = D.sub(D.parse(points[points.length - 1].value), D.parse(last.value));
    for (let i = Math.max(at, 0) + 1; i < points.length; i += 1) after = D.sub(after, D.parse(points[i].flow));
    const gain = at < 0 ? D.parse(report.total_return) : D.sub(D.parse(report.total_return), after);
    clear(readout, h('span.readout-value', amount(last.value)), ' ',
      hidden() ? null : change(D.format(gain, null, false), F.signedMoney(D.format(gain, null, false), currency)),
      h('span.sub', ' ', dateLabel(last.t)));
  }

  function renderReturns() {
    const d = report.definitions;
    const figure = (label, key, testid) => h('div.figure', { dataset: { testid } },
      h('dt', label), h('dd', hidden() ? '••••' : report[key] == null ? '—' : change(report[key], F.percent(report[key], { fraction: true }))),
      h('dd.definition', d[key]));
    clear(returns, h('dl.return-pair', figure(t('perf.twr_short'), 'twr', 'twr'), figure(t('perf.mwr_short'), 'mwr', 'mwr')),
      report.benchmark?.return != null
        ? h('p.sub', `${report.benchmark.name}: `, change(report.benchmark.return, F.percent(report.benchmark.return, { fraction: true })))
        : null);
  }

  async function draw() {
    destroyChart();
    if (!report) return;
    if (report.equity.length < 2) { clear(area, empty(t('perf.chart_starts'))); showReadout(); return; }
    let LWC;
    try { LWC = await loadLibrary(); } catch (error) { clear(area, failure(error, draw)); return; }
    if (destroyed) return;
    destroyChart();  // another draw may have finished while this one waited for the library
    clear(area);
    const offset = zoneOffset(timeZone, new Date());
    const time = (iso) => Math.floor(Date.parse(iso) / 1000) + offset;
    const n = (text) => D.toNumber(D.parse(text));
    const first = n(report.equity[0].value);
    const last = n(report.equity[report.equity.length - 1].value);
    const color = last >= first ? css('--up') : css('--down');
    chart = LWC.createChart(area, {
      autoSize: true,
      layout: { background: { color: 'transparent' }, textColor: css('--muted'), attributionLogo: true },
      grid: { vertLines: { visible: false }, horzLines: { color: css('--grid') } },
      timeScale: { timeVisible: period === '1D' || period === '1W', secondsVisible: false, borderColor: css('--grid'), fixLeftEdge: true, fixRightEdge: true },
      rightPriceScale: { visible: !hidden(), borderColor: css('--grid') },
      localization: { priceFormatter: (v) => (hidden() ? '••••' : v.toLocaleString(locale(), { maximumFractionDigits: 2 })) },
      crosshair: { mode: 0, horzLine: { labelVisible: !hidden() } },
      handleScroll: false, handleScale: false,
    });
    const byTime = new Map();
    const line = chart.addSeries(LWC.AreaSeries, { lineColor: color, topColor: color + '55', bottomColor: color + '05', lineWidth: 2, priceLineVisible: false });
    const data = [];
    for (const p of report.equity) {
      const at = time(p.t);
      if (data.length && at <= data[data.length - 1].time) continue;  // the live point can share a close's minute
      data.push({ time: at, value: n(p.value) });
      byTime.set(at, p);
    }
    line.setData(data);
    if (showBenchmark && report.benchmark?.series?.length) {
      // The index scaled to the account's starting value, sampled at the account's own times (its last value at
      // or before each), so the lines start together and the crosshair meets both at the same moments.
      const bench = report.benchmark.series.map((b) => ({ t: Date.parse(b.t), v: n(b.value) }));
      const base = bench[0].v;
      const scale = base ? first / base : 0;
      const points = [];
      let j = 0;
      for (const p of data) {
        const at = (p.time - offset) * 1000;
        while (j + 1 < bench.length && bench[j + 1].t <= at) j += 1;
        if (bench[j].t <= at) points.push({ time: p.time, value: bench[j].v * scale });
      }
      chart.addSeries(LWC.LineSeries, { color: css('--muted'), lineWidth: 1, lineStyle: 2, priceLineVisible: false, lastValueVisible: false, title: report.benchmark.name })
        .setData(points);
    }
    readable(area, chart, line, data, (p) => showReadout(p ? byTime.get(p.time) : null));
    chart.timeScale().fitContent();
    const drawn = chart;
    resize = new ResizeObserver(() => requestAnimationFrame(() => { if (chart === drawn) chart.timeScale().fitContent(); }));
    resize.observe(area);
    showReadout();
  }

  /** Fetches the report and redraws; `quiet` keeps the current chart up while it loads (periodic refresh). */
  async function load({ quiet = false } = {}) {
    const ticket = ++requested;
    if (!quiet || !chart) clear(area, loading(t('perf.loading')));
    try {
      const r = await fetchPerformance(account.id, period);
      if (ticket !== requested || destroyed) return;
      report = r;
    } catch (error) {
      if (ticket === requested && !(quiet && chart)) clear(area, failure(error, () => load()));
      return;
    }
    renderReturns();
    onReport?.(report);
    await draw();
  }

  const offStore = store.onChange((what) => { if (what === 'hide' && report) { renderReturns(); draw(); } });
  load();
  return { element, reload: load, destroy: () => { destroyed = true; offStore(); destroyChart(); } };
}
