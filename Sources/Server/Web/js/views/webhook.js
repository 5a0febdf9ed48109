// Settings' webhook card: notifications POSTed to the user's URL, signed, with the recent deliveries. Loaded when
// Settings opens, with its own texts (not in the offline shell: it needs the network anyway).
import * as api from '../api.js';
import * as F from '../format.js';
import { t, addTexts } from '../i18n.js';
import { h, clear, toast, confirmAction, failure, loading } from '../ui.js';
import en from '../i18n/webhook.en.js';
import zhHans from '../i18n/webhook.zh-Hans.js';

addTexts({ en, 'zh-Hans': zhHans });

const delivery = (status) => t(`settings.delivery.${status}`);

/** Webhook: notifications (fills, automatic orders, queue empty) POSTed to your URL, signed; recent deliveries. */
export function webhookCard() {
  const card = h('section.card.webhook', { 'aria-labelledby': 'webhook-title' }, loading());
  // Looks again while a delivery is still under way (a test just sent, a retry), so its outcome shows without a
  // reload; at most 20 times, and never once the screen is left.
  let polls = 0;
  async function load(again = false) {
    if (again && !card.isConnected) return;
    try {
      const [{ webhook }, deliveries] = await Promise.all([api.get('/webhook'), api.get('/webhook/deliveries?limit=10')]);
      draw(webhook, deliveries);
      if (again && polls < 20 && (polls < 2 || deliveries.some((d) => d.status === 'pending'))) {
        polls += 1;
        setTimeout(() => load(true), 1500);
      }
    } catch (error) { clear(card, h('h2#webhook-title', t('settings.webhook')), failure(error, load)); }
  }
  function draw(webhook, deliveries, secret) {
    const url = h('input#webhook-url', { type: 'url', inputMode: 'url', placeholder: 'https://example.com/hooks/papertrade', value: webhook?.url ?? '', autocomplete: 'off' });
    const save = h('button.primary', { type: 'submit' }, t(webhook ? 'settings.webhook_save' : 'settings.webhook_add'));
    const form = h('form', { novalidate: true },
      h('label', { for: 'webhook-url' }, t('settings.webhook_url')), url,
      h('p.field-help', t('settings.webhook_help')),
      h('div.actions', save,
        webhook ? h('button.secondary', { type: 'button', onclick: ping }, t('settings.send_test')) : null,
        webhook ? h('button.link.danger', { type: 'button', onclick: remove }, t('settings.remove')) : null));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        const saved = await api.put('/webhook', { url: url.value.trim() });
        toast(t(webhook ? 'settings.webhook_saved' : 'settings.webhook_added'), 'success');
        draw(saved, deliveries, saved.secret);
      } catch (error) { toast(error.message, 'error'); }
    });
    clear(card, h('h2#webhook-title', t('settings.webhook')),
      h('p.sub', t('settings.webhook_intro')),
      form,
      secret ? h('p.secret', { role: 'status' }, t('settings.secret_once'), h('code', secret)) : null,
      webhook && !secret ? h('p.sub', t('settings.secret_hint', { hint: webhook.secret_hint })) : null,
      deliveries.length ? [h('h3', t('settings.recent_deliveries')), h('ul.rows.deliveries', deliveries.map((d) => h('li.row', { dataset: { status: d.status } },
        h('span.row-main', h('span.sym', d.title ?? d.type), h('span.sub', `${F.dateTime(d.created_at)} · ${t.count('settings.attempts', d.attempts)}`),
          d.last_error ? h('span.sub.error-text', d.last_error) : null),
        h('span.row-end', h(`span.status.${d.status === 'delivered' ? 'filled' : d.status}`, delivery(d.status)),
          d.last_status ? h('span.sub', `HTTP ${d.last_status}`) : null))))] : null);
  }
  async function ping() {
    try {
      await api.post('/webhook/ping');
      toast(t('settings.test_sent'), 'success');
      polls = 0;
      setTimeout(() => load(true), 1500);
    } catch (error) { toast(error.message, 'error'); }
  }
  async function remove() {
    if (!await confirmAction(t('settings.webhook_remove'), t('settings.webhook_remove_confirm'), t('settings.remove'), { danger: true })) return;
    try { await api.del('/webhook'); toast(t('settings.webhook_removed'), 'success'); load(); } catch (error) { toast(error.message, 'error'); }
  }
  load();
  return card;
}

