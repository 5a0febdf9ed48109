// The native API (/api/v1) over fetch, with the session cookie. Errors carry the server's message verbatim.
import { t } from './i18n.js';

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
  get offline() { return this.status === 0; }
}

const listeners = new Set();
/** Called with true/false when the network goes away or comes back (the shell shows a banner). */
export function onConnectivity(fn) { listeners.add(fn); }
let online = true;
function setOnline(value) {
  if (online === value) return;
  online = value;
  listeners.forEach((fn) => fn(value));
}
export const isOnline = () => online;

let unauthorized = () => {};
/** What to do on a 401 from a request that needed a session (the shell shows the login screen). */
export function onUnauthorized(fn) { unauthorized = fn; }

// Requests in flight, marked on the page (<html data-loading>) while any is: the cursor says the app is working,
// and the browser tests wait for a quiet page instead of sleeping and hoping it got there.
let inflight = 0;
function loading(delta) {
  inflight += delta;
  if (inflight > 0) document.documentElement.dataset.loading = '';
  else delete document.documentElement.dataset.loading;
}

export async function request(method, path, body, options = {}) {
  loading(1);
  try {
    return await send(method, path, body, options);
  } finally {
    loading(-1);
  }
}

async function send(method, path, body, { signal, quiet401 = false, contentType = 'application/json' }) {
  let response;
  try {
    response = await fetch('/api/v1' + path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { Accept: 'application/json' } : { 'Content-Type': contentType, Accept: 'application/json' },
      body: body === undefined ? undefined : contentType === 'application/json' ? JSON.stringify(body) : body,
      signal,
    });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    setOnline(false);
    throw new ApiError(0, t('shell.offline_retry'));
  }
  setOnline(true);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    const message = (data && data.message) || `${response.status} ${response.statusText}`;
    if (response.status === 401 && !quiet401) unauthorized();
    throw new ApiError(response.status, message, data);
  }
  return data;
}

export const get = (path, options) => request('GET', path, undefined, options);
export const post = (path, body = {}, options) => request('POST', path, body, options);
export const put = (path, body = {}, options) => request('PUT', path, body, options);
export const patch = (path, body = {}, options) => request('PATCH', path, body, options);
export const del = (path, options) => request('DELETE', path, undefined, options);
/** A text body of another type (a class roster as text/csv). */
export const postText = (path, text, contentType) => request('POST', path, text, { contentType });

/** Query string from an object, skipping empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? '?' + s : '';
}

export const enc = encodeURIComponent;
