// Log in / sign up. A new user gets a USD and a CNY paper account.
import * as api from '../api.js';
import { h } from '../ui.js';

export function renderLogin(onSession) {
  let mode = 'login';
  const error = h('p.form-error', { role: 'alert', id: 'login-error' });
  const username = h('input#username', { name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: false, 'aria-describedby': 'login-error' });
  const password = h('input#password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true, minLength: 8, 'aria-describedby': 'login-error' });
  const submit = h('button.primary.wide', { type: 'submit' }, 'Log in');
  const title = h('h1', 'Log in');
  const hint = h('p.hint', 'Practise trading US stocks and China A-shares with simulated money.');
  const switchLink = h('button.link', { type: 'button' }, 'New here? Create an account');

  function setMode(next) {
    mode = next;
    title.textContent = mode === 'login' ? 'Log in' : 'Create your account';
    submit.textContent = mode === 'login' ? 'Log in' : 'Sign up';
    switchLink.textContent = mode === 'login' ? 'New here? Create an account' : 'Already have an account? Log in';
    password.autocomplete = mode === 'login' ? 'current-password' : 'new-password';
    error.textContent = '';
  }
  switchLink.addEventListener('click', () => setMode(mode === 'login' ? 'signup' : 'login'));

  const form = h('form.card.login-card', { novalidate: true },
    h('img.login-logo', { src: '/app/icons/icon.svg', alt: '', width: 56, height: 56 }),
    title, hint,
    h('label', { for: 'username' }, 'Username'), username,
    h('label', { for: 'password' }, 'Password'), password,
    h('p.field-help', 'At least 8 characters.'),
    error, submit, switchLink);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!username.value.trim() || !password.value) {
      error.textContent = 'Enter a username and a password.';
      return;
    }
    submit.disabled = true;
    error.textContent = '';
    try {
      const me = await api.post(mode === 'login' ? '/auth/login' : '/auth/signup',
        { username: username.value.trim(), password: password.value }, { quiet401: true });
      await onSession(me);
    } catch (e) {
      error.textContent = e.message;
      submit.disabled = false;
    }
  });
  return h('main.login', form);
}
