// The app's shared state, in one place: the logged-in user and accounts, the chosen account, the unread
// notification count, the trades this tab just placed, recently viewed stocks, theme and hidden amounts. Views and the shell read it here
// and subscribe with `onChange(fn)`; fn receives what changed ('session', 'account', 'balances', 'unread',
// 'theme', 'hide', 'logout'). Nothing imports main.js: the shell subscribes like any view.
import * as api from './api.js';

const KEY_ACCOUNT = 'papertrade.account';
const KEY_THEME = 'papertrade.theme';
const KEY_HIDE = 'papertrade.hideAmounts';

const listeners = new Set();
export const state = { user: null, accounts: [], accountId: localStorage.getItem(KEY_ACCOUNT), unread: 0 };

export function onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); }
function changed(what) { listeners.forEach((fn) => fn(what)); }

/** A new device's first account: the A-share one for a user who reads Chinese, the US one otherwise. */
function preferred(me) {
  const market = (me?.language ?? document.documentElement.lang ?? '').startsWith('zh') ? 'cn' : 'us';
  const own = state.accounts.filter((a) => !a.in_game);
  return own.find((a) => a.market === market) ?? own[0] ?? state.accounts[0];
}

export function setSession(me) {
  state.user = me ? { id: me.id, username: me.username, language: me.language ?? null, mustChangePassword: me.must_change_password === true } : null;
  state.accounts = me?.accounts ?? [];
  // The account used last on this device, after a log-out and log-in too (a log-out forgets it in memory only).
  const has = (id) => state.accounts.some((a) => a.id === id);
  if (!has(state.accountId)) {
    const remembered = localStorage.getItem(KEY_ACCOUNT);
    state.accountId = has(remembered) ? remembered : preferred(me)?.id ?? null;
  }
  changed('session');
}

/**
 * Keeps the user's language on the server, so notifications and pushes use it too; `quiet` when the app only
 * records the browser's language it already shows.
 */
export async function setLanguage(language, { quiet = false } = {}) {
  const me = await api.put('/me', { language });
  state.user = { ...state.user, language: me.language ?? null };
  if (me.accounts) state.accounts = me.accounts;  // default account names now read in the new language
  if (!quiet) changed('language');
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

export function setUnread(n) {
  state.unread = Math.max(0, n);
  changed('unread');
}

// Symbols the trade sheet just traded (symbol → when): their fill notifications are not toasted twice.
const ownTrades = new Map();
export const noteOwnTrade = (symbol) => ownTrades.set(symbol, Date.now());
export const forgetOwnTrade = (symbol) => ownTrades.delete(symbol);
/** Whether a notification body is about a symbol this tab traded in the last five seconds. */
export const isOwnTrade = (text) =>
  [...ownTrades.entries()].some(([symbol, time]) => Date.now() - time < 5000 && text?.includes(symbol));

/** Asks the shell to log out (it ends the session on the server and shows the login screen). */
export const requestLogout = () => changed('logout');

export async function refreshAccounts() {
  state.accounts = await api.get('/accounts');
  if (!account()) state.accountId = state.accounts[0]?.id ?? null;
  changed('balances');
}

// Theme: 'system' | 'light' | 'dark' (theme.js applies it before the first paint).
export const theme = () => localStorage.getItem(KEY_THEME) || 'system';
export function setTheme(value) {
  localStorage.setItem(KEY_THEME, value);
  applyTheme();
  changed('theme');
}

// Price colours: 'green-up' | 'red-up' (the default in Chinese, as theme.js applies it).
export const colors = () => localStorage.getItem('papertrade.colors')
  || (localStorage.getItem('papertrade.language') === 'zh-Hans' ? 'red-up' : 'green-up');
export function setColors(value) {
  localStorage.setItem('papertrade.colors', value);
  applyTheme();
  changed('theme');
}

// theme.js (a classic script, run before the first paint) re-applies the theme on this event.
const applyTheme = () => document.dispatchEvent(new Event('papertrade:theme'));

export const amountsHidden = () => localStorage.getItem(KEY_HIDE) === '1';
export function setAmountsHidden(hidden) {
  localStorage.setItem(KEY_HIDE, hidden ? '1' : '0');
  changed('hide');
}

// Recently viewed stocks, newest first, per user on this device (search, home, swiping on the stock page).
const recentKey = () => `papertrade.recent.${state.user?.id ?? ''}`;
export function recent() {
  try { return JSON.parse(localStorage.getItem(recentKey())) ?? []; } catch { return []; }
}
export function noteViewed(symbol, name) {
  const list = [{ symbol, name }, ...recent().filter((r) => r.symbol !== symbol)].slice(0, 12);
  localStorage.setItem(recentKey(), JSON.stringify(list));
}
