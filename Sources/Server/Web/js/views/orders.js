// Orders: today's and past orders with status, filled qty and average price; cancel open ones. Live.
import * as api from '../api.js';
import * as F from '../format.js';
import * as live from '../live.js';
import * as store from '../store.js';
import { h, clear, toast, failure, empty, segmented, confirmAction } from '../ui.js';

const OPEN = new Set(['new', 'accepted', 'pending_new', 'partially_filled', 'held', 'pending_replace', 'accepted_for_bidding']);
const STATUS = { new: 'Open', accepted: 'Open', partially_filled: 'Partly filled', filled: 'Filled', canceled: 'Canceled',
  expired: 'Expired', rejected: 'Rejected', replaced: 'Replaced', pending_cancel: 'Canceling', held: 'Held' };

export async function render(view, params, scope) {
  const account = store.account();
  if (!account) { clear(view, empty('You have no paper account yet.')); return; }
  const currency = account.currency;
  let filter = 'all';
  let orders = null;
  const list = h('div.orders');
  clear(view, h('header.page-head', h('h1', 'Orders')),
    segmented('Show', [['all', 'All'], ['open', 'Open'], ['closed', 'Closed']], filter, (v) => { filter = v; load(); }),
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
    const auto = o.client_order_id?.startsWith('queue-');
    const price = o.limit_price ? ` @ ${F.price(o.limit_price)}` : o.stop_price ? ` stop ${F.price(o.stop_price)}` : '';
    return h('li.row.order', { dataset: { status: o.status, id: o.id } },
      h('span.row-main',
        h('span.sym', h('a', { href: `#/stock/${api.enc(o.symbol)}` }, o.symbol), ' ', h(`span.side.${o.side}`, o.side === 'buy' ? 'Buy' : 'Sell'),
          auto ? h('span.tag', { title: 'Placed automatically by a queued rule' }, 'Auto') : null),
        h('span.sub', `${o.type.replace('_', ' ')}${price} · ${F.dateTime(o.submitted_at || o.created_at)}`)),
      h('span.row-end',
        h(`span.status.${o.status}`, STATUS[o.status] ?? o.status),
        h('span.sub', `${F.qty(o.filled_qty)}/${F.qty(o.qty ?? o.notional)} filled${o.filled_avg_price ? ` · avg ${F.money(o.filled_avg_price, currency)}` : ''}`),
        o.reject_reason ? h('span.sub.error-text', o.reject_reason) : null,
        open ? h('button.link.danger', { type: 'button', onclick: () => cancel(o) }, 'Cancel') : null));
  }

  function draw() {
    if (!orders.length) { clear(list, empty(filter === 'open' ? 'No open orders.' : 'No orders yet. Your trades will show up here.')); return; }
    const today = new Date().toDateString();
    const todays = orders.filter((o) => new Date(o.submitted_at || o.created_at).toDateString() === today);
    const past = orders.filter((o) => !todays.includes(o));
    clear(list,
      todays.length ? [h('h2', 'Today'), h('ul.rows.card', todays.map(row))] : null,
      past.length ? [h('h2', 'Earlier'), h('ul.rows.card', past.map(row))] : null);
  }

  async function cancel(o) {
    if (!await confirmAction('Cancel order', `Cancel your ${o.side} order for ${F.shares(o.qty)} of ${o.symbol}?`, 'Cancel order', { danger: true })) return;
    try {
      await api.del(`/accounts/${api.enc(account.id)}/orders/${api.enc(o.id)}`);
      toast('Order canceled', 'success');
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
