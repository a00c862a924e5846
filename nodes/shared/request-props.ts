import type { NodeDef, NodeMessage, RED, RedNode } from './red';

/** TypedInput types a request node's page, channel and data accept. */
export const INPUT_TYPES = ['str', 'msg', 'flow', 'global', 'env', 'json', 'jsonata'] as const;
export type InputType = (typeof INPUT_TYPES)[number];

/** The saved properties of nvr-range / nvr-get / nvr-set (version 2). */
export interface RequestProps {
  page: string;
  pageType: InputType;
  channel: string;
  channelType: InputType;
  data: string;
  dataType: InputType;
  /** Message property the answer goes to (`payload` unless chosen otherwise). */
  output: string;
  /** When true, `msg.page`, `msg.channel` and `msg.payload` of the incoming message are not used. */
  ignoreMsg: boolean;
}

/**
 * One row per input: the node property, its TypedInput type property, the default type, and the
 * message property that overrides it (unless `ignoreMsg`).
 */
export const REQUEST_INPUTS = [
  { prop: 'page', typeProp: 'pageType', defaultType: 'str', override: 'page' },
  { prop: 'channel', typeProp: 'channelType', defaultType: 'str', override: 'channel' },
  { prop: 'data', typeProp: 'dataType', defaultType: 'json', override: 'payload' },
] as const;

const isInputType = (x: unknown): x is InputType => typeof x === 'string' && (INPUT_TYPES as readonly string[]).includes(x);
const text = (x: unknown): string => (typeof x === 'string' ? x : x === undefined || x === null ? '' : String(x));

/**
 * A saved node of any version -> version 2. Version 1 (before TypedInputs) stored page, channel and
 * data as plain text (data as JSON text) and always let the message override them: that is what
 * the defaults below mean, so old flows behave as before.
 */
export function migrateRequestDef(def: NodeDef): RequestProps {
  const out = {} as Record<string, unknown>;
  for (const { prop, typeProp, defaultType } of REQUEST_INPUTS) {
    const raw = def[prop];
    // Version 1 allowed data as an object in hand-written flows.
    out[prop] = prop === 'data' && raw !== null && typeof raw === 'object' ? JSON.stringify(raw) : text(raw);
    out[typeProp] = isInputType(def[typeProp]) ? def[typeProp] : defaultType;
  }
  const output = text(def.output).trim();
  out.output = output || 'payload';
  out.ignoreMsg = def.ignoreMsg === true || def.ignoreMsg === 'true';
  return out as unknown as RequestProps;
}

/** A TypedInput's value for this message; undefined for an empty literal (nothing configured). */
export function evaluateInput(RED: RED, node: RedNode, value: string, type: InputType, msg: NodeMessage): Promise<unknown> {
  if ((type === 'str' || type === 'json') && value.trim() === '') return Promise.resolve(undefined);
  if (type === 'json') return Promise.resolve(JSON.parse(value) as unknown);
  return new Promise((resolve, reject) => {
    RED.util.evaluateNodeProperty(value, type, node, msg, (err, result) => (err ? reject(err) : resolve(result)));
  });
}
