// The app's WebSocket (/api/v1/ws): live quotes for the symbols on screen, order updates, notifications.
// Reconnects with backoff and re-subscribes; screens subscribe through watch() and get a function to stop.

const handlers = { quote: new Set(), order: new Set(), notification: new Set(), status: new Set(), signedout: new Set() };
const wanted = new Map(); // symbol → number of watchers
let socket = null;
let retry = 0;
let timer = null;
let started = false;
let signedOut = false;

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  clearTimeout(timer);
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  signedOut = false;
  socket = new WebSocket(`${scheme}//${location.host}/api/v1/ws`);
  socket.addEventListener('open', () => {
    retry = 0;
    handlers.status.forEach((fn) => fn(true));
    if (wanted.size) send({ type: 'subscribe', symbols: [...wanted.keys()], batch: true });
  });
  socket.addEventListener('message', (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    // A second's quotes come in one message (asked for with `batch` below).
    if (message.type === 'quotes') message.data.forEach((q) => handlers.quote.forEach((fn) => fn(q)));
    else if (message.type === 'error' && message.data?.reason === 'signed_out') signedOut = true;
    else handlers[message.type]?.forEach((fn) => fn(message.data));
  });
  socket.addEventListener('close', () => {
    handlers.status.forEach((fn) => fn(false));
    if (!started) return;
    // The session ended (logged out in another tab, expired): no reconnecting, the app asks to log in again.
    if (signedOut) {
      stop();
      handlers.signedout.forEach((fn) => fn());
      return;
    }
    retry = Math.min(retry + 1, 6);
    timer = setTimeout(connect, 500 * 2 ** retry);
  });
}

export function start() {
  if (started) return;
  started = true;
  connect();
}

export function stop() {
  started = false;
  clearTimeout(timer);
  socket?.close();
  socket = null;
  wanted.clear();
}

/** Listen for 'quote' | 'order' | 'notification' | 'status' | 'signedout'; returns the unsubscribe function. */
export function on(type, fn) {
  handlers[type].add(fn);
  return () => handlers[type].delete(fn);
}

/** Live quotes for these symbols while the returned function has not been called. */
export function watch(symbols, onQuote) {
  const list = [...new Set(symbols.filter(Boolean).map((s) => s.toUpperCase()))];
  const fresh = list.filter((s) => !wanted.has(s));
  list.forEach((s) => wanted.set(s, (wanted.get(s) || 0) + 1));
  if (fresh.length) send({ type: 'subscribe', symbols: fresh, batch: true });
  const off = on('quote', (q) => { if (list.includes(q.symbol)) onQuote(q); });
  return () => {
    off();
    const gone = [];
    list.forEach((s) => {
      const n = (wanted.get(s) || 1) - 1;
      if (n <= 0) { wanted.delete(s); gone.push(s); } else wanted.set(s, n);
    });
    if (gone.length) send({ type: 'unsubscribe', symbols: gone });
  };
}
