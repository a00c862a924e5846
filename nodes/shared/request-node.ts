import { channelFromSlug, isChannelId } from '../../core/channels';
import type { NvrClient } from '../../core/client';
import { DeviceError } from '../../core/errors';
import { isPlainObject } from '../../core/json';
import { addressingOf } from '../../core/page';
import { findOperation, findPage, parsePageName } from '../../core/pages';
import { isChannelMarker } from '../../core/pages/common';
import { isDescriptor } from '../../core/range';
import { bindDevice } from './bind-device';
import { forDone, invalidRequest } from './errors';
import type { DoneFn, InputHandler, NodeDef, NodeMessage, RED, RedNode, SendFn } from './red';
import { evaluateInput, migrateRequestDef, REQUEST_INPUTS } from './request-props';
import { nodeQuoter } from './secrets';

export type RequestOperation = 'Range' | 'Get' | 'Set';

type Data = Record<string, unknown>;

/** A JSON object as request data; a Buffer (or other byte array) payload is not one. */
const isData = (x: unknown): x is Data => isPlainObject(x) && !(x instanceof Uint8Array);

interface OperationBehaviour {
  call(client: NvrClient, page: string, data: Data): Promise<Data>;
  scopeRequest(page: string, data: Data, channel: string): Data;
  scopeAnswer(page: string, answer: Data, channel: string): unknown;
}

/**
 * Range and Get answer every channel: the request is sent as given (plus `channel` where the page's
 * request has that field, e.g. Event/SettingConfig Range) and the answer is cut down to the
 * channel's block.
 */
const readsAllChannels = (operation: 'Range' | 'Get', call: OperationBehaviour['call']): OperationBehaviour => ({
  call,
  scopeRequest: (page, data, channel) => withChannelField(operation, page, data, channel),
  scopeAnswer: (page, answer, channel) => channelBlock(operation, page, answer, channel),
});

/**
 * What each operation does with a channel. Set wraps plain data as `{channel_info: {<ch>: data}}`
 * (a `page_type` stays beside it) and answers unchanged.
 */
const OPERATIONS: Record<RequestOperation, OperationBehaviour> = {
  Range: readsAllChannels('Range', (client, page, data) => client.range(page, data)),
  Get: readsAllChannels('Get', (client, page, data) => client.get(page, data)),
  Set: {
    call: (client, page, data) => client.set(page, data),
    scopeRequest: (page, data, channel) => wrapChannel(page, data, channel),
    scopeAnswer: (_page, answer) => answer,
  },
};

/**
 * `data` as one channel's block: the page's addressing keys (core's declaration: `page_type`) stay at the top, and the
 * members its Set puts in each block (Deterrence: `chn_index`, `page`) are added where not given.
 */
function wrapChannel(page: string, data: Data, channel: string): Data {
  if ('channel_info' in data) return data;
  const addressing = addressingOf(findPage(page));
  const top = pick(data, addressing.topKeys);
  return { ...top, channel_info: { [channel]: { ...addressing.block(channel), ...withoutTop(page, data) } } };
}

function pick(data: Data, keys: readonly string[]): Data {
  return Object.fromEntries(Object.entries(data).filter(([k]) => keys.includes(k)));
}

/** Pages whose request names one channel (registry schema has a `channel` entry) get it filled in. */
export function withChannelField(operation: RequestOperation, page: string, data: Data, channel: string): Data {
  if ('channel' in data) return data;
  const request = findOperation(page, operation)?.request as { entries?: Record<string, unknown> } | undefined;
  return request?.entries && 'channel' in request.entries ? { ...data, channel } : data;
}

/** The channel's block of `channel_info` (a Range answer's descriptor `items` or a Get answer's map). */
function channelBlock(operation: RequestOperation, page: string, answer: Data, channel: string): unknown {
  const info = answer.channel_info;
  if (!isData(info)) return answer; // an answer without channel_info is already about one thing
  const map = isDescriptor(info) && isData(info.items) ? info.items : info;
  if (!(channel in map)) {
    const reason = `${channel} is not in the ${operation} answer (the device lacks it for this page)`;
    throw new DeviceError({ kind: 'unsupported', error_code: 'unknown_channel', reason, page, operation });
  }
  const block = map[channel];
  // `{reason: "Not support"}` / `{status: "Offline", reason: ...}` is the device saying "nothing here", not data.
  if (operation === 'Get' && isChannelMarker(block)) throw channelUnavailable(page, channel, block);
  return block;
}

/** A channel the device answers with a marker instead of parameters: offline, or without the feature. */
function channelUnavailable(page: string, channel: string, marker: { reason: string; status?: string }): DeviceError {
  const offline = typeof marker.status === 'string' && marker.status.toLowerCase() !== 'online';
  const reason = offline
    ? `${channel} is ${marker.status} (the device answers "${marker.reason}"): no ${page} data for it now`
    : `${channel} has no ${page} (the device answers "${marker.reason}"): the camera lacks this feature or none is connected`;
  return new DeviceError({ kind: 'unsupported', error_code: offline ? 'channel_offline' : 'no_support', reason, page, operation: 'Get' });
}

/** `CH1`, `IP_CH5`, `WIFI_CH8` (or their lower-case slugs); empty means "all channels". */
export function normaliseChannel(raw: unknown): string | undefined | null {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string') return null;
  const s = raw.trim();
  if (!s) return undefined;
  return isChannelId(s) ? s : (channelFromSlug(s) ?? null);
}

/** Parses the node's `data` property (JSON text); undefined when empty. Throws a DeviceError when invalid. */
function parseDataProperty(raw: unknown): Data | undefined {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return undefined;
  if (isData(raw)) return raw;
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(raw));
  } catch {
    throw invalidRequest('bad_data', 'the data property is not valid JSON');
  }
  if (!isData(parsed)) throw invalidRequest('bad_data', 'the data property must be a JSON object');
  return parsed;
}

/** The Get data that reads back what a Set changed: the request's `page_type` and the like. */
function readBackRequest(page: string, data: Data): Data {
  return pick(data, addressingOf(findPage(page)).topKeys);
}

/**
 * One message's device work. A Set of a declared page goes through core's `update()` (reads, checks the
 * changed paths, writes per the page's rule, reads back); other Sets are sent as given and read back
 * with a Get where the registry knows one. The answer is cut down to the channel's block.
 */
async function perform(
  operation: RequestOperation,
  client: NvrClient,
  page: string,
  channel: string | undefined,
  data: Data,
): Promise<Data> {
  const op = OPERATIONS[operation];
  if (operation === 'Set' && updatable(page, data)) {
    const changes = channel && !('channel_info' in data) ? { channel_info: { [channel]: withoutTop(page, data) } } : data;
    const after = await client.update(page, changes);
    return (channel ? OPERATIONS.Get.scopeAnswer(page, after, channel) : after) as Data;
  }
  const request = channel ? op.scopeRequest(page, data, channel) : data;
  const answer = await op.call(client, page, request);
  if (operation === 'Set' && findOperation(page, 'Get')) {
    const after = await OPERATIONS.Get.call(client, page, readBackRequest(page, request));
    return (channel ? OPERATIONS.Get.scopeAnswer(page, after, channel) : after) as Data;
  }
  return (channel ? op.scopeAnswer(page, answer, channel) : answer) as Data;
}

/**
 * Whether `update()` can write `data` to `page`: a declared, writable page with a Get, and no `page_type`
 * other than the one its declaration reads (Deterrence has one Get per page type).
 */
function updatable(page: string, data: Data): boolean {
  const def = findPage(page);
  if (!def || def.readOnly || !def.operations.Set || !def.operations.Get) return false;
  const top = addressingOf(def).top;
  return addressingOf(def).topKeys.every((k) => !(k in data) || data[k] === top[k]);
}

/** `data` without the keys that address the request (`page_type`): the channel block's own fields. */
function withoutTop(page: string, data: Data): Data {
  const top = addressingOf(findPage(page)).topKeys;
  return Object.fromEntries(Object.entries(data).filter(([k]) => !top.includes(k)));
}

/** Why a Set has no data, in terms of what the message carried (a payload that is not an object is not used). */
function nothingToSet(payload: unknown): string {
  if (typeof payload === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      // not JSON text
    }
    return isData(parsed)
      ? 'nothing to set: msg.payload is JSON text, not an object; parse it first (a JSON node) or fill the data property'
      : `nothing to set: msg.payload is text (${JSON.stringify(payload.length > 40 ? `${payload.slice(0, 39)}…` : payload)}), not an object of fields such as {"siren_switch": true}; and the data property is empty`;
  }
  if (payload === undefined || payload === null || (isData(payload) && Object.keys(payload).length === 0))
    return 'nothing to set: msg.payload has no fields and the data property is empty (send an object such as {"siren_switch": true})';
  const what = Array.isArray(payload) ? 'a list' : payload instanceof Uint8Array ? 'a Buffer' : `a ${typeof payload}`;
  return `nothing to set: msg.payload is ${what}, not an object of fields such as {"siren_switch": true}; and the data property is empty`;
}

/**
 * The page, channel and data of one request, each checked: a page path, a channel id (or none), a JSON object
 * (a Set needs at least one field; `payload` is the message's, for saying why there is none).
 */
function checkedRequest(values: Record<string, unknown>, operation: RequestOperation, payload: unknown) {
  const page = parsePageName(values.page, operation);
  if (!page)
    throw invalidRequest('bad_page', `page ${nodeQuoter.describe(values.page ?? '')} is not a page path such as AlarmConfig/Deterrence`, {
      operation,
    });
  const channel = normaliseChannel(values.channel);
  if (channel === null)
    throw invalidRequest('bad_channel', `channel ${nodeQuoter.describe(values.channel)} is not CH<n>, IP_CH<n> or WIFI_CH<n>`, {
      page,
      operation,
    });
  if (values.data !== undefined && !isData(values.data))
    throw invalidRequest('bad_data', 'the data must be a JSON object', { page, operation });
  const data: Data = values.data ?? {};
  if (operation === 'Set' && Object.keys(data).length === 0) throw invalidRequest('bad_data', nothingToSet(payload), { page, operation });
  return { page, channel, data };
}

/** Registers `nvr-range`, `nvr-get` or `nvr-set`: one behaviour, parameterised by the operation. */
export function registerRequestNode(RED: RED, type: string, operation: RequestOperation): void {
  function RequestNode(this: RedNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    const props = migrateRequestDef(def);
    let closed = false;
    let configError: Error | undefined;
    if (props.dataType === 'json') {
      try {
        parseDataProperty(props.data);
      } catch (e) {
        configError = e as Error;
      }
    }
    const binding = bindDevice(RED, node, def.device, () => {
      closed = true;
    });
    if (configError) binding?.showFailure(forDone(configError));

    /** page, channel and data for this message: the message's own (unless ignored), else the properties. */
    const inputs = async (msg: NodeMessage) => {
      const values: Record<string, unknown> = {};
      for (const { prop, typeProp, override } of REQUEST_INPUTS) {
        const fromMsg = props.ignoreMsg ? undefined : msg[override];
        if (fromMsg !== undefined && (override !== 'payload' || isData(fromMsg))) {
          values[prop] = fromMsg;
          continue;
        }
        if (prop === 'data' && configError) throw configError;
        try {
          values[prop] = await evaluateInput(RED, node, props[prop], props[typeProp], msg);
        } catch (e) {
          throw invalidRequest(`bad_${prop}`, `the ${prop} property could not be read (${props[typeProp]}): ${(e as Error).message}`, {
            operation,
          });
        }
      }
      return values;
    };

    const handle = async (msg: NodeMessage, send: SendFn): Promise<void> => {
      if (!binding) throw invalidRequest('no_device', 'no nvr-device configured', { operation });
      const values = await inputs(msg);
      const { page, channel, data } = checkedRequest(values, operation, props.ignoreMsg ? undefined : msg.payload);
      const answer = await perform(operation, binding.client, page, channel, data);
      if (closed) return;
      RED.util.setMessageProperty(msg, props.output, answer, true);
      msg.page = page;
      msg.operation = operation;
      if (channel) msg.channel = channel;
      send(msg);
    };

    const onInput: InputHandler = (msg, send, done: DoneFn) => {
      handle(msg, send)
        .then(
          () => {
            binding?.clearFailure();
            done();
          },
          (e: unknown) => {
            if (closed) return done();
            const err = forDone(e, { page: typeof msg.page === 'string' ? msg.page : props.page, operation });
            binding?.showFailure(err);
            done(err);
          },
        )
        .catch(() => undefined);
    };
    node.on('input', onInput);
  }

  RED.nodes.registerType(type, RequestNode);
}
