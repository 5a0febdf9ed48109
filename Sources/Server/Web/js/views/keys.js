// Settings' "API keys" card: the current account's Alpaca API keys — make one (its secret shown once, with what a
// bot needs to connect), see them, revoke one. Loaded when Settings opens, with its own texts (not in the shell).
import * as api from '../api.js';
import * as F from '../format.js';
import { t, addTexts } from '../i18n.js';
import { h, clear, toast, confirmAction, failure, loading } from '../ui.js';
import en from '../i18n/keys.en.js';
import zhHans from '../i18n/keys.zh-Hans.js';

addTexts({ en, 'zh-Hans': zhHans });

/** The card for `account` (a user's account; nothing without one). */
export function keysCard(account) {
  const card = h('section.card.api-keys', { 'aria-labelledby': 'keys-title' }, loading());
  const path = `/accounts/${api.enc(account.id)}/keys`;
  async function load(made = null) {
    try { draw(await api.get(path), made); } catch (error) { clear(card, h('h2#keys-title', t('keys.title')), failure(error, load)); }
  }
  function draw(keys, made) {
    const create = h('button.secondary', { type: 'button', onclick: add }, t('keys.create'));
    clear(card, h('h2#keys-title', t('keys.title')),
      h('p.sub', t('keys.intro', { name: account.name })),
      made ? h('div.secret', { role: 'status' },
        h('p', t('keys.secret_once')),
        h('p', t('keys.key_id'), ' ', h('code', made.key_id)),
        h('p', t('keys.secret'), ' ', h('code', made.secret)),
        h('p.sub', t('keys.connect', { url: location.origin }))) : null,
      keys.length
        ? h('ul.rows.keys', keys.map((key) => h('li.row',
          h('span.row-main', h('code.sym', key.key_id), h('span.sub', t('keys.created', { time: F.dateTime(key.created_at) }))),
          h('span.row-end', h('button.link.danger', {
            type: 'button', 'aria-label': t('keys.revoke_named', { key: key.key_id }), onclick: () => revoke(key),
          }, t('keys.revoke'))))))
        : h('p.sub', t('keys.none')),
      h('div.actions', create));
  }
  async function add() {
    try {
      const made = await api.post(path);
      toast(t('keys.created_toast'), 'success');
      load(made);
    } catch (error) { toast(error.message, 'error'); }
  }
  async function revoke(key) {
    if (!await confirmAction(t('keys.revoke'), t('keys.revoke_confirm', { key: key.key_id }), t('keys.revoke'), { danger: true })) return;
    try {
      await api.del(`${path}/${api.enc(key.key_id)}`);
      toast(t('keys.revoked', { key: key.key_id }), 'success');
      load();
    } catch (error) { toast(error.message, 'error'); }
  }
  load();
  return card;
}
