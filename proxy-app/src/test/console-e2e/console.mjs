// Drives the idemproxy console in Debian's Chromium through playwright-core, against a real
// proxy that ConsoleBrowserIT started and filled (its calls and dead letter named in the
// environment). Prints one line per scenario; exits 1 on the first failure, with why.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    throw new Error('missing environment variable ' + name);
  }
  return v;
};
const ADMIN = env('CONSOLE_ADMIN_URL');
const TOKEN = env('CONSOLE_TOKEN');
const RETRIED = env('CONSOLE_RETRIED_CALL');
const SECRET = env('CONSOLE_SECRET');
const DLQ_ID = env('CONSOLE_DLQ_ID');
const DLQ_CALL = env('CONSOLE_DLQ_CALL');
const SHOTS = env('CONSOLE_SHOTS');
const WAIT = 15000;

function check(cond, what) {
  if (!cond) {
    throw new Error(what);
  }
}

const profile = mkdtempSync(join(tmpdir(), 'idemproxy-chromium-'));
mkdirSync(SHOTS, { recursive: true });
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CONSOLE_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
  viewport: { width: 1280, height: 800 },
});
let failed = false;
try {
  const page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(WAIT);
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push('page error: ' + e.message));
  const scenario = async (name, run, allowed) => {
    errors.length = 0;
    await run();
    const unexpected = errors.filter((e) => !(allowed && allowed.test(e)));
    check(unexpected.length === 0, name + ': errors in the browser console: ' + unexpected.join(' | '));
    console.log('ok - ' + name);
  };

  await scenario('a wrong token is refused, the right one lets the console in', async () => {
    await page.goto(ADMIN + '/ui');
    await page.locator('#token-input').waitFor();
    await page.fill('#token-input', 'not-the-token');
    await page.keyboard.press('Enter');
    await page.getByText('Refused: the proxy did not accept that token (HTTP 401)').waitFor();
    check(await page.locator('table.calls').count() === 0, 'calls were shown after a wrong token');
    check(await page.evaluate(() => document.cookie) === '', 'the console set a cookie');
    await page.fill('#token-input', TOKEN);
    await page.keyboard.press('Enter');
    await page.locator(`tr[data-call="${RETRIED}"]`).waitFor();
  }, /status of 401/);

  await scenario('the calls page lists the calls newest first with their ids and filters them', async () => {
    const ids = await page.locator('tr[data-call]').evaluateAll((rows) => rows.map((r) => r.dataset.call));
    check(ids.includes(RETRIED) && ids.includes(DLQ_CALL), 'calls missing from the list: ' + ids);
    check(ids.indexOf(DLQ_CALL) < ids.indexOf(RETRIED), 'not newest first: ' + ids);
    await page.screenshot({ path: join(SHOTS, 'console-calls.png') });
    await page.keyboard.press('/');
    check(await page.evaluate(() => document.activeElement.id) === 'f-route', '"/" did not focus the first filter');
    await page.selectOption('#f-status', 'FAILED');
    await page.locator('#f-route').press('Enter');
    await page.waitForURL(/status=FAILED/);
    await page.locator(`tr[data-call="${DLQ_CALL}"]`).waitFor();
    // the filtered page replaces the list when its answer comes: wait for that, a bounded time
    const gone = await page.locator(`tr[data-call="${RETRIED}"]`).waitFor({ state: 'detached', timeout: 10000 })
      .then(() => true, () => false);
    check(gone, 'the status filter kept a SUCCESS call');
  });

  await scenario('a call retried twice then answered shows three tries with their classes and waits, secrets as ***', async () => {
    await page.goto(ADMIN + '/ui#/calls/' + RETRIED);
    await page.locator('li.try[data-try="3"]').waitFor();
    const tries = await page.locator('li.try').evaluateAll((l) => l.map((e) => e.dataset.class));
    check(JSON.stringify(tries) === '["unknown","not-executed","executed"]', 'tries: ' + tries);
    const waits = await page.locator('li.wait .tl-text').allTextContents();
    check(waits.length === 2 && /\(backoff\)/.test(waits[0]) && /\(retry-after\)/.test(waits[1]), 'waits: ' + waits);
    const first = await page.locator('li.try[data-try="1"] .tl-text').textContent();
    check(/HTTP 503 · unknown/.test(first) && /retry after/.test(first), 'try 1: ' + first);
    const last = await page.locator('li.try[data-try="3"] .tl-text').textContent();
    check(/HTTP 201 · executed/.test(last) && /answered the client \(executed\)/.test(last), 'try 3: ' + last);
    const auth = page.locator('section[aria-labelledby="req-title"] tr', { hasText: 'Authorization' }).locator('td');
    check((await auth.textContent()) === '***', 'Authorization shown as ' + await auth.textContent());
    const body = await page.locator('body').textContent();
    check(!body.includes(SECRET), 'the secret appears on the call page');
    check(/api_key=\*\*\*/.test(body), 'the secret query parameter is not masked');
    await page.screenshot({ path: join(SHOTS, 'console-call.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SHOTS, 'console-call-narrow.png'), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    check(overflow <= 0, 'the call page scrolls sideways at 390 px wide by ' + overflow + ' px');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await scenario('a dead-lettered call replayed from the console ends SUCCESS and leaves the dead-letter list', async () => {
    await page.goto(ADMIN + '/ui#/dlq');
    await page.locator(`tr[data-dlq="${DLQ_ID}"]`).waitFor();
    await page.screenshot({ path: join(SHOTS, 'console-dead-letters.png') });
    await page.locator(`tr[data-dlq="${DLQ_ID}"] a[href^="#/dlq/"]`).click();
    await page.locator('#replay').waitFor();
    await page.locator('#replay').focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog#confirm');
    await dialog.waitFor();
    const says = await page.locator('#confirm-text').textContent();
    check(/sent again through the proxy/.test(says) && says.includes(DLQ_CALL), 'the confirmation says: ' + says);
    await page.screenshot({ path: join(SHOTS, 'console-replay-confirm.png') });
    await page.keyboard.press('Tab');  // from Cancel (focused first) to Replay
    await page.keyboard.press('Enter');
    await page.getByText('The entry was removed from the dead-letter queue.').waitFor();
    await page.goto(ADMIN + '/ui#/calls/' + DLQ_CALL);
    await page.locator('.facts .badge', { hasText: 'SUCCESS' }).waitFor();
    await page.goto(ADMIN + '/ui#/dlq');
    await page.locator('h1', { hasText: 'Dead letters' }).waitFor();
    check(await page.locator(`tr[data-dlq="${DLQ_ID}"]`).count() === 0, 'the replayed entry is still listed');
  });

  await scenario('the overview draws the counters per minute', async () => {
    await page.goto(ADMIN + '/ui#/overview');
    await page.locator('figure[data-series="deadLetters"]').waitFor();
    check(await page.locator('figure.chart').count() === 5, 'not five charts');
    const calls = await page.locator('figure[data-series="calls"] .chart-sum').textContent();
    check(/^[1-9]\d* in the last hour/.test(calls), 'calls chart: ' + calls);
    await page.screenshot({ path: join(SHOTS, 'console-overview.png') });
  });
} catch (e) {
  failed = true;
  console.log('not ok - ' + e.message);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
