// Alerts: active price alerts with their current price and level, cancel one, the history, and when each triggered.
import * as api from '../api.js';
import * as F from '../format.js';
import { describe, STATUS } from '../alerts.js';
import { h, clear, toast, failure, empty, loading, confirmAction } from '../ui.js';

export async function render(view, params, scope) {
  const active = h('section.card', { 'aria-labelledby': 'alerts-active-title' }, loading());
  const triggers = h('section.card', { 'aria-labelledby': 'alerts-triggers-title' }, loading());
  const history = h('section.card', { 'aria-labelledby': 'alerts-history-title' }, loading());
  clear(view, h('header.page-head', h('h1', 'Alerts'),
    h('p.sub', 'Price alerts notify you when a condition holds; they never trade. Add one with the bell on a stock’s page.')),
  h('div.queue-grid', h('div', active, triggers), history));

  async function load() {
    try {
      const [list, past, fired] = await Promise.all([api.get('/alerts'), api.get('/alerts/history?limit=50'), api.get('/alerts/triggers?limit=30')]);
      clear(active, h('h2#alerts-active-title', `Active (${list.length})`),
        list.length ? h('ul.rows.alerts', list.map((a) => h('li.row', { dataset: { alertId: a.id } },
          h('a.row-main', { href: `#/stock/${api.enc(a.symbol)}` }, h('span.sym', describe(a)),
            h('span.sub', [a.price ? `Now ${F.currencySymbol(a.currency)}${F.price(a.price)}` : null,
              a.trigger_count ? `triggered ${a.trigger_count}×` : null, a.expires_at ? `until ${F.dateTime(a.expires_at)}` : null,
              a.message].filter(Boolean).join(' · '))),
          h('button.link.danger', { type: 'button', 'aria-label': `Delete alert: ${describe(a)}`, onclick: () => remove(a) }, 'Delete'))))
          : empty('No active alerts. Open a stock and tap the bell to add one.'));
      clear(triggers, h('h2#alerts-triggers-title', 'Recently triggered'),
        fired.length ? h('ul.rows', fired.map((t) => h('li.row',
          h('span.row-main', h('span.sym', t.symbol), h('span.sub', F.dateTime(t.time))),
          h('span.row-end', F.price(t.price))))) : empty('Nothing has triggered yet.'));
      clear(history, h('h2#alerts-history-title', 'History'),
        past.length ? h('ul.rows', past.map((a) => h('li.row',
          h('span.row-main', h('span.sym', describe(a)), h('span.sub', F.dateTime(a.updated_at))),
          h(`span.status.${a.status === 'triggered' ? 'filled' : a.status}`, STATUS[a.status] ?? a.status)))) : empty('No past alerts.'));
    } catch (error) { clear(active, failure(error, load)); }
  }

  async function remove(a) {
    if (!await confirmAction('Delete alert', `Stop watching: ${describe(a)}?`, 'Delete', { danger: true })) return;
    try { await api.del(`/alerts/${api.enc(a.id)}`); toast('Alert deleted', 'success'); load(); } catch (error) { toast(error.message, 'error'); }
  }

  const timer = setInterval(load, 10000);
  scope.onCleanup(() => clearInterval(timer));
  await load();
}
