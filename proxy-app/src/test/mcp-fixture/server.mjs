// An MCP server for idemproxy's tests, on the official TypeScript SDKs, listening on loopback.
//   node server.mjs [--port N] [--page-size N]
// Prints "LISTENING <port>" once ready, and "EXEC <tool> <args>" each time a tool commits.
// Endpoints (one process serves all four):
//   /session/json  /session/sse   session-based (2025-03-26 … 2025-11-25), @modelcontextprotocol/sdk v1:
//                                 initialize, Mcp-Session-Id, GET stream, DELETE; JSON or SSE answers
//   /modern/json   /modern/sse    sessionless (2026-07-28), @modelcontextprotocol/server v2
//   GET /admin/counts             {"tool": executions, …}
//   POST /admin/annotations       {"tool": {"readOnlyHint": true, …}, …} merged into tools/list
//   POST /admin/reset             counts and annotation overrides cleared
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, ErrorCode, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Server as ServerV2, createMcpHandler, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { annotationOverrides, callTool, counts, listTools } from './tools.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? def : Number.parseInt(process.argv[i + 1], 10);
};
const port = arg('--port', 0);
const pageSize = arg('--page-size', 0);
const exchange = new AsyncLocalStorage();
const drop = () => exchange.getStore()?.res.socket?.destroy();
const info = { name: 'idemproxy-fixture', version: '1.0.0' };

// ---- session-based generation (SDK v1) ----
function serverV1() {
  const s = new ServerV1(info, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async (req) => listTools(req.params?.cursor, pageSize));
  s.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const token = req.params._meta?.progressToken;
    return callTool(req.params.name, req.params.arguments, {
      progress: (progress, total, message) => token === undefined ? Promise.resolve()
        : extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }),
      drop,
      internalError: (message) => new McpError(ErrorCode.InternalError, message),
    });
  });
  return s;
}

const sessions = new Map();   // session id -> transport

async function sessionEndpoint(req, res, json) {
  const sessionId = req.headers['mcp-session-id'];
  if (req.method === 'POST') {
    const body = JSON.parse((await readBody(req)).toString('utf8') || 'null');
    if (sessionId && sessions.has(sessionId)) {
      return sessions.get(sessionId).handleRequest(req, res, body);
    }
    if (!sessionId && isInitializeRequest(body)) {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await serverV1().connect(transport);
      return transport.handleRequest(req, res, body);
    }
    return jsonError(res, sessionId ? 404 : 400, sessionId ? -32001 : -32000, sessionId ? 'Session not found' : 'Bad Request: no valid session ID');
  }
  if ((req.method === 'GET' || req.method === 'DELETE') && sessionId && sessions.has(sessionId)) {
    return sessions.get(sessionId).handleRequest(req, res);
  }
  return jsonError(res, sessionId ? 404 : 400, sessionId ? -32001 : -32000, sessionId ? 'Session not found' : 'Bad Request: no valid session ID');
}

// ---- sessionless generation (SDK v2) ----
function serverV2() {
  const s = new ServerV2(info, { capabilities: { tools: {} } });
  s.setRequestHandler('tools/list', async (req) => listTools(req.params?.cursor, pageSize));
  s.setRequestHandler('tools/call', async (req, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    return callTool(req.params.name, req.params.arguments, {
      progress: (progress, total, message) => token === undefined ? Promise.resolve()
        : ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }),
      drop,
      internalError: (message) => new ProtocolError(ProtocolErrorCode.InternalError, message),
    });
  });
  return s;
}

const modern = {
  json: createMcpHandler(serverV2, { responseMode: 'json', legacy: 'reject' }),
  sse: createMcpHandler(serverV2, { responseMode: 'sse', legacy: 'reject' }),
};

async function modernEndpoint(req, res, handler) {
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  const response = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    return res.end();
  }
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      return res.end();
    }
    res.write(value);
  }
}

// ---- plumbing ----
function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function jsonError(res, status, code, message) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function admin(req, res, path) {
  if (req.method === 'GET' && path === '/admin/counts') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(Object.fromEntries(counts)));
  }
  if (req.method === 'POST' && path === '/admin/annotations') {
    return readBody(req).then((b) => {
      for (const [tool, a] of Object.entries(JSON.parse(b.toString('utf8')))) {
        annotationOverrides.set(tool, a);
      }
      res.writeHead(204).end();
    });
  }
  if (req.method === 'POST' && path === '/admin/reset') {
    counts.clear();
    annotationOverrides.clear();
    return res.writeHead(204).end();
  }
  res.writeHead(404).end();
}

const http = createServer((req, res) => {
  const path = new URL(req.url, 'http://fixture').pathname;
  exchange.run({ req, res }, async () => {
    try {
      switch (path) {
        case '/session/json': return await sessionEndpoint(req, res, true);
        case '/session/sse': return await sessionEndpoint(req, res, false);
        case '/modern/json': return await modernEndpoint(req, res, modern.json);
        case '/modern/sse': return await modernEndpoint(req, res, modern.sse);
        default: return await admin(req, res, path);
      }
    } catch (e) {
      process.stderr.write(`fixture: ${req.method} ${path}: ${e?.stack ?? e}\n`);
      if (!res.headersSent) {
        jsonError(res, 500, -32603, String(e?.message ?? e));
      } else {
        res.destroy();
      }
    }
  });
});

http.listen(port, '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${http.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
