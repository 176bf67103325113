// Shared helpers of the console: the admin API with the operator's token, DOM building without
// innerHTML (every value is text), and small formatters. No framework.

const TOKEN_KEY = 'idemproxy.adminToken';

export class AuthError extends Error {
  constructor(refused) {
    super(refused ? 'The proxy refused this token (HTTP 401).' : 'The admin API needs its token.');
    this.refused = refused;
  }
}

export class ApiError extends Error {
  constructor(status, detail) {
    super('The admin API answered ' + status + (detail ? ': ' + detail : ''));
    this.status = status;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(t) {
  if (t) {
    sessionStorage.setItem(TOKEN_KEY, t);
  } else {
    sessionStorage.removeItem(TOKEN_KEY);
  }
}

/** Calls the admin API; the token, when one was typed, goes as a Bearer header (never a cookie). */
export async function api(path, options = {}) {
  const headers = { Accept: 'application/json' };
  const t = token();
  if (t) {
    headers.Authorization = 'Bearer ' + t;
  }
  const r = await fetch(path, { method: options.method || 'GET', headers, cache: 'no-store', credentials: 'omit' });
  if (r.status === 401) {
    throw new AuthError(Boolean(t));
  }
  const text = await r.text();
  let body = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch (e) {
      body = { detail: text };
    }
  }
  if (!r.ok && !(options.accept || []).includes(r.status)) {
    throw new ApiError(r.status, body && body.detail);
  }
  return { status: r.status, body };
}

/** An element: h('a', {href: '#/x', class: 'c'}, 'text', child…); attributes starting with "on" are listeners. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) {
      continue;
    }
    if (k.startsWith('on')) {
      el.addEventListener(k.slice(2), v);
    } else if (k === 'class') {
      el.className = v;
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) {
      continue;
    }
    if (Array.isArray(c)) {
      append(el, c);
    } else {
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }
}

export function text(v) {
  return v === null || v === undefined || v === '' ? '—' : String(v);
}

export function ms(v) {
  if (v === null || v === undefined) {
    return '—';
  }
  return v >= 10000 ? (v / 1000).toFixed(1) + ' s' : v + ' ms';
}

export function when(iso) {
  return iso ? iso.replace('T', ' ').replace('Z', ' UTC') : '—';
}

/** What a receipt status means, in words (never colour alone). */
export const STATUS_TEXT = {
  PROCESSING: 'in flight: its key is claimed and it has not ended',
  SUCCESS: 'ended with an answer that was stored and is replayed to duplicates',
  FAILED: 'ended unsuccessfully (see its reason); usually dead-lettered',
};

export function statusBadge(status) {
  return h('span', { class: 'badge st-' + String(status).toLowerCase(), title: STATUS_TEXT[status] || '' }, status);
}

export function announce(message) {
  const a = document.getElementById('announce');
  a.textContent = '';
  setTimeout(() => { a.textContent = message; }, 30);
}

/** Shows the confirmation dialog; resolves true when the operator confirms. */
export function confirmAction(title, message, confirmLabel) {
  const d = document.getElementById('confirm');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = message;
  document.getElementById('confirm-ok').textContent = confirmLabel;
  return new Promise((resolve) => {
    d.addEventListener('close', () => resolve(d.returnValue === 'ok'), { once: true });
    d.returnValue = 'cancel';
    d.showModal();
    document.getElementById('confirm-cancel').focus();
  });
}

export function notice(kind, ...content) {
  return h('p', { class: 'notice ' + kind, role: kind === 'error' ? 'alert' : null }, ...content);
}

export function enc(s) {
  return encodeURIComponent(s);
}
