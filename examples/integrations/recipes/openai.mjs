// Recipe: the OpenAI node SDK, pointed at idemproxy by its base URL.
//   new OpenAI({ baseURL: 'http://127.0.0.1:8080/v1' })
// The fake upstream answers the first call late, the SDK times out (timeout: 1s) and retries on its own.
import OpenAI from 'openai';
import { PROXY_URL, FAKE_URL, CLIENT_TIMEOUT_MS, intent, version, upstreamStats, reportDirect, reportProxied, finish } from './lib.mjs';

const SDK = `openai (node) ${version('openai')}`;
console.log(`${SDK}: maxRetries=2 (default), timeout=${CLIENT_TIMEOUT_MS}ms`);

async function run(baseURL) {
  let attempts = 0;
  const client = new OpenAI({
    apiKey: 'sk-fake-key',
    baseURL,
    timeout: CLIENT_TIMEOUT_MS,
    fetch: (url, init) => { attempts++; return fetch(url, init); },   // only counts the SDK's attempts
  });
  const id = intent('openai');
  const { data, response } = await client.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Summarise ticket ${id}` }] })
    .withResponse();
  return { id, data, response, attempts };
}

// 1. Direct, to see what the SDK does on its own.
const direct = await run(`${FAKE_URL}/v1`);
reportDirect(SDK, await upstreamStats(direct.id));

// 2. Through idemproxy.
const p = await run(`${PROXY_URL}/v1`);
await reportProxied(SDK, {
  stats: await upstreamStats(p.id),
  callId: p.response.headers.get('x-call-id'),
  replayed: p.response.headers.get('idempotent-replayed') === 'true',
  clientAttempts: p.attempts,
  note: `answer: "${p.data.choices[0].message.content}"`,
});
finish();
