// Shared helpers for the recipes. Every recipe talks to an idemproxy that is already running
// (run.sh starts it) and asks the fake upstream what it saw.
//   PROXY_URL   http://127.0.0.1:<listen port>      ADMIN_URL  http://127.0.0.1:<admin port>
//   FAKE_URL    http://127.0.0.1:<fake upstream port>
import crypto from 'node:crypto';
import fs from 'node:fs';

export const PROXY_URL = need('PROXY_URL');
export const ADMIN_URL = need('ADMIN_URL');
export const FAKE_URL = need('FAKE_URL');
export const SLOW_MS = Number(process.env.SLOW_MS || 1500);     // the fake answers the first call this late
export const CLIENT_TIMEOUT_MS = Number(process.env.CLIENT_TIMEOUT_MS || 1000);  // the SDK gives up sooner

function need(name) {
  const v = process.env[name];
  if (!v) { console.error(`${name} is not set (run.sh sets it)`); process.exit(2); }
  return v.replace(/\/$/, '');
}

/** A fresh intent marker; the fake upstream groups requests by it and answers its first one late. */
export function intent(recipe, { slow = true } = {}) {
  return `ix_${recipe}_${crypto.randomBytes(4).toString('hex')}` + (slow ? `_slow${SLOW_MS}` : '');
}

/** The installed version of a package (read from node_modules, since some packages do not export package.json). */
export function version(pkg) {
  const file = new URL(`../node_modules/${pkg}/package.json`, import.meta.url);
  return JSON.parse(fs.readFileSync(file, 'utf8')).version;
}

/** What the fake upstream saw for one intent: { executions, requests: [{ headers }] }. */
export async function upstreamStats(id) {
  const r = await fetch(`${FAKE_URL}/__stats/${encodeURIComponent(id)}`);
  return r.json();
}

/** The proxy's receipt for a call id (admin API), or null. */
export async function receipt(callId) {
  if (!callId) return null;
  const r = await fetch(`${ADMIN_URL}/receipts/${encodeURIComponent(callId)}`);
  return r.ok ? r.json() : null;
}

export function keyKind(key) {
  if (!key) return 'none';
  if (key.startsWith('d:')) return 'derived';
  if (key.startsWith('g:')) return 'generated';
  return "client's";
}

let failures = 0;

/** Prints what the SDK sent on its own (direct run, no proxy). */
export function reportDirect(sdk, stats) {
  const keys = stats.requests.map((q) => q.headers['idempotency-key'] ?? '-');
  const shown = SHOWN.filter((h) => stats.requests.some((q) => q.headers[h] !== undefined))
    .map((h) => ` | ${h}: [${stats.requests.map((q) => q.headers[h] ?? '-').join(', ')}]`);
  console.log(`  direct  | ${sdk}: upstream executions=${stats.executions}`
    + ` | Idempotency-Key per attempt: [${keys.join(', ')}]`
    + shown.join('') + ` | headers that change between attempts: ${changing(stats.requests)}`
    + ` | sent at: ${sentAt(stats.requests)}`);
}

/** When each attempt reached the upstream, from the first: "+0.00s, +1.46s". */
function sentAt(requests) {
  const t0 = Date.parse(requests[0]?.at);
  return requests.map((q) => `+${((Date.parse(q.at) - t0) / 1000).toFixed(2)}s`).join(', ');
}

/** Headers printed per attempt when the client sends them. */
const SHOWN = ['x-stainless-retry-count', 'x-stainless-timeout', 'x-stainless-read-timeout'];

/** The names of the headers whose values differ between the attempts, or "none". */
function changing(requests) {
  if (requests.length < 2) return `none (${requests.length} attempt)`;
  const names = [...new Set(requests.flatMap((q) => Object.keys(q.headers)))].sort();
  const diff = names.filter((h) => new Set(requests.map((q) => q.headers[h] ?? '-')).size > 1);
  return diff.length ? diff.join(', ') : 'none';
}

/** Prints the proxied run's line and checks it: one execution, and a replay when the client retried. */
export async function reportProxied(sdk, { stats, callId, replayed, clientAttempts, expectReplay = true, note = '' }) {
  const rec = await receipt(callId);
  const upstreamKeys = [...new Set(stats.requests.map((q) => q.headers['idempotency-key'] ?? '-'))];
  const key = rec?.key ?? upstreamKeys[0];
  const ok = stats.executions === 1 && (!expectReplay || replayed === true);
  if (!ok) failures++;
  console.log(`  proxied | ${sdk}: key used=${keyKind(key)} (${key})`
    + ` | upstream executions=${stats.executions}`
    + ` | client attempts=${clientAttempts ?? '?'}`
    + ` | replay=${replayed ? 'yes (Idempotent-Replayed: true)' : 'no'}`
    + ` | receipt=${rec ? `${rec.status} attempts=${rec.attempts}` : 'none'}`
    + (note ? ` | ${note}` : '')
    + ` => ${ok ? 'OK' : 'FAIL'}`);
}

export function finish() {
  process.exitCode = failures ? 1 : 0;
}
