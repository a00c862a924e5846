/**
 * `<base>/bridge/request/prompt` `{"device", "file", "name"?, "transaction"?}`: upload an audio file (MP3, WAV, raw
 * PCM) the bridge can read as a voice prompt of the device (core uploadPrompt: the device's packets and limits; a
 * failed upload removed again). Off by default: only files inside the directories the owner lists in
 * `request_api.allow_prompts_from`. Answered on `bridge/response/prompt` with `{"device", "index", "name"}`; the
 * device's prompt list and Home Assistant's "Prompt" select follow.
 */
import type { PromptUploads } from '../features/speaker';
import { lookupDevice, requireOnline } from './commands';
import type { BridgeContext } from './context';
import { Refusal } from '../device/refusal';
import type { RequestApiConfig } from './request-permission';
import type { Json } from '../device/state';
import { allowedFilePath } from './upgrade-request';

const RULE = { what: 'audio', request: 'prompt', setting: 'request_api.allow_prompts_from' };

export async function promptRequest(ctx: BridgeContext, api: RequestApiConfig, uploads: PromptUploads, msg: Json): Promise<Json> {
  const dirs = api.allow_prompts_from;
  if (!dirs.length) await allowedFilePath(undefined, dirs, ctx, RULE);
  if (typeof msg.device !== 'string') throw new Refusal('"device" (a device id) is required');
  const h = lookupDevice(ctx, msg.device);
  const device = h.device.id;
  const extra = Object.keys(msg).filter((k) => !['device', 'file', 'name', 'transaction'].includes(k));
  if (extra.length) throw new Refusal(`unknown member(s) ${extra.map((k) => ctx.quoter.quote(k, 32)).join(', ')}`, { device });
  if (msg.name !== undefined && typeof msg.name !== 'string') throw new Refusal('"name" must be a file name', { device });
  const file = await allowedFilePath(msg.file, dirs, ctx, RULE);
  requireOnline(h);
  const prompt = await uploads(device, { file, ...(msg.name !== undefined ? { name: msg.name } : {}) });
  ctx.log.info(`prompt ${ctx.quoter.quote(prompt.name)} uploaded to ${device}`);
  return { device, index: prompt.index, name: prompt.name };
}
