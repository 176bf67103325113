// Call: one call's receipt, its redacted request and response heads, and its tries as a
// timeline: a bar per try (its duration, coloured by outcome class and labelled in words), the
// waits between them with their reason.
import { ApiError, api, enc, h, ms, statusBadge, STATUS_TEXT, text, when } from './lib.js';

const CLASS_TEXT = {
  executed: 'executed: the upstream did the work',
  'not-executed': 'not executed: nothing ran, safe to try again',
  unknown: 'unknown: it may have run',
};

function outcome(t) {
  return t.failure ? t.failure : 'HTTP ' + t.status;
}

/** What followed a try, in words. */
function followed(t) {
  const wait = (w, why) => 'retry after ' + ms(w) + ' (' + why + ')';
  const end = (next, why) => (next === 'answer' ? 'answered the client' : 'stopped with the proxy\'s own answer') + ' (' + why + ')';
  if (t.next === 'retry') {
    return wait(t.waitMs, t.why);
  }
  if (t.next === 'check-receipt') {
    const after = t.afterCheck === 'retry' ? wait(t.waitMs, t.afterCheckWhy) : t.afterCheck ? end(t.afterCheck, t.afterCheckWhy) : 'the call ended';
    return 'asked the receipt endpoint (' + ms(t.checkMs) + '): ' + t.why + ', then ' + after;
  }
  return t.next ? end(t.next, t.why) : 'the call ended';
}

function timeline(tries, omitted) {
  if (!tries.length) {
    return h('p', { class: 'muted' }, 'No tries recorded: the call is still in flight, never reached the upstream, or was answered from a receipt.');
  }
  const last = tries[tries.length - 1];
  const span = Math.max(1, ...tries.map((t) => t.startMs + t.ms), last.startMs + last.ms + (last.waitMs || 0));
  const pct = (v) => Math.min(100, (100 * v) / span);
  // a bar (or a wait) at left% with width%, kept inside its track
  const at = (start, length) => {
    const w = Math.max(0.8, pct(length));
    return { 'data-left': Math.max(0, Math.min(pct(start), 100 - w)).toFixed(2) + '%', 'data-width': w.toFixed(2) + '%' };
  };
  const rows = [];
  tries.forEach((t, i) => {
    if (i > 0) {
      const prev = tries[i - 1];
      const from = prev.startMs + prev.ms;
      const gap = Math.max(0, t.startMs - from);
      const reason = prev.next === 'retry' ? prev.why : prev.afterCheck === 'retry' ? prev.afterCheckWhy : prev.next;
      rows.push(h('li', { class: 'tl-row wait', 'data-wait': i },
        h('span', { class: 'tl-label' }, 'wait'),
        h('span', { class: 'tl-track', 'aria-hidden': 'true' }, h('span', { class: 'tl-wait', ...at(from, gap) })),
        h('span', { class: 'tl-text' }, 'waited ' + ms(gap) + ' (' + text(reason) + ')')));
    }
    rows.push(h('li', { class: 'tl-row try', 'data-try': t.try, 'data-class': t.class },
      h('span', { class: 'tl-label' }, 'Try ' + t.try),
      h('span', { class: 'tl-track', 'aria-hidden': 'true' },
        h('span', { class: 'tl-bar cls-' + t.class, title: t.class, ...at(t.startMs, t.ms) })),
      h('span', { class: 'tl-text' },
        h('strong', {}, outcome(t)), ' · ', h('span', { class: 'cls-word' }, t.class), ' · ', ms(t.ms),
        ' at +', ms(t.startMs), ' → ', followed(t))));
  });
  const list = h('ol', { class: 'timeline', 'aria-label': 'Tries in order' }, rows);
  // positions go through the CSS object model: the page's policy allows no inline style attributes
  for (const el of list.querySelectorAll('[data-left]')) {
    el.style.left = el.dataset.left;
    el.style.width = el.dataset.width;
  }
  return h('div', {},
    list,
    omitted ? h('p', { class: 'muted' }, omitted + ' tries between these were not kept (at most 16 are).') : null,
    h('p', { class: 'legend' }, 'Bars: ',
      Object.entries(CLASS_TEXT).map(([c, t]) => h('span', { class: 'legend-item' }, h('span', { class: 'swatch cls-' + c, 'aria-hidden': 'true' }), t))));
}

function head(title, h2id, fields, first) {
  return h('section', { 'aria-labelledby': h2id, class: 'card' },
    h('h2', { id: h2id }, title),
    first,
    fields.length ? h('table', { class: 'kv' }, h('tbody', {}, fields.map((f) => h('tr', {}, h('th', { scope: 'row' }, f.name), h('td', { class: 'mono' }, f.value)))))
      : h('p', { class: 'muted' }, 'No headers kept.'));
}

export async function callPage(callId) {
  let c;
  try {
    c = (await api('/calls/' + enc(callId))).body;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      return { node: h('section', {}, h('h1', {}, 'Call ' + callId), h('p', {}, 'No such call here: never seen, or its receipt has expired.'),
        h('a', { href: '#/calls' }, 'Back to calls')), title: 'Call not found' };
    }
    throw e;
  }
  const dl = h('dl', { class: 'facts' }, [
    ['Status', h('span', {}, statusBadge(c.status), ' ', STATUS_TEXT[c.status] || '')],
    ['Reason', text(c.reason)], ['HTTP status', text(c.httpStatus)], ['Tries', c.attempts],
    ['Route', c.route], ['Key', h('span', { class: 'mono' }, c.key)], ['Task', text(c.taskId)], ['Business id', text(c.bizId)],
    ['Started', when(c.createdAt)], ['Ended', when(c.completedAt)], c.tool ? ['Tool', c.tool] : null,
  ].filter(Boolean).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
  const req = c.request;
  const resp = c.response;
  const node = h('article', { 'aria-labelledby': 'call-title' },
    h('p', {}, h('a', { href: '#/calls' }, '← Calls')),
    h('h1', { id: 'call-title' }, 'Call ', h('span', { class: 'mono' }, c.callId)),
    h('section', { class: 'card', 'aria-label': 'Receipt' }, dl),
    h('section', { class: 'card', 'aria-labelledby': 'tries-title' }, h('h2', { id: 'tries-title' }, 'Tries'), timeline(c.tries, c.triesOmitted)),
    h('div', { class: 'heads' },
      head('Request', 'req-title', req ? req.headers : [],
        req ? h('p', { class: 'mono request-line' }, req.method + ' ' + req.uri) : h('p', { class: 'muted' }, 'Kept when the call ends.')),
      head('Response', 'resp-title', resp ? resp.headers : [],
        resp ? h('p', { class: 'mono' }, 'HTTP ' + text(resp.status)) : h('p', { class: 'muted' }, 'None yet.'))),
    h('p', { class: 'muted' }, 'Secrets are shown as ***: credential headers, secret query parameters and user-info never leave the proxy.'));
  return { node, title: 'Call ' + c.callId };
}
