// Small DOM helpers and shared widgets: element builder, toasts, sheets, confirmation, screen states.
import { ARROWS, direction } from './format.js';
import { t } from './i18n.js';

/**
 * h('button.primary', {onclick, 'aria-label': 'Buy'}, 'Buy') — tag with optional .classes and #id; props set
 * properties (on… handlers, className, hidden, value) or attributes; children are nodes, strings or arrays.
 */
export function h(spec, props = {}, ...children) {
  const [, tag = 'div', rest = ''] = /^([a-z0-9-]*)(.*)$/i.exec(spec);
  const el = document.createElement(tag || 'div');
  for (const part of rest.match(/[.#][^.#]+/g) || []) {
    if (part[0] === '.') el.classList.add(part.slice(1)); else el.id = part.slice(1);
  }
  if (props === null || typeof props !== 'object' || props instanceof Node || Array.isArray(props)) {
    children.unshift(props);
    props = {};
  }
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'className') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key in el && !key.includes('-') && key !== 'list' && key !== 'form') el[key] = value;
    else el.setAttribute(key, value === true ? '' : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A change value with colour and arrow: <span class="chg up">▲ +1.23%</span>. */
export function change(text, display, { arrow = true } = {}) {
  const dir = direction(text);
  return h(`span.chg.${dir}`, arrow ? h('span.arrow', { 'aria-hidden': 'true' }, ARROWS[dir] + ' ') : null, display);
}

/** An inline SVG icon from a 24×24 path (stroked with the text colour). */
export function icon(path) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const p = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  p.setAttribute('d', path);
  svg.append(p);
  return svg;
}

const EYE = 'M1 12s4-7 11-7 11 7 11 7-4 7-11 7S1 12 1 12zM12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6z';
const EYE_OFF = 'M3 3l18 18M10.6 5.1A10 10 0 0 1 12 5c7 0 11 7 11 7a18 18 0 0 1-3.2 4M6.6 6.6A18 18 0 0 0 1 12s4 7 11 7a10 10 0 0 0 5.4-1.6';

/** The eye toggle that hides and shows amounts (remembered on this device). */
export function eyeToggle(hidden, onToggle) {
  return h('button.icon-button.eye', { type: 'button', 'aria-pressed': String(hidden), 'aria-label': t(hidden ? 'ui.show_amounts' : 'ui.hide_amounts'), onclick: onToggle },
    icon(hidden ? EYE_OFF : EYE));
}

// MARK: toasts

let toastRegion;
const MAX_TOASTS = 2;  // on screen at once: more would cover the form the user is on
const MAX_WAITING = 4;  // behind them; a burst beyond that is in Notifications (the bell counts it)
const waiting = [];

/**
 * Shows a message at the bottom for a few seconds; kind 'error' | 'success' | 'info'. Screen readers hear it. Two
 * at most are on screen: later ones wait their turn, in order, and the same words are never shown twice at once.
 */
export function toast(message, kind = 'info', { timeout = 3500, action } = {}) {
  if (!toastRegion) {
    toastRegion = h('div.toasts', { role: 'status', 'aria-live': 'polite' });
    document.body.append(toastRegion);
  }
  const showing = [...toastRegion.querySelectorAll('.toast:not(.leaving)')];
  if (showing.some((t) => t.querySelector('.toast-text')?.textContent === message)
      || waiting.some((w) => w.message === message)) return;
  if (showing.length >= MAX_TOASTS) {
    waiting.push({ message, kind, timeout, action });
    if (waiting.length > MAX_WAITING) waiting.shift();
    return;
  }
  // Toasts sit inside an open modal dialog so they show above it (the top layer hides everything else).
  const host = document.querySelector('dialog[open]') || document.body;
  if (toastRegion.parentElement !== host) host.append(toastRegion);
  const item = h(`div.toast.${kind}`, { role: kind === 'error' ? 'alert' : undefined },
    h('span.toast-text', message),
    action ? h('button.link', { type: 'button', onclick: () => { action.run(); gone(); } }, action.label) : null);
  let done = false;
  function gone() {
    if (done) return;
    done = true;
    item.remove();
    const next = waiting.shift();
    if (next) toast(next.message, next.kind, next);
  }
  toastRegion.append(item);
  setTimeout(() => item.classList.add('leaving'), timeout);
  setTimeout(gone, timeout + 300);
}

// MARK: sheets and dialogs

/**
 * A modal sheet (bottom sheet on phones, centred dialog on desktop). `build(close)` returns its content.
 * Escape and the close button close it; focus returns to what had it.
 */
export function sheet(title, build, { className = '' } = {}) {
  const previous = document.activeElement;
  const dialog = h(`dialog.sheet${className ? '.' + className : ''}`, { 'aria-label': title });
  const close = () => {
    const region = dialog.querySelector('.toasts');
    if (region) document.body.append(region); // a toast shown in the sheet outlives it
    dialog.close();
    dialog.remove();
    previous?.focus?.();
  };
  dialog.addEventListener('cancel', (event) => { event.preventDefault(); close(); });
  dialog.addEventListener('click', (event) => { if (event.target === dialog) close(); });
  const body = h('div.sheet-body');
  dialog.append(
    h('header.sheet-head', h('h2', title),
      h('button.icon-button', { type: 'button', 'aria-label': t('ui.close'), onclick: close }, '✕')),
    body);
  document.body.append(dialog);
  append(body, [build(close)]);
  dialog.showModal();
  const first = dialog.querySelector('[autofocus], input, select, textarea');
  first?.focus();
  return { dialog, close };
}

/** Asks before something irreversible; resolves true when confirmed. */
export function confirmAction(title, message, confirmLabel = t('ui.confirm'), { danger = false, warning = null } = {}) {
  return new Promise((resolve) => {
    let answered = false;
    const { dialog } = sheet(title, (close) => h('div.confirm',
      // What the learner should know before going on (an out-of-the-money exercise), above what the action does.
      warning ? h('p.warning', { role: 'alert', dataset: { testid: 'confirm-warning' } }, warning) : null,
      h('p', message),
      h('div.actions',
        h('button.secondary', { type: 'button', onclick: () => { answered = true; close(); resolve(false); } }, t('ui.cancel')),
        h(`button.${danger ? 'danger' : 'primary'}`, { type: 'button', autofocus: true,
          onclick: () => { answered = true; close(); resolve(true); } }, confirmLabel))));
    dialog.addEventListener('close', () => { if (!answered) resolve(false); });
  });
}

// MARK: screen states

export const loading = (label = t('ui.loading')) =>
  h('div.state.loading', { role: 'status' }, h('span.spinner', { 'aria-hidden': 'true' }), h('span', label));

export const empty = (message, ...extra) => h('div.state.empty', h('p', message), ...extra);

/** An error with the server's message and a Retry button (offline gets its own wording). */
export function failure(error, retry) {
  const offline = error?.offline;
  return h('div.state.error', { role: 'alert' },
    h('p.state-title', t(offline ? 'ui.offline_title' : 'ui.error_title')),
    h('p', offline ? t('ui.offline_text') : (error?.message || String(error))),
    retry ? h('button.secondary', { type: 'button', onclick: retry }, t('ui.retry')) : null);
}

/** A round badge with the ticker's first letters in a colour derived from it (when there is no logo). */
export function monogram(symbol, logo) {
  if (logo) return h('img.logo', { src: logo, alt: '', width: 40, height: 40, referrerpolicy: 'no-referrer' });
  let hash = 0;
  for (const c of symbol) hash = (hash * 31 + c.codePointAt(0)) >>> 0;
  const letters = /^\d/.test(symbol) ? symbol.slice(0, 3) : symbol.replace(/[^A-Z]/gi, '').slice(0, 2);
  return h(`span.logo.monogram.hue${hash % 8}`, { 'aria-hidden': 'true' }, letters);
}

/** A row of toggle buttons; onChange(value). */
export function segmented(label, options, selected, onChange) {
  const group = h('div.segmented', { role: 'group', 'aria-label': label });
  for (const [value, text] of options) {
    const button = h('button', { type: 'button', 'aria-pressed': String(value === selected), dataset: { value } }, text);
    button.addEventListener('click', () => {
      group.querySelectorAll('button').forEach((b) => b.setAttribute('aria-pressed', String(b === button)));
      onChange(value);
    });
    group.append(button);
  }
  return group;
}

/** Debounce for search boxes. */
export function debounce(fn, ms) {
  let t;
  return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };
}
