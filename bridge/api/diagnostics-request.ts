/**
 * `<base>/bridge/request/diagnostics` `{"device", "events"?, "transaction"?}`: the capture of `nvr2mqtt capture` made
 * by the running bridge (core/capture.ts: every reading page, `events` seconds of Event/Check, default 0:
 * the bridge follows them itself, at most 300; nothing written to the device; redacted by construction). The file goes to the system's temporary
 * directory; the answer `{"status":"ok","data":{"path","answers","refused","bytes","redacted"}}` also carries the
 * capture itself (`capture`) when it is small (pictures make most captures large). One capture of a device at a
 * time; a device that is offline is refused.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lookupDevice, requireOnline } from './commands';
import type { BridgeContext } from './context';
import { Refusal } from '../device/refusal';
import { captureDevice, captureText } from '../../core';
import { VERSION } from '../base/version';
import { deviceClientOptions } from '../device/device';
import type { Json } from '../device/state';

/** Captures up to this size are answered inline too (a capture without pictures, or of a camera's few). */
export const INLINE_CAPTURE_BYTES = 256 * 1024;
const DEFAULT_EVENTS_S = 0;
const MAX_EVENTS_S = 300;

export class DiagnosticsRequests {
  /** Devices being captured now. */
  private readonly running = new Set<string>();

  constructor(
    private readonly ctx: BridgeContext,
    private readonly dir: string = tmpdir(),
  ) {}

  async run(msg: Json): Promise<Json> {
    if (typeof msg.device !== 'string') throw new Refusal('"device" (a device id) is required');
    const h = lookupDevice(this.ctx, msg.device);
    const id = h.device.id;
    const events = msg.events ?? DEFAULT_EVENTS_S;
    if (typeof events !== 'number' || !(events >= 0 && events <= MAX_EVENTS_S)) {
      throw new Refusal(`"events" must be seconds from 0 to ${MAX_EVENTS_S}`, { device: id });
    }
    requireOnline(h);
    if (this.running.has(id)) throw new Refusal(`a capture of ${id} is running`, { device: id });
    this.running.add(id);
    try {
      const { file, redactor } = await captureDevice({
        client: deviceClientOptions(h.device.cfg),
        product: `nvr2mqtt ${VERSION}`,
        events,
        say: (line) => this.ctx.log.debug(`${id} capture: ${line}`),
      });
      const { text, summary } = captureText(file, redactor);
      const path = join(this.dir, `nvr2mqtt-capture-${id}-${file.time.replace(/[:.]/g, '-')}.json`);
      await writeFile(path, text, { mode: 0o600 });
      this.ctx.log.info(`${id}: capture written to ${path} (${summary.answers} answers, ${summary.bytes} bytes)`);
      return { path, ...summary, ...(summary.bytes <= INLINE_CAPTURE_BYTES ? { capture: file } : {}) };
    } finally {
      this.running.delete(id);
    }
  }
}
