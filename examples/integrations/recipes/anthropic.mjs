// Recipe: the Anthropic node SDK, pointed at idemproxy by its base URL.
//   new Anthropic({ baseURL: 'http://127.0.0.1:8080' })
import Anthropic from '@anthropic-ai/sdk';
import { PROXY_URL, FAKE_URL, CLIENT_TIMEOUT_MS, intent, version, upstreamStats, reportDirect, reportProxied, finish } from './lib.mjs';

const SDK = `@anthropic-ai/sdk ${version('@anthropic-ai/sdk')}`;
console.log(`${SDK}: maxRetries=2 (default), timeout=${CLIENT_TIMEOUT_MS}ms`);

async function run(baseURL) {
  let attempts = 0;
  const client = new Anthropic({
    apiKey: 'sk-ant-fake-key',
    baseURL,
    timeout: CLIENT_TIMEOUT_MS,
    fetch: (url, init) => { attempts++; return fetch(url, init); },
  });
  const id = intent('anthropic');
  const { data, response } = await client.messages
    .create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: `Summarise ticket ${id}` }] })
    .withResponse();
  return { id, data, response, attempts };
}

const direct = await run(FAKE_URL);
reportDirect(SDK, await upstreamStats(direct.id));

const p = await run(PROXY_URL);
await reportProxied(SDK, {
  stats: await upstreamStats(p.id),
  callId: p.response.headers.get('x-call-id'),
  replayed: p.response.headers.get('idempotent-replayed') === 'true',
  clientAttempts: p.attempts,
  note: `answer: "${p.data.content[0].text}"`,
});
finish();
