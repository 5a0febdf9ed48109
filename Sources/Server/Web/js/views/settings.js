// Settings: language (kept on the server), theme and price colours (remembered on this device), push notifications
// on this device, reset the account, webhook, log out.
import * as api from '../api.js';
import * as F from '../format.js';
import * as push from '../push.js';
import * as store from '../store.js';
import { t, lang, AVAILABLE, NAMES } from '../i18n.js';
import { h, clear, toast, confirmAction, failure, loading } from '../ui.js';

export async function render(view) {
  const account = store.account();
  const themes = ['system', 'light', 'dark'].map((v) => [v, t(`settings.theme.${v}`)]);
  const current = store.theme();
  const themeGroup = h('fieldset.card.theme',
    h('legend', t('settings.appearance')),
    themes.map(([value, label]) => h('label.radio',
      h('input', { type: 'radio', name: 'theme', value, checked: value === current, onchange: () => store.setTheme(value) }),
      h('span', label))));

  const currentColors = store.colors();
  const colorGroup = h('fieldset.card.theme',
    h('legend', t('settings.colours')),
    ['green-up', 'red-up'].map((v) => [v, t(`settings.colours.${v}`)]).map(([value, label]) => h('label.radio',
      h('input', { type: 'radio', name: 'colors', value, checked: value === currentColors, onchange: () => store.setColors(value) }),
      h('span', label))));

  // The language (the browser's until chosen here), remembered for the user on the server: notifications and pushes
  // use it too.
  const languageGroup = h('fieldset.card.theme.language',
    h('legend', t('settings.language')),
    AVAILABLE.map((value) => h('label.radio',
      h('input', {
        type: 'radio', name: 'language', value, checked: value === lang(),
        onchange: async () => {
          try { await store.setLanguage(value); } catch (error) { toast(error.message, 'error'); }
        },
      }),
      h('span', { lang: value }, NAMES[value]))),
    h('p.sub', t('settings.language.help')));

  const reset = h('button.danger', { type: 'button', disabled: !account }, t('settings.reset'));
  reset.addEventListener('click', async () => {
    const ok = await confirmAction(t('settings.reset'),
      t('settings.reset_confirm', { name: account.name, cash: F.money(account.starting_cash, account.currency) }),
      t('settings.reset_button'), { danger: true });
    if (!ok) return;
    try {
      const after = await api.post(`/accounts/${api.enc(account.id)}/reset`);
      store.updateAccount(after);
      toast(t('settings.reset_done', { name: account.name, cash: F.money(after.cash, account.currency) }), 'success');
    } catch (error) { toast(error.message, 'error'); }
  });

  clear(view, h('div.narrow', h('header.page-head', h('h1', t('settings.title'))),
    languageGroup,
    themeGroup,
    colorGroup,
    h('section.card', h('h2', t('settings.account')),
      h('p', account ? `${account.name} (${account.currency})` : t('settings.no_account')),
      h('p.sub', t('settings.reset_help')), reset),
    pushCard(),
    webhookCard(),
    h('section.card', h('h2', t('settings.session')),
      h('p', t('settings.logged_in_as', { name: store.state.user?.username ?? '' })),
      h('button.secondary', { type: 'button', onclick: store.requestLogout }, t('settings.log_out'))),
    h('section.card.about-app', h('h2', t('settings.about')),
      h('p', t('settings.about_text')),
      h('p', h('a', { href: '/openapi.json' }, t('settings.api')), t('shell.charts_by'),
        h('a', { href: 'https://www.tradingview.com/', target: '_blank', rel: 'noopener' }, 'TradingView Lightweight Charts™'), ' (Apache-2.0)'))));
}

const delivery = (status) => t(`settings.delivery.${status}`);

/** Webhook: notifications (fills, automatic orders, queue empty) POSTed to your URL, signed; recent deliveries. */
function webhookCard() {
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

/** "Notify me on this device": Web Push with the browser's permission flow, a test, the user's other devices. */
function pushCard() {
  const card = h('section.card.push', { 'aria-labelledby': 'push-title' }, loading());
  async function load() {
    let subscription = null;
    let devices = [];
    try {
      [subscription, devices] = await Promise.all([push.current().catch(() => null), api.get('/push/subscriptions')]);
    } catch (error) { clear(card, h('h2#push-title', t('settings.push')), failure(error, load)); return; }
    const registered = subscription && devices.length > 0;
    const toggle = h('input#push-toggle', { type: 'checkbox', role: 'switch', checked: Boolean(registered), disabled: !push.supported() });
    toggle.addEventListener('change', async () => {
      toggle.disabled = true;
      try {
        if (toggle.checked) { await push.enable(); toast(t('settings.push_on'), 'success'); }
        else { await push.disable(); toast(t('settings.push_off'), 'success'); }
      } catch (error) { toast(error.message, 'error'); }
      load();
    });
    const test = h('button.secondary', { type: 'button', disabled: devices.length === 0 }, t('settings.push_test'));
    test.addEventListener('click', async () => {
      try {
        const r = await api.post('/push/test');
        toast(t.count('settings.push_test_sent', r.devices), 'success');
      } catch (error) { toast(error.message, 'error'); }
    });
    const state = t(!push.supported() ? 'settings.push_unsupported'
      : Notification.permission === 'denied' ? 'settings.push_blocked'
        : registered ? 'settings.push_state_on' : 'settings.push_state_off');
    clear(card, h('h2#push-title', t('settings.push')),
      h('label.switch', toggle, h('span', t('settings.push_toggle'))),
      h('p.sub', { role: 'status' }, state),
      devices.length ? h('p.sub', t.count('settings.push_devices', devices.length, { list: devices.map((d) => d.user_agent?.split(' ').slice(-1)[0] || d.push_service).join(', ') })) : null,
      h('div.actions', test));
  }
  load();
  return card;
}
