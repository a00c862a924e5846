/**
 * Another user's session: a person's browser on the bridge's address takes the device's session (the device answers
 * `one_IE` to the bridge). After two in a row the bridge stops logging in (each login would throw that person out
 * again), says so on `bridge/event` and in the device's availability, and sends the device nothing while it waits.
 */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { json, setup, type Fixture } from './fixture';

const test = suite<{ fx: Fixture }>('bridge: another user takes the session');
const LOGIN = '/API/Web/Login';

test.before(async (ctx) => {
  ctx.fx = await setup({ label: 'evicted', devices: [{ id: 'nvr', poll: 0.3, events: false }] });
});

test.after(async ({ fx }) => {
  await fx?.stop();
});

test("two one_IE in a row: logins stop, availability offline with reason another user's session, said on bridge/event", async ({ fx }) => {
  const sim = fx.sims.get('nvr')!;
  const since = fx.recorder.count;
  const before = sim.log.length;
  // From now on a browser at the bridge's address holds the session: every call of the bridge answers one_IE.
  sim.fault({ kind: 'one_IE', path: /^\/API\/(?!Web\/Login)/ });
  const avail = json(await fx.recorder.waitTopic(`${fx.base}/nvr/availability`, (j) => j.state === 'offline', 10_000, since));
  assert.deepEqual(avail, { state: 'offline', reason: "another user's session" });
  const offline = fx.recorder
    .on((t) => t === `${fx.base}/bridge/event`)
    .map((m) => json(m) as { type: string; data: Record<string, unknown> })
    .find((e) => e.type === 'device_offline' && e.data.device === 'nvr');
  assert.ok(offline, 'device_offline on bridge/event');
  assert.match(String(offline.data.reason), /another user's session: .*one_IE.*not logging in again for 10 min/);
  const logins = () => sim.log.slice(before).filter((e) => e.path === LOGIN && e.status === 200).length;
  const requests = () => sim.log.length;
  assert.ok(logins() <= 1, `${logins()} logins after the first one_IE (one re-login at most)`);
  // Held: polls go on failing at once, and neither a login nor any call reaches the device.
  const held = requests();
  const loginsHeld = logins();
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(logins(), loginsHeld, 'no login while held');
  assert.equal(requests(), held, 'nothing sent while held');
});

test.run();
