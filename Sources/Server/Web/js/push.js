// Web Push on this device: subscribe with the server's VAPID key after the browser's permission prompt, send the
// subscription to the server, unsubscribe. The service worker (sw.js) shows what arrives.
import * as api from './api.js';
import { t } from './i18n.js';

export const supported = () => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (base64url.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

/** This browser's current subscription, or null. */
export async function current() {
  if (!supported()) return null;
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

/** Asks for permission (a user gesture must call this), subscribes and registers the device with the server. */
export async function enable() {
  if (!supported()) throw new Error(t('push.unsupported'));
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') {
    throw new Error(permission === 'denied'
      ? t('push.blocked')
      : t('push.not_allowed'));
  }
  const registration = await navigator.serviceWorker.ready;
  const { public_key: key } = await api.get('/push/vapid-public-key');
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !sameKey(subscription, key)) { await subscription.unsubscribe(); subscription = null; }
  subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  await api.post('/push/subscriptions', subscription.toJSON());
  return subscription;
}

function sameKey(subscription, key) {
  const own = subscription.options?.applicationServerKey;
  if (!own) return true;
  const a = new Uint8Array(own);
  const b = keyBytes(key);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Stops push on this device, here and on the server. */
export async function disable() {
  const subscription = await current();
  if (!subscription) return;
  try { await api.request('DELETE', '/push/subscriptions', { endpoint: subscription.endpoint }); } catch (error) { if (error.status !== 404) throw error; }
  await subscription.unsubscribe();
}
