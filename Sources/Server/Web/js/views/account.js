// Account: cash balance with hide toggle, deposit (card / bank / transfer, amount, note), withdraw, transaction
// history with signed, dated amounts; open another paper account.
import * as api from '../api.js';
import * as D from '../decimal.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { h, clear, toast, failure, loading, empty, sheet, eyeToggle } from '../ui.js';

const KINDS = { deposit: 'Deposit', withdrawal: 'Withdrawal', buy: 'Buy', sell: 'Sell', fee: 'Fee', reset: 'Account reset' };
const METHODS = { card: 'Card', bank: 'Bank', transfer: 'Transfer' };

export async function render(view, params, scope) {
  const account = store.account();
  const balance = h('section.card.balance', { 'aria-label': 'Cash balance' }, loading());
  const history = h('section.card', { 'aria-labelledby': 'tx-title' }, loading());
  clear(view, h('header.page-head', h('h1', 'Account'), h('button.secondary', { type: 'button', onclick: openAccountSheet }, 'New account')),
    account ? [balance, history] : empty('You have no paper account yet.'));
  if (!account) return;
  const currency = account.currency;
  const id = api.enc(account.id);
  let detail = null;

  function renderBalance() {
    const hidden = store.amountsHidden();
    clear(balance,
      h('div.card-head', h('h2', 'Cash balance'),
        eyeToggle(hidden, () => store.setAmountsHidden(!hidden))),
      h('p.net-worth', { dataset: { testid: 'account-cash' } }, hidden ? '••••••' : F.money(detail.cash, currency)),
      h('dl.figures',
        h('div', h('dt', 'Buying power'), h('dd', hidden ? '••••' : F.money(detail.buying_power, currency))),
        h('div', h('dt', 'Net worth'), h('dd', hidden ? '••••' : F.money(detail.equity, currency))),
        h('div', h('dt', 'Account'), h('dd', `${detail.name} · ${detail.account_number}`))),
      h('div.actions',
        h('button.primary', { type: 'button', onclick: () => transferSheet('deposit') }, 'Deposit'),
        h('button.secondary', { type: 'button', onclick: () => transferSheet('withdraw') }, 'Withdraw')));
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

  function describe(t) {
    switch (t.kind) {
      case 'deposit': case 'withdrawal': return [METHODS[t.method] ?? t.method, t.note].filter(Boolean).join(' · ');
      case 'buy': case 'sell': return `${F.shares(t.qty)} of ${t.symbol} @ ${F.price(t.price)}`;
      case 'fee': return `${F.feeName(t.fee)} · ${t.symbol}`;
      case 'reset': return `Back to ${F.money(t.starting_cash, currency)}`;
      default: return '';
    }
  }

  function renderHistory(tx) {
    clear(history, h('h2#tx-title', 'Transactions'),
      tx.length === 0 ? empty('No transactions yet.')
        : h('ul.rows.transactions', tx.map((t) => h('li.row', { dataset: { kind: t.kind } },
          h('span.row-main', h('span.sym', KINDS[t.kind] ?? t.kind,
            t.automatic ? h('span.tag', { title: 'Placed automatically by a queued rule' }, 'Auto') : null), h('span.sub', describe(t))),
          h('span.row-end',
            h(`span.amount.${F.direction(t.amount)}`, F.signedMoney(t.amount, currency)),
            h('span.sub', F.dateTime(t.time)))))));
  }

  function transferSheet(kind) {
    const deposit = kind === 'deposit';
    sheet(deposit ? 'Deposit' : 'Withdraw', (close) => {
      const method = h('select#transfer-method', { name: 'method' }, Object.entries(METHODS).map(([v, t]) => h('option', { value: v, selected: v === 'bank' }, t)));
      const amount = h('input#transfer-amount', { name: 'amount', inputMode: 'decimal', autocomplete: 'off', placeholder: '0.00', autofocus: true });
      const note = h('input#transfer-note', { name: 'note', maxLength: 200, autocomplete: 'off' });
      const submit = h('button.primary.wide', { type: 'submit' }, deposit ? 'Deposit' : 'Withdraw');
      const form = h('form.transfer-form', { novalidate: true },
        h('div.field', h('label', { for: 'transfer-method' }, deposit ? 'Type' : 'To'), method),
        h('div.field', h('label', { for: 'transfer-amount' }, `Amount (${currency})`), amount),
        h('div.field', h('label', { for: 'transfer-note' }, 'Note (optional)'), note),
        deposit ? null : h('p.field-help', `Available: ${F.money(detail.buying_power, currency)}`),
        submit);
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const value = D.parse(amount.value.trim());
        if (!value || D.sign(value) <= 0 || value.s > 2) { toast('Please enter a valid amount', 'error'); amount.focus(); return; }
        submit.disabled = true;
        try {
          const result = await api.post(`/accounts/${id}/${deposit ? 'deposit' : 'withdraw'}`,
            { amount: amount.value.trim(), method: method.value, note: note.value.trim() || undefined });
          toast(`${deposit ? 'Deposited' : 'Withdrew'} ${F.money(result.transaction.amount.replace('-', ''), currency)}`, 'success');
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

  function openAccountSheet() {
    sheet('New paper account', (close) => {
      const market = h('select#new-market', h('option', { value: 'us' }, 'US stocks (USD)'), h('option', { value: 'cn' }, 'China A-shares (CNY)'));
      const cash = h('input#new-cash', { inputMode: 'decimal', placeholder: '100000', autocomplete: 'off' });
      const name = h('input#new-name', { maxLength: 64, autocomplete: 'off' });
      const form = h('form', { novalidate: true },
        h('div.field', h('label', { for: 'new-market' }, 'Market'), market),
        h('div.field', h('label', { for: 'new-cash' }, 'Starting cash'), cash),
        h('div.field', h('label', { for: 'new-name' }, 'Name (optional)'), name),
        h('button.primary.wide', { type: 'submit' }, 'Open account'));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const c = cash.value.trim();
        if (c && (!D.parse(c) || D.sign(D.parse(c)) <= 0)) { toast('Please enter a valid amount', 'error'); return; }
        try {
          const created = await api.post('/accounts', { market: market.value, cash: c || undefined, name: name.value.trim() || undefined });
          store.updateAccount(created);
          close();
          toast(`Opened ${created.name}`, 'success');
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
