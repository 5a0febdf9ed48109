// Queue purchase: add a rule (search a stock, quantity, condition, order type, lifetime), see each queued rule's
// current price, trigger level and status, cancel it, and the history of fired, failed and canceled rules.
import * as api from '../api.js';
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as live from '../live.js';
import * as store from '../store.js';
import { searchBox } from './search.js';
import { t } from '../i18n.js';
import { h, clear, toast, failure, empty, loading, confirmAction } from '../ui.js';

/** [condition, starting value, A-shares only]; the names are `queue.cond.<condition>`. */
const CONDITIONS = [
  ['within_percent_of_limit_up', '1', true],
  ['touches_limit_up', '', true],
  ['price_at_least', ''],
  ['price_at_most', ''],
  ['change_percent_at_least', '5'],
  ['change_percent_at_most', '-5'],
  ['within_of_limit_up', '0.10', true],
  ['within_percent_of_limit_down', '1', true],
  ['within_of_limit_down', '0.10', true],
  ['crosses_above_moving_average', '20'],
  ['crosses_below_moving_average', '20'],
];
const STATUSES = ['queued', 'fired', 'failed', 'canceled', 'expired'];

/** How each condition's value reads in its description. */
const VALUE_FORMAT = {
  price_at_least: F.price, price_at_most: F.price, within_of_limit_up: F.price, within_of_limit_down: F.price,
  change_percent_at_least: F.percent, change_percent_at_most: F.percent,
  within_percent_of_limit_up: F.qty, within_percent_of_limit_down: F.qty,
  crosses_above_moving_average: String, crosses_below_moving_average: String,
};

function describeCondition(c) {
  if (c.type !== 'touches_limit_up' && !VALUE_FORMAT[c.type]) return c.type;
  return t(`queue.describe.${c.type}`, { v: VALUE_FORMAT[c.type]?.(c.value) });
}

export async function render(view, params, scope) {
  const account = store.account();
  if (!account) { clear(view, empty(t('common.no_account'))); return; }
  const base = `/accounts/${api.enc(account.id)}/queue`;
  const currency = account.currency;
  const queued = h('section.card', { 'aria-labelledby': 'queued-title' }, loading());
  const history = h('section.card', { 'aria-labelledby': 'history-title' }, loading());
  clear(view, h('header.page-head', h('h1', t('queue.title')), h('a.button', { href: '#/backtest' }, t('queue.try_on_history')),
    h('a.button', { href: '#/alerts' }, t('notifications.alerts_link')),
    h('p.sub', t('queue.intro'))),
  h('div.queue-grid', h('div', addForm(), queued), history));

  function addForm() {
    let picked = null;
    const chosen = h('p.chosen', { 'aria-live': 'polite' }, t('queue.no_stock'));
    const side = h('select#q-side', h('option', { value: 'buy' }, t('queue.buy')), h('option', { value: 'sell' }, t('queue.sell')));
    // Starting values, not grey examples: a placeholder looks filled in and submits as empty.
    const lot = account.market === 'cn' ? '100' : '1';
    const qty = h('input#q-qty', { inputMode: 'numeric', autocomplete: 'off', value: lot });
    const condition = h('select#q-condition', CONDITIONS
      .filter(([, , cnOnly]) => !cnOnly || account.market === 'cn')
      .map(([v]) => h('option', { value: v }, t(`queue.cond.${v}`))));
    const value = h('input#q-value', { inputMode: 'decimal', autocomplete: 'off' });
    const valueField = h('div.field', h('label', { for: 'q-value' }, t('queue.value')), value);
    const orderType = h('select#q-order-type',
      account.market === 'cn' ? h('option', { value: 'limit_up' }, t('queue.order.limit_up')) : null,
      h('option', { value: 'market' }, t('queue.order.market')), h('option', { value: 'limit' }, t('queue.order.limit')));
    const limit = h('input#q-limit', { inputMode: 'decimal', autocomplete: 'off' });
    const limitField = h('div.field', h('label', { for: 'q-limit' }, t('queue.limit_price')), limit);
    const lifetime = h('select#q-lifetime', ['until_triggered', 'session', 'until'].map((k) => h('option', { value: k }, t(`queue.keep.${k}`))));
    const until = h('input#q-until', { type: 'date' });
    const untilField = h('div.field', h('label', { for: 'q-until' }, t('queue.until')), until);
    const submit = h('button.primary.wide', { type: 'submit' }, t('queue.add'));

    let suggested = '';  // the value the last condition started with: replaced when the condition changes
    function sync() {
      const spec = CONDITIONS.find(([v]) => v === condition.value);
      valueField.hidden = condition.value === 'touches_limit_up';
      if (value.value === suggested) value.value = spec?.[1] ?? '';
      suggested = spec?.[1] ?? '';
      limitField.hidden = orderType.value !== 'limit';
      untilField.hidden = lifetime.value !== 'until';
    }
    [condition, orderType, lifetime].forEach((s) => s.addEventListener('change', sync));
    sync();

    const form = h('form.card.queue-form', { novalidate: true, 'aria-labelledby': 'queue-add-title' },
      h('h2#queue-add-title', t('queue.add')),
      h('div.field', h('label', { for: 'q-stock' }, t('queue.stock')), searchBox((symbol, r) => { picked = r; clear(chosen, h('strong', r.symbol), ` ${r.name}`); qty.focus(); },
        { placeholder: t('queue.search_placeholder'), market: account.market, label: t('queue.search_label'), inputId: 'q-stock' })),
      chosen,
      h('div.field-row', h('div.field', h('label', { for: 'q-side' }, t('queue.side')), side), h('div.field', h('label', { for: 'q-qty' }, t('queue.shares')), qty)),
      h('div.field', h('label', { for: 'q-condition' }, t('queue.when')), condition), valueField,
      h('div.field', h('label', { for: 'q-order-type' }, t('queue.order')), orderType), limitField,
      h('div.field', h('label', { for: 'q-lifetime' }, t('queue.keep')), lifetime), untilField,
      submit);

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!picked) { toast(t('queue.choose_stock'), 'error'); return; }
      const q = D.parse(qty.value.trim());
      if (!q) { toast(t('trade.invalid_amount'), 'error'); qty.focus(); return; }
      if (D.sign(q) <= 0) { toast(t(`trade.non_positive.${side.value}`), 'error'); qty.focus(); return; }
      const body = { symbol: picked.symbol, side: side.value, qty: qty.value.trim(), condition: { type: condition.value }, order_type: orderType.value };
      if (!valueField.hidden) {
        if (!D.parse(value.value.trim())) { toast(t('queue.need_value'), 'error'); value.focus(); return; }
        body.condition.value = value.value.trim();
      }
      if (orderType.value === 'limit') body.limit_price = limit.value.trim();
      body.lifetime = { type: lifetime.value };
      if (lifetime.value === 'until') body.lifetime.date = until.value;
      if (lifetime.value === 'session') body.lifetime.date = new Date().toLocaleDateString('en-CA', { timeZone: account.market === 'cn' ? 'Asia/Shanghai' : 'America/New_York' });
      submit.disabled = true;
      try {
        const rule = await api.post(base, body);
        toast(rule.status === 'fired' ? t('queue.already_holds', { symbol: picked.symbol }) : t('queue.queued_toast', { shares: F.shares(rule.qty), symbol: picked.symbol }), 'success');
        qty.value = lot;  // ready for the next rule
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
        h('span.sym', h('a', { href: `#/stock/${api.enc(r.symbol)}` }, r.symbol), ' ', h(`span.side.${r.side}`, t(r.side === 'buy' ? 'queue.buy' : 'queue.sell')), ` ${F.shares(r.qty ?? '0')}`),
        // The condition is the rule: it wraps rather than being cut ("距涨停价 1% …").
        h('span.sub.condition', t('queue.when_text', { name: r.name ?? '', condition: describeCondition(r.condition) })),
        r.message ? h('span.sub.error-text', r.message) : null),
      h('span.row-end',
        h('span.value', { dataset: { role: 'price' } }, r.price ? F.money(r.price, currency) : '—'),
        h('span.sub', r.trigger_level ? t('queue.trigger', { price: F.price(r.trigger_level) }) : ''),
        h(`span.status.${r.status}`, STATUSES.includes(r.status) ? t(`queue.status.${r.status}`) : r.status),
        // The price the rule fired at, and the one its order filled at (a market order fills at the book).
        r.fired_price ? h('span.sub', { dataset: { role: 'fired' } }, t('queue.fired_at', { price: F.price(r.fired_price) })) : null,
        r.fill_price ? h('span.sub', { dataset: { role: 'filled' } }, t('queue.at', { price: F.price(r.fill_price) })) : null,
        cancelable ? h('button.link.danger', { type: 'button', onclick: () => cancel(r) }, t('queue.cancel')) : null));
  }

  function drawQueued() {
    clear(queued, h('h2#queued-title', t('queue.queued')), rules.length === 0
      ? empty(t('queue.empty'))
      : h('ul.rows', rules.map((r) => ruleRow(r, { cancelable: true }))));
  }

  async function load() {
    try {
      const [q, past] = await Promise.all([api.get(base), api.get(`${base}/history?limit=50`)]);
      rules = q;
      drawQueued();
      clear(history, h('h2#history-title', t('queue.history')), past.length === 0 ? empty(t('queue.history_empty'))
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
    if (!await confirmAction(t('queue.cancel_title'), t('queue.cancel_confirm', { symbol: r.symbol, condition: describeCondition(r.condition) }), t('queue.cancel_title'), { danger: true })) return;
    try {
      await api.del(`${base}/${api.enc(r.id)}`);
      toast(t('queue.canceled'), 'success');
      load();
    } catch (error) { toast(error.message, 'error'); }
  }

  const off = live.on('notification', (n) => { if (['order_placed_automatically', 'automatic_order_failed', 'queue_empty'].includes(n.kind)) load(); });
  scope.onCleanup(() => { off(); stopQuotes(); });
  await load();
}
