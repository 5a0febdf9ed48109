// Offline support: the app shell is cached on install and served when the network is down. API calls are never
// cached (prices and balances must be live); the app shows an offline banner instead.
const CACHE = 'papertrade-shell-v4';
const SHELL = [
  '/', '/manifest.webmanifest', '/app/css/app.css', '/app/js/theme.js', '/app/js/main.js', '/app/js/api.js',
  '/app/js/live.js', '/app/js/store.js', '/app/js/ui.js', '/app/js/format.js', '/app/js/decimal.js',
  '/app/js/favorites.js', '/app/js/chart.js', '/app/js/options.js', '/app/js/payoff.js',
  '/app/js/views/home.js', '/app/js/views/search.js',
  '/app/js/views/login.js', '/app/js/views/stock.js', '/app/js/views/trade.js', '/app/js/views/orders.js',
  '/app/js/views/account.js', '/app/js/views/explore.js', '/app/js/views/notifications.js',
  '/app/js/views/settings.js', '/app/js/views/queue.js', '/app/js/performance.js',
  '/app/js/views/performance.js', '/app/js/alerts.js', '/app/js/views/alerts.js', '/app/js/push.js',
  '/app/js/i18n.js', '/app/js/i18n/en.js', '/app/js/i18n/zh-Hans.js',
  '/app/icons/icon.svg', '/app/icons/icon-192.png',
];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// Network first (the server answers 304 when nothing changed), cache when offline.
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== location.origin) return;
  if (url.pathname.startsWith('/api/') || url.pathname.startsWith('/v2/')) return;
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(event.request, copy));
    }
    return response;
  }).catch(() => caches.match(event.request).then((hit) => hit || caches.match('/'))));
});

// Web Push: show what the server sent (title, body, icon, tag) even when no page of the app is open; a tap opens
// (or focuses) the app at the screen the message names.
self.addEventListener('push', (event) => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch { message = { body: event.data?.text() }; }
  event.waitUntil(self.registration.showNotification(message.title || 'papertrade', {
    body: message.body || '',
    icon: '/app/icons/icon-192.png',
    badge: '/app/icons/icon-192.png',
    tag: message.tag || message.id,
    data: { url: '/' + (message.url || '#/notifications') },
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || '/', self.location.origin).href;
  event.waitUntil(self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
    const open = windows.find((w) => new URL(w.url).origin === self.location.origin);
    if (open) return open.focus().then(() => open.navigate(target));
    return self.clients.openWindow(target);
  }));
});
