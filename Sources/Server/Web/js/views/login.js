// Log in / sign up. A new user gets a USD and a CNY paper account, named in the language the app is shown in.
import * as api from '../api.js';
import { t, lang } from '../i18n.js';
import { h } from '../ui.js';

/** Sign-up and log-in refusals by the server's code (UserAccess.Refusal) → their words in the catalogue. */
export const REFUSALS = {
  42210101: 'login.error.username',
  42210102: 'login.error.password',
  40910101: 'login.error.taken',
  40110000: 'login.error.wrong',
  42910000: 'login.error.throttled',
};

export function renderLogin(onSession) {
  let mode = 'login';
  const error = h('p.form-error', { role: 'alert', id: 'login-error' });
  const username = h('input#username', { name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: false, 'aria-describedby': 'login-error' });
  const password = h('input#password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true, minLength: 8, 'aria-describedby': 'login-error' });
  const submit = h('button.primary.wide', { type: 'submit' }, t('login.submit'));
  const title = h('h1', t('login.title'));
  const hint = h('p.hint', t('login.hint'));
  const switchLink = h('button.link', { type: 'button' }, t('login.to_signup'));

  function setMode(next) {
    mode = next;
    title.textContent = t(mode === 'login' ? 'login.title' : 'login.title_signup');
    submit.textContent = t(mode === 'login' ? 'login.submit' : 'login.submit_signup');
    switchLink.textContent = t(mode === 'login' ? 'login.to_signup' : 'login.to_login');
    password.autocomplete = mode === 'login' ? 'current-password' : 'new-password';
    error.textContent = '';
  }
  switchLink.addEventListener('click', () => setMode(mode === 'login' ? 'signup' : 'login'));

  const form = h('form.card.login-card', { novalidate: true },
    h('img.login-logo', { src: '/app/icons/icon.svg', alt: '', width: 56, height: 56 }),
    title, hint,
    h('label', { for: 'username' }, t('login.username')), username,
    h('label', { for: 'password' }, t('login.password')), password,
    h('p.field-help', t('login.password_help')),
    error, submit, switchLink);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!username.value.trim() || !password.value) {
      error.textContent = t('login.missing');
      return;
    }
    submit.disabled = true;
    error.textContent = '';
    try {
      const me = await api.post(mode === 'login' ? '/auth/login' : '/auth/signup',
        { username: username.value.trim(), password: password.value, language: mode === 'login' ? undefined : lang() }, { quiet401: true });
      await onSession(me);
    } catch (e) {
      // The server's refusals carry a code per thing to fix; the words are ours, in the user's language.
      const key = REFUSALS[e.body?.code];
      error.textContent = key ? t(key) : e.message;
      submit.disabled = false;
    }
  });
  return h('main.login', form);
}

