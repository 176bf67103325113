// A small MCP server for trying idemproxy's MCP route by hand (docs/mcp.md, "Try it"). Node 18+,
// no dependencies: JSON-RPC over Streamable HTTP, one POST per message, answered as JSON, no
// sessions and no GET stream (both optional in the protocol).
//   node examples/mcp/server.mjs [--port 3001]
// Tools: create_ticket {title} makes a new ticket on every call, as a tool that is not idempotent
// does (one line printed per ticket); search_docs {query} only reads (readOnlyHint: true).
import { createServer } from 'node:http';

const i = process.argv.indexOf('--port');
const port = i < 0 ? 3001 : Number.parseInt(process.argv[i + 1], 10);
let tickets = 0;

const tools = [
  { name: 'create_ticket', description: 'Open a ticket; every call opens a new one.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
    annotations: { readOnlyHint: false, idempotentHint: false } },
  { name: 'search_docs', description: 'Search the docs (reads only).',
    inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    annotations: { readOnlyHint: true } },
];

function answer(message) {
  const { id, method, params } = message;
  switch (method) {
    case 'initialize':
      return { protocolVersion: params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} },
        serverInfo: { name: 'idemproxy-example', version: '1.0.0' } };
    case 'ping':
      return {};
    case 'tools/list':
      return { tools };
    case 'tools/call': {
      const args = params?.arguments ?? {};
      if (params?.name === 'create_ticket') {
        tickets += 1;
        const ticketId = `T-${String(tickets).padStart(4, '0')}`;
        console.log(`created ticket ${ticketId} (${tickets} in all): ${JSON.stringify(args.title)}`);
        return { content: [{ type: 'text', text: `created ${ticketId}` }], structuredContent: { ticketId, ticketsCreated: tickets } };
      }
      if (params?.name === 'search_docs') {
        return { content: [{ type: 'text', text: `no docs match ${JSON.stringify(args.query)}` }] };
      }
      return { error: { code: -32602, message: `unknown tool ${params?.name}` } };
    }
    default:
      return { error: { code: -32601, message: `method not found: ${method}` }, id };
  }
}

createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { Allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
      return;
    }
    if (message.id === undefined) {   // a notification (notifications/initialized, …)
      res.writeHead(202).end();
      return;
    }
    const result = answer(message);
    const body = result.error ? { jsonrpc: '2.0', id: message.id, error: result.error } : { jsonrpc: '2.0', id: message.id, result };
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
}).listen(port, '127.0.0.1', function () {
  console.log(`MCP server on http://127.0.0.1:${this.address().port}/mcp (tools: create_ticket, search_docs)`);
});
