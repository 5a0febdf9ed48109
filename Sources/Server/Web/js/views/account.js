// Account: cash balance with hide toggle, deposit (card / bank / transfer, amount, note), withdraw, move money to
// another of the user's accounts (converted at the live rate between dollars and yuan, reviewed before it moves),
// transaction history with signed, dated amounts; open another paper account.
import * as api from '../api.js';
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import { h, clear, toast, failure, loading, empty, sheet, eyeToggle } from '../ui.js';

const KINDS = ['deposit', 'withdrawal', 'transfer', 'buy', 'sell', 'fee', 'crypto_fee', 'reset', 'interest', 'margin_call', 'borrow_fee', 'dividend',
  'forward_split', 'reverse_split', 'stock_dividend', 'option_exercise', 'option_assignment', 'option_expiry', 'option_delivery',
  'option_adjustment', 'option_cash_deliverable'];
const METHODS = ['card', 'bank', 'transfer'];
const methodName = (m) => (METHODS.includes(m) ? t(`account.method.${m}`) : m);

export async function render(view, params, scope) {
  const account = store.account();
  const balance = h('section.card.balance', { 'aria-label': t('account.cash_balance') }, loading());
  const history = h('section.card', { 'aria-labelledby': 'tx-title' }, loading());
  clear(view, h('header.page-head', h('h1', t('account.title')), h('button.secondary', { type: 'button', onclick: openAccountSheet }, t('account.new'))),
    account ? [balance, history] : empty(t('common.no_account')));
  if (!account) return;
  const currency = account.currency;
  const id = api.enc(account.id);
  let detail = null;

  function renderBalance() {
    const hidden = store.amountsHidden();
    clear(balance,
      h('div.card-head', h('h2', t('account.cash_balance')),
        eyeToggle(hidden, () => store.setAmountsHidden(!hidden))),
      h('p.net-worth', { dataset: { testid: 'account-cash' } }, hidden ? '••••••' : F.money(detail.cash, currency)),
      h('dl.figures',
        h('div', h('dt', t('account.buying_power')), h('dd', hidden ? '••••' : F.money(detail.buying_power, currency))),
        h('div', h('dt', t('account.net_worth')), h('dd', hidden ? '••••' : F.money(detail.equity, currency))),
        h('div', h('dt', t('account.account')), h('dd', `${detail.name} · ${detail.account_number}`))),
      currencies(hidden),
      // A game account takes no deposits or withdrawals (every player starts alike): say so instead of offering them.
      detail.in_game ? h('p.field-help', t('account.game_no_transfers')) : h('div.actions',
        h('button.primary', { type: 'button', onclick: () => transferSheet('deposit') }, t('account.deposit')),
        h('button.secondary', { type: 'button', onclick: () => transferSheet('withdraw') }, t('account.withdraw')),
        otherAccounts().length ? h('button.secondary', { type: 'button', onclick: moveSheet }, t('account.move')) : null));
  }

  /** Cash held in other currencies (bought on currency pairs): each amount, its worth here at the rate, and its
   * profit since it was bought. Nothing when the account holds only its own currency. */
  function currencies(hidden) {
    const held = (detail.balances ?? []).filter((b) => D.sign(D.parse(b.amount) ?? D.parse('0')) !== 0);
    if (!held.length) return null;
    return h('section.currency-balances', { 'aria-labelledby': 'currencies-title', dataset: { testid: 'currency-balances' } },
      h('h3#currencies-title', t('account.currencies')),
      h('ul.currency-list', held.map((b) => h('li', { dataset: { currency: b.currency } },
        h('a.currency-code', { href: `#/stock/${encodeURIComponent(b.pair)}` }, b.currency),
        h('span.currency-amount', hidden ? '••••' : F.currencyAmount(b.amount, b.currency)),
        h('span.currency-worth', hidden ? '' : t('account.currency_worth', { value: F.money(b.value, currency), rate: F.price(b.rate), currency })),
        h(`span.currency-pl.${F.direction(b.unrealized_pl)}`, hidden ? '' : F.signedMoney(b.unrealized_pl, currency))))));
  }

  /** The user's other accounts money may move to (not game accounts: every player starts alike). */
  function otherAccounts() {
    return store.state.accounts.filter((a) => a.id !== account.id && !a.in_game);
  }

  async function load() {
    try {
      const [d, tx] = await Promise.all([api.get(`/accounts/${id}`), api.get(`/accounts/${id}/transactions?limit=200`)]);
      detail = d;
      store.updateAccount(d);
      renderBalance();
      renderHistory(tx);
    } catch (error) {
      clear(balance, failure(error, load));
      clear(history);
    }
  }

  function describe(tx) {
    switch (tx.kind) {
      case 'deposit': case 'withdrawal': return [methodName(tx.method), tx.note].filter(Boolean).join(' · ');
      case 'transfer': {
        const other = store.state.accounts.find((a) => a.id === tx.counterparty_account);
        const name = other ? other.name : tx.counterparty_account.slice(0, 8);
        const otherAmount = F.money(tx.counterparty_amount, tx.counterparty_currency);
        const converted = tx.counterparty_currency !== currency;
        return t(`account.transfer.${tx.direction === 'out' ? 'out' : 'in'}${converted ? '_converted' : ''}`, {
          account: name, amount: otherAmount, rate: tx.rate,
        });
      }
      case 'buy': case 'sell': return t('account.trade', { shares: F.holdingQty(tx.symbol, tx.qty), symbol: F.instrumentLabel(tx.symbol), price: F.price(tx.price) });
      case 'fee': return t('account.fee', { fee: F.feeName(tx.fee), symbol: tx.symbol });
      case 'crypto_fee': return t(`account.crypto_fee.${tx.liquidity === 'maker' ? 'maker' : 'taker'}`, {
        rate: F.percent(tx.rate, { fraction: true }).replace('+', ''), symbol: tx.symbol,
        paid: tx.side === 'buy' ? `${F.holdingQty(tx.symbol, tx.qty)} (${F.money(tx.value, currency)})` : F.money(tx.value, currency),
      });
      case 'reset': return t('account.reset_to', { amount: F.money(tx.starting_cash, currency) });
      case 'margin_call': return t(`account.margin_call.${tx.event}`, { amount: F.money(tx.deficit, currency) });
      case 'interest': return t('account.interest', { rate: F.percent(tx.rate, { fraction: true }).replace('+', ''), amount: F.money(tx.balance, currency) });
      case 'borrow_fee': return t('account.borrow_fee', { shares: F.shares(tx.qty), symbol: tx.symbol, rate: F.percent(tx.rate, { fraction: true }).replace('+', '') });
      case 'dividend': return t(D.sign(D.parse(tx.qty_before)) < 0 ? 'account.dividend_short' : 'account.dividend', { shares: F.shares(tx.qty_before.replace('-', '')), symbol: tx.symbol, amount: F.money(tx.per_share, currency) });
      case 'forward_split': case 'reverse_split': case 'stock_dividend': return t('account.split', { symbol: tx.symbol, before: F.shares(tx.qty_before), after: F.shares(tx.qty_after) });
      case 'option_exercise': return t('account.option_exercise', { qty: F.qty(tx.qty.replace('-', '')), symbol: tx.symbol });
      case 'option_assignment': return t('account.option_assignment', { qty: F.qty(tx.qty.replace('-', '')), symbol: tx.symbol });
      case 'option_expiry': return t(D.sign(D.parse(tx.qty)) > 0 ? 'account.option_expiry_written' : 'account.option_expiry',
        { qty: F.qty(tx.qty.replace('-', '')), symbol: tx.symbol });
      case 'option_adjustment': return t(D.sign(D.parse(tx.qty)) < 0 ? 'account.option_adjustment.out' : 'account.option_adjustment.in',
        { qty: F.qty(tx.qty.replace('-', '')), symbol: tx.symbol });
      case 'option_cash_deliverable': return t('account.option_cash_deliverable',
        { qty: F.qty(tx.qty.replace('-', '')), symbol: tx.symbol });
      case 'option_delivery': return t(tx.side === 'buy' ? 'account.option_delivery.buy' : 'account.option_delivery.sell',
        { shares: F.shares(tx.qty), symbol: tx.symbol, price: F.price(tx.price), option: tx.option_symbol });
      default: return '';
    }
  }

  function renderHistory(tx) {
    clear(history, h('h2#tx-title', t('account.transactions')),
      tx.length === 0 ? empty(t('account.no_transactions'))
        : h('ul.rows.transactions', tx.map((x) => h('li.row', { dataset: { kind: x.kind } },
          h('span.row-main', h('span.sym', KINDS.includes(x.kind) ? t(`account.kind.${x.kind}`) : x.kind,
            x.automatic ? h('span.tag', { title: t('orders.auto_title') }, t('orders.auto')) : null), h('span.sub', describe(x))),
          h('span.row-end',
            h(`span.amount.${F.direction(x.amount)}`, F.signedMoney(x.amount, currency)),
            h('span.sub', F.dateTime(x.time)))))));
  }

  function transferSheet(kind) {
    const deposit = kind === 'deposit';
    sheet(t(deposit ? 'account.deposit' : 'account.withdraw'), (close) => {
      const method = h('select#transfer-method', { name: 'method' }, METHODS.map((v) => h('option', { value: v, selected: v === 'bank' }, methodName(v))));
      const amount = h('input#transfer-amount', { name: 'amount', inputMode: 'decimal', autocomplete: 'off', placeholder: '0.00', autofocus: true });
      const note = h('input#transfer-note', { name: 'note', maxLength: 200, autocomplete: 'off' });
      const submit = h('button.primary.wide', { type: 'submit' }, t(deposit ? 'account.deposit' : 'account.withdraw'));
      const form = h('form.transfer-form', { novalidate: true },
        h('div.field', h('label', { for: 'transfer-method' }, t(deposit ? 'account.type' : 'account.to')), method),
        h('div.field', h('label', { for: 'transfer-amount' }, t('account.amount', { currency })), amount),
        h('div.field', h('label', { for: 'transfer-note' }, t('account.note')), note),
        deposit ? null : h('p.field-help', t('account.available', { amount: F.money(detail.buying_power, currency) })),
        submit);
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const value = D.parse(amount.value.trim());
        if (!value || D.sign(value) <= 0 || value.s > 2) { toast(t('trade.invalid_amount'), 'error'); amount.focus(); return; }
        submit.disabled = true;
        try {
          const result = await api.post(`/accounts/${id}/${deposit ? 'deposit' : 'withdraw'}`,
            { amount: amount.value.trim(), method: method.value, note: note.value.trim() || undefined });
          toast(t(deposit ? 'account.deposited' : 'account.withdrew', { amount: F.money(result.transaction.amount.replace('-', ''), currency) }), 'success');
          close();
          load();
        } catch (error) {
          toast(error.message, 'error');
          submit.disabled = false;
        }
      });
      return form;
    });
  }

  // Move money: choose the account and the amount (in either account's currency), review what leaves and arrives —
  // the rate, the mid rate, the spread's cost and the fee — then confirm. Nothing moves before the confirmation.
  function moveSheet() {
    sheet(t('account.move'), (close) => {
      const others = otherAccounts();
      const target = h('select#move-to', { name: 'to' }, others.map((a) => h('option', { value: a.id }, `${a.name} (${a.currency})`)));
      const unit = h('select#move-currency', { name: 'currency' });
      const amount = h('input#move-amount', { name: 'amount', inputMode: 'decimal', autocomplete: 'off', placeholder: '0.00', autofocus: true });
      const review = h('div.move-review', { 'aria-live': 'polite', dataset: { testid: 'move-review' } });
      const submit = h('button.primary.wide', { type: 'submit' }, t('account.move_review'));
      let quoted = null;
      function currencies() {
        const to = others.find((a) => a.id === target.value);
        const codes = [...new Set([currency, to?.currency].filter(Boolean))];
        clear(unit, codes.map((c) => h('option', { value: c }, c)));
        unit.closest('.field')?.toggleAttribute('hidden', codes.length < 2);
        reset();
      }
      function reset() { quoted = null; clear(review); submit.textContent = t('account.move_review'); }
      const form = h('form.transfer-form', { novalidate: true },
        h('div.field', h('label', { for: 'move-to' }, t('account.move_to')), target),
        h('div.field', h('label', { for: 'move-amount' }, t('account.move_amount')), amount),
        h('div.field', h('label', { for: 'move-currency' }, t('account.move_currency')), unit),
        h('p.field-help', t('account.available', { amount: F.money(detail.buying_power, currency) })),
        review, submit);
      target.addEventListener('change', currencies);
      unit.addEventListener('change', reset);
      amount.addEventListener('input', reset);
      currencies();
      function showQuote(q) {
        const rows = [
          [t('account.move_leaves'), F.money(q.from_amount, q.from_currency)],
          [t('account.move_arrives'), F.money(q.to_amount, q.to_currency)],
        ];
        if (q.pair) {
          rows.push([t('account.move_rate'), t('account.move_rate_value', { rate: q.rate, to: q.to_currency, from: q.from_currency })]);
          rows.push([t('account.move_mid'), q.mid_rate]);
          rows.push([t('account.move_spread'), F.money(q.spread_cost, q.from_currency)]);
          rows.push([t('account.move_fee'), F.money(q.fee, q.from_currency)]);
        }
        clear(review, h('dl.figures', rows.map(([k, v]) => h('div', h('dt', k), h('dd', v)))),
          q.odd_lot ? h('p.field-help', t('account.move_odd_lot')) : null);
      }
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const value = D.parse(amount.value.trim());
        if (!value || D.sign(value) <= 0 || value.s > 2) { toast(t('trade.invalid_amount'), 'error'); amount.focus(); return; }
        const body = { from_account: account.id, to_account: target.value, amount: amount.value.trim(), currency: unit.value };
        submit.disabled = true;
        try {
          if (!quoted) {
            quoted = await api.post('/transfers/quote', body);
            showQuote(quoted);
            submit.textContent = t('account.move_confirm');
          } else {
            const done = await api.post('/transfers', body);
            toast(t(done.status === 'completed' ? 'account.moved' : 'account.move_pending', {
              amount: F.money(done.from_amount, done.from_currency), account: done.to_name,
            }), 'success');
            close();
            load();
            api.get(`/accounts/${api.enc(done.to_account)}`).then((a) => store.updateAccount(a)).catch(() => {});
          }
        } catch (error) {
          toast(error.message, 'error');
          reset();
        }
        submit.disabled = false;
      });
      return form;
    });
  }

  function openAccountSheet() {
    sheet(t('account.new_title'), (close) => {
      const market = h('select#new-market', h('option', { value: 'us' }, t('account.market.us')), h('option', { value: 'cn' }, t('account.market.cn')));
      const cash = h('input#new-cash', { inputMode: 'decimal', placeholder: '100000', autocomplete: 'off' });
      const name = h('input#new-name', { maxLength: 64, autocomplete: 'off' });
      // US accounts are margin accounts unless the learner wants a cash account; A-share accounts are cash only.
      const type = h('select#new-type', h('option', { value: 'margin' }, t('account.type.margin')), h('option', { value: 'cash' }, t('account.type.cash')));
      const typeField = h('div.field', h('label', { for: 'new-type' }, t('account.account_type')), type);
      market.addEventListener('change', () => { typeField.hidden = market.value !== 'us'; });
      const form = h('form', { novalidate: true },
        h('div.field', h('label', { for: 'new-market' }, t('account.market')), market),
        typeField,
        h('div.field', h('label', { for: 'new-cash' }, t('account.starting_cash')), cash),
        h('div.field', h('label', { for: 'new-name' }, t('account.name')), name),
        h('button.primary.wide', { type: 'submit' }, t('account.open')));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const c = cash.value.trim();
        if (c && (!D.parse(c) || D.sign(D.parse(c)) <= 0)) { toast(t('trade.invalid_amount'), 'error'); return; }
        try {
          const created = await api.post('/accounts', {
            market: market.value, type: market.value === 'us' ? type.value : 'cash',
            cash: c || undefined, name: name.value.trim() || undefined,
          });
          store.updateAccount(created);
          close();
          toast(t('account.opened', { name: created.name }), 'success');
          store.selectAccount(created.id);
        } catch (error) { toast(error.message, 'error'); }
      });
      return form;
    });
  }

  const off = store.onChange((what) => { if (what === 'hide' && detail) renderBalance(); });
  scope.onCleanup(off);
  await load();
}
