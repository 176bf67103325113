// For the shell recipes: node report.mjs "LABEL" INTENT HEADERS_FILE CLIENT_ATTEMPTS
// HEADERS_FILE holds the final response's headers as curl -D wrote them.
import fs from 'node:fs';
import { upstreamStats, reportProxied, finish } from './lib.mjs';

const [label, id, headersFile, attempts] = process.argv.slice(2);
const text = fs.readFileSync(headersFile, 'utf8');
// curl -D appends one block per response (retries included): keep the last one.
const blocks = text.split(/\r?\n\r?\n/).filter((b) => b.trim());
const last = blocks[blocks.length - 1] || '';
const headers = {};
for (const line of last.split(/\r?\n/).slice(1)) {
  const i = line.indexOf(':');
  if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
}
const status = (last.split(/\r?\n/)[0] || '').trim();
await reportProxied(label, {
  stats: await upstreamStats(id), callId: headers['x-call-id'],
  replayed: headers['idempotent-replayed'] === 'true', clientAttempts: attempts,
  note: status,
});
finish();
