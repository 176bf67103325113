// Node through HTTPS_PROXY: Node's built-in fetch ignores the variable, undici's ProxyAgent does not.
// The proxy's CA comes from NODE_EXTRA_CA_CERTS. A first POST times out, then the same call again.
// Usage: HTTPS_PROXY=http://127.0.0.1:PORT NODE_EXTRA_CA_CERTS=ca.pem node undici-retry.mjs URL KEY BODY
import { ProxyAgent, fetch } from 'undici';

const [url, key, body] = process.argv.slice(2);
const dispatcher = new ProxyAgent(process.env.HTTPS_PROXY);
const call = (ms) => fetch(url, {
  method: 'POST', body, dispatcher, signal: AbortSignal.timeout(ms),
  headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
});

try {
  const r = await call(2000);
  console.log(`NO-TIMEOUT ${r.status}`);
} catch (e) {
  console.log(e.name === 'TimeoutError' || e.name === 'AbortError' ? 'TIMEOUT' : `ERROR ${e.name}: ${e.message} ${e.cause ?? ''}`);
}
const r = await call(30000);
console.log(`STATUS ${r.status}`);
console.log(`REPLAYED ${r.headers.get('idempotent-replayed')}`);
console.log(`BODY ${await r.text()}`);
await dispatcher.close();
