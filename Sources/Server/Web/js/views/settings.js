// Settings: language (kept on the server), theme and price colours (remembered on this device), push notifications
// on this device, reset the account, the account's API keys (views/keys.js), webhook (views/webhook.js), log out.
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
    account ? later(() => import('./keys.js').then((m) => m.keysCard(account))) : null,
    later(() => import('./webhook.js').then((m) => m.webhookCard())),
    h('section.card', h('h2', t('settings.session')),
      h('p', t('settings.logged_in_as', { name: store.state.user?.username ?? '' })),
      h('button.secondary', { type: 'button', onclick: store.requestLogout }, t('settings.log_out'))),
    h('section.card.about-app', h('h2', t('settings.about')),
      h('p', t('settings.about_text')),
      h('p', h('a', { href: '/openapi.json' }, t('settings.api')), t('shell.charts_by'),
        h('a', { href: 'https://www.tradingview.com/', target: '_blank', rel: 'noopener' }, 'TradingView Lightweight Charts™'), ' (Apache-2.0)'))));
}

/** A card from its own module, outside the offline shell and with its own texts: the API keys', the webhook's. */
function later(load) {
  const slot = h('div', loading());
  load().then((card) => slot.replaceWith(card), (error) => clear(slot, failure(error)));
  return slot;
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
