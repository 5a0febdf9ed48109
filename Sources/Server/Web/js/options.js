// The option chain card on a stock page: pick an expiration, calls or puts, and read each strike's bid, ask, last,
// volume, open interest, implied volatility and delta. Strikes near the price come first; shaded rows are in the
// money. Hidden for stocks without listed options (A-shares, small caps). A row opens the option trade sheet: buy to
// open or sell to close, a limit price that starts at the mid, and what the trade costs, where it breaks even, the
// most it can make and lose, and how likely it is to finish in the money — each explained in one sentence.
import * as api from './api.js';
import * as D from './decimal.js';
import * as F from './format.js';
import * as store from './store.js';
import { t, locale } from './i18n.js';
import { h, clear, segmented, sheet, toast, confirmAction } from './ui.js';
import { payoffFigure, payoffPoints, breakevens } from './payoff.js';

const HUNDRED = { n: 100n, s: 0 };

/** Strikes shown each side of the price before "show all". */
const NEAR = 6;

/** "12.6%" from a ratio ("0.1263"). */
function volatility(text) {
  const v = D.parse(text);
  return v ? D.format(D.round(D.shift(v, 2), 1), 1) + '%' : '—';
}

/** "0.13" from "0.1295": delta to two places, signed for puts. */
function delta(text) {
  const v = D.parse(text);
  return v ? D.format(D.round(v, 2), 2) : '—';
}

/** An expiration date as the learner's calendar shows it (the date is New York's; shown as a date, not a time). */
function expirationDate(iso) {
  return new Date(`${iso}T12:00:00Z`).toLocaleDateString(locale(), { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}

/** An OCC symbol's contract ("AAPL261218C00250000" → AAPL, 2026-12-18, call, 250), or null for any other symbol. */
export function parseContract(symbol) {
  const m = /^([A-Z][A-Z0-9]{0,5})(\d{2})(\d{2})(\d{2})([CP])(\d{8})$/.exec(symbol ?? '');
  if (!m) return null;
  return {
    // An adjusted root (NVDA1, after a split) names the underlying without its digit; its deliverable is not 100.
    root: m[1], underlying: m[1].replace(/\d+$/, ''), adjusted: /\d$/.test(m[1]),
    expiration: `20${m[2]}-${m[3]}-${m[4]}`, right: m[5] === 'C' ? 'call' : 'put',
    strike: D.shift({ n: BigInt(m[6]), s: 0 }, -3),
  };
}

/**
 * What the account holds on `symbol` expiring on `expiration`, as payoff legs: each contract position at its premium
 * (paid, or taken in when written), and the shares that cover calls written beyond the long calls, at their cost.
 */
export function heldLegs(positions, symbol, expiration) {
  const legs = [];
  let shares = null;
  for (const p of positions ?? []) {
    if (p.symbol === symbol) { shares = p; continue; }
    const c = parseContract(p.symbol);
    // (An adjusted contract's payoff is on its own deliverable: charted with the standard ones it would mislead.)
    if (!c || c.adjusted || c.underlying !== symbol || c.expiration !== expiration) continue;
    legs.push({ right: c.right, strike: c.strike, qty: D.parse(p.qty), price: D.parse(p.avg_entry_price), multiplier: HUNDRED, symbol: p.symbol,
      doNotExercise: p.do_not_exercise === true });
  }
  const calls = legs.filter((l) => l.right === 'call').reduce((sum, l) => D.add(sum, l.qty), D.zero);
  if (legs.length && D.sign(calls) < 0 && shares && D.sign(D.parse(shares.qty)) > 0) {
    const needed = D.mul(D.neg(calls), HUNDRED);
    const held = D.parse(shares.qty);
    legs.push({ right: null, qty: D.cmp(held, needed) < 0 ? held : needed, price: D.parse(shares.avg_entry_price) });
  }
  return legs;
}

export function optionChain(symbol, currency) {
  const element = h('section.card.options', { 'aria-labelledby': 'options-title', hidden: true });
  let expirations = [];
  let expiration = null;
  let right = 'call';
  let showAll = false;
  let chain = null;
  let held = [];
  let destroyed = false;
  let timer = null;

  async function load() {
    try {
      const listed = await api.get(`/options/${api.enc(symbol)}`);
      if (destroyed) return;
      expirations = listed.expirations;
      expiration = (expirations.find((e) => e.days >= 7) ?? expirations[expirations.length - 1])?.date ?? null;
      if (!expiration) return;
      element.hidden = false;
      await refresh();
      timer = setInterval(refresh, 30000);
    } catch {
      element.hidden = true; // no options on this stock
    }
  }

  async function refresh() {
    if (!expiration || destroyed) return;
    try {
      const account = store.account();
      const [next, detail] = await Promise.all([
        api.get(`/options/${api.enc(symbol)}/chain` + api.query({ expiration })),
        account ? api.get(`/accounts/${account.id}`).catch(() => null) : null,
      ]);
      if (destroyed) return;
      chain = next;
      held = heldLegs(detail?.positions, symbol, expiration);
      render();
    } catch { /* keep the last chain on screen */ }
  }

  function row(r) {
    const side = r[right];
    if (!side) return null;
    // The whole row opens the trade sheet (a tap anywhere on it); its strike is the button a keyboard reaches, whose
    // click bubbles up to the row.
    return h(`tr${side.in_the_money ? '.itm' : ''}`, { dataset: { symbol: side.symbol },
      onclick: () => optionTradeSheet(side, currency, chain.price, chain.rows.map((x) => x[right]).filter(Boolean)) },
      h('th', { scope: 'row' }, h('button.link', { type: 'button', 'aria-label': t('options.trade_label', { name: F.contractName(side.symbol, side.name) }) },
      F.price(r.strike))),
      h('td', F.price(side.bid)), h('td', F.price(side.ask)),
      h('td.not-narrow', side.last ? F.price(side.last) : '—'),
      h('td.wide-only', F.compact(String(side.volume))), h('td.wide-only', F.compact(String(side.open_interest))),
      h('td', volatility(side.implied_volatility)), h('td', delta(side.delta)));
  }

  function render() {
    if (!chain) return;
    const rows = chain.rows;
    const atm = rows.findIndex((r) => r.strike === chain.at_the_money);
    const from = showAll || atm < 0 ? 0 : Math.max(0, atm - NEAR);
    const to = showAll || atm < 0 ? rows.length : Math.min(rows.length, atm + NEAR + 1);
    const body = [];
    const price = D.parse(chain.price);
    let marked = false;
    for (const r of rows.slice(from, to)) {
      // The price line sits between the strikes below and above the stock's price.
      if (!marked && price && D.cmp(D.parse(r.strike), price) > 0) {
        marked = true;
        body.push(h('tr.price-line', h('td', { colspan: 8 }, t('options.underlying_at', { symbol, price: F.currencySymbol(currency) + F.price(chain.price) }))));
      }
      body.push(row(r));
    }
    const columns = [['strike', ''], ['bid', ''], ['ask', ''], ['last', '.not-narrow'], ['volume', '.wide-only'], ['open_interest', '.wide-only'], ['iv', ''], ['delta', '']];
    const select = h('select#option-expiration', { onchange: (e) => { expiration = e.target.value; showAll = false; refresh(); } },
      expirations.map((e) => h('option', { value: e.date, selected: e.date === expiration },
        (e.days === 0 ? t('options.expires_today', { date: expirationDate(e.date) }) : t('options.expires_in', { date: expirationDate(e.date), days: e.days }))
        + ' · ' + t(`options.kind.${e.kind}`))));
    clear(element,
      h('h2#options-title', t('options.title')),
      h('p.sub', t('options.help')),
      h('div.option-controls',
        h('label', { for: 'option-expiration' }, t('options.expiration')), select,
        segmented(t('options.title'), [['call', t('options.calls')], ['put', t('options.puts')]], right, (value) => { right = value; render(); })),
      h('div.table-scroll', h('table.option-chain',
        h('thead', h('tr', columns.map(([key, cls]) => h(`th${cls}`, { scope: 'col' }, t(`options.col.${key}`))))),
        h('tbody', body))),
      rows.length > to - from || showAll
        ? h('button.link.show-all', { type: 'button', onclick: () => { showAll = !showAll; render(); } },
          showAll ? t('options.show_near') : t('options.show_all', { n: rows.length }))
        : null,
      h('p.sub.legend', t('options.legend')),
      held.some((l) => l.right) ? positionPayoff() : null);
  }

  /** What the contracts held on this expiration (a spread's legs together) make or lose at expiration. */
  function positionPayoff() {
    const figure = payoffFigure(held, D.parse(chain.price), currency, t('options.position.caption'));
    figure.dataset.testid = 'position-payoff';
    return h('section.position-payoff', { 'aria-labelledby': 'position-payoff-title' },
      h('h3#position-payoff-title', t('options.position.title', { date: expirationDate(expiration) })),
      h('ul.legs', held.map((l) => h('li', l.right
        ? [t(D.sign(l.qty) < 0 ? 'options.position.written' : 'options.position.long', {
          qty: D.format(D.abs(l.qty), 0, false), name: legName(l),
          price: F.money(D.format(l.price, 2, false), currency),
        }), D.sign(l.qty) > 0 ? exerciseControls(l) : null]
        : t('options.position.shares', { qty: D.format(l.qty, 0, false), symbol })))),
      figure);
  }

  function legName(l) {
    return `${symbol} ${F.price(D.format(l.strike, null, false))} ${t(`options.right.${l.right}`)}`;
  }

  /** A long contract's choices before expiry: exercise it now, or let it expire unexercised even in the money. */
  function exerciseControls(l) {
    const qty = D.format(l.qty, 0, false);
    const shares = D.format(D.mul(l.qty, HUNDRED), 0, false);
    const values = { qty, name: legName(l), shares, symbol, strike: F.money(D.format(l.strike, null, false), currency),
      total: F.money(D.format(D.round(D.mul(D.mul(l.qty, HUNDRED), l.strike), 2), 2, false), currency) };
    const row = chain.rows.find((r) => r[l.right]?.symbol === l.symbol);
    const warning = exerciseWarning(l, D.parse(chain.price), row ? D.parse(row[l.right].bid) : null);
    const money = (v) => F.money(D.format(D.round(v, 2), 2, false), currency);
    const warned = (key) => {
      if (!warning || warning.kind !== key) return null;
      return t(`options.warning.${key === 'otm' ? `otm_${l.right}` : key}`, {
        symbol, spot: F.money(D.format(warning.spot, null, false), currency), strike: values.strike,
        total: values.total, worth: money(warning.worth), sale: warning.sale ? money(warning.sale) : '—',
        loss: money(D.abs(warning.exercisedProfit)), paid: money(warning.paid), intrinsic: money(warning.intrinsic),
        value: money(warning.given), shares,
      });
    };
    async function act(path, done) {
      const account = store.account();
      if (!account) return;
      try {
        await api.post(`/accounts/${api.enc(account.id)}/positions/${api.enc(l.symbol)}/${path}`);
        toast(t(done, values), 'success');
        refresh();
      } catch (error) { toast(error.message, 'error'); }
    }
    return h('span.exercise-actions', { dataset: { testid: 'exercise-actions' } },
      h('button.link', { type: 'button', dataset: { action: 'exercise' }, onclick: async () => {
        const otm = warned('otm');
        if (!await confirmAction(t('options.exercise.title'), t(`options.exercise.confirm.${l.right}`, values), t('options.exercise.button'),
          { warning: otm, danger: otm !== null })) return;
        act('exercise', 'options.exercise.done');
      } }, t('options.exercise.button')),
      l.doNotExercise
        ? h('span.sub', { dataset: { role: 'dne' } }, t('options.dne.marked'))
        : h('button.link', { type: 'button', dataset: { action: 'dne' }, onclick: async () => {
          if (!await confirmAction(t('options.dne.title'), t('options.dne.confirm', values), t('options.dne.button'),
            { danger: true, warning: warned('itm') })) return;
          act('do-not-exercise', 'options.dne.done');
        } }, t('options.dne.button')));
  }

  load();
  return {
    element,
    destroy() { destroyed = true; clearInterval(timer); },
  };
}

/**
 * What a learner should hear before exercising a long contract, or before marking it not to be exercised: nil when
 * nothing is out of the ordinary; `otm` when exercising now is worth less than nothing (the stock is below a call's
 * strike or above a put's), `itm` when not exercising gives up intrinsic value. Amounts for the whole holding
 * (contracts × 100 shares): what the shares are worth at `spot`, what selling the contracts at `bid` brings, what was
 * paid for them, the profit at today's price once exercised (negative: the loss it locks in), and the intrinsic value
 * a share and in all (what not exercising gives up).
 */
export function exerciseWarning(leg, spot, bid) {
  if (!spot || !leg.right || D.sign(leg.qty) <= 0) return null;
  const shares = D.mul(leg.qty, HUNDRED);
  // What exercising is worth a share now: negative when out of the money.
  const edge = leg.right === 'call' ? D.sub(spot, leg.strike) : D.sub(leg.strike, spot);
  const intrinsic = D.sign(edge) > 0 ? edge : D.zero;
  const facts = {
    spot, intrinsic, worth: D.mul(spot, shares), sale: bid ? D.mul(bid, shares) : null,
    paid: D.mul(leg.price ?? D.zero, shares), exercisedProfit: D.mul(D.sub(edge, leg.price ?? D.zero), shares),
    given: D.mul(intrinsic, shares),
  };
  if (D.sign(edge) <= 0) return { kind: 'otm', ...facts };
  return { kind: 'itm', ...facts };
}

/** "12.3%" from a probability ("0.1234"). */
function probability(text) {
  const v = D.parse(text);
  return v ? D.format(D.round(D.shift(v, 2), 1), 1) + '%' : '—';
}

/** What one share of a vertical spread's net comes to, from the two contracts' mids: positive a debit, negative a credit. */
function spreadNet(bought, sold) {
  return D.sub(D.parse(bought.mid), D.parse(sold.mid));
}

/**
 * The option trade sheet for one contract of the chain: buy to open, sell to close, or write (sell to open: a call
 * covered by 100 shares a contract, a put secured by its strike × 100 in cash), or a vertical spread (buy this
 * contract and sell another strike of the same expiration, one multi-leg order); contracts, a limit price that starts
 * at the mid (a spread's: the difference of the two mids), and the trade's figures at that price, recomputed as the
 * learner types. `strikes`: the chain's contracts of the same expiration and right, for the spread.
 */
export function optionTradeSheet(contract, currency, spotText, strikes = []) {
  const account = store.account();
  sheet(F.contractName(contract.symbol, contract.name), (close) => {
    let side = 'buy';
    // The spread's other contract: by default the next strike out of the money (a debit spread: the contract sold
    // pays for part of this one and caps its gain).
    const others = strikes.filter((c) => c.symbol !== contract.symbol && D.parse(c.mid));
    const further = (c) => D.cmp(D.parse(c.strike), D.parse(contract.strike)) * (contract.right === 'call' ? 1 : -1);
    const nearestFirst = (a, b) => D.cmp(D.parse(a.strike), D.parse(b.strike)) * (contract.right === 'call' ? 1 : -1);
    let other = others.filter((c) => further(c) > 0).sort(nearestFirst)[0] ?? others[0] ?? null;
    const debit = () => other && D.sign(spreadNet(contract, other)) >= 0;
    const spreadLimit = () => {
      if (!other) return '';
      const net = D.round(D.abs(spreadNet(contract, other)), 2);
      return D.format(D.sign(net) > 0 ? net : D.parse('0.01'), 2, false);
    };
    const otherSelect = h('select#spread-other', {
      onchange: (e) => { other = others.find((c) => c.symbol === e.target.value) ?? null; limit.value = spreadLimit(); render(); },
    }, others.map((c) => h('option', { value: c.symbol, selected: c === other }, F.price(c.strike))));
    const spreadControls = h('div.spread-controls', { hidden: true },
      h('p.field-help', t('options.spread.help')),
      h('label', { for: 'spread-other' }, t('options.spread.other')), otherSelect);
    const limitLabel = h('label', { for: 'option-limit' }, t('options.sheet.limit'));
    const limitHelp = h('p.field-help', t('options.sheet.limit_help'));
    const qty = h('input#option-qty', { type: 'number', min: '1', step: '1', value: '1', inputmode: 'numeric', autofocus: true });
    const limit = h('input#option-limit', { type: 'text', inputmode: 'decimal', value: contract.mid });
    const figures = h('dl.estimate.option-figures', { dataset: { testid: 'option-figures' } });
    const payoff = h('div.option-payoff');
    const spot = D.parse(spotText);
    const submit = h('button.primary', { type: 'submit' });

    function explain(term, value, sentence, testid) {
      return h('div', { dataset: { testid } }, h('dt', term), h('dd', h('span.value', value), h('span.field-help', sentence)));
    }

    /** Delta, gamma, theta and vega from the model that prices the chain, each with what it means per share and
     * for one contract (100 shares), in money where it is money. */
    function greeks() {
      const one = F.money('1', currency);
      const perContract = (text) => F.money(D.format(D.mul(D.parse(text), HUNDRED), 2, false), currency);
      const figure = (text, places) => D.format(D.round(D.parse(text), places), places);
      return ['delta', 'gamma', 'theta', 'vega'].filter((g) => D.parse(contract[g]))
        .map((g) => explain(t(`options.greeks.${g}`), figure(contract[g], g === 'gamma' ? 4 : g === 'delta' ? 2 : 3),
          t(`options.greeks.${g}_help`, { one, value: F.money(D.format(D.round(D.parse(contract[g]), 2), 2, false), currency), contract: perContract(contract[g]) }),
          `option-${g}`));
    }

    function render() {
      const n = D.parse(qty.value);
      const price = D.parse(limit.value);
      spreadControls.hidden = side !== 'spread';
      if (side === 'spread') return renderSpread(n, price);
      limitLabel.textContent = t('options.sheet.limit');
      limitHelp.textContent = t('options.sheet.limit_help');
      submit.textContent = t(side === 'buy' ? 'options.sheet.buy_submit' : 'options.sheet.sell_submit');
      const writing = side === 'write';
      if (!n || !price || D.sign(n) <= 0 || D.sign(price) <= 0 || !D.isInteger(n)) {
        clear(figures, h('p.field-help', t('options.sheet.enter')));
        clear(payoff);
        return;
      }
      const shares = D.mul(n, HUNDRED);
      const amount = D.mul(price, shares);
      const strike = D.parse(contract.strike);
      const call = contract.right === 'call';
      const breakeven = call ? D.add(strike, price) : D.sub(strike, price);
      const money = (v) => F.money(D.format(v, 2, false), currency);
      const sharesText = F.qty(D.format(shares, 0, false));
      const rows = [
        explain(t(side === 'buy' ? 'options.sheet.cost' : 'options.sheet.credit'), money(amount),
          t(side === 'buy' ? 'options.sheet.cost_help' : 'options.sheet.credit_help', { shares: sharesText }), 'option-amount'),
      ];
      if (writing) {
        const underlying = contract.symbol.slice(0, -15);
        rows.push(
          call
            ? explain(t('options.sheet.cover'), t('options.sheet.cover_shares', { shares: sharesText, symbol: underlying }),
              t('options.sheet.cover_help', { symbol: underlying }), 'option-cover')
            : explain(t('options.sheet.collateral'), money(D.mul(strike, shares)), t('options.sheet.collateral_help'), 'option-cover'),
          explain(t('options.sheet.breakeven'), money(breakeven),
            t(call ? 'options.sheet.write_breakeven_call_help' : 'options.sheet.write_breakeven_put_help'), 'option-breakeven'),
          explain(t('options.sheet.max_profit'), money(amount), t('options.sheet.write_max_profit_help'), 'option-max-profit'),
          call
            ? explain(t('options.sheet.max_loss'), t('options.sheet.covered'), t('options.sheet.write_max_loss_call_help'), 'option-max-loss')
            : explain(t('options.sheet.max_loss'), money(D.mul(D.sub(strike, price), shares)),
              t('options.sheet.write_max_loss_put_help'), 'option-max-loss'));
      }
      if (side === 'buy') {
        const maxProfit = call ? t('options.sheet.unlimited') : F.money(D.format(D.mul(D.sub(strike, price), shares), 2, false), currency);
        rows.push(
          explain(t('options.sheet.breakeven'), F.money(D.format(breakeven, 2, false), currency),
            t(call ? 'options.sheet.breakeven_call_help' : 'options.sheet.breakeven_put_help'), 'option-breakeven'),
          explain(t('options.sheet.max_profit'), maxProfit,
            t(call ? 'options.sheet.max_profit_call_help' : 'options.sheet.max_profit_put_help'), 'option-max-profit'),
          explain(t('options.sheet.max_loss'), F.money(D.format(amount, 2, false), currency), t('options.sheet.max_loss_help'), 'option-max-loss'));
      }
      rows.push(explain(t(writing ? 'options.sheet.assignment' : 'options.sheet.probability'), probability(contract.probability_itm),
        t(writing ? 'options.sheet.assignment_help' : 'options.sheet.probability_help'), 'option-probability'));
      rows.push(...greeks());
      clear(figures, rows);
      // What the trade makes or loses at expiration (a call written with the shares that cover it, from their price
      // now); selling to close leaves nothing to chart.
      const leg = { right: contract.right, strike, qty: writing ? D.neg(n) : n, price, multiplier: HUNDRED };
      const cover = writing && call && spot ? [{ right: null, qty: shares, price: spot }] : [];
      clear(payoff, side === 'sell' ? null
        : payoffFigure([leg, ...cover], spot, currency, t(cover.length ? 'options.payoff.covered' : 'options.payoff.title')));
    }

    /** The spread's figures, from its payoff at expiration: what it costs or brings in, where it breaks even, the
     * most it makes and loses. */
    function renderSpread(n, price) {
      const isDebit = debit();
      limitLabel.textContent = t(isDebit ? 'options.spread.limit_debit' : 'options.spread.limit_credit');
      limitHelp.textContent = t('options.spread.limit_help');
      submit.textContent = t('options.spread.submit');
      if (!other) {
        clear(figures, h('p.field-help', t('options.spread.none')));
        clear(payoff);
        return;
      }
      if (!n || !price || D.sign(n) <= 0 || D.sign(price) <= 0 || !D.isInteger(n)) {
        clear(figures, h('p.field-help', t('options.sheet.enter')));
        clear(payoff);
        return;
      }
      const shares = D.mul(n, HUNDRED);
      const money = (v) => F.money(D.format(v, 2, false), currency);
      const sharesText = F.qty(D.format(shares, 0, false));
      // The net on the contract bought (a credit is a negative price paid); the one sold at nothing.
      const legs = [
        { right: contract.right, strike: D.parse(contract.strike), qty: n, price: isDebit ? price : D.neg(price), multiplier: HUNDRED },
        { right: other.right, strike: D.parse(other.strike), qty: D.neg(n), price: D.zero, multiplier: HUNDRED },
      ];
      const points = payoffPoints(legs, spot);
      const profits = points.map((p) => p.pl);
      const most = profits.reduce((a, b) => (D.cmp(a, b) >= 0 ? a : b));
      const least = profits.reduce((a, b) => (D.cmp(a, b) <= 0 ? a : b));
      const even = breakevens(points);
      clear(figures, [
        explain(t(isDebit ? 'options.sheet.cost' : 'options.sheet.credit'), money(D.mul(price, shares)),
          t(isDebit ? 'options.spread.debit_help' : 'options.spread.credit_help', { shares: sharesText }), 'option-amount'),
        explain(t('options.sheet.breakeven'), even.length ? money(even[0]) : '—', t('options.spread.breakeven_help'), 'option-breakeven'),
        explain(t('options.sheet.max_profit'), D.sign(most) > 0 ? money(most) : money(D.zero), t('options.spread.max_profit_help'), 'option-max-profit'),
        explain(t('options.sheet.max_loss'), D.sign(least) < 0 ? money(D.neg(least)) : money(D.zero), t('options.spread.max_loss_help'), 'option-max-loss'),
      ]);
      clear(payoff, payoffFigure(legs, spot, currency, t('options.spread.payoff')));
    }

    async function submitSpread() {
      const isDebit = debit();
      const body = {
        order_class: 'mleg', type: 'limit', time_in_force: 'day', qty: qty.value.trim(),
        limit_price: (isDebit ? '' : '-') + limit.value.trim(),
        legs: [
          { symbol: contract.symbol, ratio_qty: '1', side: 'buy', position_intent: 'buy_to_open' },
          { symbol: other.symbol, ratio_qty: '1', side: 'sell', position_intent: 'sell_to_open' },
        ],
      };
      const names = { buy: F.contractName(contract.symbol, contract.name), sell: F.contractName(other.symbol, other.name) };
      // This sheet tells the fill itself: the legs' fill notifications are not toasted as well (Notifications has them).
      store.noteOwnTrade(names.buy);
      store.noteOwnTrade(names.sell);
      const order = await api.post(`/accounts/${api.enc(account.id)}/orders`, body);
      toast(t(order.status === 'filled' ? 'options.spread.done' : 'options.spread.placed', names), 'success', { timeout: 5000 });
    }

    const form = h('form.option-trade', {
      onsubmit: async (event) => {
        event.preventDefault();
        if (!account) return;
        submit.disabled = true;
        if (side === 'spread') {
          try {
            if (!other) throw new Error(t('options.spread.none'));
            await submitSpread();
            close();
          } catch (error) {
            toast(error.message, 'error', { timeout: 6000 });
            submit.disabled = false;
          }
          return;
        }
        const intents = { buy: 'buy_to_open', sell: 'sell_to_close', write: 'sell_to_open' };
        const body = {
          symbol: contract.symbol, side: side === 'buy' ? 'buy' : 'sell', type: 'limit', time_in_force: 'day',
          qty: qty.value.trim(), limit_price: limit.value.trim(), position_intent: intents[side],
        };
        try {
          store.noteOwnTrade(F.contractName(contract.symbol, contract.name));  // its fill is toasted here, once
          const order = await api.post(`/accounts/${api.enc(account.id)}/orders`, body);
          toast(t(order.status === 'filled' ? `options.sheet.done.${side === 'buy' ? 'buy' : 'sell'}` : 'options.sheet.placed',
            { qty: F.qty(order.qty), name: F.contractName(contract.symbol, contract.name) }), 'success', { timeout: 5000 });
          close();
        } catch (error) {
          toast(error.message, 'error', { timeout: 6000 });
          submit.disabled = false;
        }
      },
    },
    segmented(t('options.sheet.side'), [['buy', t('options.sheet.buy')], ['sell', t('options.sheet.sell')], ['write', t('options.sheet.write')],
      ['spread', t('options.sheet.spread')]],
    side, (value) => {
      const wasSpread = side === 'spread';
      side = value;
      if (side === 'spread') limit.value = spreadLimit();
      else if (wasSpread) limit.value = contract.mid;
      render();
    }),
    h('p.sub', t('options.sheet.quote', { bid: F.price(contract.bid), ask: F.price(contract.ask), mid: F.price(contract.mid) })),
    spreadControls,
    h('label', { for: 'option-qty' }, t('options.sheet.contracts')), qty,
    h('p.field-help', t('options.sheet.contracts_help')),
    limitLabel, limit,
    limitHelp,
    figures,
    payoff,
    account ? submit : h('p.field-help', t('common.no_account')));
    qty.addEventListener('input', render);
    limit.addEventListener('input', render);
    render();
    return form;
  }, { className: 'option-sheet' });
}
