// Recipe: a LangChain tool whose implementation calls a "create ticket" HTTP API through idemproxy.
// LangChain tools do not retry on their own; `.withRetry()` (RunnableRetry) is the usual way to
// add retries, and the tool's fetch gets a timeout. The tool sends no Idempotency-Key: it names its
// agent task in X-Task-Id, and the proxy derives the key from [method, path, X-Task-Id, /title].
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { PROXY_URL, FAKE_URL, CLIENT_TIMEOUT_MS, intent, version, upstreamStats, reportDirect, reportProxied, finish } from './lib.mjs';

const SDK = `@langchain/core ${version('@langchain/core')} tool + withRetry`;
console.log(`${SDK}: stopAfterAttempt=3, fetch timeout=${CLIENT_TIMEOUT_MS}ms`);

function createTicketTool(baseUrl, taskId, seen) {
  const createTicket = tool(
    async ({ title, body }) => {
      seen.attempts++;
      const res = await fetch(`${baseUrl}/api/tickets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-task-id': taskId },
        body: JSON.stringify({ title, body }),
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      seen.callId = res.headers.get('x-call-id');
      seen.replayed = res.headers.get('idempotent-replayed') === 'true';
      if (!res.ok) throw new Error(`tickets API answered ${res.status}`);
      return JSON.stringify(await res.json());
    },
    {
      name: 'create_ticket',
      description: 'Open a support ticket',
      schema: z.object({ title: z.string(), body: z.string() }),
    },
  );
  return createTicket.withRetry({ stopAfterAttempt: 3 });
}

async function run(baseUrl) {
  const seen = { attempts: 0 };
  const id = intent('langchain');
  const taskId = `task-${id}`;
  // The agent's retry may reword free text; the key is derived from the title only.
  const out = await createTicketTool(baseUrl, taskId, seen).invoke({ title: id, body: 'Printer on fire' });
  return { id, out, seen };
}

const direct = await run(FAKE_URL);
reportDirect(SDK, await upstreamStats(direct.id));

const p = await run(PROXY_URL);
await reportProxied(SDK, {
  stats: await upstreamStats(p.id),
  callId: p.seen.callId,
  replayed: p.seen.replayed,
  clientAttempts: p.seen.attempts,
  note: `tool output: ${p.out}`,
});
finish();
