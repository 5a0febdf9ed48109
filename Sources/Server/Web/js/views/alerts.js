// Alerts: active price alerts with their current price and level, cancel one, the history, and when each triggered.
import * as api from '../api.js';
import * as F from '../format.js';
import { describe, priceIn, status } from '../alerts.js';
import { t } from '../i18n.js';
import { h, clear, toast, failure, empty, loading, confirmAction } from '../ui.js';

export async function render(view, params, scope) {
  const active = h('section.card', { 'aria-labelledby': 'alerts-active-title' }, loading());
  const triggers = h('section.card', { 'aria-labelledby': 'alerts-triggers-title' }, loading());
  const history = h('section.card', { 'aria-labelledby': 'alerts-history-title' }, loading());
  clear(view, h('header.page-head', h('h1', t('alerts.title')),
    h('p.sub', t('alerts.intro'))),
  h('div.queue-grid', h('div', active, triggers), history));

  async function load() {
    try {
      const [list, past, fired] = await Promise.all([api.get('/alerts'), api.get('/alerts/history?limit=50'), api.get('/alerts/triggers?limit=30')]);
      clear(active, h('h2#alerts-active-title', t('alerts.active', { n: list.length })),
        list.length ? h('ul.rows.alerts', list.map((a) => h('li.row', { dataset: { alertId: a.id } },
          h('a.row-main', { href: `#/stock/${api.enc(a.symbol)}` }, h('span.sym', describe(a)),
            h('span.sub', [a.price ? t('alerts.now', { price: priceIn(a.price, a.currency) }) : null,
              a.trigger_count ? t('alerts.triggered_times', { n: a.trigger_count }) : null,
              a.expires_at ? t('alerts.until', { time: F.dateTime(a.expires_at) }) : null,
              a.message].filter(Boolean).join(' · '))),
          h('button.link.danger', { type: 'button', 'aria-label': t('alerts.delete_label', { alert: describe(a) }), onclick: () => remove(a) }, t('alerts.delete')))))
          : empty(t('alerts.none_active')));
      clear(triggers, h('h2#alerts-triggers-title', t('alerts.recent')),
        fired.length ? h('ul.rows', fired.map((x) => h('li.row',
          h('span.row-main', h('span.sym', x.symbol), h('span.sub', F.dateTime(x.time))),
          h('span.row-end', F.price(x.price))))) : empty(t('alerts.none_triggered')));
      clear(history, h('h2#alerts-history-title', t('alerts.history')),
        past.length ? h('ul.rows', past.map((a) => h('li.row',
          h('span.row-main', h('span.sym', describe(a)), h('span.sub', F.dateTime(a.updated_at))),
          h(`span.status.${a.status === 'triggered' ? 'filled' : a.status}`, status(a.status))))) : empty(t('alerts.none_past')));
    } catch (error) { clear(active, failure(error, load)); }
  }

  async function remove(a) {
    if (!await confirmAction(t('alerts.delete_title'), t('alerts.delete_confirm', { alert: describe(a) }), t('alerts.delete'), { danger: true })) return;
    try { await api.del(`/alerts/${api.enc(a.id)}`); toast(t('alerts.deleted'), 'success'); load(); } catch (error) { toast(error.message, 'error'); }
  }

  const timer = setInterval(load, 10000);
  scope.onCleanup(() => clearInterval(timer));
  await load();
}
