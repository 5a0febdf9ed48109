// Debounced symbol autocomplete (ticker or company name, Chinese names too). Choosing a suggestion — click, or
// arrow keys then Enter — opens the stock; Enter with nothing chosen does not navigate.
import * as api from '../api.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import { h, clear, debounce } from '../ui.js';

let counter = 0;

/**
 * A combobox. `onPick(symbol, result)` is called with the chosen suggestion. Options: placeholder, market
 * (limit to us/cn), label.
 */
export function searchBox(onPick, { placeholder = t('search.placeholder'), market, label = t('search.label'), inputId } = {}) {
  const id = `search-${++counter}`;
  const input = h('input.search-input', {
    id: inputId,
    type: 'search', placeholder, autocomplete: 'off', spellcheck: false, role: 'combobox',
    'aria-label': label, 'aria-autocomplete': 'list', 'aria-expanded': 'false', 'aria-controls': id + '-list',
    enterKeyHint: 'search',
  });
  const list = h('ul.suggestions', { id: id + '-list', role: 'listbox', hidden: true });
  let results = [];
  let active = -1;
  let controller = null;

  function close() {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  }

  function highlight(i) {
    active = i;
    const options = [...list.querySelectorAll('.suggestion')];
    options.forEach((li, j) => li.setAttribute('aria-selected', String(j === i)));
    if (i >= 0) {
      input.setAttribute('aria-activedescendant', `${id}-opt-${i}`);
      options[i]?.scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  }

  function pick(i) {
    const r = results[i];
    if (!r) return;
    input.value = '';
    close();
    input.blur();
    onPick(r.symbol, r);
  }

  function show(items, text, heading) {
    results = items;
    active = -1;
    clear(list, heading ? h('li.suggestions-head', { role: 'presentation' }, heading) : null, items.length
      ? items.map((r, i) => h('li.suggestion', {
        id: `${id}-opt-${i}`, role: 'option', 'aria-selected': 'false', dataset: { symbol: r.symbol },
        onmousedown: (e) => e.preventDefault(), onclick: () => pick(i),
      }, h('span.sym', r.symbol), h('span.name', r.name ?? ''), h('span.exch', r.exchange ?? '')))
      : [h('li.no-results', { role: 'option', 'aria-disabled': 'true' }, t('search.none', { text }))]);
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
  }

  const lookup = debounce(async () => {
    const text = input.value.trim();
    controller?.abort();
    if (!text) { close(); return; }
    controller = new AbortController();
    try {
      const items = await api.get('/search' + api.query({ q: text, market, limit: 8 }), { signal: controller.signal });
      if (input.value.trim() === text) show(items, text);
    } catch (error) {
      if (error.name === 'AbortError') return;
      clear(list, h('li.no-results', { role: 'option', 'aria-disabled': 'true' }, error.message));
      list.hidden = false;
    }
  }, 200);

  input.addEventListener('input', lookup);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown' && results.length) { event.preventDefault(); if (list.hidden) list.hidden = false; highlight((active + 1) % results.length); }
    else if (event.key === 'ArrowUp' && results.length) { event.preventDefault(); highlight(active <= 0 ? results.length - 1 : active - 1); }
    else if (event.key === 'Enter') { event.preventDefault(); if (active >= 0 && !list.hidden) pick(active); }
    else if (event.key === 'Escape') close();
  });
  input.addEventListener('blur', () => setTimeout(close, 150));
  input.addEventListener('focus', () => {
    if (results.length && input.value.trim()) { list.hidden = false; input.setAttribute('aria-expanded', 'true'); return; }
    // An empty box offers the stocks viewed last (the market filter applies to them too).
    const recent = store.recent().filter((r) => !market || (market === 'cn') === /^\d{6}$/.test(r.symbol));
    if (!input.value.trim() && recent.length) show(recent.slice(0, 8), '', t('search.recent'));
  });

  return h('div.search', h('span.search-icon', { 'aria-hidden': 'true' }, '⌕'), input, list);
}
