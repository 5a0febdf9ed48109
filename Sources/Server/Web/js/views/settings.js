// Settings: theme (system / light / dark, remembered on this device), reset the account, log out.
import * as api from '../api.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { logout } from '../main.js';
import { h, clear, toast, confirmAction } from '../ui.js';

export async function render(view) {
  const account = store.account();
  const themes = [['system', 'System'], ['light', 'Light'], ['dark', 'Dark']];
  const current = store.theme();
  const themeGroup = h('fieldset.card.theme',
    h('legend', 'Appearance'),
    themes.map(([value, label]) => h('label.radio',
      h('input', { type: 'radio', name: 'theme', value, checked: value === current, onchange: () => store.setTheme(value) }),
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

  clear(view, h('header.page-head', h('h1', 'Settings')),
    themeGroup,
    h('section.card', h('h2', 'Account'),
      h('p', account ? `${account.name} (${account.currency})` : 'No account'),
      h('p.sub', 'Start over with the starting cash.'), reset),
    h('section.card', h('h2', 'Session'),
      h('p', `Logged in as ${store.state.user?.username ?? ''}`),
      h('button.secondary', { type: 'button', onclick: logout }, 'Log out')),
    h('section.card.about-app', h('h2', 'About'),
      h('p', 'papertrade — paper trading with simulated money. Nothing here is real money or investment advice.'),
      h('p', h('a', { href: '/openapi.json' }, 'API (OpenAPI)'), ' · Charts by ',
        h('a', { href: 'https://www.tradingview.com/', target: '_blank', rel: 'noopener' }, 'TradingView Lightweight Charts™'), ' (Apache-2.0)')));
}
