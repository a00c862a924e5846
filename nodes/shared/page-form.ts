import type { NvrClient } from '../../core/client';
import { DeviceError } from '../../core/errors';
import { isPlainObject } from '../../core/json';
import { boundsOf, channelFields, isDescriptor, supportedChannels, type RangeDescriptor } from '../../core/range';
import { withChannelField } from './request-node';

/** One field of the editor's form for a page (and channel), from the device's Range and Get. */
export interface FormField {
  key: string;
  /** Range descriptor type: bool, int32, string, object, array (others are shown read-only). */
  type: string;
  readOnly: boolean;
  min?: number;
  max?: number;
  options?: ReadonlyArray<string | number>;
  minLength?: number;
  maxLength?: number;
  /** The Range's own words about the field (`description`), where the device gives them. */
  description?: string;
  /** The Range's unit (`unit`), where the device gives one. */
  unit?: string;
  /** The device's current value (from Get), when it answered one. */
  value?: unknown;
}

export interface PageForm {
  page: string;
  channel?: string;
  /** Channels the page's Range lists (empty for pages without channel blocks). */
  channels: string[];
  fields: FormField[];
  /** Why the current values are missing, when Get failed. */
  valuesError?: string;
}

/** Types the form can edit; object and array fields are shown read-only (edit them as JSON). */
const EDITABLE = new Set(['bool', 'int32', 'string']);

function field(key: string, d: RangeDescriptor, values: Record<string, unknown> | undefined): FormField {
  const b = boundsOf(d);
  const f: FormField = { key, type: d.type, readOnly: b.readOnly || !EDITABLE.has(d.type) };
  if (b.min !== undefined) f.min = b.min;
  if (b.max !== undefined) f.max = b.max;
  if (b.options) f.options = b.options;
  if (b.minLength !== undefined) f.minLength = b.minLength;
  if (b.maxLength !== undefined) f.maxLength = b.maxLength;
  for (const k of ['description', 'unit'] as const) {
    const said = (d as Record<string, unknown>)[k];
    if (typeof said === 'string' && said.trim()) f[k] = said.trim();
  }
  if (values && Object.hasOwn(values, key)) f.value = values[key];
  return f;
}

/**
 * The form of `page` for `channel` (or the page's top-level fields without one): Range and Get
 * read at once; a failing Get leaves the values out, a failing Range fails the form.
 */
export async function pageForm(client: NvrClient, page: string, channel?: string): Promise<PageForm> {
  const rangeRequest = channel ? withChannelField('Range', page, {}, channel) : {};
  const getRequest = channel ? withChannelField('Get', page, {}, channel) : {};
  const [range, got] = await Promise.all([
    client.range(page, rangeRequest),
    client.get(page, getRequest).then(
      (data) => ({ data, error: undefined }),
      (e: unknown) => ({ data: undefined, error: e instanceof DeviceError ? e.reason || e.error_code : String(e) }),
    ),
  ]);
  const channels = supportedChannels(range);
  let descriptors: Record<string, RangeDescriptor>;
  let values: Record<string, unknown> | undefined;
  if (channel) {
    const fields = channelFields(range, channel);
    if (!fields) {
      const reason = `${channel} is not in the Range of ${page} (the device lacks it for this channel)`;
      throw new DeviceError({ kind: 'unsupported', error_code: 'unknown_channel', reason, page, operation: 'Range' });
    }
    descriptors = { ...fields };
    const info = got.data?.channel_info;
    values = isPlainObject(info) && isPlainObject(info[channel]) ? info[channel] : undefined;
  } else {
    descriptors = {};
    for (const [k, d] of Object.entries(range)) if (k !== 'channel_info' && isDescriptor(d)) descriptors[k] = d;
    values = got.data;
  }
  const form: PageForm = { page, channels, fields: Object.entries(descriptors).map(([k, d]) => field(k, d, values)) };
  if (channel) form.channel = channel;
  if (got.error) form.valuesError = got.error;
  return form;
}
