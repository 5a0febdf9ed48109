// Orders: today's and past orders with status, filled qty and average price; cancel open ones. Live.
import * as api from '../api.js';
import * as F from '../format.js';
import * as live from '../live.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import { h, clear, toast, failure, empty, segmented, confirmAction } from '../ui.js';

const OPEN = new Set(['new', 'accepted', 'pending_new', 'partially_filled', 'held', 'pending_replace', 'accepted_for_bidding']);
const STATUSES = ['new', 'accepted', 'partially_filled', 'filled', 'canceled', 'expired', 'rejected', 'replaced', 'pending_cancel', 'held'];
/** An order's status in words ("Partly filled", "部分成交"). */
export const statusText = (status) => (STATUSES.includes(status) ? t(`order.status.${status}`) : status);
const TYPES = ['market', 'limit', 'stop', 'stop_limit', 'trailing_stop'];

export async function render(view, params, scope) {
  const account = store.account();
  if (!account) { clear(view, empty(t('common.no_account'))); return; }
  const currency = account.currency;
  // Times in the exchange's zone, named, as the stock page shows them (not the browser's zone).
  const zone = account.market === 'cn' ? 'Asia/Shanghai' : 'America/New_York';
  let filter = 'all';
  let orders = null;
  const list = h('div.orders');
  clear(view, h('header.page-head', h('h1', t('orders.title'))),
    segmented(t('orders.show'), ['all', 'open', 'closed'].map((k) => [k, t(`orders.filter.${k}`)]), filter, (v) => { filter = v; load(); }),
    list);

  async function load() {
    try {
      orders = await api.get(`/accounts/${api.enc(account.id)}/orders` + api.query({ status: filter, limit: 200 }));
      draw();
    } catch (error) {
      clear(list, failure(error, load));
    }
  }

  function row(o) {
    const open = OPEN.has(o.status);
    // A multi-leg order's parent trades no shares of its underlying: it is the package; its legs follow as rows.
    const spread = o.order_class === 'mleg' && !F.optionUnderlying(o.symbol);
    const auto = o.client_order_id?.startsWith('queue-');
    const price = o.limit_price ? ` @ ${F.price(o.limit_price)}` : o.stop_price ? t('orders.stop_at', { price: F.price(o.stop_price) }) : '';
    return h('li.row.order', { dataset: { status: o.status, id: o.id, orderClass: o.order_class || 'simple' } },
      h('span.row-main',
        h('span.sym', h('a', { href: F.stockRoute(o.symbol), title: o.symbol }, F.instrumentLabel(o.symbol)), ' ',
          spread ? h('span.tag', t('orders.spread')) : h(`span.side.${o.side}`, t(o.side === 'buy' ? 'orders.buy' : 'orders.sell')),
          auto ? h('span.tag', { title: t('orders.auto_title') }, t('orders.auto')) : null),
        h('span.sub', `${TYPES.includes(o.type) ? t(`orders.type.${o.type}`) : o.type}${price} · ${F.dateTime(o.submitted_at || o.created_at, zone)} ${t(`city.${zone}`)}`)),
      h('span.row-end',
        h(`span.status.${o.status}`, statusText(o.status)),
        h('span.sub', spread ? t('orders.spread_units', { qty: F.qty(o.qty) }) : t('orders.filled', { filled: F.qty(o.filled_qty), total: F.qty(o.qty ?? o.notional) })
          + (o.filled_avg_price ? t('orders.avg', { price: F.money(o.filled_avg_price, currency) }) : '')),
        o.reject_reason ? h('span.sub.error-text', o.reject_reason) : null,
        open ? h('button.link.danger', { type: 'button', onclick: () => cancel(o) }, t('orders.cancel')) : null));
  }

  function draw() {
    if (!orders.length) { clear(list, empty(t(filter === 'open' ? 'orders.none_open' : 'orders.none'))); return; }
    const today = new Date().toDateString();
    const todays = orders.filter((o) => new Date(o.submitted_at || o.created_at).toDateString() === today);
    const past = orders.filter((o) => !todays.includes(o));
    clear(list,
      todays.length ? [h('h2', t('orders.today')), h('ul.rows.card', todays.map(row))] : null,
      past.length ? [h('h2', t('orders.earlier')), h('ul.rows.card', past.map(row))] : null);
  }

  async function cancel(o) {
    const spread = o.order_class === 'mleg' && !F.optionUnderlying(o.symbol);
    const question = spread ? t('orders.cancel_confirm.spread', { symbol: o.symbol })
      : t(o.side === 'buy' ? 'orders.cancel_confirm.buy' : 'orders.cancel_confirm.sell', { shares: F.holdingQty(o.symbol, o.qty), symbol: F.instrumentLabel(o.symbol) });
    if (!await confirmAction(t('orders.cancel_title'), question, t('orders.cancel_title'), { danger: true })) return;
    try {
      await api.del(`/accounts/${api.enc(account.id)}/orders/${api.enc(o.id)}`);
      toast(t('orders.canceled'), 'success');
      load();
    } catch (error) { toast(error.message, 'error'); }
  }

  const off = live.on('order', (u) => {
    if (u.account_id !== account.id || !orders) return;
    const i = orders.findIndex((o) => o.id === u.order.id);
    if (i >= 0) orders[i] = u.order; else orders.unshift(u.order);
    if (filter === 'open') orders = orders.filter((o) => OPEN.has(o.status));
    if (filter === 'closed') orders = orders.filter((o) => !OPEN.has(o.status));
    draw();
  });
  scope.onCleanup(off);
  await load();
}
