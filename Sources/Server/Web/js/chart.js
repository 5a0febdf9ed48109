// Price charts with TradingView Lightweight Charts (fetched by scripts/fetch-web-vendor.sh, served at
// /vendor/lightweight-charts.js). Intraday: a line; history: candlesticks with volume. Times are shown in the
// exchange's time zone.
import * as api from './api.js';
import * as D from './decimal.js';
import * as F from './format.js';
import { t, locale } from './i18n.js';
import { h, clear, segmented, loading, failure, empty } from './ui.js';

let library = null;
export function loadLibrary() {
  if (window.LightweightCharts) return Promise.resolve(window.LightweightCharts);
  library ??= new Promise((resolve, reject) => {
    const script = h('script', { src: '/vendor/lightweight-charts.js' });
    script.onload = () => resolve(window.LightweightCharts);
    script.onerror = () => { library = null; reject(new Error(t('chart.missing_library'))); };
    document.head.append(script);
  });
  return library;
}

const DAY = 86400000;
/** Range and K-line tabs → bars request and chart kind. */
const VIEWS = {
  '1D': { timeframe: '1Min', days: 0, kind: 'line' },
  '1W': { timeframe: '15Min', days: 7, kind: 'line' },
  '1M': { timeframe: '1Day', days: 31, kind: 'candles' },
  '6M': { timeframe: '1Day', days: 183, kind: 'candles' },
  '1Y': { timeframe: '1Day', days: 366, kind: 'candles' },
  '5Y': { timeframe: '1Week', days: 5 * 366, kind: 'candles' },
  intraday: { timeframe: '5Min', days: 0, kind: 'candles' },
  daily: { timeframe: '1Day', days: 183, kind: 'candles' },
  weekly: { timeframe: '1Week', days: 2 * 366, kind: 'candles' },
  monthly: { timeframe: '1Month', days: 10 * 365, kind: 'candles' },
};

/** Seconds to add to UTC so the axis reads exchange-local time (the library has no time zones). */
export function zoneOffset(timeZone, date) {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(date).map((p) => [p.type, p.value]));
  const local = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return Math.round((local - date.getTime()) / 1000 / 60) * 60;
}

export function css(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }

/** A volume axis label in the user's language: "4.07M" in English, "407.00万" in Chinese. */
export function volumeLabel(value) { return F.compact(String(Math.round(value))); }

/**
 * A chart's values without a pointer: `area` (a focusable, labelled group) moves the crosshair through `points`
 * ({time, value} of `series`) with the arrow keys, Home and End, and `show(point)` writes each into the chart's
 * read-out, a live region that a screen reader speaks; `show(null)` when focus leaves. A pointer's crosshair calls
 * `show` too, so both ways read the same words. Call again after each redraw (it replaces the last chart's keys).
 */
export function readable(area, chart, series, points, show) {
  let at = -1;
  const move = (i) => {
    at = Math.min(Math.max(i, 0), points.length - 1);
    chart.setCrosshairPosition(points[at].value, points[at].time, series);
    show(points[at]);
  };
  const keys = {
    ArrowLeft: () => move(at < 0 ? points.length - 1 : at - 1),
    ArrowRight: () => move(at < 0 ? points.length - 1 : at + 1),
    Home: () => move(0),
    End: () => move(points.length - 1),
  };
  area.onkeydown = (event) => {
    const key = keys[event.key];
    if (!key || !points.length) return;
    event.preventDefault();
    key();
  };
  area.onblur = () => { at = -1; chart.clearCrosshairPosition(); show(null); };
  const byTime = new Map(points.map((p) => [p.time, p]));
  chart.subscribeCrosshairMove((param) => { if (param.sourceEvent) show(param.time ? byTime.get(param.time) ?? null : null); });
}

/** Forgets the keys of a chart that is gone (its area shows a spinner or an error until the next one is drawn). */
export function unreadable(area) { area.onkeydown = area.onblur = null; }

/** The chart card of a stock page; returns {element, update(quote), destroy()}. */
export function stockChart(symbol, timeZone) {
  const readout = h('p.readout.chart-readout', { id: `chart-readout-${symbol}`, 'aria-live': 'polite', dataset: { testid: 'chart-readout' } });
  const area = h('div.chart-area', { tabIndex: 0, role: 'group', 'aria-label': `${t('chart.label', { symbol })}. ${t('chart.keys')}`, 'aria-describedby': readout.id });
  let selected = '1D';
  let chart = null;
  let series = null;
  let volume = null;
  let lastBarTime = null;
  let lastBarDay = null;  // the exchange's date of the 1D line: a quote of the next day's session starts a new chart
  let kind = 'line';
  let resize = null;
  let destroyed = false;  // the stock page was left: a range still loading must not make a chart

  const ranges = segmented(t('chart.range'), ['1D', '1W', '1M', '6M', '1Y', '5Y'].map((r) => [r, t(`chart.range.${r}`)]), selected, (v) => { kline.querySelectorAll('button').forEach((b) => b.setAttribute('aria-pressed', 'false')); show(v); });
  const kline = segmented(t('chart.kline'), ['intraday', 'daily', 'weekly', 'monthly'].map((k) => [k, t(`chart.${k}`)]), null, (v) => { ranges.querySelectorAll('button').forEach((b) => b.setAttribute('aria-pressed', 'false')); show(v); });
  kline.classList.add('kline');
  const element = h('section.card.chart-card', { 'aria-label': t('chart.title') }, ranges, area, readout, h('div.kline-row', h('span.kline-label', t('chart.kline')), kline));

  function destroyChart() {
    unreadable(area);
    clear(readout);
    resize?.disconnect();
    chart?.remove();
    chart = series = volume = null;
  }

  async function show(name) {
    selected = name;
    const spec = VIEWS[name];
    destroyChart();
    clear(area, loading(t('chart.loading')));
    let LWC;
    let data;
    try {
      const from = spec.days ? new Date(Date.now() - spec.days * DAY).toISOString() : undefined;
      [LWC, data] = await Promise.all([loadLibrary(), api.get(`/bars/${api.enc(symbol)}` + api.query({ timeframe: spec.timeframe, from }))]);
    } catch (error) {
      if (selected === name) clear(area, failure(error, () => show(name)));
      return;
    }
    if (selected !== name || destroyed) return;
    if (!data.bars.length) { clear(area, empty(t('chart.no_trades'))); return; }
    clear(area);
    const offset = zoneOffset(timeZone, new Date());
    const time = (iso) => Math.floor(Date.parse(iso) / 1000) + offset;
    const up = css('--up');
    const down = css('--down');
    chart = LWC.createChart(area, {
      autoSize: true,
      layout: { background: { color: 'transparent' }, textColor: css('--muted'), attributionLogo: true },
      localization: { locale: locale() },
      grid: { vertLines: { color: css('--grid') }, horzLines: { color: css('--grid') } },
      // Fixed edges: the library moves the first and last time labels inside the axis only when the chart cannot
      // scroll past its data (otherwise "17:00" at the right edge is drawn as "17:").
      timeScale: { timeVisible: spec.timeframe.endsWith('Min'), secondsVisible: false, borderColor: css('--grid'), fixLeftEdge: true, fixRightEdge: true },
      rightPriceScale: { borderColor: css('--grid') },
      crosshair: { mode: 0 },
    });
    kind = spec.kind;
    const n = (text) => D.toNumber(D.parse(text));
    if (kind === 'line') {
      const first = n(data.bars[0].o);
      const last = n(data.bars[data.bars.length - 1].c);
      const color = last >= first ? up : down;
      series = chart.addSeries(LWC.AreaSeries, { lineColor: color, topColor: color + '55', bottomColor: color + '05', lineWidth: 2 });
      series.setData(data.bars.map((b) => ({ time: time(b.t), value: n(b.c) })));
    } else {
      series = chart.addSeries(LWC.CandlestickSeries, { upColor: up, downColor: down, borderVisible: false, wickUpColor: up, wickDownColor: down });
      series.setData(data.bars.map((b) => ({ time: time(b.t), open: n(b.o), high: n(b.h), low: n(b.l), close: n(b.c) })));
      volume = chart.addSeries(LWC.HistogramSeries, { priceFormat: { type: 'custom', formatter: volumeLabel }, priceScaleId: 'volume' });
      chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
      volume.setData(data.bars.map((b) => ({ time: time(b.t), value: n(b.v), color: (n(b.c) >= n(b.o) ? up : down) + '88' })));
    }
    lastBarTime = time(data.bars[data.bars.length - 1].t);
    lastBarDay = exchangeDay(data.bars[data.bars.length - 1].t);
    chart.timeScale().fitContent();
    const bars = new Map(data.bars.map((b) => [time(b.t), b]));
    readable(area, chart, series, data.bars.map((b) => ({ time: time(b.t), value: n(b.c) })),
      (p) => { const bar = p && bars.get(p.time); clear(readout, bar ? describe(bar, spec) : ''); });
  }

  /** "Dec 3, 10:31 · 240.63 · volume 1.2M", or for a candle its open, high, low and close. */
  function describe(bar, spec) {
    const when = new Date(bar.t).toLocaleString(locale(), spec.timeframe.endsWith('Min')
      ? { timeZone, month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
      : { timeZone, year: 'numeric', month: 'short', day: 'numeric' });
    const values = spec.kind === 'line'
      ? t('chart.point', { price: F.price(bar.c) })
      : t('chart.candle', { open: F.price(bar.o), high: F.price(bar.h), low: F.price(bar.l), close: F.price(bar.c) });
    return `${when} · ${values} · ${t('chart.volume', { volume: F.compact(bar.v) })}`;
  }

  /** The exchange's calendar date of a time ("2026-12-03"). */
  function exchangeDay(iso) { return new Date(iso).toLocaleDateString('en-CA', { timeZone }); }

  /** Extends the 1D line with a live quote (other views refresh when reopened). */
  function update(quote) {
    if (!series || selected !== '1D' || kind !== 'line' || exchangeDay(quote.time) !== lastBarDay) return;
    const minute = Math.floor(Date.parse(quote.time) / 1000 / 60) * 60 + zoneOffset(timeZone, new Date());
    if (lastBarTime !== null && minute < lastBarTime) return;
    lastBarTime = minute;
    try { series.update({ time: minute, value: D.toNumber(D.parse(quote.last)) }); } catch { /* out-of-order tick */ }
  }

  show(selected);
  return { element, update, destroy: () => { destroyed = true; destroyChart(); } };
}
