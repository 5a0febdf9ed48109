// Queue purchase: add a rule (search a stock, quantity, condition, order type, lifetime), see each queued rule's
// current price, trigger level and status, cancel it, and the history of fired, failed and canceled rules.
import * as api from '../api.js';
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as live from '../live.js';
import * as store from '../store.js';
import { searchBox } from './search.js';
import { h, clear, toast, failure, empty, loading, confirmAction } from '../ui.js';

const CONDITIONS = [
  ['within_percent_of_limit_up', 'Within % of limit-up', '1', true],
  ['touches_limit_up', 'Touches limit-up', '', true],
  ['price_at_least', 'Price ≥', ''],
  ['price_at_most', 'Price ≤', ''],
  ['change_percent_at_least', 'Change since prev. close ≥ %', '5'],
  ['change_percent_at_most', 'Change since prev. close ≤ %', '-5'],
  ['within_of_limit_up', 'Within (price) of limit-up', '0.10', true],
  ['within_percent_of_limit_down', 'Within % of limit-down', '1', true],
  ['within_of_limit_down', 'Within (price) of limit-down', '0.10', true],
  ['crosses_above_moving_average', 'Crosses above N-day average', '20'],
  ['crosses_below_moving_average', 'Crosses below N-day average', '20'],
];
const STATUS = { queued: 'Queued', fired: 'Order placed', failed: 'Failed', canceled: 'Canceled', expired: 'Expired' };

function describeCondition(c) {
  const v = c.value;
  switch (c.type) {
    case 'price_at_least': return `price ≥ ${F.price(v)}`;
    case 'price_at_most': return `price ≤ ${F.price(v)}`;
    case 'change_percent_at_least': return `change ≥ ${F.percent(v)}`;
    case 'change_percent_at_most': return `change ≤ ${F.percent(v)}`;
    case 'within_of_limit_up': return `within ${F.price(v)} of limit-up`;
    case 'within_of_limit_down': return `within ${F.price(v)} of limit-down`;
    case 'within_percent_of_limit_up': return `within ${F.qty(v)}% of limit-up`;
    case 'within_percent_of_limit_down': return `within ${F.qty(v)}% of limit-down`;
    case 'touches_limit_up': return 'touches limit-up';
    case 'crosses_above_moving_average': return `crosses above ${v}-day average`;
    case 'crosses_below_moving_average': return `crosses below ${v}-day average`;
    default: return c.type;
  }
}

export async function render(view, params, scope) {
  const account = store.account();
  if (!account) { clear(view, empty('You have no paper account yet.')); return; }
  const base = `/accounts/${api.enc(account.id)}/queue`;
  const currency = account.currency;
  const queued = h('section.card', { 'aria-labelledby': 'queued-title' }, loading());
  const history = h('section.card', { 'aria-labelledby': 'history-title' }, loading());
  clear(view, h('header.page-head', h('h1', 'Queue purchase'),
    h('p.sub', 'Queue a stock and a quantity: papertrade watches every price update and places the order when your condition is met.')),
  h('div.queue-grid', h('div', addForm(), queued), history));

  function addForm() {
    let picked = null;
    const chosen = h('p.chosen', { 'aria-live': 'polite' }, 'No stock chosen yet.');
    const side = h('select#q-side', h('option', { value: 'buy' }, 'Buy'), h('option', { value: 'sell' }, 'Sell'));
    const qty = h('input#q-qty', { inputMode: 'numeric', autocomplete: 'off', placeholder: account.market === 'cn' ? '100' : '1' });
    const condition = h('select#q-condition', CONDITIONS
      .filter(([, , , cnOnly]) => !cnOnly || account.market === 'cn')
      .map(([v, t]) => h('option', { value: v }, t)));
    const value = h('input#q-value', { inputMode: 'decimal', autocomplete: 'off' });
    const valueField = h('div.field', h('label', { for: 'q-value' }, 'Value'), value);
    const orderType = h('select#q-order-type',
      account.market === 'cn' ? h('option', { value: 'limit_up' }, 'Limit at limit-up price') : null,
      h('option', { value: 'market' }, 'Market'), h('option', { value: 'limit' }, 'Limit at price'));
    const limit = h('input#q-limit', { inputMode: 'decimal', autocomplete: 'off' });
    const limitField = h('div.field', h('label', { for: 'q-limit' }, 'Limit price'), limit);
    const lifetime = h('select#q-lifetime', h('option', { value: 'until_triggered' }, 'Until triggered'),
      h('option', { value: 'session' }, 'Today only'), h('option', { value: 'until' }, 'Until a date'));
    const until = h('input#q-until', { type: 'date' });
    const untilField = h('div.field', h('label', { for: 'q-until' }, 'Until'), until);
    const submit = h('button.primary.wide', { type: 'submit' }, 'Add to queue');

    function sync() {
      const spec = CONDITIONS.find(([v]) => v === condition.value);
      valueField.hidden = condition.value === 'touches_limit_up';
      value.placeholder = spec?.[2] ?? '';
      limitField.hidden = orderType.value !== 'limit';
      untilField.hidden = lifetime.value !== 'until';
    }
    [condition, orderType, lifetime].forEach((s) => s.addEventListener('change', sync));
    sync();

    const form = h('form.card.queue-form', { novalidate: true, 'aria-labelledby': 'queue-add-title' },
      h('h2#queue-add-title', 'Add to queue'),
      h('div.field', h('label', { for: 'q-stock' }, 'Stock'), searchBox((symbol, r) => { picked = r; clear(chosen, h('strong', r.symbol), ` ${r.name}`); qty.focus(); },
        { placeholder: 'Search a stock to queue', market: account.market, label: 'Stock to queue', inputId: 'q-stock' })),
      chosen,
      h('div.field-row', h('div.field', h('label', { for: 'q-side' }, 'Side'), side), h('div.field', h('label', { for: 'q-qty' }, 'Shares'), qty)),
      h('div.field', h('label', { for: 'q-condition' }, 'When'), condition), valueField,
      h('div.field', h('label', { for: 'q-order-type' }, 'Order'), orderType), limitField,
      h('div.field', h('label', { for: 'q-lifetime' }, 'Keep'), lifetime), untilField,
      submit);

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!picked) { toast('Choose a stock first', 'error'); return; }
      const q = D.parse(qty.value.trim());
      if (!q) { toast('Please enter a valid amount', 'error'); qty.focus(); return; }
      if (D.sign(q) <= 0) { toast(side.value === 'buy' ? 'Cannot buy non-positive shares' : 'Cannot sell non-positive shares', 'error'); qty.focus(); return; }
      const body = { symbol: picked.symbol, side: side.value, qty: qty.value.trim(), condition: { type: condition.value }, order_type: orderType.value };
      if (!valueField.hidden) {
        if (!D.parse(value.value.trim())) { toast('Please enter a value for the condition', 'error'); value.focus(); return; }
        body.condition.value = value.value.trim();
      }
      if (orderType.value === 'limit') body.limit_price = limit.value.trim();
      body.lifetime = { type: lifetime.value };
      if (lifetime.value === 'until') body.lifetime.date = until.value;
      if (lifetime.value === 'session') body.lifetime.date = new Date().toLocaleDateString('en-CA', { timeZone: account.market === 'cn' ? 'Asia/Shanghai' : 'America/New_York' });
      submit.disabled = true;
      try {
        const rule = await api.post(base, body);
        toast(rule.status === 'fired' ? `The condition already holds: order placed for ${picked.symbol}` : `Queued ${F.shares(rule.qty)} of ${picked.symbol}`, 'success');
        qty.value = '';
        load();
      } catch (error) { toast(error.message, 'error'); }
      submit.disabled = false;
    });
    return form;
  }

  let rules = [];
  let stopQuotes = () => {};
  function ruleRow(r, { cancelable }) {
    return h('li.row.rule', { dataset: { id: r.id, status: r.status } },
      h('span.row-main',
        h('span.sym', h('a', { href: `#/stock/${api.enc(r.symbol)}` }, r.symbol), ' ', h(`span.side.${r.side}`, r.side === 'buy' ? 'Buy' : 'Sell'), ` ${F.shares(r.qty ?? '0')}`),
        h('span.sub', `${r.name ?? ''} · when ${describeCondition(r.condition)}`),
        r.message ? h('span.sub.error-text', r.message) : null),
      h('span.row-end',
        h('span.value', { dataset: { role: 'price' } }, r.price ? F.money(r.price, currency) : '—'),
        h('span.sub', r.trigger_level ? `trigger ${F.price(r.trigger_level)}` : ''),
        h(`span.status.${r.status}`, STATUS[r.status] ?? r.status),
        r.fired_price ? h('span.sub', `at ${F.price(r.fired_price)}`) : null,
        cancelable ? h('button.link.danger', { type: 'button', onclick: () => cancel(r) }, 'Cancel') : null));
  }

  function drawQueued() {
    clear(queued, h('h2#queued-title', 'Queued'), rules.length === 0
      ? empty('Your queue is empty.')
      : h('ul.rows', rules.map((r) => ruleRow(r, { cancelable: true }))));
  }

  async function load() {
    try {
      const [q, past] = await Promise.all([api.get(base), api.get(`${base}/history?limit=50`)]);
      rules = q;
      drawQueued();
      clear(history, h('h2#history-title', 'History'), past.length === 0 ? empty('Fired, failed and canceled rules show up here.')
        : h('ul.rows', past.map((r) => ruleRow(r, { cancelable: false }))));
      stopQuotes();
      // Prices change in place: rows (and the Cancel button someone is about to press) stay put.
      stopQuotes = live.watch(rules.map((r) => r.symbol), (quote) => {
        rules.forEach((r) => {
          if (r.symbol !== quote.symbol) return;
          r.price = quote.last;
          const cell = queued.querySelector(`.rule[data-id="${CSS.escape(r.id)}"] [data-role="price"]`);
          if (cell) cell.textContent = F.money(r.price, currency);
        });
      });
    } catch (error) {
      clear(queued, failure(error, load));
      clear(history);
    }
  }

  async function cancel(r) {
    if (!await confirmAction('Cancel rule', `Stop watching ${r.symbol} (${describeCondition(r.condition)})?`, 'Cancel rule', { danger: true })) return;
    try {
      await api.del(`${base}/${api.enc(r.id)}`);
      toast('Rule canceled', 'success');
      load();
    } catch (error) { toast(error.message, 'error'); }
  }

  const off = live.on('notification', (n) => { if (['order_placed_automatically', 'automatic_order_failed', 'queue_empty'].includes(n.kind)) load(); });
  scope.onCleanup(() => { off(); stopQuotes(); });
  await load();
}
