// Price alerts: the conditions the server knows, an alert in words, and the sheet that adds one (the stock page's
// bell). Alerts notify; they never place an order.
import * as api from './api.js';
import * as F from './format.js';
import { h, sheet, toast } from './ui.js';

/** [condition, label, operands]: 'level' (value or moving average), 'channel' (lower/upper), 'move' (value + within). */
export const CONDITIONS = [
  ['crossing', 'Crosses', 'level'],
  ['crossing_up', 'Crosses up through', 'level'],
  ['crossing_down', 'Crosses down through', 'level'],
  ['greater_than', 'Is above', 'level'],
  ['less_than', 'Is below', 'level'],
  ['entering_channel', 'Enters the channel', 'channel'],
  ['exiting_channel', 'Leaves the channel', 'channel'],
  ['inside_channel', 'Is inside the channel', 'channel'],
  ['outside_channel', 'Is outside the channel', 'channel'],
  ['moving_up', 'Rises by (price)', 'move'],
  ['moving_down', 'Falls by (price)', 'move'],
  ['moving_up_percent', 'Rises by %', 'move'],
  ['moving_down_percent', 'Falls by %', 'move'],
];
export const FREQUENCIES = [['once', 'Only once'], ['once_per_bar', 'Once per bar'], ['once_per_minute', 'Once per minute']];
export const TIMEFRAMES = [['1Min', '1 minute'], ['5Min', '5 minutes'], ['15Min', '15 minutes'], ['30Min', '30 minutes'], ['1Hour', '1 hour'], ['1Day', '1 day']];
export const STATUS = { active: 'Active', triggered: 'Triggered', canceled: 'Canceled', expired: 'Expired' };

const kindOf = (condition) => CONDITIONS.find(([c]) => c === condition)?.[2];

function windowWords(within, timeframe) {
  if (within === undefined || within === null) return '';
  const text = String(within);
  const m = /^(\d+)s$/.exec(text);
  if (m) {
    const s = Number(m[1]);
    for (const [unit, name] of [[86400, 'day'], [3600, 'hour'], [60, 'minute']]) {
      if (s % unit === 0) return `${s / unit} ${name}${s / unit === 1 ? '' : 's'}`;
    }
    return `${s} seconds`;
  }
  const bars = Number(text);
  if (timeframe === '1Day') return `${bars} trading day${bars === 1 ? '' : 's'}`;
  const length = TIMEFRAMES.find(([t]) => t === timeframe)?.[1] ?? timeframe;
  return `${bars} bar${bars === 1 ? '' : 's'} of ${length}`;
}

/** The alert's condition in words: "AAPL crosses up through $150.00 (once)". */
export function describe(a, currency = a.currency) {
  const money = (v) => F.currencySymbol(currency) + F.price(v);
  const level = a.moving_average ? `its ${a.moving_average}-day moving average` : money(a.value);
  const channel = `${money(a.lower)}–${money(a.upper)}`;
  const within = windowWords(a.within, a.timeframe);
  const phrases = {
    crossing: `crosses ${level}`, crossing_up: `crosses up through ${level}`, crossing_down: `crosses down through ${level}`,
    greater_than: `is above ${level}`, less_than: `is below ${level}`,
    entering_channel: `enters the channel ${channel}`, exiting_channel: `leaves the channel ${channel}`,
    inside_channel: `is inside the channel ${channel}`, outside_channel: `is outside the channel ${channel}`,
    moving_up: `rises ${money(a.value)} or more within ${within}`, moving_down: `falls ${money(a.value)} or more within ${within}`,
    moving_up_percent: `rises ${a.value}% or more within ${within}`, moving_down_percent: `falls ${a.value}% or more within ${within}`,
  };
  const frequency = {
    once: 'once', once_per_minute: 'at most once a minute',
    once_per_bar: `at most once per ${(TIMEFRAMES.find(([t]) => t === a.timeframe)?.[1] ?? a.timeframe).replace(/^1 /, '')} bar`,
  }[a.frequency] ?? a.frequency;
  return `${a.symbol} ${phrases[a.condition] ?? a.condition} (${frequency})`;
}

/** The sheet that adds an alert for a stock, explaining the condition in words as it is filled in. */
export function openAlertSheet(symbol, { currency, last } = {}) {
  sheet(`Alert for ${symbol}`, (close) => {
    const condition = h('select#alert-condition', CONDITIONS.map(([v, t]) => h('option', { value: v }, t)));
    const operand = h('select#alert-operand', h('option', { value: 'value' }, 'a price'), h('option', { value: 'moving_average' }, 'a moving average'));
    const value = h('input#alert-value', { inputMode: 'decimal', autocomplete: 'off', value: last ? F.price(last).replace(/,/g, '') : '' });
    const average = h('input#alert-ma', { inputMode: 'numeric', autocomplete: 'off', value: '20' });
    const lower = h('input#alert-lower', { inputMode: 'decimal', autocomplete: 'off' });
    const upper = h('input#alert-upper', { inputMode: 'decimal', autocomplete: 'off' });
    const within = h('input#alert-within', { inputMode: 'numeric', autocomplete: 'off', value: '15' });
    const withinUnit = h('select#alert-within-unit', [['m', 'minutes'], ['h', 'hours'], ['d', 'days'], ['bars', 'bars']].map(([v, t]) => h('option', { value: v }, t)));
    const frequency = h('select#alert-frequency', FREQUENCIES.map(([v, t]) => h('option', { value: v }, t)));
    const timeframe = h('select#alert-timeframe', TIMEFRAMES.map(([v, t]) => h('option', { value: v, selected: v === '1Day' }, t)));
    const expires = h('input#alert-expires', { type: 'datetime-local' });
    const message = h('input#alert-message', { maxLength: 500, autocomplete: 'off', placeholder: 'Optional note in the notification' });
    const words = h('p.alert-words', { 'aria-live': 'polite', dataset: { testid: 'alert-words' } });
    const field = (id, label, input) => h('div.field', h('label', { for: id }, label), input);
    const levelFields = h('div', h('div.field-row', field('alert-operand', 'Compared with', operand), field('alert-value', 'Price', value)),
      field('alert-ma', 'Days in the average', average));
    const channelFields = h('div.field-row', field('alert-lower', 'Lower', lower), field('alert-upper', 'Upper', upper));
    const moveFields = h('div.field-row', field('alert-value-move', 'By', value), h('div.field', h('label', { for: 'alert-within' }, 'Within'), h('div.inline', within, withinUnit)));
    const timeframeField = field('alert-timeframe', 'Bar', timeframe);

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
      if (expires.value) b.expires_at = new Date(expires.value).toISOString();
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
      words.textContent = `Notify me when ${describe({ ...b, value: b.value || '0', lower: b.lower || '0', upper: b.upper || '0' }, currency)}.`;
    }
    const form = h('form.alert-form', { novalidate: true },
      field('alert-condition', 'When the price', condition), levelFields, channelFields, moveFields,
      h('div.field-row', field('alert-frequency', 'Notify', frequency), timeframeField),
      field('alert-expires', 'Expires (optional)', expires), field('alert-message', 'Message', message),
      words,
      h('p.field-help', 'An alert only notifies you — in the app, on your devices and to your webhook. It never places an order.'),
      h('div.actions', h('button.secondary', { type: 'button', onclick: close }, 'Cancel'),
        h('button.primary', { type: 'submit' }, 'Create alert')));
    form.addEventListener('input', sync);
    form.addEventListener('change', sync);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        const alert = await api.post('/alerts', body());
        close();
        toast(alert.status === 'triggered' ? `It already holds: ${describe(alert)}` : `Alert set: ${describe(alert)}`, 'success');
      } catch (error) { toast(error.message, 'error'); }
    });
    sync();
    return form;
  }, { className: 'alert-sheet' });
}
