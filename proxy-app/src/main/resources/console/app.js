// The console's router: #/calls (the landing page), #/calls/{id}, #/dlq, #/dlq/{id}, #/overview.
// A page that meets a 401 shows the token form instead; the token is kept in this tab's
// sessionStorage only and sent as a Bearer header.
import { AuthError, h, notice, setToken, token } from './lib.js';
import { callsPage } from './calls.js';
import { callPage } from './call.js';
import { dlqPage, deadLetterPage } from './dlq.js';
import { overviewPage } from './overview.js';

const main = document.getElementById('main');
let stopPage = null;
let generation = 0;

function route() {
  const hash = location.hash || '#/calls';
  if (!hash.startsWith('#/')) {
    return; // an in-page anchor (the skip link)
  }
  const parts = hash.slice(2).split('?')[0].split('/').map(decodeURIComponent);
  if (stopPage) {
    stopPage();
    stopPage = null;
  }
  for (const a of document.querySelectorAll('[data-nav]')) {
    if (a.dataset.nav === parts[0]) {
      a.setAttribute('aria-current', 'page');
    } else {
      a.removeAttribute('aria-current');
    }
  }
  const page = parts[0] === 'calls' && parts[1] ? () => callPage(parts[1])
    : parts[0] === 'dlq' && parts[1] ? () => deadLetterPage(parts[1])
      : parts[0] === 'dlq' ? dlqPage
        : parts[0] === 'overview' ? overviewPage
          : callsPage;
  show(page);
}

/** Renders a page; a page returns {node, title, stop?} or throws AuthError. */
async function show(page) {
  const mine = ++generation;
  try {
    const p = await page();
    if (mine !== generation) {
      if (p.stop) {
        p.stop();
      }
      return;
    }
    document.title = p.title + ' · idemproxy console';
    main.replaceChildren(p.node);
    stopPage = p.stop || null;
    main.focus({ preventScroll: true });
  } catch (e) {
    if (mine !== generation) {
      return;
    }
    main.replaceChildren(e instanceof AuthError ? tokenForm(e) : notice('error', e.message));
    if (e instanceof AuthError) {
      document.getElementById('token-input').focus();
    }
  }
}

function tokenForm(err) {
  const input = h('input', { id: 'token-input', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const form = h('form', {
    class: 'card token',
    onsubmit: (ev) => {
      ev.preventDefault();
      setToken(input.value.trim());
      route();
    },
  },
  h('h1', {}, 'Admin token'),
  err.refused ? notice('error', 'Refused: the proxy did not accept that token (HTTP 401). Check admin.token and type it again.')
    : h('p', {}, 'This proxy\'s admin API asks for its token (admin.token). It is kept in this browser tab only (sessionStorage) and sent as a Bearer header; closing the tab forgets it.'),
  h('label', { for: 'token-input' }, 'Token'),
  input,
  h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Use this token')));
  if (err.refused) {
    setToken(null);
  }
  return form;
}

document.getElementById('token-button').addEventListener('click', () => {
  main.replaceChildren(tokenForm({ refused: false }));
  document.getElementById('token-input').focus();
});
document.addEventListener('keydown', (ev) => {
  // "/" focuses the first filter or text field of the page, as many consoles do
  if (ev.key === '/' && !(ev.target instanceof HTMLInputElement) && !(ev.target instanceof HTMLSelectElement)) {
    const first = main.querySelector('input, select');
    if (first) {
      ev.preventDefault();
      first.focus();
    }
  }
});
window.addEventListener('hashchange', route);
if (token() === null && !location.hash) {
  history.replaceState(null, '', '#/calls');
}
route();
