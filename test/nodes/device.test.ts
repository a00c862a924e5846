/**
 * nvr-device with node-red-node-test-helper against the simulator: one shared session, the status
 * every dependent node shows, credentials kept out of the flow and the editor, close with and
 * without removal (logout, no timers left).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientOptions } from '../../nodes/shared/device-config';
import {
  helper,
  credentials,
  DEV,
  exchange,
  flowWith,
  load,
  newPassword,
  node,
  paths,
  statusesOf,
  timerCount,
  waitFor,
  useSimulator,
  type SimulatorContext,
} from './harness';

type Ctx = SimulatorContext;
const test = suite<Ctx>('nodes: nvr-device session, status, credentials, close', { password: newPassword() });

const PAGE = 'AlarmConfig/Deterrence';
const getNode = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'nvr-get',
  name: '',
  device: DEV,
  page: PAGE,
  channel: '',
  data: '',
  wires: [['out']],
  ...extra,
});

useSimulator(test);

/** Waits for the node's green dot "connected", shown after a yellow ring "connecting". */
async function showsConnectingThenConnected(id: string, label = id): Promise<void> {
  await waitFor(() => statusesOf(id).some((s) => s.fill === 'green'), `${label} connected`);
  const seq = statusesOf(id);
  const connecting = seq.findIndex((s) => s.fill === 'yellow' && s.shape === 'ring' && s.text === 'connecting');
  const connected = seq.findIndex((s) => s.fill === 'green' && s.shape === 'dot' && s.text === 'connected');
  assert.ok(connecting >= 0 && connected > connecting, `${label}: ${JSON.stringify(seq)}`);
}

test('dependent nodes show yellow ring connecting, then green dot connected; one login for all', async ({ sim, password }) => {
  await load(flowWith(sim!.url, [getNode('g1'), getNode('g2'), { id: 'out', type: 'helper' }]), credentials(password));
  for (const id of ['g1', 'g2']) await showsConnectingThenConnected(id);
  // A second login might drop the first session on real devices: the config node shares one.
  const logins = paths(sim!).filter((p) => p === '/API/Web/Login').length;
  assert.is(logins, 2, 'one Digest challenge and one authorised login');
  assert.is(node(DEV).session.userCount, 2);
});

test('wrong password: red ring with a short reason', async ({ sim }) => {
  await load(flowWith(sim!.url, [getNode('g1'), { id: 'out', type: 'helper' }]), credentials('not-the-password'));
  const red = await waitFor(() => statusesOf('g1').find((s) => s.fill === 'red'), 'red status');
  assert.is(red.shape, 'ring');
  assert.match(red.text!, /^wrong username or password; retry \d\d:\d\d:\d\d$/); // and when it tries again
  assert.not.ok(statusesOf('g1').some((s) => s.fill === 'green'));
});

test('after a refused login, deploying the corrected password logs in at once', async ({ sim, password }) => {
  const nodes = [getNode('g1'), { id: 'out', type: 'helper' }];
  await load(flowWith(sim!.url, nodes), credentials('not-the-password'));
  await waitFor(() => statusesOf('g1').find((s) => s.fill === 'red'), 'red status');
  // What the editor deploys when only the password changed: the config node with its credentials.
  await helper.setFlows(flowWith(sim!.url, nodes, { credentials: { username: 'admin', password } }), 'nodes');
  await waitFor(() => node('g1') && statusesOf('g1').at(-1)?.fill === 'green', 'connected after the deploy', 3000);
});

/** One node of every type that uses an nvr-device. */
const EVERY_TYPE = [
  { id: 'r1', type: 'nvr-range', device: DEV, page: PAGE, channel: '', data: '', wires: [[]] },
  getNode('g1', { wires: [[]] }),
  { id: 's1', type: 'nvr-set', device: DEV, page: PAGE, channel: '', data: '', wires: [[]] },
  { id: 'u1', type: 'nvr-upgrade', device: DEV, file: '', large_capacity: false, wires: [[]] },
  { id: 'e1', type: 'nvr-event', device: DEV, wires: [[]] },
];

test('every node type using the device shows yellow ring connecting, then green dot connected', async ({ sim, password }) => {
  await load(flowWith(sim!.url, EVERY_TYPE), credentials(password));
  for (const { id, type } of EVERY_TYPE) await showsConnectingThenConnected(id, type);
  assert.is(node(DEV).session.userCount, EVERY_TYPE.length);
});

test('every node type using the device shows a refused login as a red ring with the reason', async ({ sim }) => {
  await load(flowWith(sim!.url, EVERY_TYPE), credentials('not-the-password'));
  for (const { id, type } of EVERY_TYPE) {
    const red = await waitFor(() => statusesOf(id).find((s) => s.fill === 'red'), `${type} red`);
    assert.equal([red.fill, red.shape], ['red', 'ring'], type);
    assert.match(red.text!, /^wrong username or password; retry \d\d:\d\d:\d\d$/, type);
  }
  assert.is(paths(sim!).filter((p) => p === '/API/Web/Login').length, 2, 'one refused login for all of them');
});

test('no device configured: red ring, and a message fails instead of hanging', async ({ sim }) => {
  await load(flowWith(sim!.url, [getNode('g1', { device: '' }), { id: 'out', type: 'helper' }]));
  assert.equal(statusesOf('g1').at(-1), { fill: 'red', shape: 'ring', text: 'no device configured' });
});

test('no credentials at all: red ring saying so; a message fails with bad_option at the Catch node', async ({ sim }) => {
  await load(
    flowWith(sim!.url, [
      getNode('g1'),
      { id: 'out', type: 'helper' },
      { id: 'catcher', type: 'catch', scope: ['g1'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ]),
  );
  assert.equal(statusesOf('g1').at(-1), { fill: 'red', shape: 'ring', text: 'username is required' });
  const r = await exchange('g1', { payload: {} });
  assert.is(r.caught?.error.code, 'bad_option');
  assert.equal(paths(sim!), []);
});

test('credentials: not in the flow, password type, and the editor sees has_password only', async ({ sim, password }) => {
  await load(flowWith(sim!.url, [getNode('g1'), { id: 'out', type: 'helper' }]), credentials(password));
  await waitFor(() => statusesOf('g1').some((s) => s.fill === 'green'), 'connected');
  const flows = helper._redNodes.getFlows();
  assert.not.ok(JSON.stringify(flows).includes(password), 'password in the flow');
  assert.not.ok(JSON.stringify(flows.flows.find((n: any) => n.id === DEV)).includes('admin'), 'username in the flow');
  assert.equal(helper._redNodes.getCredentialDefinition('nvr-device'), { username: { type: 'text' }, password: { type: 'password' } });
  // What the editor's GET /credentials/nvr-device/:id answers, computed by Node-RED's own runtime API.
  const flowsApi = require('@node-red/runtime/lib/api/flows');
  flowsApi.init({ log: { audit() {} }, nodes: helper._redNodes });
  const editor = await flowsApi.getNodeCredentials({ type: 'nvr-device', id: DEV });
  assert.equal(editor, { username: 'admin', has_password: true });
  // The node itself never shows it either.
  assert.not.ok(JSON.stringify(statusesOf('g1')).includes(password));
});

test("heartbeat and TLS properties become the client's options for this device only", () => {
  const ms = (heartbeat: unknown) => clientOptions({ url: 'http://d', heartbeat }, {}).heartbeatMs;
  assert.equal(
    [ms(''), ms(undefined), ms('0'), ms(0), ms('2'), ms('60'), ms('x'), ms('-1')],
    [25_000, 25_000, 0, 0, 5000, 60_000, 25_000, 25_000],
  );
  const opts = clientOptions({ url: ' https://d/ ', tls_ca: ' PEM ', tls_fingerprint: '' }, { username: 'u', password: 'p' });
  assert.equal(opts.tls, { ca: 'PEM' });
  assert.is(opts.url, 'https://d');
  assert.is(clientOptions({ url: 'http://d', tls_ca: '', tls_fingerprint: '' }, {}).tls, undefined);
});

test('close without removal (stop flows): logout sent, timers cleared, within 2 s', async ({ sim, password }) => {
  const before = timerCount();
  await load(flowWith(sim!.url, [getNode('g1'), getNode('g2'), { id: 'out', type: 'helper' }]), credentials(password));
  await waitFor(() => statusesOf('g1').some((s) => s.fill === 'green'), 'connected');
  const removedFlags: boolean[] = [];
  node('g1').on('close', (removed: boolean, done: () => void) => {
    removedFlags.push(removed);
    done();
  });
  const t0 = Date.now();
  await helper.clearFlows();
  assert.ok(Date.now() - t0 < 2000, `close took ${Date.now() - t0} ms`);
  assert.equal(removedFlags, [false]);
  assert.is(paths(sim!).filter((p) => p === '/API/Web/Logout').length, 1, 'one logout');
  assert.ok(timerCount() <= before, `timers: ${before} before, ${timerCount()} after`);
});

test('close is bounded when the device does not answer the logout', async ({ sim, password }) => {
  await load(flowWith(sim!.url, [getNode('g1'), { id: 'out', type: 'helper' }]), credentials(password));
  await waitFor(() => statusesOf('g1').some((s) => s.fill === 'green'), 'connected');
  sim!.fault({ path: '/API/Web/Logout', kind: 'latency', ms: 8000 });
  try {
    const t0 = Date.now();
    await helper.clearFlows();
    assert.ok(Date.now() - t0 < 2500, `close took ${Date.now() - t0} ms`);
  } finally {
    sim!.clearFaults();
  }
});

test('close with removal (deploy without the nodes): logout sent', async ({ sim, password }) => {
  const flow = flowWith(sim!.url, [getNode('g1'), { id: 'out', type: 'helper' }]);
  await load(flow, credentials(password));
  await waitFor(() => statusesOf('g1').some((s) => s.fill === 'green'), 'connected');
  const removedFlags: boolean[] = [];
  node('g1').on('close', (removed: boolean, done: () => void) => {
    removedFlags.push(removed);
    done();
  });
  await helper.setFlows(
    flow.filter((n) => n.id === 'tab1' || n.id === 'out'),
    'full',
  );
  assert.equal(removedFlags, [true]);
  await waitFor(() => paths(sim!).includes('/API/Web/Logout'), 'logout');
  assert.not.ok(node('g1'), 'g1 is gone');
});

test('redeploying one dependent keeps the others in the session; the last one out logs out', async ({ sim, password }) => {
  const flow = flowWith(sim!.url, [getNode('g1'), getNode('g2'), { id: 'out', type: 'helper' }]);
  await load(flow, credentials(password));
  await waitFor(() => statusesOf('g2').some((s) => s.fill === 'green'), 'connected');
  await helper.setFlows(
    flow.filter((n) => n.id !== 'g1'),
    'nodes',
  );
  assert.is(node(DEV).session.userCount, 1);
  assert.not.ok(paths(sim!).includes('/API/Web/Logout'), 'no logout while g2 uses the session');
  await helper.setFlows(
    flow.filter((n) => n.id !== 'g1' && n.id !== 'g2'),
    'nodes',
  );
  await waitFor(() => paths(sim!).includes('/API/Web/Logout'), 'logout after the last user');
});

test.run();
