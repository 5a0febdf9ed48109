// The trade sheet: order type, quantity (numeric keyboard), live estimate with fees, available cash or sellable
// shares, a confirmation step, and clear messages. Bad input is a toast and the sheet stays open; server
// rejections (lot size, T+1, price limits, market closed) are shown verbatim. A crypto pair (`steps` given) trades
// around the clock: a quantity of the coin or an amount of money, market, limit or stop-limit orders good until
// canceled or immediate-or-cancel, and its fee (in what the trade receives) in the estimate. A pair priced in another
// coin (`steps.quote_coin`: BTC/USDT) is ordered by quantity only, and everything is said in coins: the quote coin paid
// or received, the fee in the coin received, what the coin it pays with holds free.
import * as api from '../api.js';
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import { statusText } from './orders.js';
import { h, clear, sheet, toast, debounce, segmented } from '../ui.js';

const TYPES = ['market', 'limit', 'stop', 'stop_limit', 'trailing_stop'];
const COIN_TYPES = ['market', 'limit', 'stop_limit'];

/** Client-side checks, in the order a user would hit them; null when the quantity is fine. */
export function checkQuantity(text, side) {
  const qty = D.parse(text);
  if (!qty) return t('trade.invalid_amount');
  if (D.sign(qty) <= 0) return t(`trade.non_positive.${side}`);
  return null;
}

/** A sheet's confirm step, shown in place of its form: `summary` (a heading) and `details` (rows), then Confirm —
 * which places `body` (the sheet closes and a toast says what happened, `said`) — and Back to the form. A refusal
 * brings the form back with the server's words, focus on `focus`. */
export function showConfirmStep({ account, symbol, side, body, form, review, focus, close, onDone, summary, details, said }) {
  const confirm = h('button.primary.wide', { type: 'button', autofocus: true }, t(`trade.confirm.${side}`));
  const back = h('button.secondary.wide', { type: 'button' }, t('trade.back'));
  const panel = h('div.confirm-step', summary, h('dl.estimate', details), confirm, back);
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
      toast(said(order), 'success', { timeout: 5000 });
      close();
      onDone?.(order);
    } catch (error) {
      store.forgetOwnTrade(symbol);
      toast(error.message, 'error', { timeout: 6000 });
      panel.remove();
      form.hidden = false;
      focus.focus();
    }
  });
}

export function openTradeSheet({ symbol, side: initialSide, quote, held, steps = null, onDone }) {
  const account = store.account();
  if (!account) { toast(t('trade.open_account_first'), 'error'); return; }
  if (account.market !== quote.market) {
    // Not a dead end: offer the user's account that trades this market (the page reloads in it; Buy works there).
    const other = store.state.accounts.find((a) => a.market === quote.market);
    toast(t(quote.market === 'cn' ? 'trade.other_market.cn' : 'trade.other_market.us', { symbol, currency: quote.currency }), 'error',
      other ? { timeout: 8000, action: { label: t('trade.switch_to', { name: other.name }), run: () => store.selectAccount(other.id) } } : {});
    return;
  }
  let side = initialSide;
  let lastEstimate = null;
  const currency = account.currency;
  const coin = steps?.coin ?? null;
  const quoteCoin = steps?.quote_coin ?? null;
  const inQuote = (x) => `${F.coins(x)} ${quoteCoin}`;
  // A coin is bought by quantity or by an amount of money (a market order); a coin pair by quantity.
  let byAmount = false;
  const amountOf = (text) => (coin ? F.holdingQty(symbol, text) : F.shares(text));

  sheet(t(`trade.title.${initialSide}`, { symbol }), (close) => {
    const sideGroup = h('div.segmented.side', { role: 'group', 'aria-label': t('trade.side') },
      ['buy', 'sell'].map((s) => h(`button.${s}`, { type: 'button', 'aria-pressed': String(s === side), dataset: { side: s },
        onclick: () => { side = s; sideGroup.querySelectorAll('button').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.side === s))); refresh(); } },
      t(`trade.${s}`))));
    const type = h('select#order-type', { name: 'type', 'aria-describedby': 'order-type-help' }, (coin ? COIN_TYPES : TYPES).map((v) => h('option', { value: v }, t(`trade.type.${v}`))));
    // What the chosen order type does, in one sentence (a learner meets "stop" and "trailing stop" here first).
    const typeHelp = h('p.field-help#order-type-help');
    const qty = h('input#qty', { name: 'qty', inputMode: quote.market === 'cn' ? 'numeric' : 'decimal', autocomplete: 'off', placeholder: quote.market === 'cn' ? '100' : '1', autofocus: true });
    const limit = h('input#limit-price', { name: 'limit_price', inputMode: 'decimal', autocomplete: 'off', placeholder: F.price(quote.last) });
    const stop = h('input#stop-price', { name: 'stop_price', inputMode: 'decimal', autocomplete: 'off', placeholder: F.price(quote.last) });
    const trail = h('input#trail-percent', { name: 'trail_percent', inputMode: 'decimal', autocomplete: 'off', placeholder: '2' });
    const tif = h('select#tif', { name: 'time_in_force' }, (coin ? ['gtc', 'ioc'] : ['day', 'gtc']).map((v) => h('option', { value: v }, t(`trade.tif.${v}`))));
    const qtyLabel = h('label', { for: 'qty' });
    // A coin's quantity or money: the segmented switch, and all of a holding at once (a fee left it off the steps).
    const unitGroup = coin && !quoteCoin ? segmented(t('trade.unit'), [['qty', coin], ['amount', currency]], 'qty', (unit) => {
      byAmount = unit === 'amount';
      if (byAmount) type.value = 'market';
      refresh();
    }) : null;
    const allButton = coin ? h('button.link.all', { type: 'button', onclick: () => {
      unitGroup.querySelector('[data-value="qty"]')?.click();
      qty.value = held?.qty_available ?? '0';
      refresh();
    } }, t('trade.all')) : null;
    const field = (id, label, input, extra) => h('div.field', { dataset: { field: id } }, h('label', { for: input.id }, label), input, extra);
    const limitField = field('limit', t('trade.limit_price'), limit);
    const stopField = field('stop', t('trade.stop_price'), stop);
    const trailField = field('trail', t('trade.trail_percent'), trail);
    const estimate = h('dl.estimate', { 'aria-live': 'polite' });
    const available = h('p.available');
    // Said while typing: why the order would be refused now (lots, ticks, price limits, cash, T+1, hours), and the
    // most that can be bought or sold; the sheet never reaches "confirm" with an order the server will refuse.
    const refusal = h('p.form-error.refusal', { role: 'alert', dataset: { testid: 'refusal' } });
    const review = h('button.primary.wide', { type: 'submit' }, t('trade.review'));
    // A class's trade journal: why the student trades, kept on the order (required where the class says so).
    const note = account.in_game ? h('textarea#order-note', { name: 'note', rows: 2, maxLength: 2000, 'aria-describedby': 'order-note-help', required: account.journal_required || undefined }) : null;
    const noteField = note ? h('div.field', { dataset: { field: 'note' } },
      h('label', { for: 'order-note' }, t(account.journal_required ? 'trade.note_required' : 'trade.note')), note,
      h('p.field-help#order-note-help', t('trade.note_help'))) : null;
    const form = h('form.trade-form', { novalidate: true },
      sideGroup,
      h('p.sub', t('trade.last', { name: F.displayName(quote), price: quoteCoin ? `${F.price(quote.last)} ${quoteCoin}` : F.currencySymbol(currency) + F.price(quote.last) })),
      quoteCoin ? h('p.field-help', { dataset: { testid: 'coin-pair-help' } }, t('trade.coin_pair_help', { symbol, quote: quoteCoin, base: coin })) : null,
      field('type', t('trade.order_type'), type, typeHelp),
      unitGroup,
      h('div.field', { dataset: { field: 'qty' } }, qtyLabel, qty, allButton,
        coin ? h('p.field-help', t('trade.crypto_help', { min: F.holdingQty(symbol, steps.min_order_size), step: F.coins(steps.min_trade_increment) }))
          : quote.market === 'cn' ? h('p.field-help', t('trade.cn_help')) : null),
      limitField, stopField, trailField,
      field('tif', t('trade.tif'), tif), noteField,
      estimate, available, refusal, review);

    function priceFor(kind) {
      if (kind === 'limit' || kind === 'stop_limit') return limit.value.trim();
      if (kind === 'stop') return stop.value.trim();
      return '';
    }

    function showFields() {
      const kind = type.value;
      limitField.hidden = !(kind === 'limit' || kind === 'stop_limit');
      stopField.hidden = !(kind === 'stop' || kind === 'stop_limit');
      trailField.hidden = kind !== 'trailing_stop';
      typeHelp.textContent = t(byAmount ? 'trade.type_help.amount' : `trade.type_help.${kind}`);
      // An amount of money buys at the market only.
      type.disabled = byAmount;
      qtyLabel.textContent = coin ? (byAmount ? t('trade.amount', { currency }) : t('trade.quantity_coin', { coin })) : t('trade.shares');
      qty.placeholder = coin ? (byAmount ? '50' : steps.min_order_size) : quote.market === 'cn' ? '100' : '1';
      if (allButton) allButton.hidden = side !== 'sell' || !held || D.sign(D.parse(held.qty_available ?? '0')) <= 0;
    }

    /** Cash to buy with; on a margin account, said to include what margin lends (it is more than the cash). */
    function buyingPower(amount) {
      const a = store.account() ?? account;
      const cash = a?.cash;
      const margin = cash != null && D.cmp(D.parse(amount), D.parse(cash)) > 0;
      // Less than the cash: the rest is held for open orders (the home screen's cash balance counts it).
      const held = cash != null && D.cmp(D.parse(amount), D.parse(cash)) < 0 ? D.sub(D.parse(cash), D.parse(amount)) : null;
      if (margin) return t('trade.buying_power_margin', { amount: F.money(amount, currency), cash: F.money(cash, currency) });
      return held
        ? t('trade.available_held', { amount: F.money(amount, currency), cash: F.money(cash, currency), held: F.money(D.format(held, null, false), currency) })
        : t('trade.available_cash', { amount: F.money(amount, currency) });
    }

    async function fetchEstimate() {
      const q = qty.value.trim();
      const p = priceFor(type.value);
      const qd = D.parse(q);
      if (!qd || D.sign(qd) <= 0 || (p && !D.parse(p))) return null;
      const amount = byAmount ? { notional: q } : { qty: q };
      return api.get(`/accounts/${api.enc(account.id)}/estimate` + api.query({ symbol, side, ...amount, price: p, type: type.value }));
    }

    const refresh = debounce(async () => {
      showFields();
      const sellable = held?.qty_available ?? '0';
      clear(available, side === 'buy'
        ? buyingPower(store.account()?.buying_power ?? account.buying_power)
        : t('trade.sellable', { qty: coin ? F.holdingQty(symbol, sellable) : F.qty(sellable) }));
      try {
        lastEstimate = await fetchEstimate();
      } catch { lastEstimate = null; }
      if (!lastEstimate) { clear(estimate, h('div', h('dt', t('trade.estimated_total')), h('dd', '—'))); refusal.textContent = ''; return; }
      const e = lastEstimate;
      if (quoteCoin) return showCoinEstimate(e);
      refusal.textContent = e.refusal
        ? e.refusal + (e.most != null && D.sign(D.parse(e.most)) > 0 && D.cmp(D.parse(e.qty), D.parse(e.most)) > 0
          ? ' ' + t(side === 'buy' ? 'trade.most_buy' : 'trade.most_sell', { shares: amountOf(e.most) }) : '')
        : '';
      // A coin's fee is taken in what the trade receives: coins out of a purchase, money out of a sale.
      const feeRow = (f) => (f.kind === 'crypto_fee'
        ? h('div.fee', h('dt', t(`trade.crypto_fee.${f.liquidity === 'maker' ? 'maker' : 'taker'}`, { rate: F.percent(f.rate, { fraction: true }).replace('+', '') })),
          h('dd', { dataset: { testid: 'crypto-fee' } }, side === 'buy' ? `${F.holdingQty(symbol, f.qty)} (≈ ${F.money(f.amount, currency)})` : F.money(f.amount, currency)))
        : h('div.fee', h('dt', F.feeName(f.kind)), h('dd', F.money(f.amount, currency))));
      clear(estimate,
        h('div', h('dt', `${coin ? F.holdingQty(symbol, e.qty) : F.qty(e.qty)} × ${F.price(e.price)}`), h('dd', F.money(e.value, currency))),
        e.fees.map(feeRow),
        coin ? null : h('div', h('dt', t('trade.fees')), h('dd', F.money(e.fee_total, currency))),
        coin ? h('div', h('dt', t('trade.receive')), h('dd', { dataset: { testid: 'receive' } }, side === 'buy' ? F.holdingQty(symbol, e.receive) : F.money(e.receive, currency))) : null,
        h('div.total', h('dt', t(side === 'buy' ? 'trade.estimated_total' : 'trade.estimated_proceeds')), h('dd', { dataset: { testid: 'estimate-total' } }, F.money(e.total, currency))));
      clear(available, side === 'buy' || e.short_sale
        ? (e.short_sale ? t('trade.short_available', { amount: F.money(e.buying_power, currency) }) : buyingPower(e.buying_power))
        : t('trade.sellable', { qty: coin ? F.holdingQty(symbol, e.sellable) : F.qty(e.sellable) }));
    }, 150);

    /** A coin pair's estimate: the coins paid and received, the fee in the coin received, what is free to pay with. */
    function showCoinEstimate(e) {
      refusal.textContent = e.refusal
        ? e.refusal + (D.sign(D.parse(e.most)) > 0 && D.cmp(D.parse(e.qty), D.parse(e.most)) > 0
          ? ' ' + t(side === 'buy' ? 'trade.most_buy' : 'trade.most_sell', { shares: amountOf(e.most) }) : '')
        : '';
      const [fee] = e.fees;
      clear(estimate,
        h('div', h('dt', `${amountOf(e.qty)} × ${F.price(e.price)}`), h('dd', inQuote(e.value))),
        fee ? h('div.fee', h('dt', t(`trade.crypto_fee.${fee.liquidity === 'maker' ? 'maker' : 'taker'}`, { rate: F.percent(fee.rate, { fraction: true }).replace('+', '') })),
          h('dd', { dataset: { testid: 'crypto-fee' } }, `${F.coins(fee.qty)} ${fee.coin}`)) : null,
        h('div', h('dt', t('trade.receive')), h('dd', { dataset: { testid: 'receive' } }, `${F.coins(e.receives.amount)} ${e.receives.coin}`)),
        h('div.total', h('dt', t('trade.you_pay')), h('dd', { dataset: { testid: 'estimate-total' } }, `${F.coins(e.pays.amount)} ${e.pays.coin}`)));
      clear(available, t('trade.coin_available', { coin: e.available.coin, amount: `${F.coins(e.available.amount)} ${e.available.coin}` }));
    }

    [qty, limit, stop, trail].forEach((i) => i.addEventListener('input', refresh));
    type.addEventListener('change', refresh);
    refresh();

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const problem = checkQuantity(qty.value.trim(), side);
      if (problem) { toast(problem, 'error'); qty.focus(); return; }
      const kind = type.value;
      for (const [needed, input, name] of [[kind === 'limit' || kind === 'stop_limit', limit, 'limit_price'], [kind === 'stop' || kind === 'stop_limit', stop, 'stop_price'], [kind === 'trailing_stop', trail, 'trail_percent']]) {
        const v = D.parse(input.value.trim());
        if (needed && (!v || D.sign(v) <= 0)) { toast(t(`trade.need.${name}`), 'error'); input.focus(); return; }
      }
      if (account.journal_required && !note?.value.trim()) { toast(t('trade.need.note'), 'error'); note?.focus(); return; }
      review.disabled = true;
      let e;
      try { e = await fetchEstimate(); } catch (error) { toast(error.message, 'error'); review.disabled = false; return; }
      review.disabled = false;
      // A coin pair's balance, steps and prices are the server's to check: its refusal says which.
      if (quoteCoin) {
        if (e?.refusal) { refusal.textContent = e.refusal; toast(e.refusal, 'error'); qty.focus(); return; }
        return confirmStep(e);
      }
      if (side === 'buy' && D.cmp(D.parse(e.total), D.parse(e.buying_power)) > 0) { toast(t('trade.not_enough_money'), 'error'); return; }
      // A sale with no long position on a margin account is a short sale: it spends buying power, not shares.
      if (side === 'sell' && e.short_sale && D.cmp(D.parse(e.value), D.parse(e.buying_power)) > 0) { toast(t('trade.not_enough_power_short'), 'error'); return; }
      if (side === 'sell' && !e.short_sale && D.cmp(D.parse(e.qty), D.parse(e.sellable)) > 0) { toast(t('trade.not_enough_shares'), 'error'); return; }
      // Anything else the server would refuse (lots, ticks, price limits, T+1, hours, a game's rules): said here, and
      // the order never reaches the confirm step.
      if (e?.refusal) { refusal.textContent = e.refusal; toast(e.refusal, 'error'); qty.focus(); return; }
      confirmStep(e);
    });

    function confirmStep(e) {
      const kind = type.value;
      const body = { symbol, side, type: kind, time_in_force: tif.value, client_order_id: crypto.randomUUID() };
      if (byAmount) body.notional = qty.value.trim(); else body.qty = qty.value.trim();
      const what = byAmount ? F.money(body.notional, currency) : amountOf(body.qty);
      if (kind === 'limit' || kind === 'stop_limit') body.limit_price = limit.value.trim();
      if (kind === 'stop' || kind === 'stop_limit') body.stop_price = stop.value.trim();
      if (kind === 'trailing_stop') body.trail_percent = trail.value.trim();
      if (note?.value.trim()) body.note = note.value.trim();
      if (quoteCoin) {
        const [fee] = e.fees;
        return showConfirmStep({ account, symbol, side, body, form, review, focus: qty, close, onDone,
          summary: h('h3', t(`trade.summary.${side}`, { shares: what, symbol })),
          details: [
            h('div', h('dt', t('trade.order_type')), h('dd', t(`trade.type.${kind}`))),
            body.limit_price ? h('div', h('dt', t('trade.limit_price')), h('dd', inQuote(body.limit_price))) : null,
            body.stop_price ? h('div', h('dt', t('trade.stop_price')), h('dd', inQuote(body.stop_price))) : null,
            fee ? h('div', h('dt', t('trade.fees')), h('dd', `${F.coins(fee.qty)} ${fee.coin}`)) : null,
            body.note ? h('div.note', h('dt', t('trade.note')), h('dd', body.note)) : null,
            h('div', h('dt', t('trade.receive')), h('dd', `${F.coins(e.receives.amount)} ${e.receives.coin}`)),
            h('div.total', h('dt', t('trade.you_pay')), h('dd', `${F.coins(e.pays.amount)} ${e.pays.coin}`))],
          said: (order) => (order.status === 'filled'
            ? t(`trade.done.${side}`, { shares: amountOf(order.filled_qty), symbol })
            : t(`trade.placed.${side}`, { shares: amountOf(order.qty), symbol, status: statusText(order.status) })) });
      }
      showConfirmStep({ account, symbol, side, body, form, review, focus: qty, close, onDone,
        summary: h('h3', t(e.short_sale ? 'trade.summary.short' : `trade.summary.${side}`, { shares: what, symbol })),
        details: [
          h('div', h('dt', t('trade.order_type')), h('dd', t(`trade.type.${kind}`))),
          body.limit_price ? h('div', h('dt', t('trade.limit_price')), h('dd', F.money(body.limit_price, currency, 2))) : null,
          body.stop_price ? h('div', h('dt', t('trade.stop_price')), h('dd', F.money(body.stop_price, currency, 2))) : null,
          body.trail_percent ? h('div', h('dt', t('trade.trail')), h('dd', body.trail_percent + '%')) : null,
          h('div', h('dt', t('trade.fees')), h('dd', F.money(e.fee_total, currency))),
          body.note ? h('div.note', h('dt', t('trade.note')), h('dd', body.note)) : null,
          coin ? h('div', h('dt', t('trade.receive')), h('dd', side === 'buy' ? F.holdingQty(symbol, e.receive) : F.money(e.receive, currency))) : null,
          h('div.total', h('dt', t(side === 'buy' ? 'trade.estimated_total' : 'trade.estimated_proceeds')), h('dd', F.money(e.total, currency)))],
        said: (order) => (order.status === 'filled'
          ? t(`trade.done.${side}`, { shares: amountOf(order.filled_qty), symbol })
          : t(`trade.placed.${side}`, { shares: order.qty ? amountOf(order.qty) : F.money(order.notional, currency), symbol, status: statusText(order.status) })) });
    }

    showFields();
    return form;
  }, { className: 'trade-sheet' });
}
