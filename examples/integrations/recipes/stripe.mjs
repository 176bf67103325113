// Recipe: stripe-node, pointed at idemproxy with host/port/protocol.
//   new Stripe(key, { host: '127.0.0.1', port: 8080, protocol: 'http' })
import Stripe from 'stripe';
import { PROXY_URL, FAKE_URL, CLIENT_TIMEOUT_MS, intent, version, upstreamStats, reportDirect, reportProxied, finish } from './lib.mjs';

const SDK = `stripe (node) ${version('stripe')}`;

async function run(base) {
  const u = new URL(base);
  const stripe = new Stripe('sk_test_fake', {
    host: u.hostname, port: Number(u.port), protocol: 'http',
    timeout: CLIENT_TIMEOUT_MS,
    // maxNetworkRetries left at its default
  });
  let attempts = 0;
  stripe.on('request', () => { attempts++; });
  const id = intent('stripe');
  const charge = await stripe.charges.create({ amount: 2000, currency: 'usd', source: 'tok_visa', description: `Order ${id}` });
  return { id, charge, attempts, maxNetworkRetries: stripe.getMaxNetworkRetries() };
}

const direct = await run(FAKE_URL);
console.log(`${SDK}: maxNetworkRetries=${direct.maxNetworkRetries} (default), timeout=${CLIENT_TIMEOUT_MS}ms`);
reportDirect(SDK, await upstreamStats(direct.id));

const p = await run(PROXY_URL);
const h = p.charge.lastResponse.headers;
await reportProxied(SDK, {
  stats: await upstreamStats(p.id),
  callId: h['x-call-id'],
  replayed: h['idempotent-replayed'] === 'true',
  clientAttempts: p.attempts,
  note: `charge ${p.charge.id}`,
});
finish();
