// A fake, deliberately NON-idempotent upstream for the integration recipes.
//
//   node fake-upstream.mjs [--port 0]      prints "LISTENING <port>" once it is up
//
// It mimics just enough of each API for the real SDKs to parse its answers:
//   POST /v1/chat/completions   OpenAI chat completion (JSON)
//   POST /v1/messages           Anthropic message (JSON)
//   POST /v1/charges            Stripe charge (form-encoded request, JSON answer)
//   POST /api/tickets           a "create ticket" tool (JSON), used by LangChain, curl and HTTP_PROXY
//   GET  /__stats/<intent>      what this server saw for one intent (for the recipes' reports)
//
// Every POST is an "execution": it is counted, and it gets a fresh id, whatever Idempotency-Key
// it carries (this upstream honours no key, so only idemproxy stands between a retry and a
// duplicate). Requests are grouped by "intent": the first `ix_[A-Za-z0-9_-]+` token found in the
// raw body (each recipe puts one in a free-text field), else a hash of the body.
//
// Slow first answer: an intent whose name contains `_slow<N>` (e.g. ix_openai_ab12_slow1500) gets
// its FIRST execution answered only after N ms. The execution itself is counted at once (the work
// is done, the answer is late), which is exactly the case where a client times out and retries.

import http from 'node:http';
import crypto from 'node:crypto';

const args = process.argv.slice(2);
const port = Number(args[args.indexOf('--port') + 1] || 0) || 0;

/** intent -> { executions, requests: [...] } */
const intents = new Map();
let seq = 0;

function intentOf(body) {
  const m = /ix_[A-Za-z0-9_-]+/.exec(body);
  return m ? m[0] : 'sha256:' + crypto.createHash('sha256').update(body).digest('hex').slice(0, 16);
}

function slowMsOf(intent) {
  const m = /_slow(\d+)/.exec(intent);
  return m ? Number(m[1]) : 0;
}

function record(intent, req) {
  let s = intents.get(intent);
  if (!s) {
    s = { intent, executions: 0, requests: [] };
    intents.set(intent, s);
  }
  s.executions += 1;
  // Every header, so that a report can say which ones change between a client's attempts.
  s.requests.push({ n: s.executions, at: new Date().toISOString(), method: req.method, url: req.url,
    headers: { ...req.headers } });
  return s;
}

function answer(req, body, n) {
  const id = ++seq;
  const now = Math.floor(Date.now() / 1000);
  if (req.url.startsWith('/v1/chat/completions')) {
    const j = JSON.parse(body || '{}');
    return [200, {
      id: `chatcmpl-fake-${id}`, object: 'chat.completion', created: now, model: j.model || 'fake',
      choices: [{ index: 0, finish_reason: 'stop', logprobs: null,
        message: { role: 'assistant', content: `execution #${n} (server seq ${id})`, refusal: null } }],
      usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
    }];
  }
  if (req.url.startsWith('/v1/messages')) {
    const j = JSON.parse(body || '{}');
    return [200, {
      id: `msg_fake_${id}`, type: 'message', role: 'assistant', model: j.model || 'fake',
      content: [{ type: 'text', text: `execution #${n} (server seq ${id})` }],
      stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 5 },
    }];
  }
  if (req.url.startsWith('/v1/charges')) {
    const f = Object.fromEntries(new URLSearchParams(body));
    return [200, {
      id: `ch_fake_${id}`, object: 'charge', amount: Number(f.amount), currency: f.currency,
      description: f.description ?? null, status: 'succeeded', paid: true, captured: true,
      livemode: false, created: now, metadata: { execution: String(n) },
    }];
  }
  if (req.url.startsWith('/api/tickets')) {
    const j = safeJson(body);
    return [201, { id: `T-${id}`, title: j.title ?? null, execution: n }];
  }
  return [404, { error: `fake upstream: no endpoint ${req.method} ${req.url}` }];
}

function safeJson(s) {
  try { return JSON.parse(s); } catch { return {}; }
}

function send(res, status, obj) {
  const b = Buffer.from(JSON.stringify(obj));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': b.length,
    'request-id': `req_fake_${seq}` });
  res.end(b);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'GET' && req.url.startsWith('/__stats/')) {
      const intent = decodeURIComponent(req.url.slice('/__stats/'.length));
      const s = intents.get(intent) || { intent, executions: 0, requests: [] };
      return send(res, 200, s);
    }
    if (req.method !== 'POST') return send(res, 405, { error: 'POST only' });
    const intent = intentOf(body);
    const s = record(intent, req);
    const n = s.executions;
    const [status, obj] = answer(req, body, n);
    const delay = n === 1 ? slowMsOf(intent) : 0;
    process.stdout.write(`fake-upstream: ${req.method} ${req.url} intent=${intent} execution=${n}`
      + ` key=${req.headers['idempotency-key'] ?? '-'} attempt=${req.headers['x-attempt'] ?? '-'}`
      + (delay ? ` (answering in ${delay}ms)` : '') + '\n');
    if (delay) setTimeout(() => send(res, status, obj), delay);
    else send(res, status, obj);
  });
});

server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${server.address().port}\n`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
