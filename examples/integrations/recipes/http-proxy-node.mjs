// Recipe: plain HTTP_PROXY from node. The target is http://tickets.internal/api/tickets, a name
// that does not resolve: only the proxy knows where it goes (route `tickets-via-proxy`, match.host).
//  a) undici EnvHttpProxyAgent (reads HTTP_PROXY) with proxyTunnel: false -> absolute-form requests
//  b) undici's default (proxyTunnel: true) -> CONNECT, which idemproxy refuses (405)
//  c) node:http request in absolute-form, no library at all
import http from 'node:http';
import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import { PROXY_URL, CLIENT_TIMEOUT_MS, intent, version, upstreamStats, reportProxied, finish } from './lib.mjs';

process.env.HTTP_PROXY = PROXY_URL;
const TARGET = 'http://tickets.internal/api/tickets';

// a) undici with HTTP_PROXY, absolute-form; the client times out on the slow first answer and retries once.
{
  const SDK = `undici ${version('undici')} EnvHttpProxyAgent({ proxyTunnel: false })`;
  const dispatcher = new EnvHttpProxyAgent({ proxyTunnel: false });
  const id = intent('undici');
  let attempts = 0, res;
  for (;;) {
    attempts++;
    try {
      res = await undiciFetch(TARGET, {
        method: 'POST', dispatcher,
        headers: { 'content-type': 'application/json', 'x-task-id': `task-${id}`, 'x-biz-id': id },
        body: JSON.stringify({ title: id }),
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      await res.text();
      break;
    } catch (e) {
      if (attempts >= 3) throw e;
    }
  }
  await reportProxied(SDK, {
    stats: await upstreamStats(id), callId: res.headers.get('x-call-id'),
    replayed: res.headers.get('idempotent-replayed') === 'true', clientAttempts: attempts,
    note: `status ${res.status}`,
  });
  await dispatcher.close();
}

// b) undici's default: a CONNECT tunnel even for an http:// target.
{
  const SDK = `undici ${version('undici')} EnvHttpProxyAgent() default`;
  const dispatcher = new EnvHttpProxyAgent();
  try {
    const r = await undiciFetch(TARGET, { method: 'POST', dispatcher, body: '{}', headers: { 'content-type': 'application/json' } });
    console.log(`  proxied | ${SDK}: unexpectedly answered ${r.status}`);
  } catch (e) {
    console.log(`  proxied | ${SDK}: fails as expected: ${chain(e)}`
      + ' (idempotency needs to see the request: use proxyTunnel: false) => OK (expected)');
  }
  await dispatcher.close();
}

// c) node:http, absolute-form by hand, one attempt then a retry after a client timeout.
{
  const SDK = `node:http ${process.version} absolute-form`;
  const id = intent('nodehttp');
  const proxy = new URL(PROXY_URL);
  const body = JSON.stringify({ title: id });
  const once = () => new Promise((resolve, reject) => {
    const req = http.request({
      host: proxy.hostname, port: proxy.port, method: 'POST', path: TARGET,   // absolute-form
      headers: { host: 'tickets.internal', 'content-type': 'application/json',
        'content-length': Buffer.byteLength(body), 'x-task-id': `task-${id}` },
      timeout: CLIENT_TIMEOUT_MS,
    }, (res) => { res.resume(); res.on('end', () => resolve(res)); });
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.end(body);
  });
  let attempts = 0, res;
  for (;;) {
    attempts++;
    try { res = await once(); break; } catch (e) { if (attempts >= 3) throw e; }
  }
  await reportProxied(SDK, {
    stats: await upstreamStats(id), callId: res.headers['x-call-id'],
    replayed: res.headers['idempotent-replayed'] === 'true', clientAttempts: attempts,
    note: `status ${res.statusCode}`,
  });
}
finish();

function chain(e) {
  const parts = [];
  for (let c = e; c; c = c.cause) parts.push(`${c.name}: ${c.message}`);
  return parts.join(' <- ');
}
