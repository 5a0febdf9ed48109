// Games: browse public games and your own, join with a code or an invite link, create one (a form that explains
// each rule), and a game's page — countdown, your rank, the live leaderboard, rank history, rules, invite, and the
// owner's tools (end early, remove a player, export CSV). Trading happens in the game account like in any other.
import * as api from '../api.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { t } from '../i18n.js';
import { h, clear, toast, failure, empty, loading, confirmAction, sheet } from '../ui.js';

export async function render(view, params, scope) {
  const [id] = params;
  if (!id) return renderList(view, scope);
  if (id === 'new') return renderCreate(view, scope);
  return renderGame(view, id, scope);
}

/** The invite link's screen (#/join/CODE): the game the code belongs to, and a Join button. */
export async function renderJoin(view, params, scope) {
  const code = (params[0] ?? '').toUpperCase();
  const [game] = await api.get(`/games?code=${api.enc(code)}`);
  if (!game) { clear(view, empty(t('games.no_code', { code }), h('a.button', { href: '#/games' }, t('games.all')))); return; }
  if (game.my_account_id || game.is_owner) { scope.navigate(`games/${api.enc(game.id)}`); return; }
  clear(view, h('header.page-head', h('h1', game.name), h('p.sub', t('games.invited'))),
    h('section.card', gameFacts(game), rulesList(game),
      h('button.primary.wide', { type: 'button', onclick: (e) => join(game, code, e.currentTarget, scope) }, t('games.join'))));
}

async function join(game, code, button, scope) {
  button.disabled = true;
  try {
    const joined = await api.post(`/games/${api.enc(game.id)}/join`, code ? { code } : {});
    await store.refreshAccounts();
    toast(t('games.joined', { name: game.name }), 'success');
    if (joined.account_id) store.selectAccount(joined.account_id);
    scope.navigate(`games/${api.enc(game.id)}`);
  } catch (error) {
    toast(error.message, 'error');
    button.disabled = false;
  }
}

// MARK: List

async function renderList(view, scope) {
  const mine = h('section.card', { 'aria-labelledby': 'games-mine-title' }, loading());
  const open = h('section.card', { 'aria-labelledby': 'games-public-title' }, loading());
  const code = h('input#game-code', { autocomplete: 'off', autocapitalize: 'characters', placeholder: 'ABCD2345', maxLength: 12 });
  const codeForm = h('form.card', { 'aria-labelledby': 'games-code-title' },
    h('h2#games-code-title', t('games.have_code')),
    h('div.field', h('label', { for: 'game-code' }, t('games.code')), code),
    h('button.primary.wide', { type: 'submit' }, t('games.find')));
  codeForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = code.value.replace(/\s+/g, '').toUpperCase();
    if (text) scope.navigate(`join/${api.enc(text)}`); else code.focus();
  });
  clear(view, h('header.page-head', h('h1', t('games.title')),
    h('a.button.primary', { href: '#/games/new' }, t('games.create')),
    h('a.button', { href: '#/classes' }, t('classes.title')),
    h('p.sub', t('games.intro'))),
  h('div.queue-grid', h('div', mine, codeForm), open));

  const row = (g) => h('li.row.game', { dataset: { id: g.id } },
    h('a.row-link', { href: `#/games/${api.enc(g.id)}` },
      h('span.row-main', h('span.sym', g.name),
        h('span.sub', [t(`games.status.${g.status}`), t.count('games.players', g.players),
          F.money(g.starting_cash, g.currency, 0), g.is_owner ? t('games.yours') : null].filter(Boolean).join(' · '))),
      h('span.row-end', h(`span.status.${g.status === 'running' ? 'filled' : g.status === 'ended' ? 'expired' : 'pending'}`, countdown(g)))));
  try {
    const [own, listed] = await Promise.all([api.get('/games?scope=mine'), api.get('/games?scope=public')]);
    clear(mine, h('h2#games-mine-title', t('games.mine')), own.length ? h('ul.rows', own.map(row)) : empty(t('games.none_mine')));
    clear(open, h('h2#games-public-title', t('games.public')), listed.length ? h('ul.rows', listed.map(row)) : empty(t('games.none_public')));
  } catch (error) { clear(mine, failure(error, () => renderList(view, scope))); }
}

/** "Starts in 2d 3h", "Ends in 5h 10m", "Ended Dec 1", "No end date". */
function countdown(g, now = Date.now()) {
  if (g.status === 'ended') return t('games.ended_on', { date: F.shortDate(g.ended_at ?? g.ends_at) });
  const target = g.status === 'upcoming' ? g.starts_at : g.ends_at;
  if (!target) return t('games.no_end');
  const ms = new Date(target).getTime() - now;
  const m = Math.max(0, Math.floor(ms / 60000));
  const parts = m >= 1440 ? [`${Math.floor(m / 1440)}d`, `${Math.floor(m / 60) % 24}h`]
    : m >= 60 ? [`${Math.floor(m / 60)}h`, `${m % 60}m`] : [`${m}m`, `${Math.floor(Math.max(0, ms) / 1000) % 60}s`];
  return t(g.status === 'upcoming' ? 'games.starts_in' : 'games.ends_in', { time: parts.join(' ') });
}

// MARK: Create

/** Each rule of the form: [field, kind, default]; its label is games.rule.<field>, its help games.help.<field>. */
const RULE_FIELDS = [
  ['commission_per_trade', 'decimal', ''],
  ['commission_percent', 'decimal', ''],
  ['min_price_buy', 'decimal', ''],
  ['min_price_short', 'decimal', ''],
  ['max_position_percent', 'decimal', ''],
  ['max_volume_percent', 'decimal', ''],
  ['quick_sell_minutes', 'integer', ''],
  ['max_trades_per_day', 'integer', ''],
  ['resets_allowed', 'integer', ''],
];

const input = (id, props = {}) => h(`input#${id}`, { autocomplete: 'off', ...props });
const field = (id, label, control, help) => h('div.field', h('label', { for: id }, label), control,
  help ? h('p.field-help', { id: `${id}-help` }, help) : null);
const toggle = (id, label, help, checked = false) => h('div.field',
  h('label.switch', { for: id }, h(`input#${id}`, { type: 'checkbox', checked }), label),
  h('p.field-help', help));

/** The trading rules' controls, a game's or a class's (ids begin with `prefix`): what may be traded (options, crypto,
 * currencies, margin and short selling, day trades) and the limits. `read()` gives the API's `rules` object, the
 * limits left empty left out. */
export function rulesControls(prefix) {
  const rules = Object.fromEntries(RULE_FIELDS.map(([f, kind]) => [f, input(`${prefix}-${f}`, { inputMode: kind === 'integer' ? 'numeric' : 'decimal' })]));
  const multiplier = h(`select#${prefix}-margin_multiplier`, h('option', { value: '2' }, '2×'), h('option', { value: '4' }, '4×'));
  const nodes = [
    toggle(`${prefix}-margin`, t('games.rule.margin'), t('games.help.margin')),
    field(`${prefix}-margin_multiplier`, t('games.rule.margin_multiplier'), multiplier),
    toggle(`${prefix}-short`, t('games.rule.short_selling'), t('games.help.short_selling')),
    toggle(`${prefix}-options`, t('games.rule.options'), t('games.help.options'), true),
    toggle(`${prefix}-crypto`, t('games.rule.crypto'), t('games.help.crypto'), false),
    toggle(`${prefix}-forex`, t('games.rule.forex'), t('games.help.forex'), false),
    toggle(`${prefix}-day-trading`, t('games.rule.day_trading'), t('games.help.day_trading'), true),
    RULE_FIELDS.map(([f]) => field(`${prefix}-${f}`, t(`games.rule.${f}`), rules[f], t(`games.help.${f}`))),
  ];
  const checked = (id) => nodes.flat().map((n) => n.querySelector(`#${prefix}-${id}`)).find(Boolean).checked;
  function read() {
    const body = {
      margin: checked('margin'), short_selling: checked('short'), options: checked('options'),
      crypto: checked('crypto'), forex: checked('forex'), day_trading: checked('day-trading'),
    };
    if (body.margin) body.margin_multiplier = Number(multiplier.value);
    for (const [f, kind] of RULE_FIELDS) {
      const text = rules[f].value.trim();
      if (text) body[f] = kind === 'integer' ? Number(text) : text;
    }
    return body;
  }
  return { nodes, read };
}

function renderCreate(view, scope) {

  const name = input('g-name', { maxLength: 100, required: true });
  const description = h('textarea#g-description', { rows: 2, maxLength: 2000 });
  const market = h('select#g-market', h('option', { value: 'us' }, t('games.market.us')), h('option', { value: 'cn' }, t('games.market.cn')));
  const cash = input('g-cash', { inputMode: 'decimal', value: '100000' });
  const visibility = h('select#g-visibility', h('option', { value: 'private' }, t('games.visibility.private')), h('option', { value: 'public' }, t('games.visibility.public')));
  const starts = input('g-starts', { type: 'datetime-local' });
  const ends = input('g-ends', { type: 'datetime-local' });
  const maxPlayers = input('g-max-players', { inputMode: 'numeric' });
  const trading = rulesControls('g');
  const visible = h('select#g-portfolios_visible', ['after_end', 'always', 'never'].map((v) => h('option', { value: v }, t(`games.visible.${v}`))));
  const ranking = h('select#g-ranking', ['return', 'sharpe', 'excess_return'].map((v) => h('option', { value: v }, t(`games.ranking.${v}`))));
  const submit = h('button.primary.wide', { type: 'submit' }, t('games.create'));

  const form = h('form.card.game-form', { novalidate: true, 'aria-labelledby': 'game-create-title' },
    h('h2#game-create-title', t('games.about')),
    field('g-name', t('games.name'), name),
    field('g-description', t('games.description'), description),
    h('div.field-row', field('g-market', t('games.market'), market), field('g-cash', t('games.starting_cash'), cash)),
    field('g-visibility', t('games.visibility'), visibility, t('games.help.visibility')),
    h('div.field-row.dates', field('g-starts', t('games.starts_at'), starts), field('g-ends', t('games.ends_at'), ends)),
    h('p.field-help', t('games.help.dates')),
    toggle('g-late', t('games.late_entry'), t('games.help.late_entry'), true),
    toggle('g-play', t('games.play_too'), t('games.help.play_too'), true),
    field('g-max-players', t('games.max_players'), maxPlayers, t('games.help.max_players')),
    h('h2', t('games.rules')),
    h('p.sub', t('games.rules_intro')),
    trading.nodes,
    field('g-portfolios_visible', t('games.rule.portfolios_visible'), visible, t('games.help.portfolios_visible')),
    field('g-ranking', t('games.rule.ranking'), ranking, t('games.help.ranking')),
    submit);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = {
      name: name.value.trim(), description: description.value.trim(), market: market.value,
      starting_cash: cash.value.trim(), visibility: visibility.value,
      late_entry: form.querySelector('#g-late').checked,
      rules: { ...trading.read(), portfolios_visible: visible.value, ranking: ranking.value },
    };
    if (starts.value) body.starts_at = new Date(starts.value).toISOString();
    if (ends.value) body.ends_at = new Date(ends.value).toISOString();
    if (maxPlayers.value.trim()) body.max_players = Number(maxPlayers.value.trim());
    if (!body.name) { toast(t('games.need_name'), 'error'); name.focus(); return; }
    submit.disabled = true;
    try {
      const game = await api.post('/games', body);
      // A teacher may only run the game; a friend who starts one plays in it (the join goes by the game's code), and
      // is told that the app now shows the game account (one toast, saying both).
      let playing = false;
      if (form.querySelector('#g-play').checked) {
        try {
          const joined = await api.post(`/games/${api.enc(game.id)}/join`, game.join_code ? { code: game.join_code } : {});
          await store.refreshAccounts();
          if (joined.account_id) { store.selectAccount(joined.account_id); playing = true; }
        } catch (error) {
          toast(error.message, 'error');
        }
      }
      toast(t(playing ? 'games.created_playing' : 'games.created', { name: game.name }), 'success');
      scope.navigate(`games/${api.enc(game.id)}`);
    } catch (error) {
      toast(error.message, 'error');
      submit.disabled = false;
    }
  });
  clear(view, h('header.page-head', h('h1', t('games.create')), h('p.sub', t('games.create_intro'))), form);
}

// MARK: One game

function gameFacts(g) {
  return h('dl.facts',
    h('dt', t('games.market')), h('dd', t(`games.market.${g.market}`)),
    h('dt', t('games.starting_cash')), h('dd', F.money(g.starting_cash, g.currency, 0)),
    h('dt', t('games.starts_at')), h('dd', F.dateTime(g.starts_at)),
    h('dt', t('games.ends_at')), h('dd', g.ends_at ? F.dateTime(g.ends_at) : t('games.no_end')),
    h('dt', t('games.players_label')), h('dd', g.max_players ? `${g.players} / ${g.max_players}` : String(g.players)));
}

/** The game's rules in words, only those that limit something. */
function rulesList(g) {
  const r = g.rules;
  const money = (v) => F.money(v, g.currency);
  const lines = [
    r.commission_per_trade || r.commission_percent
      ? t('games.says.commission', { flat: money(r.commission_per_trade ?? '0'), percent: r.commission_percent ?? '0' })
      : t('games.says.real_fees'),
    r.margin ? t('games.says.margin', { n: r.margin_multiplier }) : t('games.says.no_margin'),
    r.short_selling ? t('games.says.short') : t('games.says.no_short'),
    g.market === 'us' ? t(r.options === false ? 'games.says.no_options' : 'games.says.options') : null,
    g.market === 'us' ? t(r.crypto ? 'games.says.crypto' : 'games.says.no_crypto') : null,
    g.market === 'us' && r.forex ? t('games.says.forex') : null,
    r.day_trading ? null : t('games.says.no_day_trading'),
    r.min_price_buy ? t('games.says.min_price_buy', { price: money(r.min_price_buy) }) : null,
    r.min_price_short && r.short_selling ? t('games.says.min_price_short', { price: money(r.min_price_short) }) : null,
    r.max_position_percent ? t('games.says.max_position', { percent: r.max_position_percent }) : null,
    r.max_volume_percent ? t('games.says.max_volume', { percent: r.max_volume_percent }) : null,
    r.quick_sell_minutes ? t('games.says.quick_sell', { n: r.quick_sell_minutes }) : null,
    r.max_trades_per_day ? t('games.says.max_trades', { n: r.max_trades_per_day }) : null,
    r.resets_allowed === null || r.resets_allowed === undefined ? t('games.says.resets_any')
      : r.resets_allowed === 0 ? t('games.says.no_resets') : t.count('games.says.resets', r.resets_allowed),
    t(`games.visible.${r.portfolios_visible}`),
    t(`games.ranking_says.${r.ranking}`),
  ].filter(Boolean);
  return h('ul.game-rules', lines.map((line) => h('li', line)));
}

async function renderGame(view, id, scope) {
  const path = `/games/${api.enc(id)}`;
  let game = await api.get(path);
  const head = h('header.page-head');
  const mine = h('section.card.my-standing', { 'aria-live': 'polite' });
  const board = h('section.card', { 'aria-labelledby': 'board-title' }, loading());
  const history = h('section.card', { 'aria-labelledby': 'history-title' });
  const about = h('section.card', { 'aria-labelledby': 'rules-title' });
  const tools = h('section.card', { 'aria-labelledby': 'tools-title' });
  clear(view, head, h('div.queue-grid', h('div', mine, board, history), h('div', about, tools)));
  const clock = h('span.countdown', countdown(game));

  function drawHead() {
    clear(head, h('h1', game.name), h(`span.status.${game.status === 'running' ? 'filled' : game.status === 'ended' ? 'expired' : 'pending'}`, t(`games.status.${game.status}`)), clock,
      game.description ? h('p.sub', game.description) : null);
    const invite = game.join_code ? h('div.invite',
      h('p', t('games.code'), ': ', h('strong.join-code', game.join_code)),
      h('p.field-help', t('games.invite_help')),
      h('div.field-row',
        h('input', { readOnly: true, value: game.invite_url, 'aria-label': t('games.invite_link'), onfocus: (e) => e.target.select() }),
        h('button', { type: 'button', onclick: () => copy(game.invite_url) }, t('games.copy_link')))) : null;
    clear(about, h('h2#rules-title', t('games.rules')), gameFacts(game), rulesList(game), invite);
    // Ending the game is final: it sits apart, under a line and its consequence, never beside "join" or "trade".
    const owner = game.is_owner ? [
      h('div.owner-tools',
        game.status !== 'ended' ? h('button', { type: 'button', onclick: edit }, t('games.edit')) : null,
        h('a.button', { href: `/api/v1${path}/export`, download: '' }, t('games.export'))),
      game.status !== 'ended' ? h('div.danger-zone', h('p.field-help', t('games.end_help')),
        h('button.danger', { type: 'button', onclick: endGame }, t('games.end'))) : null,
    ] : [];
    clear(tools, h('h2#tools-title', game.is_owner ? t('games.owner_tools') : t('games.play')),
      game.my_account_id && game.status !== 'ended'
        ? h('button.primary.wide', { type: 'button', onclick: tradeHere }, t('games.trade_here')) : null,
      !game.my_account_id && game.status !== 'ended'
        ? h('button.primary.wide', { type: 'button', onclick: (e) => join(game, game.join_code, e.currentTarget, scope) }, t('games.join')) : null,
      owner);
  }

  function tradeHere() {
    store.selectAccount(game.my_account_id);
    toast(t('games.trading_in', { name: game.name }), 'success');
    scope.navigate('');
  }

  async function copy(text) {
    try { await navigator.clipboard.writeText(text); toast(t('games.copied'), 'success'); } catch { toast(text); }
  }

  /** The owner's edit sheet: what may change once players have joined (the trading rules may not). */
  function edit() {
    const local = (iso) => { if (!iso) return ''; const d = new Date(iso); d.setMinutes(d.getMinutes() - d.getTimezoneOffset()); return d.toISOString().slice(0, 16); };
    sheet(t('games.edit'), (close) => {
      const name = h('input#e-name', { value: game.name, maxLength: 100 });
      const description = h('textarea#e-description', { rows: 2 }, game.description);
      const ends = h('input#e-ends', { type: 'datetime-local', value: local(game.ends_at) });
      const late = h('input#e-late', { type: 'checkbox', checked: game.late_entry });
      const most = h('input#e-max', { inputMode: 'numeric', value: game.max_players ?? '' });
      const visible = h('select#e-visible', ['after_end', 'always', 'never'].map((v) => h('option', { value: v, selected: v === game.rules.portfolios_visible }, t(`games.visible.${v}`))));
      const form = h('form.game-form', { novalidate: true },
        h('div.field', h('label', { for: 'e-name' }, t('games.name')), name),
        h('div.field', h('label', { for: 'e-description' }, t('games.description')), description),
        h('div.field', h('label', { for: 'e-ends' }, t('games.ends_at')), ends),
        h('div.field', h('label.switch', { for: 'e-late' }, late, t('games.late_entry'))),
        h('div.field', h('label', { for: 'e-max' }, t('games.max_players')), most),
        h('div.field', h('label', { for: 'e-visible' }, t('games.rule.portfolios_visible')), visible),
        h('p.field-help', t('games.edit_help')),
        h('button.primary.wide', { type: 'submit' }, t('games.save')));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const body = { name: name.value.trim(), description: description.value.trim(), late_entry: late.checked,
          portfolios_visible: visible.value, max_players: most.value.trim() ? Number(most.value.trim()) : null };
        if (ends.value && ends.value !== local(game.ends_at)) body.ends_at = new Date(ends.value).toISOString();
        try { game = await api.patch(path, body); toast(t('games.saved'), 'success'); close(); drawHead(); } catch (error) { toast(error.message, 'error'); }
      });
      return form;
    });
  }

  async function endGame() {
    if (!await confirmAction(t('games.end'), t('games.end_confirm', { name: game.name }), t('games.end'), { danger: true })) return;
    try { game = await api.post(`${path}/end`); toast(t('games.ended'), 'success'); drawHead(); load(); } catch (error) { toast(error.message, 'error'); }
  }

  async function removePlayer(entry) {
    if (!await confirmAction(t('games.remove'), t('games.remove_confirm', { player: entry.player }), t('games.remove'), { danger: true })) return;
    try { game = await api.post(`${path}/players/${api.enc(entry.account_id)}/remove`); toast(t('games.removed', { player: entry.player }), 'success'); load(); } catch (error) { toast(error.message, 'error'); }
  }

  async function showPortfolio(entry) {
    try {
      const p = await api.get(`${path}/players/${api.enc(entry.account_id)}/portfolio`);
      sheet(t('games.portfolio_of', { player: entry.player }), () => [
        h('p', t('games.equity'), ': ', h('strong', F.money(p.equity, game.currency)), ' · ', t('games.cash'), ': ', F.money(p.cash, game.currency)),
        p.positions.length ? h('ul.rows', p.positions.map((x) => h('li.row',
          h('span.row-main', h('span.sym', x.symbol), h('span.sub', x.name)),
          h('span.row-end', h('span.value', F.money(x.market_value, game.currency)), h('span.sub', F.holdingQty(x.symbol, x.qty)))))) : empty(t('games.no_positions')),
      ]);
    } catch (error) { toast(error.message, 'error'); }
  }

  function drawBoard(b) {
    const extra = b.ranking === 'sharpe' ? 'sharpe' : b.ranking === 'excess_return' ? 'excess_return' : null;
    const me = b.entries.find((e) => e.account_id === game.my_account_id);
    clear(mine, me
      ? [h('p.big-rank', t('games.your_rank', { rank: me.rank, n: b.entries.length })),
        h('p', h('span', t('games.return'), ': '), h(`span.chg.${F.direction(me.return)}`, F.percent(me.return, { fraction: true })),
          ' · ', t('games.equity'), ': ', F.money(me.equity, game.currency))]
      : h('p.sub', game.status === 'ended' ? t('games.final_note') : t('games.not_playing')));
    const header = h('tr', h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, t('games.player')), h('th', { scope: 'col' }, t('games.return')),
      extra ? h('th', { scope: 'col' }, t(`games.ranking.${extra}`)) : null,
      // On a phone the board keeps rank, player, return (and equity where it fits): it never scrolls sideways.
      h('th.not-narrow', { scope: 'col' }, t('games.equity')), h('th.wide-only', { scope: 'col' }, t('games.day_change')), h('th.wide-only', { scope: 'col' }, t('games.trades')),
      game.is_owner && game.status !== 'ended' ? h('th', { scope: 'col' }, h('span.sr-only', t('games.remove'))) : null);
    const rows = b.entries.map((e) => h('tr', { className: e.account_id === game.my_account_id ? 'me' : '', dataset: { account: e.account_id } },
      h('td', String(e.rank)),
      h('th', { scope: 'row' }, h('button.link', { type: 'button', onclick: () => showPortfolio(e) }, e.player)),
      h('td', h(`span.chg.${F.direction(e.return)}`, F.percent(e.return, { fraction: true }))),
      extra === 'sharpe' ? h('td', e.sharpe ? F.signedNumber(e.sharpe) : '—') : null,
      extra === 'excess_return' ? h('td', e.excess_return ? F.percent(e.excess_return, { fraction: true }) : '—') : null,
      h('td.not-narrow', F.money(e.equity, game.currency, 0)),
      h('td.wide-only', h(`span.chg.${F.direction(e.day_change)}`, F.signedMoney(e.day_change, game.currency))),
      h('td.wide-only', String(e.trades)),
      game.is_owner && game.status !== 'ended'
        ? h('td', h('button.link.danger.remove', { type: 'button', 'aria-label': t('games.remove_label', { player: e.player }), title: t('games.remove_label', { player: e.player }), onclick: () => removePlayer(e) }, '×')) : null));
    clear(board, h('div.card-head', h('h2#board-title', b.final ? t('games.final_standings') : t('games.leaderboard')),
      h('span.sub', t('games.as_of', { time: F.dateTime(b.as_of) }))),
    b.entries.length ? h('div.table-scroll', h('table.leaderboard', h('thead', header), h('tbody', rows))) : empty(t('games.no_players')),
    b.benchmark?.return ? h('p.field-help', t('games.benchmark', { index: F.indexName(b.benchmark.index, b.benchmark.index), r: F.percent(b.benchmark.return, { fraction: true }) })) : null);
  }

  async function drawHistory() {
    try {
      const { days } = await api.get(`${path}/history`);
      const mineByDay = days.map((d) => d.standings.find((s) => s.account_id === game.my_account_id)).filter(Boolean);
      clear(history, h('h2#history-title', t('games.rank_history')),
        mineByDay.length >= 2 ? rankChart(mineByDay.map((s) => s.rank), Math.max(...days.map((d) => d.standings.length)))
          : empty(game.my_account_id ? t('games.history_soon') : t('games.history_players')));
    } catch { clear(history); }
  }

  async function load() {
    try {
      const [g, b] = await Promise.all([api.get(path), api.get(`${path}/leaderboard`)]);
      game = g;
      drawHead();
      drawBoard(b);
    } catch (error) { clear(board, failure(error, load)); }
  }

  drawHead();
  const refresh = setInterval(() => { if (game.status !== 'ended') load(); }, 10000);
  const tick = setInterval(() => { clock.textContent = countdown(game); }, 1000);
  scope.onCleanup(() => { clearInterval(refresh); clearInterval(tick); });
  await load();
  drawHistory();
}

/** A small SVG line of ranks (1 at the top), one point per close. */
function rankChart(ranks, players) {
  const w = 300, hgt = 90, pad = 8;
  const worst = Math.max(players, ...ranks, 2);
  const x = (i) => pad + (i * (w - 2 * pad)) / Math.max(1, ranks.length - 1);
  const y = (r) => pad + ((r - 1) * (hgt - 2 * pad)) / (worst - 1);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  svg.setAttribute('class', 'rank-chart');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('games.rank_chart_label', { first: ranks[0], last: ranks[ranks.length - 1] }));
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', ranks.map((r, i) => `${x(i)},${y(r)}`).join(' '));
  svg.append(line);
  return svg;
}
