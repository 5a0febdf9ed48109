// Price alerts: the conditions the server knows, an alert in words, and the sheet that adds one (the stock page's
// bell). Alerts notify; they never place an order.
import * as api from './api.js';
import * as F from './format.js';
import { t } from './i18n.js';
import { h, sheet, toast } from './ui.js';

/** [condition, operands]: 'level' (value or moving average), 'channel' (lower/upper), 'move' (value + within). Labels
 * are `alert.cond.<condition>` in the catalogues. */
export const CONDITIONS = [
  ['crossing', 'level'], ['crossing_up', 'level'], ['crossing_down', 'level'], ['greater_than', 'level'],
  ['less_than', 'level'], ['entering_channel', 'channel'], ['exiting_channel', 'channel'], ['inside_channel', 'channel'],
  ['outside_channel', 'channel'], ['moving_up', 'move'], ['moving_down', 'move'], ['moving_up_percent', 'move'],
  ['moving_down_percent', 'move'],
];
export const FREQUENCIES = ['once', 'once_per_bar', 'once_per_minute'];
export const TIMEFRAMES = ['1Min', '5Min', '15Min', '30Min', '1Hour', '1Day'];
/** An alert's status in words. */
export const status = (s) => t(`alert.status.${s}`);

const kindOf = (condition) => CONDITIONS.find(([c]) => c === condition)?.[1];

function windowWords(within, timeframe) {
  if (within === undefined || within === null) return '';
  const text = String(within);
  const m = /^(\d+)s$/.exec(text);
  if (m) {
    const s = Number(m[1]);
    for (const [unit, name] of [[86400, 'days'], [3600, 'hours'], [60, 'minutes']]) {
      if (s % unit === 0) return t.count(`window.${name}`, s / unit);
    }
    return t.count('window.seconds', s);
  }
  const bars = Number(text);
  if (timeframe === '1Day') return t.count('window.trading_days', bars);
  return t.count('window.bars', bars, { length: t(`alert.timeframe.${timeframe}`) });
}

/** A price in its unit: "$150.00", "¥12.30", or "97,500.00 USDT" for a coin pair priced in a coin. */
export const priceIn = (v, c) => (F.currencySymbol(c) ? F.currencySymbol(c) + F.price(v) : `${F.price(v)} ${c}`);

/** The alert's condition in words: "AAPL crosses up through $150.00 (once)", "AAPL 向上突破 $150.00（仅一次）". */
export function describe(a, currency = a.currency) {
  const money = (v) => priceIn(v, currency);
  const values = {
    level: a.moving_average ? t('alert.words.moving_average', { n: a.moving_average }) : money(a.value),
    lower: money(a.lower), upper: money(a.upper), within: windowWords(a.within, a.timeframe),
    amount: a.condition?.endsWith('_percent') ? a.value : money(a.value),
  };
  const what = t(`alert.words.${a.condition}`, values);
  const frequency = t(`alert.frequency_words.${a.frequency}`, { bar: t(`alert.bar.${a.timeframe}`) });
  return t('alert.describe', { symbol: a.symbol, what, frequency });
}

/** How long an alert may wait: a choice of spans, not a date picker (the browser draws that in its own language,
 * "mm/dd/yyyy" in a Chinese app). */
export const EXPIRIES = [['never', 0], ['1d', 1], ['1w', 7], ['1m', 30], ['3m', 91]];

/** Active alerts per symbol ({AAPL: 2}), for the stock page's bell. */
export async function activeCounts() {
  const counts = {};
  for (const a of await api.get('/alerts')) counts[a.symbol] = (counts[a.symbol] ?? 0) + 1;
  return counts;
}

/** The sheet that adds an alert for a stock, explaining the condition in words as it is filled in; `onCreated` runs
 * after the server has it. */
export function openAlertSheet(symbol, { currency, last, onCreated } = {}) {
  sheet(t('alert.sheet_title', { symbol }), (close) => {
    const condition = h('select#alert-condition', CONDITIONS.map(([v]) => h('option', { value: v }, t(`alert.cond.${v}`))));
    const operand = h('select#alert-operand', h('option', { value: 'value' }, t('alert.operand.value')),
      h('option', { value: 'moving_average' }, t('alert.operand.moving_average')));
    const value = h('input#alert-value', { inputMode: 'decimal', autocomplete: 'off', value: last ? F.price(last).replace(/,/g, '') : '' });
    const average = h('input#alert-ma', { inputMode: 'numeric', autocomplete: 'off', value: '20' });
    const lower = h('input#alert-lower', { inputMode: 'decimal', autocomplete: 'off' });
    const upper = h('input#alert-upper', { inputMode: 'decimal', autocomplete: 'off' });
    const within = h('input#alert-within', { inputMode: 'numeric', autocomplete: 'off', value: '15' });
    const withinUnit = h('select#alert-within-unit', ['m', 'h', 'd', 'bars'].map((v) => h('option', { value: v }, t(`alert.unit.${v}`))));
    const frequency = h('select#alert-frequency', FREQUENCIES.map((v) => h('option', { value: v }, t(`alert.frequency.${v}`))));
    const timeframe = h('select#alert-timeframe', TIMEFRAMES.map((v) => h('option', { value: v, selected: v === '1Day' }, t(`alert.timeframe.${v}`))));
    const expires = h('select#alert-expires', EXPIRIES.map(([v]) => h('option', { value: v }, t(`alert.expires.${v}`))));
    const message = h('input#alert-message', { maxLength: 500, autocomplete: 'off', placeholder: t('alert.message_placeholder') });
    const words = h('p.alert-words', { 'aria-live': 'polite', dataset: { testid: 'alert-words' } });
    const field = (id, label, input) => h('div.field', h('label', { for: id }, label), input);
    const levelFields = h('div', h('div.field-row', field('alert-operand', t('alert.compared_with'), operand), field('alert-value', t('alert.price'), value)),
      field('alert-ma', t('alert.ma_days'), average));
    const channelFields = h('div.field-row', field('alert-lower', t('alert.lower'), lower), field('alert-upper', t('alert.upper'), upper));
    const moveFields = h('div.field-row', field('alert-value-move', t('alert.by'), value),
      h('div.field', h('label', { for: 'alert-within' }, t('alert.within')), h('div.inline', within, withinUnit)));
    const timeframeField = field('alert-timeframe', t('alert.bar_label'), timeframe);

    function body() {
      const b = { symbol, condition: condition.value, frequency: frequency.value, timeframe: timeframe.value };
      const kind = kindOf(condition.value);
      if (kind === 'level') {
        if (operand.value === 'value') b.value = value.value.trim(); else b.moving_average = Number(average.value);
      } else if (kind === 'channel') {
        b.lower = lower.value.trim();
        b.upper = upper.value.trim();
      } else {
        b.value = value.value.trim();
        b.within = withinUnit.value === 'bars' ? Number(within.value) : `${within.value.trim()}${withinUnit.value}`;
      }
      const days = EXPIRIES.find(([v]) => v === expires.value)?.[1];
      if (days) b.expires_at = new Date(Date.now() + days * 86400000).toISOString();
      if (message.value.trim()) b.message = message.value.trim();
      return b;
    }
    function sync() {
      const kind = kindOf(condition.value);
      levelFields.hidden = kind !== 'level';
      channelFields.hidden = kind !== 'channel';
      moveFields.hidden = kind !== 'move';
      // The one price input moves between the level and the move rows.
      const home = kind === 'move' ? moveFields.firstChild : levelFields.firstChild.lastChild;
      if (value.parentElement !== home) home.append(value); // moving a focused input would blur it
      value.closest('.field').hidden = kind === 'level' && operand.value !== 'value';
      average.closest('.field').hidden = kind !== 'level' || operand.value !== 'moving_average';
      timeframeField.hidden = frequency.value !== 'once_per_bar' && !(kind === 'move' && withinUnit.value === 'bars');
      const b = body();
      if (b.within !== undefined && typeof b.within === 'string') {
        const [, n, u] = /^(\d+)([mhd])$/.exec(b.within) ?? [];
        if (n) b.within = `${Number(n) * { m: 60, h: 3600, d: 86400 }[u]}s`;
      }
      words.textContent = t('alert.notify_me', { what: describe({ ...b, value: b.value || '0', lower: b.lower || '0', upper: b.upper || '0' }, currency) });
    }
    const form = h('form.alert-form', { novalidate: true },
      field('alert-condition', t('alert.when'), condition), levelFields, channelFields, moveFields,
      h('div.field-row', field('alert-frequency', t('alert.notify'), frequency), timeframeField),
      field('alert-expires', t('alert.expires'), expires), field('alert-message', t('alert.message'), message),
      words,
      h('p.field-help', t('alert.help'), ' ', h('a', { href: '#/alerts', onclick: () => close() }, t('alert.all_link'))),
      h('div.actions', h('button.secondary', { type: 'button', onclick: close }, t('alert.cancel')),
        h('button.primary', { type: 'submit' }, t('alert.create'))));
    form.addEventListener('input', sync);
    form.addEventListener('change', sync);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        const alert = await api.post('/alerts', body());
        close();
        onCreated?.(alert);
        toast(t(alert.status === 'triggered' ? 'alert.holds_already' : 'alert.set', { alert: describe(alert) }), 'success');
      } catch (error) { toast(error.message, 'error'); }
    });
    sync();
    return form;
  }, { className: 'alert-sheet' });
}
