import type { ChannelSlot } from '../../core/channel-slots';
import type { NvrClient } from '../../core/client';
import { RestartGuard } from '../../core/restart-guard';
import type { LiveState } from '../../core/live';
import { SwitchOffTimers } from '../../core/switch-off';
import { bindDevice, type DeviceBinding, type DeviceNode } from '../shared/bind-device';
import {
  checkChannel,
  CONTROL_MODES,
  isControlMode,
  parseCommand,
  settingOf,
  type Command,
  type ControlMode,
} from '../shared/control-modes';
import { forDone, invalidRequest } from '../shared/errors';
import { nodeQuoter } from '../shared/secrets';
import type { InputHandler, NodeDef, NodeMessage, RED, RedNode } from '../shared/red';
import { normaliseChannel } from '../shared/request-node';

/** How long the node trusts the device's channel slots (which channel has which hardware). */
const SLOTS_TTL_MS = 60_000;

/** A refusal by the cached model is checked again with a model at most this old (a camera back online). */
const RECHECK_AGE_MS = 1_000;

/** The channel slots, read at most once per `maxAgeMs` (SLOTS_TTL_MS) and shared by the messages in flight. */
function channelSlotCache(client: () => NvrClient) {
  let cached: { at: number; channels: Promise<ChannelSlot[]> } | undefined;
  return (maxAgeMs = SLOTS_TTL_MS): Promise<ChannelSlot[]> => {
    if (!cached || Date.now() - cached.at > maxAgeMs) {
      const channels = client().channelSlots();
      const entry = (cached = { at: Date.now(), channels });
      channels.catch(() => {
        if (cached === entry) cached = undefined; // an outage is not an answer worth keeping
      });
    }
    return cached.channels;
  };
}

/**
 * The channel has the mode's hardware (by the cached model, or one at most RECHECK_AGE_MS old when the cached one
 * refuses): the device's channel count, or the refusal thrown.
 */
async function channelSlots(mode: ControlMode, target: string, models: ReturnType<typeof channelSlotCache>): Promise<number> {
  const refused = checkChannel(mode, target, await models()) && checkChannel(mode, target, await models(RECHECK_AGE_MS));
  if (refused) throw refused;
  return (await models()).length;
}

/** Core's restart rule, one guard per nvr-device (every control node of a device shares it). */
const restartGuards = new WeakMap<object, RestartGuard>();
function restartGuard(device: object): RestartGuard {
  let guard = restartGuards.get(device);
  if (!guard) restartGuards.set(device, (guard = new RestartGuard()));
  return guard;
}

/**
 * `nvr-control`: switches one part now (floodlight, siren, red/blue light, alarm output) or arms and
 * disarms the recorder; `msg.payload` true/false, "on"/"off" or an object; answers the state read back.
 * A duration switches the part off again after that time (one timer per target, cancelled by the next
 * command for it, cleared on close).
 */
export = function (RED: RED) {
  function NvrControlNode(this: RedNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    const mode: ControlMode | undefined = isControlMode(def.mode) ? def.mode : undefined;
    const defaults = {
      brightness: settingOf(def.brightness),
      volume: settingOf(def.volume),
      duration: settingOf(def.duration),
      ptz: def.ptz,
    };
    const timers = new SwitchOffTimers();
    let closed = false;
    const binding = bindDevice(RED, node, def.device, () => {
      closed = true;
      timers.clear();
    });
    const slotCache = binding ? channelSlotCache(() => binding.client) : undefined;

    const device = typeof def.device === 'string' ? (RED.nodes.getNode(def.device) as DeviceNode | null) : null;
    const run = async (m: ControlMode, target: string, cmd: Command): Promise<unknown> => {
      const state = await CONTROL_MODES[m].run(binding!.client, target, cmd);
      // The state read back is what the part is now: nvr-event nodes of the device report it (dashboards follow).
      if (CONTROL_MODES[m].target.kind === 'channel' && m !== 'ptz')
        device?.live?.update({ ...(state as LiveState), channel: target }, 'read-back');
      return state;
    };

    /** After `seconds`, the same part off again; its state goes out as a message of its own. */
    const switchOffLater = (m: ControlMode, target: string, seconds: number, msg: NodeMessage) => {
      timers.schedule(target, seconds, () => {
        run(m, target, { on: false })
          .then(
            (state) => {
              if (!closed) node.send(reply({ topic: msg.topic }, m, target, state, 'duration'));
            },
            (e: unknown) => {
              if (!closed) node.error(forDone(e), { topic: msg.topic, payload: { on: false }, control: m, target });
            },
          )
          .catch(() => undefined);
      });
    };

    const handle = async (msg: NodeMessage): Promise<NodeMessage | undefined> => {
      if (!binding) throw invalidRequest('no_device', 'no nvr-device configured');
      if (!mode)
        throw invalidRequest('bad_mode', `mode ${nodeQuoter.describe(def.mode)} is not one of ${Object.keys(CONTROL_MODES).join(', ')}`);
      const target = targetOf(def, mode, msg);
      const cmd = parseCommand(mode, msg.payload, defaults);
      if (mode === 'restart') {
        const done = await restart({ node, binding, guard: restartGuard(device ?? node), run, closed: () => closed }, msg, target);
        return done && reply(msg, 'restart', target, done.state);
      }
      if (CONTROL_MODES[mode].target.kind === 'channel') cmd.slots = await channelSlots(mode, target, slotCache!);
      // A later command for the same target cancels a pending switch-off, whatever it asks.
      timers.cancel(target);
      const state = await run(mode, target, cmd);
      if (closed) return undefined;
      if (cmd.on && cmd.duration) switchOffLater(mode, target, cmd.duration, msg);
      return reply(msg, mode, target, state);
    };

    const onInput: InputHandler = (msg, send, done) => {
      handle(msg)
        .then(
          (out) => {
            binding?.clearFailure();
            if (out) send(out);
            done();
          },
          (e: unknown) => {
            if (closed) return done();
            const err = forDone(e);
            binding?.showFailure(err);
            done(err);
          },
        )
        .catch(() => undefined);
    };
    node.on('input', onInput);
  }

  RED.nodes.registerType('nvr-control', NvrControlNode);
};

/** The channel or alarm output this message is about ('' for the recorder itself). */
function targetOf(def: NodeDef, m: ControlMode, msg: NodeMessage): string {
  const target = CONTROL_MODES[m].target;
  const kind = target.kind;
  if (kind === 'device' && !target.channel) return '';
  if (kind === 'output') {
    const out = typeof msg.output === 'string' && msg.output ? msg.output : typeof def.output === 'string' ? def.output.trim() : '';
    if (!out) throw invalidRequest('bad_output', 'no alarm output: choose one (e.g. Local->1) or send msg.output');
    return out;
  }
  const channel = normaliseChannel(msg.channel !== undefined ? msg.channel : def.channel);
  if (channel === null)
    throw invalidRequest('bad_channel', `channel ${nodeQuoter.describe(msg.channel)} is not CH<n>, IP_CH<n> or WIFI_CH<n>`);
  if (kind === 'device') return channel ?? ''; // optional: none means the recorder
  if (!channel) throw invalidRequest('bad_channel', 'no channel: choose one or send msg.channel');
  return channel;
}

/** What a restart needs of its node: the node, its device binding, the device's guard, and how to send. */
interface RestartContext {
  node: RedNode;
  binding: DeviceBinding;
  guard: RestartGuard;
  run: (m: ControlMode, target: string, cmd: Command) => Promise<unknown>;
  closed: () => boolean;
}

/**
 * Restart mode: a retained message (an MQTT-in's `msg.retain`, it would come again on every deploy) and a restart
 * core's rule refuses (one at a time, the recorder not again within a minute) send nothing. Answers the state read
 * back, or nothing once the node closed.
 */
async function restart(
  { node, binding, guard, run, closed }: RestartContext,
  msg: NodeMessage,
  channel: string,
): Promise<{ state: unknown } | undefined> {
  if (msg.retain === true)
    throw invalidRequest('retained', 'a retained message does not restart the device (it would again on every deploy)');
  const why = guard.begin(channel || undefined);
  if (why) throw invalidRequest('restarting', why);
  let sent = false;
  binding.muted = true;
  node.status({ fill: 'yellow', shape: 'dot', text: `restarting ${channel || 'the recorder'}` });
  try {
    const state = await run('restart', channel, { on: true });
    sent = true;
    const at = new Date().toTimeString().slice(0, 5);
    node.status({ fill: 'green', shape: 'dot', text: `restart of ${channel || 'the recorder'} sent at ${at}` });
    return closed() ? undefined : { state };
  } finally {
    guard.end(channel || undefined, sent);
    binding.muted = false;
    if (!closed() && !sent) binding.showConnection();
  }
}

/** The answer: `msg.payload` = the state read back; `msg.channel` / `msg.output` name the target. */
function reply(msg: NodeMessage, mode: ControlMode, target: string, state: unknown, cause?: 'duration'): NodeMessage {
  msg.payload = state;
  msg.control = mode;
  const kind = CONTROL_MODES[mode].target.kind;
  if (kind === 'channel' || (kind === 'device' && target)) msg.channel = target;
  if (kind === 'output') msg.output = target;
  if (cause) msg.cause = cause;
  return msg;
}
