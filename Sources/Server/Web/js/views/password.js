// The first log-in with a handed-out password (a teacher's roster, a reset): the user chooses their own before anything
// else. Loaded only then (not part of the offline shell), with its texts.
import * as api from '../api.js';
import { t, addTexts } from '../i18n.js';
import { h } from '../ui.js';
import { REFUSALS } from './login.js';
import en from '../i18n/password.en.js';
import zhHans from '../i18n/password.zh-Hans.js';

addTexts({ en, 'zh-Hans': zhHans });
/**
 * The first log-in with a password someone else chose (a teacher's roster, a reset): the user picks their own before
 * anything else; the server then stops asking.
 */
export function renderPasswordChange(onDone) {
  const error = h('p.form-error', { role: 'alert', id: 'change-error' });
  const current = h('input#current-password', { type: 'password', autocomplete: 'current-password', required: true, 'aria-describedby': 'change-error' });
  const next = h('input#new-password', { type: 'password', autocomplete: 'new-password', required: true, minLength: 8, 'aria-describedby': 'change-help change-error' });
  const again = h('input#again-password', { type: 'password', autocomplete: 'new-password', required: true, minLength: 8, 'aria-describedby': 'change-error' });
  const submit = h('button.primary.wide', { type: 'submit' }, t('password.submit'));
  const form = h('form.card.login-card', { novalidate: true },
    h('img.login-logo', { src: '/app/icons/icon.svg', alt: '', width: 56, height: 56 }),
    h('h1', t('password.title')), h('p.hint', t('password.hint')),
    h('label', { for: 'current-password' }, t('password.current')), current,
    h('label', { for: 'new-password' }, t('password.new')), next,
    h('p.field-help#change-help', t('login.password_help')),
    h('label', { for: 'again-password' }, t('password.again')), again,
    error, submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!current.value || !next.value) { error.textContent = t('login.missing'); return; }
    if (next.value !== again.value) { error.textContent = t('password.mismatch'); again.focus(); return; }
    submit.disabled = true;
    error.textContent = '';
    try {
      const me = await api.put('/me/password', { current_password: current.value, new_password: next.value });
      await onDone(me);
    } catch (e) {
      error.textContent = e.status === 403 ? t('password.wrong') : REFUSALS[e.body?.code] && e.body?.code !== 40110000 ? t(REFUSALS[e.body.code]) : e.message;
      submit.disabled = false;
    }
  });
  return h('main.login', form);
}
