// Classes: the list (make one, join with a code), a teacher's desk — students and who is behind, assignments and a
// form that sets one, the grade book (CSV download), a roster import whose passwords are shown once, the journal and
// the rankings — and a student's — what is due, what is done and why, their journal, the rankings. Wide screens put
// the teacher's cards side by side; a phone stacks the student's.
import * as api from '../api.js';
import * as F from '../format.js';
import * as store from '../store.js';
import { t, addTexts } from '../i18n.js';
import { h, clear, toast, failure, empty, loading, confirmAction } from '../ui.js';
import { rulesControls } from './games.js';
import en from '../i18n/classes.en.js';
import zhHans from '../i18n/classes.zh-Hans.js';

addTexts({ en, 'zh-Hans': zhHans });
// The screens' own style sheet, linked once.
if (!document.querySelector('link[data-sheet=classes]')) {
  document.head.append(h('link', { rel: 'stylesheet', href: '/app/css/classes.css', dataset: { sheet: 'classes' } }));
}

export async function render(view, params, scope) {
  const [id, part, username] = params;
  if (!id) return renderList(view, scope);
  if (part === 'students' && username) return renderStudent(view, id, username);
  return renderClass(view, id, scope);
}

// MARK: List

async function renderList(view, scope) {
  const list = h('section.card', { 'aria-labelledby': 'classes-mine-title' }, loading());
  const field = (id, label, control, help) => h('div.field', h('label', { for: id }, label), control,
    help ? h('p.field-help', help) : null);
  const name = h('input#c-name', { autocomplete: 'off', maxLength: 100, required: true });
  const market = h('select#c-market', h('option', { value: 'us' }, t('games.market.us')), h('option', { value: 'cn' }, t('games.market.cn')));
  const cash = h('input#c-cash', { autocomplete: 'off', inputMode: 'decimal', value: '100000' });
  const journal = h('input#c-journal', { type: 'checkbox' });
  const trading = rulesControls('c');
  const create = h('form.card', { 'aria-labelledby': 'classes-new-title' },
    h('h2#classes-new-title', t('classes.create')),
    field('c-name', t('classes.name'), name), field('c-market', t('games.market'), market),
    field('c-cash', t('games.starting_cash'), cash),
    h('div.field', h('label.switch', { for: 'c-journal' }, journal, t('classes.require_journal')),
      h('p.field-help', t('classes.require_journal_help'))),
    // What students may trade and the limits on it: the class's game's rules (closed: most classes keep the defaults).
    h('details.class-rules', h('summary', t('classes.rules')), h('p.sub', t('classes.rules_intro')), trading.nodes),
    h('button.primary.wide', { type: 'submit' }, t('classes.create')));
  create.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!name.value.trim()) { toast(t('classes.need_name'), 'error'); name.focus(); return; }
    const button = create.querySelector('button');
    button.disabled = true;
    try {
      const made = await api.post('/classes', { name: name.value.trim(), market: market.value, starting_cash: cash.value.trim(), require_journal: journal.checked, rules: trading.read() });
      toast(t('classes.created', { name: made.name }), 'success');
      scope.navigate(`classes/${api.enc(made.id)}`);
    } catch (error) { toast(error.message, 'error'); button.disabled = false; }
  });
  const code = h('input#class-code', { autocomplete: 'off', autocapitalize: 'characters', placeholder: 'ABCD2345', maxLength: 12 });
  const join = h('form.card', { 'aria-labelledby': 'classes-join-title' },
    h('h2#classes-join-title', t('classes.join')),
    field('class-code', t('games.code'), code),
    h('button.primary.wide', { type: 'submit' }, t('classes.join_button')));
  join.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = code.value.replace(/\s+/g, '').toUpperCase();
    if (!text) { code.focus(); return; }
    try {
      const joined = await api.post('/classes/join', { code: text });
      await store.refreshAccounts();
      toast(t('classes.joined', { name: joined.name }), 'success');
      scope.navigate(`classes/${api.enc(joined.id)}`);
    } catch (error) { toast(error.message, 'error'); }
  });
  clear(view, h('header.page-head', h('h1', t('classes.title')), h('p.sub', t('classes.intro'))),
    h('div.queue-grid', list, h('div', join, create)));
  try {
    const classes = await api.get('/classes');
    clear(list, h('h2#classes-mine-title', t('classes.mine')), classes.length ? h('ul.rows', classes.map((c) =>
      h('li.row', { dataset: { id: c.id } }, h('a.row-link', { href: `#/classes/${api.enc(c.id)}` },
        h('span.row-main', h('span.sym', c.name), h('span.sub', [t(`classes.role.${c.role}`), t.count('classes.students', c.students)].join(' · '))),
        h('span.row-end', c.join_code ? h('span.code', c.join_code) : null))))) : empty(t('classes.none')));
  } catch (error) { clear(list, failure(error, () => renderList(view, scope))); }
}

// MARK: A class

async function renderClass(view, id, scope) {
  const base = `/classes/${api.enc(id)}`;
  const klass = await api.get(base);
  if (klass.role === 'teacher') return teacherDesk(view, klass, base, scope);
  return studentDesk(view, klass, base, scope);
}

/** A card whose body loads after the page shows. */
function card(id, title, ...extra) {
  return h('section.card', { 'aria-labelledby': `${id}-title`, dataset: { card: id } }, h(`h2#${id}-title`, title), ...extra);
}

/** Loads a card's body; what the card already holds (its title, its buttons) stays above it. */
async function fill(section, load, build) {
  const head = [...section.childNodes];
  section.append(loading());
  try {
    const data = await load();
    clear(section, ...head, build(data));
  } catch (error) { clear(section, ...head, failure(error, () => fill(section, load, build))); }
}

function classFacts(klass) {
  return [t(`games.market.${klass.market}`), F.money(klass.starting_cash, klass.market === 'cn' ? 'CNY' : 'USD', 0),
    t.count('classes.students', klass.students), klass.require_journal ? t('classes.journal_on') : null].filter(Boolean).join(' · ');
}

// MARK: Teacher

async function teacherDesk(view, klass, base, scope) {
  const students = card('class-students', t('classes.students_title'));
  const assignments = card('class-assignments', t('classes.assignments'));
  const gradebook = card('class-gradebook', t('classes.gradebook'),
    h('a.button', { href: `/api/v1${base}/gradebook?format=csv`, download: `gradebook-${klass.id.slice(0, 8)}.csv` }, t('classes.download_csv')),
    h('button', { type: 'button', onclick: () => window.print() }, t('classes.print')));
  // After an import or a new assignment the whole desk is drawn again, the class's figures included.
  const again = () => renderClass(view, klass.id, scope);
  const roster = card('class-roster', t('classes.import'), rosterForm(base, again));
  const journal = card('class-journal', t('classes.journal'),
    h('a.button', { href: `/api/v1${base}/journal?format=csv`, download: `journal-${klass.id.slice(0, 8)}.csv` }, t('classes.download_csv')));
  const rankings = card('class-rankings', t('classes.rankings'));
  const teams = card('class-teams', t('classes.teams_title'));
  const teachers = card('class-teachers', t('classes.teachers_title'),
    h('ul.rows', klass.teachers.map((name) => h('li.row', h('span.row-main', h('span.sym', name))))),
    teacherForm(base, again));
  clear(view, h('header.page-head', h('h1', klass.name),
    h('p.sub', classFacts(klass)),
    h('p.sub', t('classes.code_line', { code: klass.join_code }), ' ', h('a', { href: '#/classes' }, t('classes.all')))),
  h('div.class-desk', students, assignments, gradebook, roster, journal, rankings, teams, teachers));

  const [progress, list] = await Promise.all([api.get(`${base}/progress`).catch(() => []), api.get(`${base}/assignments`).catch(() => [])]);
  const now = Date.now();
  const due = list.filter((a) => new Date(a.due).getTime() <= now);
  clear(students, students.firstChild, progress.length ? h('ul.rows', progress
    .map((p) => ({ p, behind: due.filter((a) => !p.assignments.find((x) => x.assignment_id === a.id)?.done).length }))
    .sort((a, b) => b.behind - a.behind || a.p.student.username.localeCompare(b.p.student.username))
    .map(({ p, behind }) => h('li.row', { dataset: { student: p.student.username } },
      h('a.row-main', { href: `#/classes/${api.enc(klass.id)}/students/${api.enc(p.student.username)}` },
        h('span.sym', p.student.display_name),
        h('span.sub', [p.student.username, p.student.team ? t('classes.team_pill', { name: p.student.team }) : null].filter(Boolean).join(' · '))),
      h('span.row-end', h('span', t('classes.done_of', { done: p.assignments.filter((a) => a.done).length, total: p.assignments.length })),
        behind ? h('span.pill.late', t.count('classes.behind', behind)) : h('span.pill', t('classes.on_track'))))))
    : empty(t('classes.no_students')));

  const form = assignmentForm(base, again);
  async function remove(a) {
    if (!await confirmAction(t('classes.delete_title'), t('classes.delete_confirm', { title: a.title }), t('classes.delete'), { danger: true })) return;
    try {
      await api.del(`${base}/assignments/${api.enc(a.id)}`);
      toast(t('classes.deleted', { title: a.title }), 'success');
      again();
    } catch (error) { toast(error.message, 'error'); }
  }
  clear(assignments, assignments.firstChild,
    list.length ? h('ul.rows', list.map((a) => {
      const done = progress.filter((p) => p.assignments.find((x) => x.assignment_id === a.id)?.done).length;
      return h('li.row', { dataset: { assignment: a.id } },
        h('span.row-main', h('span.sym', a.title), h('span.sub', [t('classes.due', { date: F.dateTime(a.due) }), a.checks.map(checkName).join(', ')].join(' · '))),
        h('span.row-end', h('span', t('classes.done_of', { done, total: progress.length })),
          h('span.row-actions',
            h('button.secondary.small', { type: 'button', dataset: { action: 'edit' }, 'aria-label': t('classes.edit_named', { title: a.title }), onclick: () => form.edit(a) }, t('classes.edit')),
            h('button.secondary.small', { type: 'button', dataset: { action: 'delete' }, 'aria-label': t('classes.delete_named', { title: a.title }), onclick: () => remove(a) }, t('classes.delete')))));
    })) : empty(t('classes.no_assignments')),
    form);

  fill(gradebook, () => api.get(`${base}/gradebook`), (book) => book.students.length && book.assignments.length
    ? h('div.table-scroll', { tabindex: '0', role: 'region', 'aria-labelledby': 'class-gradebook-title' }, h('table.gradebook',
      h('thead', h('tr', h('th', { scope: 'col' }, t('classes.student')), book.assignments.map((a) => h('th', { scope: 'col' }, a.title)))),
      h('tbody', book.students.map((s) => h('tr', h('th', { scope: 'row' }, s.display_name),
        s.cells.map((c) => h(`td.${c.done ? 'done' : c.mark ? 'marked' : 'open'}`, c.mark ?? t(c.done ? 'classes.cell.done' : 'classes.cell.not_done'))))))))
    : empty(t('classes.no_grades')));
  fill(journal, () => api.get(`${base}/journal`), (lines) => journalList(lines.slice(0, 50), true));
  fill(rankings, () => api.get(`${base}/rankings`), rankingTable);
  fill(teams, () => api.get(`${base}/teams`), (list) => teamsCard(base, list, progress.map((p) => p.student), again));
}

/** The class's teams, each with a button to disband it, and the form that makes one from students in none. */
function teamsCard(base, list, students, done) {
  async function disband(team) {
    if (!await confirmAction(t('classes.disband_title'), t('classes.disband_confirm', { name: team.name }), t('classes.disband'), { danger: true })) return;
    try {
      await api.del(`${base}/teams/${api.enc(team.name)}`);
      toast(t('classes.team_disbanded', { name: team.name }), 'success');
      done();
    } catch (error) { toast(error.message, 'error'); }
  }
  const free = students.filter((s) => !s.team && !s.removed_at);
  const name = h('input#team-name', { autocomplete: 'off', maxLength: 40 });
  const boxes = free.map((s) => h('input', { type: 'checkbox', value: s.username, id: `team-${s.username}` }));
  const error = h('p.form-error', { role: 'alert', hidden: true });
  const form = h('form.team-form', { 'aria-labelledby': 'team-form-title' },
    h('h3#team-form-title', t('classes.form_team')),
    h('p.field-help', t('classes.team_help')),
    h('div.field', h('label', { for: 'team-name' }, t('classes.team_name')), name),
    free.length ? h('fieldset', h('legend', t('classes.team_members')),
      free.map((s, i) => h('div.check-line', h('label.switch', { for: `team-${s.username}` }, boxes[i], `${s.display_name} (${s.username})`))))
      : h('p.sub', t('classes.no_eligible')),
    error, h('button.secondary', { type: 'submit', disabled: free.length < 2 }, t('classes.form_team')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const members = boxes.filter((b) => b.checked).map((b) => b.value);
    const say = (text) => { error.textContent = text; error.hidden = false; };
    if (!name.value.trim()) { name.focus(); return say(t('classes.need_team_name')); }
    if (members.length < 2 || members.length > 5) return say(t('classes.pick_members'));
    try {
      await api.post(`${base}/teams`, { name: name.value.trim(), members });
      toast(t('classes.team_formed', { name: name.value.trim() }), 'success');
      done();
    } catch (err) { say(err.message); }
  });
  return h('div', list.length ? h('ul.rows', list.map((team) => h('li.row', { dataset: { team: team.name } },
    h('span.row-main', h('span.sym', team.name), h('span.sub', team.members.map((m) => m.display_name).join(', '))),
    h('span.row-end', h('button.secondary.small', { type: 'button', 'aria-label': t('classes.disband_named', { name: team.name }), onclick: () => disband(team) }, t('classes.disband'))))))
    : empty(t('classes.no_teams')), form);
}

function rosterForm(base, done) {
  const text = h('textarea#roster-csv', { rows: 5, placeholder: 'username,display_name,email\nwei,Li Wei,\n', spellcheck: false, 'aria-describedby': 'roster-help' });
  const file = h('input#roster-file', { type: 'file', accept: '.csv,text/csv' });
  file.addEventListener('change', async () => { if (file.files?.[0]) text.value = await file.files[0].text(); });
  const result = h('div.roster-result', { 'aria-live': 'polite' });
  const form = h('form.roster-form',
    h('p.field-help#roster-help', t('classes.import_help')),
    h('div.field', h('label', { for: 'roster-file' }, t('classes.import_file')), file),
    h('div.field', h('label', { for: 'roster-csv' }, t('classes.import_text')), text),
    h('button.primary', { type: 'submit' }, t('classes.import_button')), result);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!text.value.trim()) { text.focus(); return; }
    try {
      const { students } = await api.postText(`${base}/roster`, text.value, 'text/csv');
      text.value = '';
      clear(result, h('p.notice', t('classes.passwords_once', { n: students.length })),
        h('div.table-scroll', { tabindex: '0', role: 'region', 'aria-label': t('classes.passwords') }, h('table.passwords',
          h('thead', h('tr', [t('classes.student'), t('classes.username'), t('classes.password')].map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', students.map((s) => h('tr', h('td', s.display_name), h('td', s.username), h('td.mono', s.initial_password)))))),
        h('button', { type: 'button', onclick: () => window.print() }, t('classes.print')),
        h('button', { type: 'button', onclick: done }, t('classes.done')));
    } catch (error) { clear(result, h('p.form-error', { role: 'alert' }, error.message)); }
  });
  return form;
}

/** Adds a co-teacher by username: they see and run the class as its maker does. */
function teacherForm(base, done) {
  const name = h('input#t-username', { autocomplete: 'off', autocapitalize: 'none', spellcheck: false, maxLength: 40 });
  const form = h('form.teacher-form', h('div.field', h('label', { for: 't-username' }, t('classes.add_teacher_label')), name),
    h('p.field-help', t('classes.add_teacher_help')),
    h('button.secondary', { type: 'submit' }, t('classes.add_teacher')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!name.value.trim()) { name.focus(); return; }
    try {
      await api.post(`${base}/teachers`, { username: name.value.trim() });
      toast(t('classes.teacher_added', { username: name.value.trim() }), 'success');
      done();
    } catch (error) { toast(error.message, 'error'); }
  });
  return form;
}

/** The new-assignment form: a title, a due time, and the checks a teacher ticks. `form.edit(a)` loads an assignment
 * into it to change (its marks stay); saving or canceling turns it back into the new-assignment form. */
function assignmentForm(base, done) {
  let editing = null;
  const title = h('input#a-title', { autocomplete: 'off', maxLength: 120 });
  const dueInput = h('input#a-due', { type: 'datetime-local' });
  const number = (id, value) => h(`input#${id}`, { inputMode: 'numeric', autocomplete: 'off', value, size: 4 });
  const trades = number('a-trades', '3');
  const holdings = number('a-holdings', '5');
  const position = number('a-position', '25');
  const task = h('input#a-task', { autocomplete: 'off', maxLength: 500 });
  const box = (id) => h(`input#${id}`, { type: 'checkbox' });
  const checks = {
    trades: box('ac-trades'), stop: box('ac-stop'), holdings: box('ac-holdings'), position: box('ac-position'),
    journal: box('ac-journal'), benchmark: box('ac-benchmark'), task: box('ac-task'),
  };
  const line = (id, ...label) => h('div.check-line', h('label.switch', { for: id }, checks[id.slice(3)], ...label));
  const form = h('form.assignment-form', { 'aria-labelledby': 'a-form-title' },
    h('h3#a-form-title', t('classes.new_assignment')),
    h('div.field', h('label', { for: 'a-title' }, t('classes.assignment_title')), title),
    h('div.field', h('label', { for: 'a-due' }, t('classes.due_label')), dueInput),
    h('fieldset', h('legend', t('classes.checks')),
      line('ac-trades', t('classes.form.trades')), h('label.inline', { for: 'a-trades' }, t('classes.form.count'), trades),
      line('ac-stop', t('classes.form.stop')),
      line('ac-holdings', t('classes.form.holdings')), h('label.inline', { for: 'a-holdings' }, t('classes.form.count'), holdings),
      line('ac-position', t('classes.form.position')), h('label.inline', { for: 'a-position' }, t('classes.form.percent'), position),
      line('ac-journal', t('classes.form.journal')),
      line('ac-benchmark', t('classes.form.benchmark')),
      line('ac-task', t('classes.form.task')), h('label.inline', { for: 'a-task' }, t('classes.form.task_text'), task)),
    h('div.actions', h('button.primary#a-submit', { type: 'submit' }, t('classes.assign')),
      h('button.secondary#a-cancel', { type: 'button', hidden: true, onclick: () => reset() }, t('ui.cancel'))));
  const heading = form.querySelector('#a-form-title');
  const submit = form.querySelector('#a-submit');
  const cancel = form.querySelector('#a-cancel');
  function reset() {
    editing = null;
    form.reset();
    heading.textContent = t('classes.new_assignment');
    submit.textContent = t('classes.assign');
    cancel.hidden = true;
  }
  /** Loads an assignment's title, due time (in this browser's zone) and checks into the form. */
  form.edit = (a) => {
    reset();
    editing = a;
    title.value = a.title;
    const due = new Date(a.due);
    dueInput.value = new Date(due.getTime() - due.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    for (const c of a.checks) {
      switch (c.kind) {
        case 'trades': checks.trades.checked = true; trades.value = String(c.count); break;
        case 'order_type': checks.stop.checked = true; break;
        case 'holdings': checks.holdings.checked = true; holdings.value = String(c.count); break;
        case 'max_position': checks.position.checked = true; position.value = String(c.percent); break;
        case 'journal': checks.journal.checked = true; break;
        case 'beat_benchmark': checks.benchmark.checked = true; break;
        case 'task': checks.task.checked = true; task.value = c.text; break;
      }
    }
    heading.textContent = t('classes.edit_assignment', { title: a.title });
    submit.textContent = t('classes.save');
    cancel.hidden = false;
    form.scrollIntoView({ block: 'nearest' });
    title.focus();
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const list = [];
    if (checks.trades.checked) list.push({ kind: 'trades', count: Number(trades.value) });
    // (An assignment set through the API with other order types keeps them while the box stays ticked.)
    const types = editing?.checks.find((c) => c.kind === 'order_type')?.types ?? ['stop', 'stop_limit', 'trailing_stop', 'limit'];
    if (checks.stop.checked) list.push({ kind: 'order_type', types });
    if (checks.holdings.checked) list.push({ kind: 'holdings', count: Number(holdings.value), by: 'symbols' });
    if (checks.position.checked) list.push({ kind: 'max_position', percent: position.value.trim() });
    if (checks.journal.checked) list.push({ kind: 'journal' });
    if (checks.benchmark.checked) list.push({ kind: 'beat_benchmark' });
    if (checks.task.checked) list.push({ kind: 'task', text: task.value.trim() });
    if (!title.value.trim()) { toast(t('classes.need_title'), 'error'); title.focus(); return; }
    if (!dueInput.value) { toast(t('classes.need_due'), 'error'); dueInput.focus(); return; }
    if (!list.length) { toast(t('classes.need_check'), 'error'); return; }
    const body = { title: title.value.trim(), due: new Date(dueInput.value).toISOString(), checks: list };
    try {
      if (editing) {
        await api.patch(`${base}/assignments/${api.enc(editing.id)}`, body);
        toast(t('classes.saved', { title: body.title }), 'success');
      } else {
        await api.post(`${base}/assignments`, body);
        toast(t('classes.assigned', { title: body.title }), 'success');
      }
      done();
    } catch (error) { toast(error.message, 'error'); }
  });
  return form;
}

// MARK: A student's report (their teacher's view)

async function renderStudent(view, id, username) {
  const base = `/classes/${api.enc(id)}`;
  const [report, klass] = await Promise.all([api.get(`${base}/students/${api.enc(username)}`), api.get(base).catch(() => null)]);
  const teaching = klass?.role === 'teacher';
  const s = report.student;
  const currency = report.currency ?? 'USD';
  const holdings = card('student-holdings', t('classes.report.holdings'), (report.positions ?? []).length
    ? h('ul.rows', report.positions.map((p) => h('li.row', h('span.row-main', h('span.sym', p.symbol), h('span.sub', F.shares(p.qty))),
      h('span.row-end', F.money(p.market_value, currency)))))
    : empty(t('classes.report.no_holdings')));
  const now = Date.now();
  const again = () => renderStudent(view, id, username);
  const work = card('student-work', t('classes.assignments'), report.assignments.length
    ? h('ul.assignments', report.assignments.map((a) => {
      const item = assignmentItem(a, now);
      // A teacher marks the work the ledger cannot check (a task), or gives any assignment a grade.
      if (teaching) item.append(markForm(base, a, username, again));
      return item;
    })) : empty(t('classes.no_assignments')));
  const trades = card('student-journal', t('classes.report.orders'), report.orders.length
    ? h('ul.rows.journal', report.orders.map((o) => h('li.row',
      h('span.row-main', h('span.sym', `${t(`trade.${o.side}`)} ${o.symbol} · ${F.shares(o.filled_qty)}/${o.qty ? F.shares(o.qty) : '—'}`),
        o.note ? h('span.note', o.note) : h('span.sub', t('classes.report.no_note'))),
      h('span.row-end.sub', F.dateTime(o.created_at)))))
    : empty(t('classes.report.no_orders')));
  const chart = card('student-chart', t('classes.report.chart'), report.closes.length >= 2
    ? equityChart(report.closes, klass?.starting_cash, currency) : empty(t('classes.report.chart_wait')));
  const closes = report.closes.slice(-10).reverse();
  const history = card('student-closes', t('classes.report.closes'), closes.length
    ? h('ul.rows', closes.map((c) => h('li.row', h('span.row-main', F.calendarDate(c.date)), h('span.row-end', F.money(c.equity, currency)))))
    : empty(t('classes.report.no_closes')));
  clear(view, h('header.page-head', h('h1', s.display_name),
    h('p.sub', [s.username, report.equity ? t('classes.report.equity', { amount: F.money(report.equity, currency) }) : null,
      s.last_login_at ? t('classes.report.last_login', { time: F.dateTime(s.last_login_at) }) : t('classes.report.never')].filter(Boolean).join(' · ')),
    h('p.sub', h('a', { href: `#/classes/${api.enc(id)}` }, t('classes.report.back')))),
  h('div.class-desk', chart, work, holdings, trades, history, teaching ? studentTools(base, klass, report, currency, again) : null));
}

/** Equity at each close since the class began, as a line over the starting cash: an SVG a teacher reads at a glance
 * (no chart library to load for it); its label says the first and last closes, the highest and the lowest. (Numbers
 * here only place points on the drawing: the amounts shown are the server's decimals.) */
function equityChart(closes, start, currency) {
  const width = 600, height = 180, pad = 8;
  const values = closes.map((c) => Number(c.equity));
  const base = start === undefined ? null : Number(start);
  const low = Math.min(...values, base ?? Infinity), high = Math.max(...values, base ?? -Infinity);
  const span = high - low || 1;
  const x = (i) => pad + (i * (width - 2 * pad)) / (closes.length - 1);
  const y = (v) => pad + ((high - v) * (height - 2 * pad)) / span;
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  const highest = closes[values.indexOf(Math.max(...values))];
  const lowest = closes[values.indexOf(Math.min(...values))];
  const label = t('classes.report.chart_label', {
    first: F.money(closes[0].equity, currency), from: F.calendarDate(closes[0].date),
    last: F.money(closes[closes.length - 1].equity, currency), to: F.calendarDate(closes[closes.length - 1].date),
    high: F.money(highest.equity, currency), low: F.money(lowest.equity, currency), days: closes.length,
  });
  for (const [k, v] of Object.entries({ viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label, class: 'equity-chart', preserveAspectRatio: 'none' })) svg.setAttribute(k, v);
  const add = (name, attributes) => {
    const el = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, v);
    svg.append(el);
  };
  if (base !== null) add('line', { x1: pad, x2: width - pad, y1: y(base), y2: y(base), class: 'baseline' });
  add('polyline', { points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' '), class: 'equity', fill: 'none' });
  const last = values[values.length - 1];
  add('circle', { cx: x(values.length - 1), cy: y(last), r: 4, class: base !== null && last < base ? 'end down' : 'end' });
  return h('figure.equity-figure', svg,
    h('figcaption.sub', t('classes.report.chart_caption', { first: F.money(closes[0].equity, currency), last: F.money(closes[closes.length - 1].equity, currency) })));
}

/** A teacher's mark of one student's assignment: the grade book's cell. */
function markForm(base, a, username, done) {
  const id = `mark-${a.assignment_id}`;
  const input = h(`input#${id}`, { autocomplete: 'off', maxLength: 40, size: 6, value: a.mark ?? '' });
  const form = h('form.mark-form', h('label', { for: id }, t('classes.tools.mark')), input,
    h('button.secondary.small', { type: 'submit' }, t('classes.tools.save_mark')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!input.value.trim()) { input.focus(); return; }
    try {
      await api.put(`${base}/assignments/${api.enc(a.assignment_id)}/marks/${api.enc(username)}`, { mark: input.value.trim() });
      toast(t('classes.tools.marked', { title: a.title, mark: input.value.trim() }), 'success');
      done();
    } catch (error) { toast(error.message, 'error'); }
  });
  return form;
}

/** The teacher's tools for one student: cash adjusted with a reason, a new password shown once, the portfolio
 * started over, the student taken off the roster. Each says what it does before it does it. */
function studentTools(base, klass, report, currency, done) {
  const who = report.student.username;
  const path = `${base}/students/${api.enc(who)}`;
  const amount = h('input#tool-amount', { inputMode: 'decimal', autocomplete: 'off', placeholder: '500.00' });
  const reason = h('input#tool-reason', { autocomplete: 'off', maxLength: 200 });
  const cash = h('form.cash-form', { 'aria-labelledby': 'tool-cash-title' },
    h('h3#tool-cash-title', t('classes.tools.cash')),
    h('p.sub', t('classes.tools.cash_help')),
    h('div.field', h('label', { for: 'tool-amount' }, t('classes.tools.amount', { currency })), amount),
    h('div.field', h('label', { for: 'tool-reason' }, t('classes.tools.reason')), reason),
    h('button.primary', { type: 'submit' }, t('classes.tools.adjust')));
  cash.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!/^-?\d+(\.\d{1,2})?$/.test(amount.value.trim()) || Number(amount.value) === 0) { toast(t('classes.tools.need_amount'), 'error'); amount.focus(); return; }
    if (!reason.value.trim()) { toast(t('classes.tools.need_reason'), 'error'); reason.focus(); return; }
    try {
      await api.post(`${path}/cash`, { amount: amount.value.trim(), reason: reason.value.trim() });
      toast(t('classes.tools.adjusted', { amount: F.money(amount.value.trim(), currency) }), 'success');
      done();
    } catch (error) { toast(error.message, 'error'); }
  });
  const shown = h('div.tool-result', { 'aria-live': 'polite' });
  async function password() {
    if (!await confirmAction(t('classes.tools.password'), t('classes.tools.password_confirm', { name: report.student.display_name }), t('classes.tools.password'))) return;
    try {
      const answer = await api.post(`${path}/password`);
      clear(shown, h('p.notice', t('classes.tools.password_shown', { username: answer.username })),
        h('p', h('code.password', answer.initial_password)));
    } catch (error) { toast(error.message, 'error'); }
  }
  async function startOver() {
    if (!await confirmAction(t('classes.tools.reset'), t('classes.tools.reset_confirm', { name: report.student.display_name, cash: F.money(klass.starting_cash, currency, 0) }), t('classes.tools.reset'), { danger: true })) return;
    try { await api.post(`${path}/reset`); toast(t('classes.tools.reset_done'), 'success'); done(); } catch (error) { toast(error.message, 'error'); }
  }
  async function remove() {
    if (!await confirmAction(t('classes.tools.remove'), t('classes.tools.remove_confirm', { name: report.student.display_name }), t('classes.tools.remove'), { danger: true })) return;
    try {
      await api.del(path);
      toast(t('classes.tools.removed', { name: report.student.display_name }), 'success');
      location.hash = `#${base}`;
    } catch (error) { toast(error.message, 'error'); }
  }
  return card('student-tools', t('classes.tools.title'), cash,
    h('div.actions', h('button.secondary', { type: 'button', dataset: { action: 'password' }, onclick: password }, t('classes.tools.password')),
      h('button.secondary', { type: 'button', dataset: { action: 'reset' }, onclick: startOver }, t('classes.tools.reset')),
      h('button.danger', { type: 'button', dataset: { action: 'remove' }, onclick: remove }, t('classes.tools.remove'))),
    shown);
}

// MARK: Student

async function studentDesk(view, klass, base, scope) {
  const due = card('class-due', t('classes.what_due'));
  const finished = card('class-done', t('classes.what_done'));
  const journal = card('class-journal', t('classes.my_journal'));
  const rankings = card('class-rankings', t('classes.rankings'));
  // (The route changes first: selecting another account re-renders the route, which is then home.)
  const trade = h('button.primary', { type: 'button', onclick: () => {
    scope.navigate('');
    if (store.state.accountId !== klass.account_id) store.selectAccount(klass.account_id);
  } }, t('classes.trade'));
  const team = klass.team ? h('p.sub.team-line', t('classes.team_pill', { name: klass.team })) : null;
  clear(view, h('header.page-head', h('h1', klass.name), h('p.sub', classFacts(klass)),
    h('p.sub', t('classes.teachers', { names: klass.teachers.join(', ') })), team, klass.account_id ? trade : null),
  h('div.class-desk.student', due, finished, journal, rankings));
  if (team) {
    api.get(`${base}/teams`).then(([mine]) => {
      if (mine) team.textContent = t('classes.team_line', { name: mine.name, names: mine.members.map((m) => m.display_name).join(', ') });
    }).catch(() => {});
  }
  try {
    const [mine] = await api.get(`${base}/progress`);
    const now = Date.now();
    const open = (mine?.assignments ?? []).filter((a) => !a.done);
    const done = (mine?.assignments ?? []).filter((a) => a.done);
    clear(due, due.firstChild, open.length ? h('ul.assignments', open.map((a) => assignmentItem(a, now))) : empty(t('classes.nothing_due')));
    clear(finished, finished.firstChild, done.length ? h('ul.assignments', done.map((a) => assignmentItem(a, now))) : empty(t('classes.nothing_done')));
  } catch (error) { clear(due, due.firstChild, failure(error, () => studentDesk(view, klass, base, scope))); }
  fill(journal, () => api.get(`${base}/journal`), (lines) => journalList(lines, false));
  fill(rankings, () => api.get(`${base}/rankings`), rankingTable);
}

function assignmentItem(a, now) {
  const late = new Date(a.due).getTime() < now;
  return h('li.assignment', { dataset: { assignment: a.assignment_id } },
    h('div.assignment-head', h('span.sym', a.title),
      h(`span.pill${a.done ? '.done' : late ? '.late' : ''}`, a.mark ?? t(a.done ? 'classes.cell.done' : late ? 'classes.late' : 'classes.open')),
      h('span.sub', t('classes.due', { date: F.dateTime(a.due) }))),
    h('ul.checks', a.checks.map((c) => h(`li.${c.done ? 'done' : 'open'}`,
      h('span.mark', { 'aria-hidden': 'true' }, c.done ? '✓' : '○'),
      h('span.sr-only', t(c.done ? 'classes.check_done' : 'classes.check_open')),
      h('span', checkWords(c, a.mark))))));
}

/** What a check asks, in a few words (the teacher's list). */
function checkName(c) {
  switch (c.kind) {
    case 'trades': return t.count('classes.name.trades', c.count);
    case 'order_type': return t('classes.name.order_type', { types: c.types.map((x) => t(`trade.type.${x}`)).join(' / ') });
    case 'holdings': return t.count(c.by === 'sectors' ? 'classes.name.sectors' : 'classes.name.holdings', c.count);
    case 'max_position': return t('classes.name.max_position', { percent: c.percent });
    case 'task': return c.text;
    default: return t(`classes.name.${c.kind}`);
  }
}

/** A check's state in the reader's language, from its figures (the API's detail is English). */
function checkWords(p, mark) {
  const c = p.check;
  const pct = (v) => F.percent(v, { fraction: true });
  switch (c.kind) {
    case 'trades': return t('classes.words.trades', { count: p.count, needed: p.needed });
    case 'order_type': return p.done ? t('classes.words.order_type_done', { types: checkName(c) }) : t('classes.words.order_type', { types: checkName(c) });
    case 'holdings': return t(c.by === 'sectors' ? 'classes.words.sectors' : 'classes.words.holdings', { count: p.count, needed: p.needed, symbols: p.symbols.join(', ') || '—' });
    case 'max_position': return p.value === undefined ? t('classes.words.not_recorded')
      : p.done ? t('classes.words.max_position_ok', { value: F.signedNumber(p.value).replace(/^\+/, ''), limit: c.percent })
        : t('classes.words.max_position_over', { symbols: p.symbols.join(', '), limit: c.percent });
    case 'journal': return p.needed ? t('classes.words.journal', { count: p.count, needed: p.needed }) : t('classes.words.no_trades');
    case 'beat_benchmark': return p.value === undefined || p.limit === undefined ? t('classes.words.no_benchmark')
      : t('classes.words.beat_benchmark', { mine: pct(p.value), index: pct(p.limit) });
    case 'task': return mark ? t('classes.words.task_marked', { text: c.text, mark }) : t('classes.words.task', { text: c.text });
    default: return p.detail;
  }
}

function journalList(lines, withNames) {
  const noted = lines.filter((l) => l.order.note);
  if (!noted.length) return empty(t('classes.no_notes'));
  // (A team's order is its team's: the shared account does not say which member placed it.)
  const who = (name, team) => (team ? t('classes.team_pill', { name: team }) : withNames ? name : null);
  return h('ul.rows.journal', noted.map(({ display_name: name, team, order: o }) => h('li.row',
    h('span.row-main', h('span.sym', [who(name, team), `${t(`trade.${o.side}`)} ${o.symbol}`].filter(Boolean).join(' · ')),
      h('span.note', o.note)),
    h('span.row-end.sub', F.dateTime(o.created_at)))));
}

function rankingTable(r) {
  if (!r.students.length) return empty(t('classes.no_students'));
  const ratio = (v) => (v == null ? '—' : F.signedNumber(v).replace(/^\+/, ''));
  const pct = (v) => (v == null ? '—' : F.percent(v, { fraction: true }));
  // Each heading's definition (as the backtest report words it) shows on hover.
  const headers = [['#', null], [t('classes.student'), null], [t('classes.rank.return'), null],
    [t('backtest.sharpe'), 'backtest.def.sharpe'], [t('backtest.sortino'), 'backtest.def.sortino'],
    [t('classes.rank.drawdown'), 'backtest.def.max_drawdown'], ['α', 'classes.def.alpha'], ['β', 'classes.def.beta'],
    [t('classes.rank.treynor'), 'classes.def.treynor'], [t('classes.rank.trades'), null]];
  return h('div.table-scroll', { tabindex: '0', role: 'region', 'aria-labelledby': 'class-rankings-title' }, h('table.rankings',
    h('thead', h('tr', headers.map(([label, key]) => h('th', { scope: 'col', title: key ? t(key) : undefined }, label)))),
    h('tbody', r.students.map((s) => h('tr',
      h('td', String(s.rank)), h('th', { scope: 'row' }, s.team ? [s.team, h('span.sub.members', s.members.join(', '))] : s.display_name), h('td', pct(s.return)), h('td', ratio(s.sharpe)),
      h('td', ratio(s.sortino)), h('td', pct(s.max_drawdown)), h('td', pct(s.alpha)), h('td', ratio(s.beta)), h('td', pct(s.treynor)), h('td', String(s.trades)))))),
  h('p.field-help', t('classes.rank.help')));
}
