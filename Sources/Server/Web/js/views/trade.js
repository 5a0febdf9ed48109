// The trade sheet: order type, quantity (numeric keyboard), live estimate with fees, available cash or sellable
// shares, a confirmation step, and clear messages. Bad input is a toast and the sheet stays open; server
// rejections (lot size, T+1, price limits, market closed) are shown verbatim.
import * as api from '../api.js';
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { h, clear, sheet, toast, debounce } from '../ui.js';

const TYPES = [['market', 'Market'], ['limit', 'Limit'], ['stop', 'Stop'], ['stop_limit', 'Stop limit'], ['trailing_stop', 'Trailing stop']];

/** Client-side checks, in the order a user would hit them; null when the quantity is fine. */
export function checkQuantity(text, side) {
  const qty = D.parse(text);
  if (!qty) return 'Please enter a valid amount';
  if (D.sign(qty) <= 0) return side === 'buy' ? 'Cannot buy non-positive shares' : 'Cannot sell non-positive shares';
  return null;
}

export function openTradeSheet({ symbol, side: initialSide, quote, held, onDone }) {
  const account = store.account();
  if (!account) { toast('Open a paper account first.', 'error'); return; }
  if (account.market !== quote.market) {
    toast(`${symbol} trades in ${quote.currency}. Switch to your ${quote.market === 'cn' ? 'A-share' : 'US'} account to trade it.`, 'error');
    return;
  }
  let side = initialSide;
  let lastEstimate = null;
  const currency = account.currency;

  sheet(`${initialSide === 'buy' ? 'Buy' : 'Sell'} ${symbol}`, (close) => {
    const sideGroup = h('div.segmented.side', { role: 'group', 'aria-label': 'Side' },
      ['buy', 'sell'].map((s) => h(`button.${s}`, { type: 'button', 'aria-pressed': String(s === side), dataset: { side: s },
        onclick: () => { side = s; sideGroup.querySelectorAll('button').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.side === s))); refresh(); } },
      s === 'buy' ? 'Buy' : 'Sell')));
    const type = h('select#order-type', { name: 'type' }, TYPES.map(([v, t]) => h('option', { value: v }, t)));
    const qty = h('input#qty', { name: 'qty', inputMode: quote.market === 'cn' ? 'numeric' : 'decimal', autocomplete: 'off', placeholder: quote.market === 'cn' ? '100' : '1', autofocus: true });
    const limit = h('input#limit-price', { name: 'limit_price', inputMode: 'decimal', autocomplete: 'off', placeholder: F.price(quote.last) });
    const stop = h('input#stop-price', { name: 'stop_price', inputMode: 'decimal', autocomplete: 'off', placeholder: F.price(quote.last) });
    const trail = h('input#trail-percent', { name: 'trail_percent', inputMode: 'decimal', autocomplete: 'off', placeholder: '2' });
    const tif = h('select#tif', { name: 'time_in_force' }, h('option', { value: 'day' }, 'Day'), h('option', { value: 'gtc' }, 'Good till canceled'));
    const field = (id, label, input, extra) => h('div.field', { dataset: { field: id } }, h('label', { for: input.id }, label), input, extra);
    const limitField = field('limit', 'Limit price', limit);
    const stopField = field('stop', 'Stop price', stop);
    const trailField = field('trail', 'Trail (%)', trail);
    const estimate = h('dl.estimate', { 'aria-live': 'polite' });
    const available = h('p.available');
    const review = h('button.primary.wide', { type: 'submit' }, 'Review order');
    const form = h('form.trade-form', { novalidate: true },
      sideGroup,
      h('p.sub', `${quote.name} · last ${F.currencySymbol(currency)}${F.price(quote.last)}`),
      field('type', 'Order type', type),
      field('qty', 'Shares', qty, quote.market === 'cn' ? h('p.field-help', 'A-shares trade in lots of 100 shares; shares bought today can be sold from the next trading day.') : null),
      limitField, stopField, trailField,
      field('tif', 'Time in force', tif),
      estimate, available, review);

    function priceFor(t) {
      if (t === 'limit' || t === 'stop_limit') return limit.value.trim();
      if (t === 'stop') return stop.value.trim();
      return '';
    }

    function showFields() {
      const t = type.value;
      limitField.hidden = !(t === 'limit' || t === 'stop_limit');
      stopField.hidden = !(t === 'stop' || t === 'stop_limit');
      trailField.hidden = t !== 'trailing_stop';
    }

    async function fetchEstimate() {
      const q = qty.value.trim();
      const p = priceFor(type.value);
      const qd = D.parse(q);
      if (!qd || D.sign(qd) <= 0 || (p && !D.parse(p))) return null;
      return api.get(`/accounts/${api.enc(account.id)}/estimate` + api.query({ symbol, side, qty: q, price: p }));
    }

    const refresh = debounce(async () => {
      showFields();
      const sellable = held?.qty_available ?? '0';
      clear(available, side === 'buy'
        ? `Available cash: ${F.money(store.account()?.buying_power ?? account.buying_power, currency)}`
        : `Sellable shares: ${F.qty(sellable)}`);
      try {
        lastEstimate = await fetchEstimate();
      } catch { lastEstimate = null; }
      if (!lastEstimate) { clear(estimate, h('div', h('dt', 'Estimated total'), h('dd', '—'))); return; }
      const e = lastEstimate;
      clear(estimate,
        h('div', h('dt', `${F.qty(e.qty)} × ${F.price(e.price)}`), h('dd', F.money(e.value, currency))),
        e.fees.map((f) => h('div.fee', h('dt', F.feeName(f.kind)), h('dd', F.money(f.amount, currency)))),
        h('div', h('dt', 'Fees'), h('dd', F.money(e.fee_total, currency))),
        h('div.total', h('dt', side === 'buy' ? 'Estimated total' : 'Estimated proceeds'), h('dd', { dataset: { testid: 'estimate-total' } }, F.money(e.total, currency))));
      clear(available, side === 'buy' ? `Available cash: ${F.money(e.buying_power, currency)}` : `Sellable shares: ${F.qty(e.sellable)}`);
    }, 150);

    [qty, limit, stop, trail].forEach((i) => i.addEventListener('input', refresh));
    type.addEventListener('change', refresh);
    refresh();

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const problem = checkQuantity(qty.value.trim(), side);
      if (problem) { toast(problem, 'error'); qty.focus(); return; }
      const t = type.value;
      for (const [needed, input, label] of [[t === 'limit' || t === 'stop_limit', limit, 'limit price'], [t === 'stop' || t === 'stop_limit', stop, 'stop price'], [t === 'trailing_stop', trail, 'trail percent']]) {
        const v = D.parse(input.value.trim());
        if (needed && (!v || D.sign(v) <= 0)) { toast(`Please enter a valid ${label}`, 'error'); input.focus(); return; }
      }
      review.disabled = true;
      let e;
      try { e = await fetchEstimate(); } catch (error) { toast(error.message, 'error'); review.disabled = false; return; }
      review.disabled = false;
      if (side === 'buy' && D.cmp(D.parse(e.total), D.parse(e.buying_power)) > 0) { toast('Not enough money to buy', 'error'); return; }
      if (side === 'sell' && D.cmp(D.parse(e.qty), D.parse(e.sellable)) > 0) { toast('Not enough shares to sell', 'error'); return; }
      confirmStep(e);
    });

    function confirmStep(e) {
      const t = type.value;
      const typeName = TYPES.find(([v]) => v === t)[1];
      const verb = side === 'buy' ? 'Buy' : 'Sell';
      const body = { symbol, qty: qty.value.trim(), side, type: t, time_in_force: tif.value, client_order_id: crypto.randomUUID() };
      if (t === 'limit' || t === 'stop_limit') body.limit_price = limit.value.trim();
      if (t === 'stop' || t === 'stop_limit') body.stop_price = stop.value.trim();
      if (t === 'trailing_stop') body.trail_percent = trail.value.trim();
      const confirm = h('button.primary.wide', { type: 'button', autofocus: true }, `Confirm ${verb.toLowerCase()}`);
      const back = h('button.secondary.wide', { type: 'button' }, 'Back');
      const panel = h('div.confirm-step',
        h('h3', `${verb} ${F.shares(body.qty)} of ${symbol}`),
        h('dl.estimate',
          h('div', h('dt', 'Order type'), h('dd', typeName)),
          body.limit_price ? h('div', h('dt', 'Limit price'), h('dd', F.money(body.limit_price, currency, 2))) : null,
          body.stop_price ? h('div', h('dt', 'Stop price'), h('dd', F.money(body.stop_price, currency, 2))) : null,
          body.trail_percent ? h('div', h('dt', 'Trail'), h('dd', body.trail_percent + '%')) : null,
          h('div', h('dt', 'Fees'), h('dd', F.money(e.fee_total, currency))),
          h('div.total', h('dt', side === 'buy' ? 'Estimated total' : 'Estimated proceeds'), h('dd', F.money(e.total, currency)))),
        confirm, back);
      form.hidden = true;
      form.after(panel);
      confirm.focus();
      back.addEventListener('click', () => { panel.remove(); form.hidden = false; review.focus(); });
      confirm.addEventListener('click', async () => {
        confirm.disabled = true;
        back.disabled = true;
        try {
          store.noteOwnTrade(symbol);
          const order = await api.post(`/accounts/${api.enc(account.id)}/orders`, body);
          const past = side === 'buy' ? 'bought' : 'sold';
          if (order.status === 'filled') {
            toast(`You have successfully ${past} ${F.shares(order.filled_qty)} of ${symbol}`, 'success', { timeout: 5000 });
          } else {
            toast(`Your order to ${side} ${F.shares(order.qty)} of ${symbol} was placed (${order.status.replace('_', ' ')}).`, 'success', { timeout: 5000 });
          }
          close();
          onDone?.(order);
        } catch (error) {
          store.forgetOwnTrade(symbol);
          toast(error.message, 'error', { timeout: 6000 });
          panel.remove();
          form.hidden = false;
          qty.focus();
        }
      });
    }

    showFields();
    return form;
  }, { className: 'trade-sheet' });
}
