// Overview: calls, replays, conflicts and retries per minute over the last hour, and the
// dead-letter queue's size at each minute, from the proxy's own counters (GET /stats/minutes).
import { api, h } from './lib.js';

const SERIES = [
  ['calls', 'Calls', 'requests answered per minute'],
  ['replays', 'Replays', 'duplicates answered from the store per minute'],
  ['conflicts', 'Conflicts', 'duplicates refused (in flight, or a different payload) per minute'],
  ['retries', 'Retries', 'tries made again per minute'],
  ['deadLetters', 'Dead letters', 'entries in the queue at each minute'],
];
const NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    el.setAttribute(k, String(v));
  }
  return el;
}

function chart(minutes, key, title, meaning) {
  const values = minutes.map((m) => m[key]);
  const max = Math.max(1, ...values);
  const now = values.length ? values[values.length - 1] : 0;
  const hour = key === 'deadLetters' ? now : values.reduce((a, b) => a + b, 0);
  const summary = key === 'deadLetters' ? now + ' in the queue now' : hour + ' in the last hour, ' + now + ' in the minute under way';
  const width = 300;
  const height = 60;
  const bar = width / Math.max(values.length, 60);
  const s = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, preserveAspectRatio: 'none', role: 'img',
    'aria-label': title + ': ' + summary, class: 'spark' });
  values.forEach((v, i) => {
    const bh = v === 0 ? 1 : Math.max(2, (v / max) * (height - 4));
    const r = svg('rect', { x: width - (values.length - i) * bar, y: height - bh, width: Math.max(1, bar - 1), height: bh,
      class: i === values.length - 1 ? 'bar partial' : v === 0 ? 'bar zero' : 'bar' });
    const t = svg('title', {});
    t.textContent = minutes[i].start.slice(11, 16) + ' UTC: ' + v + (minutes[i].partial ? ' (so far)' : '');
    r.append(t);
    s.append(r);
  });
  return h('figure', { class: 'card chart', 'data-series': key },
    h('figcaption', {}, h('strong', {}, title), ' — ', meaning),
    s,
    h('p', { class: 'chart-sum' }, summary, key === 'deadLetters' ? '' : ' (at most ' + Math.max(0, ...values) + ' in a minute)'));
}

export async function overviewPage() {
  const grid = h('div', { class: 'charts' });
  const stamp = h('p', { class: 'muted' });
  const fill = async () => {
    const m = (await api('/stats/minutes')).body.minutes;
    grid.replaceChildren(...SERIES.map(([k, t, meaning]) => chart(m, k, t, meaning)));
    stamp.textContent = 'Minutes since this proxy started, up to an hour; the last bar is the minute under way. Updated '
      + new Date().toLocaleTimeString() + '.';
  };
  await fill();
  const timer = setInterval(() => { fill().catch((e) => { stamp.textContent = 'Not updated: ' + e.message; }); }, 15000);
  const node = h('section', { 'aria-labelledby': 'ov-title' }, h('h1', { id: 'ov-title' }, 'Overview'), stamp, grid);
  return { node, title: 'Overview', stop: () => clearInterval(timer) };
}
