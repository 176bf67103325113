// Dead letters: the list (oldest first, as the API pages it), one entry with its stored request
// (secrets as ***), and replay, release and delete, each after a confirmation saying what it does.
import { ApiError, announce, api, confirmAction, enc, h, notice, text, when } from './lib.js';

function row(e) {
  return h('tr', { 'data-dlq': e.id },
    h('td', { 'data-label': 'Failed' }, when(e.failedAt)),
    h('td', { 'data-label': 'Entry' }, h('a', { href: '#/dlq/' + enc(e.id), class: 'mono' }, e.id)),
    h('td', { 'data-label': 'Call id' }, h('a', { href: '#/calls/' + enc(e.callId), class: 'mono' }, e.callId)),
    h('td', { 'data-label': 'Route' }, e.route),
    h('td', { 'data-label': 'Reason' }, text(e.reason)),
    h('td', { 'data-label': 'Last status' }, text(e.lastStatus)),
    h('td', { 'data-label': 'Tries' }, e.attempts),
    h('td', { 'data-label': 'Task' }, text(e.taskId)));
}

export async function dlqPage() {
  const first = await api('/dlq?limit=100');
  const tbody = h('tbody', {}, first.body.entries.map(row));
  let next = first.body.nextCursor;
  const more = h('button', {
    type: 'button',
    hidden: !next,
    onclick: async () => {
      const page = await api('/dlq?limit=100&cursor=' + enc(next));
      tbody.append(...page.body.entries.map(row));
      next = page.body.nextCursor;
      more.hidden = !next;
    },
  }, 'More entries');
  const node = h('section', { 'aria-labelledby': 'dlq-title' },
    h('h1', { id: 'dlq-title' }, 'Dead letters'),
    h('p', { class: 'muted' }, 'Calls that ended unsuccessfully (retries, budget or deadline exhausted, ambiguous outcome), oldest first. Open one to replay, release or delete it.'),
    first.body.entries.length ? h('div', { class: 'table-wrap' }, h('table', {},
      h('caption', { class: 'visually-hidden' }, 'Dead-letter entries'),
      h('thead', {}, h('tr', {}, ['Failed', 'Entry', 'Call id', 'Route', 'Reason', 'Last status', 'Tries', 'Task'].map((t) => h('th', { scope: 'col' }, t)))),
      tbody)) : h('p', { id: 'dlq-empty' }, 'The dead-letter queue is empty.'),
    more);
  return { node, title: 'Dead letters' };
}

export async function deadLetterPage(id) {
  let e;
  try {
    e = (await api('/dlq/' + enc(id))).body;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      return { node: h('section', {}, h('h1', {}, 'Dead letter ' + id), h('p', {}, 'No such entry: it was replayed, deleted, or never existed.'),
        h('a', { href: '#/dlq' }, 'Back to dead letters')), title: 'Dead letter not found' };
    }
    throw err;
  }
  const result = h('div', { id: 'dlq-result', 'aria-live': 'polite' });
  const buttons = [];
  const act = async (title, message, label, run) => {
    if (!(await confirmAction(title, message, label))) {
      announce('Cancelled: nothing was done.');
      return;
    }
    buttons.forEach((b) => { b.disabled = true; });
    try {
      result.replaceChildren(...(await run()));
    } catch (err) {
      result.replaceChildren(notice('error', err.message));
      buttons.forEach((b) => { b.disabled = false; });
    }
  };
  const replay = h('button', {
    type: 'button',
    id: 'replay',
    onclick: () => act('Replay ' + e.id + '?',
      'The stored request is sent again through the proxy, with the same key and call id (' + e.callId
        + '), taking the normal path: idempotency, retries, receipts. If the proxy answers 2xx the entry is removed; otherwise it stays.',
      'Replay', async () => {
        const r = (await api('/dlq/' + enc(e.id) + '/replay', { method: 'POST' })).body;
        const ok = r.removed;
        return [notice(ok ? 'ok' : 'error', 'Replayed: the proxy answered ' + r.status + '. '
          + (ok ? 'The entry was removed from the dead-letter queue.' : 'The entry stays in the queue.')),
        h('p', {}, h('a', { href: '#/calls/' + enc(r.callId || e.callId) }, 'Open the call'), ' · ', h('a', { href: '#/dlq' }, 'Back to dead letters'))];
      }),
  }, 'Replay…');
  const release = h('button', {
    type: 'button',
    id: 'release',
    class: 'danger',
    onclick: () => act('Release ' + e.id + '?',
      'The entry is deleted and the call\'s idempotency record is evicted, so the next duplicate of this call executes again. Do this only when the call was resolved by hand.',
      'Release and delete', async () => {
        await api('/dlq/' + enc(e.id) + '?release=true', { method: 'DELETE' });
        return [notice('ok', 'Released: the entry is deleted and the key is free; the next duplicate executes.'), h('a', { href: '#/dlq' }, 'Back to dead letters')];
      }),
  }, 'Release…');
  const del = h('button', {
    type: 'button',
    id: 'delete',
    class: 'danger',
    onclick: () => act('Delete ' + e.id + '?',
      'The entry is deleted; the idempotency record stays, so duplicates keep getting the stored failure. The call will never run again.',
      'Delete', async () => {
        await api('/dlq/' + enc(e.id), { method: 'DELETE' });
        return [notice('ok', 'Deleted: duplicates keep getting the stored failure.'), h('a', { href: '#/dlq' }, 'Back to dead letters')];
      }),
  }, 'Delete…');
  buttons.push(replay, release, del);
  const req = e.request;
  const node = h('article', { 'aria-labelledby': 'dl-title' },
    h('p', {}, h('a', { href: '#/dlq' }, '← Dead letters')),
    h('h1', { id: 'dl-title' }, 'Dead letter ', h('span', { class: 'mono' }, e.id)),
    h('section', { class: 'card' }, h('dl', { class: 'facts' }, [
      ['Call', h('a', { href: '#/calls/' + enc(e.callId), class: 'mono' }, e.callId)], ['Route', e.route], ['Reason', text(e.reason)],
      ['Last status', text(e.lastStatus)], ['Tries', e.attempts], ['Key', h('span', { class: 'mono' }, e.key)],
      ['Task', text(e.taskId)], ['Business id', text(e.bizId)], ['Failed', when(e.failedAt)],
    ].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))),
    h('section', { class: 'card actions-card', 'aria-label': 'Actions' }, h('div', { class: 'actions' }, buttons), result),
    h('section', { class: 'card', 'aria-labelledby': 'dl-req' }, h('h2', { id: 'dl-req' }, 'Stored request'),
      h('p', { class: 'mono request-line' }, req.method + ' ' + req.uri),
      h('table', { class: 'kv' }, h('tbody', {}, req.headers.map((f) => h('tr', {}, h('th', { scope: 'row' }, f.name), h('td', { class: 'mono' }, f.value))))),
      h('pre', { class: 'body' }, req.body || '(no body)')));
  return { node, title: 'Dead letter ' + e.id };
}
