// What the app remembers: the logged-in user and accounts, the chosen account, theme and hidden amounts.
import * as api from './api.js';

const KEY_ACCOUNT = 'papertrade.account';
const KEY_THEME = 'papertrade.theme';
const KEY_HIDE = 'papertrade.hideAmounts';

const listeners = new Set();
export const state = { user: null, accounts: [], accountId: localStorage.getItem(KEY_ACCOUNT) };

export function onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); }
function changed(what) { listeners.forEach((fn) => fn(what)); }

export function setSession(me) {
  state.user = me ? { id: me.id, username: me.username } : null;
  state.accounts = me?.accounts ?? [];
  if (!state.accounts.some((a) => a.id === state.accountId)) state.accountId = state.accounts[0]?.id ?? null;
  changed('session');
}

export function account() { return state.accounts.find((a) => a.id === state.accountId) ?? null; }

export function selectAccount(id) {
  state.accountId = id;
  localStorage.setItem(KEY_ACCOUNT, id);
  changed('account');
}

/** Replaces one account's balances (after a trade, deposit, reset…). */
export function updateAccount(a) {
  const i = state.accounts.findIndex((x) => x.id === a.id);
  if (i >= 0) state.accounts[i] = { ...state.accounts[i], ...a }; else state.accounts.push(a);
  changed('balances');
}

export async function refreshAccounts() {
  state.accounts = await api.get('/accounts');
  if (!account()) state.accountId = state.accounts[0]?.id ?? null;
  changed('balances');
}

// Theme: 'system' | 'light' | 'dark' (theme.js applies it before the first paint).
export const theme = () => localStorage.getItem(KEY_THEME) || 'system';
export function setTheme(value) {
  localStorage.setItem(KEY_THEME, value);
  window.papertradeApplyTheme?.();
  changed('theme');
}

// Price colours: 'green-up' | 'red-up'.
export const colors = () => localStorage.getItem('papertrade.colors') || 'green-up';
export function setColors(value) {
  localStorage.setItem('papertrade.colors', value);
  window.papertradeApplyTheme?.();
  changed('theme');
}

export const amountsHidden = () => localStorage.getItem(KEY_HIDE) === '1';
export function setAmountsHidden(hidden) {
  localStorage.setItem(KEY_HIDE, hidden ? '1' : '0');
  changed('hide');
}
