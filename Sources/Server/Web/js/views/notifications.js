// Notifications: fills, automatic orders (placed or failed), queue empty, price alerts; opening the list marks them
// read.
import * as api from '../api.js';
import * as F from '../format.js';
import * as live from '../live.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import { h, clear, failure, empty, toast } from '../ui.js';

export async function render(view, params, scope) {
  const list = h('section.card');
  clear(view, h('header.page-head', h('h1', t('notifications.title')),
    h('div.actions', h('a.link', { href: '#/alerts' }, t('notifications.alerts_link')),
      h('button.link', { type: 'button', onclick: readAll }, t('notifications.read_all')))), list);
  let items = [];

  function draw() {
    clear(list, items.length === 0 ? empty(t('notifications.empty'))
      : h('ul.rows.notifications', items.map((n) => h(`li.row${n.read ? '' : '.unread'}`, { dataset: { kind: n.kind } },
        h('span.row-main', h('span.sym', n.title), h('span.sub.body', n.body)),
        h('span.row-end', h('span.sub', F.dateTime(n.created_at)), n.read ? null : h('span.dot.unread-dot', { role: 'img', 'aria-label': t('notifications.unread') }))))));
  }

  async function load() {
    try {
      const data = await api.get('/notifications?limit=100');
      items = data.notifications;
      draw();
      if (data.unread > 0) {
        const after = await api.post('/notifications/read-all');
        store.setUnread(after.unread);
      }
    } catch (error) { clear(list, failure(error, load)); }
  }

  async function readAll() {
    try {
      const after = await api.post('/notifications/read-all');
      items = after.notifications;
      store.setUnread(after.unread);
      draw();
    } catch (error) { toast(error.message, 'error'); }
  }

  scope.onCleanup(live.on('notification', (n) => { items.unshift(n); draw(); }));
  await load();
}
