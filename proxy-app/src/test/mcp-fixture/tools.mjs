// The fixture's tools, shared by the session-based (SDK v1) and sessionless (SDK v2) servers.
// Every tool that commits prints one line "EXEC <tool> <arguments as JSON>" on stdout at the
// moment it commits, so the Java test can count executions; GET /admin/counts answers the same.

export const counts = new Map();
// Annotation overrides set through POST /admin/annotations, so a test can change what tools/list says.
export const annotationOverrides = new Map();

const TOOLS = [
  { name: 'search_docs', description: 'Searches the docs (read-only)', annotations: { readOnlyHint: true } },
  { name: 'create_ticket', description: 'Creates a ticket (a side effect, counted)', annotations: { readOnlyHint: false } },
  { name: 'slow_commit', description: 'Commits, then answers after delayMs (default 2000)', annotations: {} },
  { name: 'commit_then_drop', description: 'Commits, then drops the connection without an answer', annotations: {} },
  { name: 'set_flag', description: 'Sets a flag (idempotent)', annotations: { idempotentHint: true } },
  { name: 'fail_internal', description: 'Commits, then answers JSON-RPC error -32603', annotations: {} },
];

const SCHEMA = { type: 'object', additionalProperties: true };

export function listTools(cursor, pageSize) {
  const all = TOOLS.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: SCHEMA,
    annotations: { ...t.annotations, ...(annotationOverrides.get(t.name) ?? {}) },
  }));
  if (!pageSize) {
    return { tools: all };
  }
  const start = cursor ? Number.parseInt(cursor.slice(1), 10) : 0;
  const page = all.slice(start, start + pageSize);
  const next = start + pageSize < all.length ? `p${start + pageSize}` : undefined;
  return next ? { tools: page, nextCursor: next } : { tools: page };
}

function commit(name, args) {
  const n = (counts.get(name) ?? 0) + 1;
  counts.set(name, n);
  process.stdout.write(`EXEC ${name} ${JSON.stringify(args ?? {})}\n`);
  return n;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one tool call.
 * ctx: { progress(progress, total, message): Promise, drop(): void, internalError(message): Error }
 */
export async function callTool(name, args, ctx) {
  args = args ?? {};
  const text = (t) => ({ content: [{ type: 'text', text: t }] });
  switch (name) {
    case 'search_docs': {
      const n = commit(name, args);
      await ctx.progress(1, 1, 'searched');
      return text(`${n}: results for ${args.query ?? ''}`);
    }
    case 'create_ticket': {
      const n = commit(name, args);
      await ctx.progress(1, 2, 'validated');
      await ctx.progress(2, 2, 'stored');
      return text(`Ticket T-${n} created: ${args.title ?? ''}`);
    }
    case 'slow_commit': {
      const n = commit(name, args);
      const delay = Number.isInteger(args.delayMs) ? args.delayMs : 2000;
      const steps = 4;
      for (let i = 1; i <= steps; i++) {
        await sleep(delay / steps);   // the point of this tool: it answers late, on purpose
        await ctx.progress(i, steps, `step ${i}`);
      }
      return text(`slow commit ${n} done`);
    }
    case 'commit_then_drop': {
      commit(name, args);
      await ctx.progress(1, 2, 'committed');
      ctx.drop();
      return new Promise(() => {});   // never answers: the connection is gone
    }
    case 'set_flag': {
      const n = commit(name, args);
      return text(`flag ${args.flag ?? ''} set (${n})`);
    }
    case 'fail_internal': {
      commit(name, args);
      await ctx.progress(1, 1, 'committed');
      throw ctx.internalError('internal error after commit');
    }
    default:
      return { content: [{ type: 'text', text: `Unknown tool: ${name}` }], isError: true };
  }
}
