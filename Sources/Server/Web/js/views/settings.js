// Settings: theme (system / light / dark, remembered on this device), push notifications on this device, reset the
// account, webhook, log out.
import * as api from '../api.js';
import * as F from '../format.js';
import * as push from '../push.js';
import * as store from '../store.js';
import { h, clear, toast, confirmAction, failure, loading } from '../ui.js';

export async function render(view) {
  const account = store.account();
  const themes = [['system', 'System'], ['light', 'Light'], ['dark', 'Dark']];
  const current = store.theme();
  const themeGroup = h('fieldset.card.theme',
    h('legend', 'Appearance'),
    themes.map(([value, label]) => h('label.radio',
      h('input', { type: 'radio', name: 'theme', value, checked: value === current, onchange: () => store.setTheme(value) }),
      h('span', label))));

  const currentColors = store.colors();
  const colorGroup = h('fieldset.card.theme',
    h('legend', 'Price colours'),
    [['green-up', 'Green up, red down'], ['red-up', 'Red up, green down (as in China)']].map(([value, label]) => h('label.radio',
      h('input', { type: 'radio', name: 'colors', value, checked: value === currentColors, onchange: () => store.setColors(value) }),
      h('span', label))));

  const reset = h('button.danger', { type: 'button', disabled: !account }, 'Reset account');
  reset.addEventListener('click', async () => {
    const ok = await confirmAction('Reset account',
      `Reset “${account.name}”? Open orders are canceled, positions are cleared and cash goes back to ${F.money(account.starting_cash, account.currency)}. Your API keys keep working.`,
      'Reset', { danger: true });
    if (!ok) return;
    try {
      const after = await api.post(`/accounts/${api.enc(account.id)}/reset`);
      store.updateAccount(after);
      toast(`${account.name} was reset to ${F.money(after.cash, account.currency)}`, 'success');
    } catch (error) { toast(error.message, 'error'); }
  });

  clear(view, h('div.narrow', h('header.page-head', h('h1', 'Settings')),
    themeGroup,
    colorGroup,
    h('section.card', h('h2', 'Account'),
      h('p', account ? `${account.name} (${account.currency})` : 'No account'),
      h('p.sub', 'Start over with the starting cash.'), reset),
    pushCard(),
    webhookCard(),
    h('section.card', h('h2', 'Session'),
      h('p', `Logged in as ${store.state.user?.username ?? ''}`),
      h('button.secondary', { type: 'button', onclick: store.requestLogout }, 'Log out')),
    h('section.card.about-app', h('h2', 'About'),
      h('p', 'papertrade — paper trading with simulated money. Nothing here is real money or investment advice.'),
      h('p', h('a', { href: '/openapi.json' }, 'API (OpenAPI)'), ' · Charts by ',
        h('a', { href: 'https://www.tradingview.com/', target: '_blank', rel: 'noopener' }, 'TradingView Lightweight Charts™'), ' (Apache-2.0)'))));
}

const DELIVERY = { delivered: 'Delivered', pending: 'Retrying', failed: 'Failed' };

/** Webhook: notifications (fills, automatic orders, queue empty) POSTed to your URL, signed; recent deliveries. */
function webhookCard() {
  const card = h('section.card.webhook', { 'aria-labelledby': 'webhook-title' }, loading());
  async function load() {
    try {
      const [{ webhook }, deliveries] = await Promise.all([api.get('/webhook'), api.get('/webhook/deliveries?limit=10')]);
      draw(webhook, deliveries);
    } catch (error) { clear(card, h('h2#webhook-title', 'Webhook'), failure(error, load)); }
  }
  function draw(webhook, deliveries, secret) {
    const url = h('input#webhook-url', { type: 'url', inputMode: 'url', placeholder: 'https://example.com/hooks/papertrade', value: webhook?.url ?? '', autocomplete: 'off' });
    const save = h('button.primary', { type: 'submit' }, webhook ? 'Save' : 'Add webhook');
    const form = h('form', { novalidate: true },
      h('label', { for: 'webhook-url' }, 'URL'), url,
      h('p.field-help', 'Each notification is POSTed as JSON with a Papertrade-Signature header: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" with your secret>. Failed deliveries are retried with backoff for about five hours.'),
      h('div.actions', save,
        webhook ? h('button.secondary', { type: 'button', onclick: ping }, 'Send test') : null,
        webhook ? h('button.link.danger', { type: 'button', onclick: remove }, 'Remove') : null));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        const saved = await api.put('/webhook', { url: url.value.trim() });
        toast(webhook ? 'Webhook saved' : 'Webhook added', 'success');
        draw(saved, deliveries, saved.secret);
      } catch (error) { toast(error.message, 'error'); }
    });
    clear(card, h('h2#webhook-title', 'Webhook'),
      h('p.sub', 'Get your notifications — fills, automatic orders, queue empty — at your own URL.'),
      form,
      secret ? h('p.secret', { role: 'status' }, 'Signing secret (shown once — copy it now): ', h('code', secret)) : null,
      webhook && !secret ? h('p.sub', `Signing secret ${webhook.secret_hint}`) : null,
      deliveries.length ? [h('h3', 'Recent deliveries'), h('ul.rows.deliveries', deliveries.map((d) => h('li.row', { dataset: { status: d.status } },
        h('span.row-main', h('span.sym', d.title ?? d.type), h('span.sub', `${F.dateTime(d.created_at)} · ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`),
          d.last_error ? h('span.sub.error-text', d.last_error) : null),
        h('span.row-end', h(`span.status.${d.status === 'delivered' ? 'filled' : d.status}`, DELIVERY[d.status] ?? d.status),
          d.last_status ? h('span.sub', `HTTP ${d.last_status}`) : null))))] : null);
  }
  async function ping() {
    try { await api.post('/webhook/ping'); toast('Test sent', 'success'); setTimeout(load, 1500); } catch (error) { toast(error.message, 'error'); }
  }
  async function remove() {
    if (!await confirmAction('Remove webhook', 'Stop sending notifications to this URL? Deliveries still waiting are dropped.', 'Remove', { danger: true })) return;
    try { await api.del('/webhook'); toast('Webhook removed', 'success'); load(); } catch (error) { toast(error.message, 'error'); }
  }
  load();
  return card;
}

/** "Notify me on this device": Web Push with the browser's permission flow, a test, the user's other devices. */
function pushCard() {
  const card = h('section.card.push', { 'aria-labelledby': 'push-title' }, loading());
  async function load() {
    let subscription = null;
    let devices = [];
    try {
      [subscription, devices] = await Promise.all([push.current().catch(() => null), api.get('/push/subscriptions')]);
    } catch (error) { clear(card, h('h2#push-title', 'Notifications'), failure(error, load)); return; }
    const registered = subscription && devices.length > 0;
    const toggle = h('input#push-toggle', { type: 'checkbox', role: 'switch', checked: Boolean(registered), disabled: !push.supported() });
    toggle.addEventListener('change', async () => {
      toggle.disabled = true;
      try {
        if (toggle.checked) { await push.enable(); toast('This device will get your notifications', 'success'); }
        else { await push.disable(); toast('Notifications on this device are off', 'success'); }
      } catch (error) { toast(error.message, 'error'); }
      load();
    });
    const test = h('button.secondary', { type: 'button', disabled: devices.length === 0 }, 'Send a test notification');
    test.addEventListener('click', async () => {
      try {
        const r = await api.post('/push/test');
        toast(`Test sent to ${r.devices} device${r.devices === 1 ? '' : 's'}`, 'success');
      } catch (error) { toast(error.message, 'error'); }
    });
    const state = !push.supported() ? 'This browser cannot receive push notifications (on iPhone, add papertrade to the Home Screen first).'
      : Notification.permission === 'denied' ? 'Notifications are blocked for this site in the browser’s settings.'
        : registered ? 'On: fills, automatic orders and alerts reach this device even when papertrade is closed.'
          : 'Off on this device.';
    clear(card, h('h2#push-title', 'Notifications'),
      h('label.switch', toggle, h('span', 'Notify me on this device')),
      h('p.sub', { role: 'status' }, state),
      devices.length ? h('p.sub', `${devices.length} device${devices.length === 1 ? '' : 's'} subscribed: ${devices.map((d) => d.user_agent?.split(' ').slice(-1)[0] || d.push_service).join(', ')}`) : null,
      h('div.actions', test));
  }
  load();
  return card;
}
