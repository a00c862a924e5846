/**
 * nvr-control's restart mode in the Node-RED runtime against the simulator: the recorder restarts (secondary
 * authentication, the simulator reboots), the node answers and comes back with one login; a camera behind the NVR
 * restarts through IPCReboot (a default inject's timestamp does it); a stray payload, a retained message, an analog channel and a second restart within a
 * minute are refused with nothing sent.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  credentials,
  DEV,
  exchange,
  flowWith,
  helper,
  load,
  newPassword,
  statusesOf,
  useSimulator,
  waitFor,
  type SimulatorContext,
} from './harness';
import { until } from '../helpers/until';

type Ctx = SimulatorContext;
const test = suite<Ctx>('nodes: nvr-control restart', { password: newPassword() });
const REBOOT_MS = 1500;

useSimulator(test, { rebootMs: REBOOT_MS });

/** A restart node `r1` and an arm/disarm node `d1` (something that needs the device afterwards) -> `out`; Catch -> `caught`. */
async function restartFlow(ctx: Ctx, props: Record<string, unknown> = {}) {
  await helper.unload();
  await load(
    flowWith(ctx.sim!.url, [
      { id: 'r1', type: 'nvr-control', name: '', device: DEV, mode: 'restart', channel: '', wires: [['out']], ...props },
      { id: 'd1', type: 'nvr-control', name: '', device: DEV, mode: 'disarm', wires: [['out']] },
      { id: 'out', type: 'helper' },
      { id: 'catcher', type: 'catch', scope: ['r1', 'd1'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ]),
    credentials(ctx.password),
  );
}

const restartRequests = (ctx: Ctx) => ctx.sim!.log.filter((e) => /TransKey|DeviceReboot|IPCReboot\/Set/.test(e.path));

test('refused with nothing sent: false, other text, an object, a retained message, an analog channel', async (ctx) => {
  await restartFlow(ctx);
  const takes = /msg\.payload must be true, "restart" or a timestamp \(an inject as it comes\) to restart \(got /;
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ payload: false }, 'bad_payload', takes],
    [{ payload: 'reboot now' }, 'bad_payload', takes],
    [{ payload: { restart: true } }, 'bad_payload', takes],
    [{ payload: 'restart', retain: true }, 'retained', /retained message does not restart/],
    [{ payload: true, channel: 'nope' }, 'bad_channel', /is not CH<n>/],
  ];
  for (const [msg, code, reason] of cases) {
    const r = await exchange('r1', msg);
    assert.ok(r.caught, `${JSON.stringify(msg)} refused`);
    assert.is(r.caught.error.code, code, JSON.stringify(r.caught.error));
    assert.match(r.caught.error.message, reason);
  }
  // CH1 is an analog channel: the NVR's IPCReboot does not list it (read from its Range), nothing else goes out.
  const analog = await exchange('r1', { payload: true, channel: 'CH1' });
  assert.match(analog.caught?.error.message ?? '', /not a camera this recorder can restart/);
  assert.equal(restartRequests(ctx), [], 'no TransKey, no reboot');
  assert.is(ctx.sim!.reboots, 0);
});

test('a camera behind the NVR restarts through IPCReboot, from a default inject (its timestamp); the answer names it', async (ctx) => {
  await restartFlow(ctx, { channel: 'IP_CH1' });
  const r = await exchange('r1', { payload: Date.now(), topic: 'cam' });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.is(r.out.control, 'restart');
  assert.is(r.out.channel, 'IP_CH1');
  assert.is(r.out.payload.restarting, true);
  assert.is(r.out.payload.channel, 'IP_CH1');
  const set = ctx.sim!.log.find((e) => e.path === '/API/IPCMaintaint/IPCReboot/Set')!;
  assert.equal((set.data as any).channel_info, { IP_CH1: { reboot_switch: true } });
  assert.is(ctx.sim!.reboots, 0, 'the recorder itself did not restart');
});

test('the recorder restarts: answer, status, a second restart refused, one login once it is back', async (ctx) => {
  await restartFlow(ctx);
  // Logged in before the restart (the first command logs in).
  assert.ok((await exchange('d1', { payload: false })).out);
  const before = ctx.sim!.log.length;
  const r = await exchange('r1', { payload: true });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  assert.equal(r.out.payload, { restarting: true });
  assert.is(r.out.control, 'restart');
  assert.is(r.out.channel, undefined);
  await until(() => ctx.sim!.reboots === 1, 'the simulator rebooted', 3000);
  const reboot = ctx.sim!.log.slice(before).find((e) => e.path === '/API/Maintenance/DeviceReboot/Set')!;
  assert.equal(Object.keys(reboot.data as any).sort(), ['cipher', 'seq']);
  assert.ok(
    statusesOf('r1').some((s) => /restart of the recorder sent/.test(s.text ?? '')),
    JSON.stringify(statusesOf('r1')),
  );
  // A second one (a double click, a duplicated message): refused by core's rule, nothing sent.
  const sent = restartRequests(ctx).length;
  const again = await exchange('r1', { payload: true });
  assert.is(again.caught?.error.code, 'restarting');
  assert.match(again.caught!.error.message, /already restarting/);
  assert.is(restartRequests(ctx).length, sent);
  // Back after the reboot: the next command logs in once and works.
  await new Promise((r) => setTimeout(r, REBOOT_MS + 500));
  const after = await exchange('d1', { payload: false }, 'out', 'caught', 15_000);
  assert.ok(after.out, JSON.stringify(after.caught?.error));
  const logins = ctx.sim!.log.slice(before).filter((e) => e.path === '/API/Web/Login' && e.status === 200);
  assert.is(logins.length, 1, 'one login after the restart');
  assert.is(ctx.sim!.reboots, 1);
  await waitFor(() => statusesOf('r1').length > 0, 'status');
});

test.run();
