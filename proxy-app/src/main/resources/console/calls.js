// Calls: the landing page. Recent calls newest first, filtered by route, status, bizId, task;
// live (the first page is read again every 5 s while the box is ticked).
import { api, enc, h, statusBadge, text, when } from './lib.js';

const FILTERS = ['route', 'status', 'bizId', 'task'];
const REFRESH_MS = 5000;

function query(filters, cursor) {
  const q = new URLSearchParams();
  for (const f of FILTERS) {
    if (filters[f]) {
      q.set(f, filters[f]);
    }
  }
  q.set('limit', '50');
  if (cursor) {
    q.set('cursor', cursor);
  }
  return '/calls?' + q.toString();
}

function row(c) {
  return h('tr', { 'data-call': c.callId },
    h('td', { 'data-label': 'Started' }, when(c.createdAt)),
    h('td', { 'data-label': 'Call id' }, h('a', { href: '#/calls/' + enc(c.callId), class: 'mono' }, c.callId)),
    h('td', { 'data-label': 'Route' }, c.route),
    h('td', { 'data-label': 'Status' }, statusBadge(c.status)),
    h('td', { 'data-label': 'HTTP' }, text(c.httpStatus)),
    h('td', { 'data-label': 'Tries' }, c.attempts),
    h('td', { 'data-label': 'Reason' }, text(c.reason)),
    h('td', { 'data-label': 'Task' }, text(c.taskId)),
    h('td', { 'data-label': 'Business id' }, text(c.bizId)));
}

export async function callsPage() {
  const params = new URLSearchParams(location.hash.split('?')[1] || '');
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) || '']));
  const first = await api(query(filters));
  const tbody = h('tbody', {}, first.body.calls.map(row));
  const empty = h('p', { class: 'muted', hidden: first.body.calls.length > 0 }, 'No calls match. A call appears here as soon as its key is claimed.');
  let next = first.body.nextCursor;
  const more = h('button', {
    type: 'button',
    hidden: !next,
    onclick: async () => {
      const page = await api(query(filters, next));
      tbody.append(...page.body.calls.map(row));
      next = page.body.nextCursor;
      more.hidden = !next;
    },
  }, 'Older calls');
  const live = h('input', { type: 'checkbox', id: 'live', checked: true });
  const updated = h('span', { class: 'muted', id: 'updated' }, 'Updated ' + new Date().toLocaleTimeString());

  const field = (name, label, input) => h('div', { class: 'field' }, h('label', { for: 'f-' + name }, label), input);
  const inputs = {
    route: h('input', { id: 'f-route', name: 'route', value: filters.route }),
    status: h('select', { id: 'f-status', name: 'status' },
      ['', 'PROCESSING', 'SUCCESS', 'FAILED'].map((s) => h('option', { value: s, selected: s === filters.status }, s || 'any'))),
    bizId: h('input', { id: 'f-bizId', name: 'bizId', value: filters.bizId }),
    task: h('input', { id: 'f-task', name: 'task', value: filters.task }),
  };
  const form = h('form', {
    class: 'filters',
    role: 'search',
    onsubmit: (ev) => {
      ev.preventDefault();
      const q = new URLSearchParams();
      for (const f of FILTERS) {
        if (inputs[f].value.trim()) {
          q.set(f, inputs[f].value.trim());
        }
      }
      location.hash = '#/calls' + (q.toString() ? '?' + q.toString() : '');
    },
  },
  field('route', 'Route', inputs.route), field('status', 'Status', inputs.status),
  field('bizId', 'Business id', inputs.bizId), field('task', 'Task', inputs.task),
  h('div', { class: 'field buttons' }, h('button', { type: 'submit' }, 'Filter'),
    h('a', { href: '#/calls', class: 'button quiet' }, 'Clear')));

  const timer = setInterval(async () => {
    if (!live.checked || document.hidden || tbody.contains(document.activeElement)) {
      return;
    }
    try {
      const page = await api(query(filters));
      tbody.replaceChildren(...page.body.calls.map(row));
      empty.hidden = page.body.calls.length > 0;
      updated.textContent = 'Updated ' + new Date().toLocaleTimeString();
    } catch (e) {
      updated.textContent = 'Not updated: ' + e.message;
    }
  }, REFRESH_MS);

  const node = h('section', { 'aria-labelledby': 'calls-title' },
    h('h1', { id: 'calls-title' }, 'Calls'),
    h('p', { class: 'muted' }, 'Protected calls, newest first. PROCESSING: in flight; SUCCESS: answered and stored; FAILED: ended unsuccessfully (see the reason).'),
    form,
    h('div', { class: 'live' }, live, h('label', { for: 'live' }, 'Live: read again every 5 s'), ' ', updated),
    h('div', { class: 'table-wrap' }, h('table', { class: 'calls' },
      h('caption', { class: 'visually-hidden' }, 'Recent calls'),
      h('thead', {}, h('tr', {}, ['Started', 'Call id', 'Route', 'Status', 'HTTP', 'Tries', 'Reason', 'Task', 'Business id']
        .map((t) => h('th', { scope: 'col' }, t)))),
      tbody)),
    empty, more);
  return { node, title: 'Calls', stop: () => clearInterval(timer) };
}
