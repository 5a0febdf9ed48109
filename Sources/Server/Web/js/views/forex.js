// The currency sheet: buy or sell a currency pair from the dollar account — an amount of the pair's base currency,
// market or limit, day, good till canceled or immediate — with what it pays and receives (each in its own currency)
// and the rate reviewed before it goes. No commission: the spread is the price. Server refusals (a currency not held,
// the forex week closed) are shown as they are said.
import * as api from '../api.js';
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import { statusText } from './orders.js';
import { showConfirmStep } from './trade.js';
import { h, clear, sheet, toast, debounce } from '../ui.js';

export function openForexSheet({ symbol, side: initialSide, quote, onDone }) {
  const [base, quoteCurrency] = symbol.split('.');
  const account = store.account();
  if (!account) { toast(t('trade.open_account_first'), 'error'); return; }
  if (account.currency !== base && account.currency !== quoteCurrency) {
    // Pairs trade in the dollar account: offer it (the page reloads in it).
    const other = store.state.accounts.find((a) => a.currency === base || a.currency === quoteCurrency);
    toast(t('forex.dollar_account', { symbol }), 'error',
      other ? { timeout: 8000, action: { label: t('trade.switch_to', { name: other.name }), run: () => store.selectAccount(other.id) } } : {});
    return;
  }
  let side = initialSide;
  const amountText = (e, which) => F.currencyAmount(e[which].amount, e[which].currency);

  sheet(t(`trade.title.${initialSide}`, { symbol }), (close) => {
    const sideGroup = h('div.segmented.side', { role: 'group', 'aria-label': t('trade.side') },
      ['buy', 'sell'].map((s) => h(`button.${s}`, { type: 'button', 'aria-pressed': String(s === side), dataset: { side: s },
        onclick: () => { side = s; sideGroup.querySelectorAll('button').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.side === s))); refresh(); } },
      t(`trade.${s}`))));
    const type = h('select#order-type', { name: 'type', 'aria-describedby': 'order-type-help' }, ['market', 'limit'].map((v) => h('option', { value: v }, t(`trade.type.${v}`))));
    const typeHelp = h('p.field-help#order-type-help');
    const qty = h('input#qty', { name: 'qty', inputMode: 'decimal', autocomplete: 'off', placeholder: '1000', autofocus: true });
    const limit = h('input#limit-price', { name: 'limit_price', inputMode: 'decimal', autocomplete: 'off', placeholder: quote.last });
    const tif = h('select#tif', { name: 'time_in_force' }, ['gtc', 'day', 'ioc'].map((v) => h('option', { value: v }, t(`trade.tif.${v}`))));
    const field = (id, label, input, extra) => h('div.field', { dataset: { field: id } }, h('label', { for: input.id }, label), input, extra);
    const limitField = field('limit', t('trade.limit_price'), limit);
    const estimate = h('dl.estimate', { 'aria-live': 'polite', dataset: { testid: 'forex-estimate' } });
    const available = h('p.available');
    const refusal = h('p.form-error.refusal', { role: 'alert', dataset: { testid: 'refusal' } });
    const review = h('button.primary.wide', { type: 'submit' }, t('trade.review'));
    const form = h('form.trade-form', { novalidate: true },
      sideGroup,
      h('p.sub', t('forex.rate_now', { symbol, price: quote.last, quote: quoteCurrency, base })),
      field('type', t('trade.order_type'), type, typeHelp),
      field('qty', t('forex.amount', { currency: base }), qty, h('p.field-help', t('forex.help', { symbol, base, quote: quoteCurrency }))),
      limitField, field('tif', t('trade.tif'), tif), estimate, available, refusal, review);

    function showFields() {
      limitField.hidden = type.value !== 'limit';
      typeHelp.textContent = t(`trade.type_help.${type.value}`);
    }

    async function fetchEstimate() {
      const q = qty.value.trim();
      const p = type.value === 'limit' ? limit.value.trim() : '';
      const qd = D.parse(q);
      if (!qd || D.sign(qd) <= 0 || (p && !D.parse(p))) return null;
      return api.get(`/accounts/${api.enc(account.id)}/estimate` + api.query({ symbol, side, qty: q, price: p, type: type.value }));
    }

    let last = null;
    const refresh = debounce(async () => {
      showFields();
      try { last = await fetchEstimate(); } catch { last = null; }
      if (!last) { clear(estimate, h('div', h('dt', t('forex.pay')), h('dd', '—'))); refusal.textContent = ''; clear(available); return; }
      const e = last;
      refusal.textContent = e.refusal ?? '';
      clear(estimate,
        h('div', h('dt', t('forex.pay')), h('dd', { dataset: { testid: 'forex-pay' } }, amountText(e, 'pays'))),
        h('div', h('dt', t('forex.receive')), h('dd', { dataset: { testid: 'forex-receive' } }, amountText(e, 'receives'))),
        h('div', h('dt', t('forex.rate')), h('dd', `${e.price} ${quoteCurrency}/${base}`)),
        h('div', h('dt', t('trade.fees')), h('dd', t('forex.no_fee'))));
      clear(available, t('forex.available', { amount: amountText(e, 'available') }));
    }, 150);

    [qty, limit].forEach((i) => i.addEventListener('input', refresh));
    type.addEventListener('change', refresh);
    refresh();

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const q = D.parse(qty.value.trim());
      if (!q || D.sign(q) <= 0) { toast(t('forex.non_positive', { currency: base }), 'error'); qty.focus(); return; }
      if (type.value === 'limit' && !(D.parse(limit.value.trim()) && D.sign(D.parse(limit.value.trim())) > 0)) {
        toast(t('trade.need.limit_price'), 'error'); limit.focus(); return;
      }
      review.disabled = true;
      let e;
      try { e = await fetchEstimate(); } catch (error) { toast(error.message, 'error'); review.disabled = false; return; }
      review.disabled = false;
      if (e?.refusal) { refusal.textContent = e.refusal; toast(e.refusal, 'error'); qty.focus(); return; }
      confirmStep(e);
    });

    function confirmStep(e) {
      const body = { symbol, side, type: type.value, qty: qty.value.trim(), time_in_force: tif.value, client_order_id: crypto.randomUUID() };
      if (type.value === 'limit') body.limit_price = limit.value.trim();
      showConfirmStep({ account, symbol, side, body, form, review, focus: qty, close, onDone,
        summary: h('h3', t('forex.summary', { pay: amountText(e, 'pays'), receive: amountText(e, 'receives') })),
        details: [
          h('div', h('dt', t('trade.order_type')), h('dd', t(`trade.type.${body.type}`))),
          body.limit_price ? h('div', h('dt', t('trade.limit_price')), h('dd', `${body.limit_price} ${quoteCurrency}/${base}`)) : null,
          h('div', h('dt', t('trade.tif')), h('dd', t(`trade.tif.${body.time_in_force}`))),
          h('div', h('dt', t('forex.rate')), h('dd', `${e.price} ${quoteCurrency}/${base}`))],
        said: (order) => {
          const amount = F.currencyAmount(D.sign(D.parse(order.filled_qty ?? '0')) > 0 ? order.filled_qty : order.qty, base);
          return order.status === 'filled'
            ? t(`forex.done.${side}`, { amount, price: order.filled_avg_price })
            : t(`trade.placed.${side}`, { shares: amount, symbol, status: statusText(order.status) });
        } });
    }

    showFields();
    return form;
  }, { className: 'trade-sheet' });
}
