// A client driver for idemproxy's tests, on the official TypeScript SDKs. It reads one JSON
// command per line on stdin and writes one JSON line per command on stdout, in order:
//   {"id":1,"op":"call","url":"http://127.0.0.1:P/mcp","era":"session"|"modern","tool":"create_ticket",
//    "args":{…},"timeoutMs":5000,"progress":true,"retries":1,"headers":{"Idempotency-Key":"k"}}
//     -> {"id":1,"attempts":[{"ok":true,"result":{…},"sessionId":"…","progress":2,"ms":12}, …]}
//   Each attempt connects a new client (a new session on the session-based generation), calls
//   the tool with the timeout, then closes (DELETE of the session). After a failed attempt the
//   next one, if "retries" allows, retries the same call from a new session, as an agent would.
//   {"id":2,"op":"list","url":…,"era":…} -> {"id":2,"ok":true,"tools":[…]}
// era "session": @modelcontextprotocol/sdk v1 (initialize, Mcp-Session-Id);
// era "modern":  @modelcontextprotocol/client v2 pinned to 2026-07-28 (sessionless).
import { createInterface } from 'node:readline';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';

const info = { name: 'idemproxy-test-agent', version: '1.0.0' };

async function connect(cmd) {
  const url = new URL(cmd.url);
  const requestInit = { headers: cmd.headers ?? {} };
  if (cmd.era === 'modern') {
    const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new TransportV2(url, { requestInit });
    await client.connect(transport);
    return { client, transport };
  }
  const client = new ClientV1(info);
  const transport = new TransportV1(url, { requestInit });
  await client.connect(transport);
  return { client, transport };
}

async function close({ client, transport }) {
  try {
    if (typeof transport.terminateSession === 'function' && transport.sessionId) {
      await transport.terminateSession();
    }
  } catch {
    // the session may be gone already; closing is best effort
  }
  await client.close().catch(() => {});
}

function describe(e) {
  return { name: e?.name ?? 'Error', code: e?.code ?? null, message: String(e?.message ?? e), data: e?.data ?? null };
}

async function attempt(cmd) {
  const started = Date.now();
  let progress = 0;
  let conn;
  try {
    conn = await connect(cmd);
    const options = { timeout: cmd.timeoutMs ?? 10000 };
    if (cmd.progress) {
      options.onprogress = () => { progress++; };
    }
    const params = { name: cmd.tool, arguments: cmd.args ?? {} };
    const result = cmd.era === 'modern'
      ? await conn.client.callTool(params, options)              // v2: (params, options)
      : await conn.client.callTool(params, undefined, options);  // v1: (params, resultSchema, options)
    return { ok: true, result, sessionId: conn.transport.sessionId ?? null, progress, ms: Date.now() - started };
  } catch (e) {
    return { ok: false, error: describe(e), sessionId: conn?.transport.sessionId ?? null, progress, ms: Date.now() - started };
  } finally {
    if (conn) {
      await close(conn);
    }
  }
}

async function run(cmd) {
  if (cmd.op === 'call') {
    const attempts = [];
    for (let i = 0; i <= (cmd.retries ?? 0); i++) {
      const a = await attempt(cmd);
      attempts.push(a);
      if (a.ok) {
        break;
      }
    }
    return { attempts };
  }
  if (cmd.op === 'list') {
    const conn = await connect(cmd);
    try {
      const { tools, nextCursor } = await conn.client.listTools(cmd.cursor ? { cursor: cmd.cursor } : undefined);
      return { ok: true, tools, nextCursor: nextCursor ?? null };
    } finally {
      await close(conn);
    }
  }
  throw new Error(`unknown op ${cmd.op}`);
}

const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    let cmd = {};
    try {
      cmd = JSON.parse(line);
      process.stdout.write(JSON.stringify({ id: cmd.id ?? null, ...(await run(cmd)) }) + '\n');
    } catch (e) {
      process.stdout.write(JSON.stringify({ id: cmd.id ?? null, ok: false, error: describe(e) }) + '\n');
    }
  });
});
lines.on('close', () => queue.then(() => process.exit(0)));
process.stdout.write('READY\n');
