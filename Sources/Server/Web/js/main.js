// The app shell: session, account switcher, search, navigation (hash routes), notifications badge, live toasts.
import * as api from './api.js';
import * as live from './live.js';
import * as store from './store.js';
import { t, choose } from './i18n.js';
import { h, clear, toast, failure, loading, icon } from './ui.js';
import { searchBox } from './views/search.js';

const views = {
  '': () => import('./views/home.js'),
  explore: () => import('./views/explore.js'),
  queue: () => import('./views/queue.js'),
  alerts: () => import('./views/alerts.js'),
  orders: () => import('./views/orders.js'),
  account: () => import('./views/account.js'),
  notifications: () => import('./views/notifications.js'),
  settings: () => import('./views/settings.js'),
  stock: () => import('./views/stock.js'),
  performance: () => import('./views/performance.js'),
  games: () => import('./views/games.js'),
  classes: () => import('./views/classes.js'),
  join: () => import('./views/join.js'),
  backtest: () => import('./views/backtest.js'),
};

const TABS = [
  ['', 'tab.home', 'M3 11l9-8 9 8v10a1 1 0 0 1-1 1h-5v-7H9v7H4a1 1 0 0 1-1-1z'],
  ['explore', 'tab.explore', 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm3.5 6.5l-2 5-5 2 2-5z'],
  ['queue', 'tab.queue', 'M4 6h16M4 12h10M4 18h7M17 14l3 3-3 3'],
  ['orders', 'tab.orders', 'M6 3h12v18l-3-2-3 2-3-2-3 2zM9 8h6M9 12h6'],
  ['games', 'tab.games', 'M8 21h8M12 17v4M7 4h10v5a5 5 0 0 1-10 0zM7 6H4v1a3 3 0 0 0 3 3M17 6h3v1a3 3 0 0 1-3 3'],
  ['account', 'tab.account', 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-8 9a8 8 0 0 1 16 0'],
];


const root = document.getElementById('app');
let cleanups = [];
// Until the overview says otherwise, the offline default; our simulator is named in the user's language.
let source = { simulated: true, name: '', url: null };

function runCleanups() {
  cleanups.forEach((fn) => { try { fn(); } catch { /* a view's teardown must not break navigation */ } });
  cleanups = [];
}

function route() {
  const [name = '', ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  return { name: decodeURIComponent(name), params: rest.map(decodeURIComponent) };
}

function navigate(path) { location.hash = '#/' + path; }

// MARK: shell

// Each route's render gets a fresh <main>: a render still awaiting its data when the route changes again (a
// switched account re-renders the page while a tap moves on) then writes into a detached element, never over the
// newer page, and what it registers for cleanup runs at once.
let view = h('main#view', { tabindex: '-1' });
let rendering = 0;
const badge = h('span.badge', { hidden: true, 'aria-hidden': 'true' });
const bell = h('a.icon-button.bell', { href: '#/notifications', 'aria-label': t('shell.notifications') },
  icon('M6 8a6 6 0 1 1 12 0c0 7 3 8 3 8H3s3-1 3-8M10 20a2 2 0 0 0 4 0'), badge);
const switcher = h('select.account-switcher', { 'aria-label': t('shell.account') });
const offline = h('div.offline-banner', { role: 'status', hidden: true }, t('shell.offline'));
const footer = h('footer.data-source');
const nav = h('nav.tabs', { 'aria-label': t('shell.main') });

function renderNav(active) {
  clear(nav, TABS.map(([path, label, d]) => h('a', {
    href: '#/' + path, 'aria-current': active === path ? 'page' : undefined,
  }, icon(d), h('span', t(label)))));
}

function renderSwitcher() {
  clear(switcher, store.state.accounts.map((a) => h('option', { value: a.id, selected: a.id === store.state.accountId },
    `${a.name} · ${a.currency}`)));
}

function renderFooter() {
  clear(footer,
    h('span', t('shell.data'), source.simulated ? t('shell.simulated_market')
      : source.url ? h('a', { href: source.url, target: '_blank', rel: 'noopener', lang: 'en' }, source.name) : h('span', { lang: 'en' }, source.name)),
    h('span', t('shell.charts_by'), h('a', { href: 'https://www.tradingview.com/', target: '_blank', rel: 'noopener' }, 'TradingView')));
}

function renderBadge() {
  const n = store.state.unread;
  badge.hidden = n === 0;
  badge.textContent = n > 99 ? '99+' : String(n);
  bell.setAttribute('aria-label', n ? t('shell.notifications_unread', { n }) : t('shell.notifications'));
}

function shell() {
  // These live across renders; their words follow the language chosen at start.
  offline.textContent = t('shell.offline');
  switcher.setAttribute('aria-label', t('shell.account'));
  renderBadge();
  clear(root,
    h('a.skip', { href: '#view', onclick: (e) => { e.preventDefault(); view.focus(); } }, t('shell.skip')),
    h('header.topbar',
      h('a.brand', { href: '#/', 'aria-label': t('shell.home') }, h('img', { src: '/app/icons/icon.svg', alt: '', width: 28, height: 28 }), h('span', 'papertrade')),
      switcher,
      searchBox((symbol) => navigate('stock/' + encodeURIComponent(symbol))),
      bell,
      h('a.icon-button', { href: '#/settings', 'aria-label': t('shell.settings') },
        icon('M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM19 12l2-1-1-3-2 .3-1.5-1.5.3-2-3-1-1 2h-2l-1-2-3 1 .3 2L5 7.3 3 7 2 10l2 1v2l-2 1 1 3 2-.3 1.5 1.5-.3 2 3 1 1-2h2l1 2 3-1-.3-2 1.5-1.5 2 .3 1-3-2-1z'))),
    offline,
    nav,
    view,
    footer);
  renderSwitcher();
  renderFooter();
}

switcher.addEventListener('change', () => store.selectAccount(switcher.value));

async function show() {
  runCleanups();
  const { name, params } = route();
  if (!store.state.user) return;
  const load = views[name] ?? views[''];
  renderNav(TABS.some(([p]) => p === name) ? name : name === 'join' || name === 'classes' ? 'games' : null);
  const mine = ++rendering;
  const target = h('main#view', { tabindex: '-1' }, loading());
  view.replaceWith(target);
  view = target;
  const current = () => mine === rendering;
  try {
    const module = await load();
    const scope = { onCleanup: (fn) => { if (current()) cleanups.push(fn); else fn(); }, navigate };
    await module.render(target, params, scope);
  } catch (error) {
    clear(target, failure(error, show));
  }
  if (current() && document.activeElement === document.body) target.focus({ preventScroll: true });
}

// MARK: login

async function renderLogin() {
  const { renderLogin: login } = await import('./views/login.js');
  runCleanups();
  clear(root, login(async (me) => {
    store.setSession(me);
    await start();
  }));
}

async function start() {
  const language = choose(store.state.user?.language);
  if (store.state.user?.mustChangePassword) {
    const { renderPasswordChange } = await import('./views/password.js');
    runCleanups();
    clear(root, renderPasswordChange(async (me) => { store.setSession(me); await start(); }));
    return;
  }
  // A user who never chose keeps the browser's language: remembered on the server for notifications and pushes.
  if (!store.state.user?.language) store.setLanguage(language, { quiet: true }).catch(() => {});
  shell();
  live.start();
  show();
  api.get('/notifications?limit=1').then((n) => store.setUnread(n.unread)).catch(() => {});
  api.get('/market/overview').then((o) => { source = { simulated: o.simulated, name: o.source, url: o.source_url }; renderFooter(); }).catch(() => {});
}

live.on('notification', (n) => {
  store.setUnread(store.state.unread + 1);
  const own = n.kind === 'fill' && store.isOwnTrade(n.body);
  if (!own) toast(n.body || n.title, n.kind === 'automatic_order_failed' ? 'error' : 'info', { timeout: 5000 });
});

store.onChange((what) => {
  if (what === 'balances') renderSwitcher();
  if (what === 'account') { renderSwitcher(); show(); }
  if (what === 'unread') renderBadge();
  if (what === 'logout') logout();
  if (what === 'language') { choose(store.state.user?.language); shell(); show(); }
});

api.onUnauthorized(() => {
  live.stop();
  store.setSession(null);
  renderLogin();
});
// The socket's session ended while the app was open (logged out in another tab, expired): the login screen, as a 401.
live.on('signedout', () => {
  store.setSession(null);
  renderLogin();
});

api.onConnectivity((isOnline) => {
  offline.hidden = isOnline;
  document.documentElement.classList.toggle('is-offline', !isOnline);
});
window.addEventListener('offline', () => { offline.hidden = false; });
window.addEventListener('online', () => { offline.hidden = true; if (store.state.user) show(); });
window.addEventListener('hashchange', show);

async function logout() {
  try { await api.post('/auth/logout'); } catch { /* logging out offline still forgets the session here */ }
  live.stop();
  store.setSession(null);
  location.hash = '#/';
  renderLogin();
}

async function boot() {
  choose(null);
  clear(root, loading(t('shell.starting')));
  try {
    // Not /me: a 401 there would show as a failed request in the console of everyone not yet logged in.
    const { user } = await api.get('/auth/session');
    if (!user) { renderLogin(); return; }
    store.setSession(user);
    await start();
  } catch (error) {
    if (error.status === 401) renderLogin();
    else clear(root, failure(error, boot));
  }
}

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js').catch(() => { /* the app works without offline support */ });
}
boot();
