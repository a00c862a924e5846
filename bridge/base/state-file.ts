/**
 * The bridge's state file (config `state_file`; default beside the config file, the add-on's `/data`): the little
 * the bridge must remember across its own end, a SIGKILL or a crash included, per device:
 *
 * - `push_original`: the owner's alarm push settings (AlarmConfig/EventPush, without the password) while the bridge
 *   holds the push; removed once given back. A run that was killed leaves them, and the next run gives those back
 *   instead of what it finds on the device (its own leftover).
 * - `last_restart`: when the recorder was last restarted from MQTT (epoch ms), so that the restart guard's quiet time
 *   holds across a bridge restart.
 *
 * The one module that reads and writes it: JSON, written whole to a temporary file, flushed, then renamed over the
 * old one, so that a kill at any moment leaves the old file or the new one, never half of one. Writes go one at a
 * time. A file that cannot be read as this shape is set aside (warned, never fatal); a file that cannot be written
 * is warned about once and the bridge goes on with what it holds in memory. Without a path: memory only.
 */
import { readFileSync } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as v from 'valibot';
import { errorText, type Logger } from './log';

const DeviceStateSchema = v.looseObject({
  push_original: v.optional(v.record(v.string(), v.unknown())),
  last_restart: v.optional(v.number()),
});
export type DeviceState = v.InferOutput<typeof DeviceStateSchema>;

const StateSchema = v.object({ version: v.literal(1), devices: v.record(v.string(), DeviceStateSchema) });
type StateDoc = v.InferOutput<typeof StateSchema>;

/** File name of the default state file, beside the config file. */
export const STATE_FILE_NAME = 'nvr2mqtt-state.json';

export class StateFile {
  private doc: StateDoc = { version: 1, devices: {} };
  private writes: Promise<void> = Promise.resolve();
  private writeWarned = false;

  private constructor(
    readonly path: string | undefined,
    private readonly log: Logger,
  ) {}

  /** Reads the file at `path` (missing: empty); undefined `path`: memory only. */
  static open(path: string | undefined, log: Logger): StateFile {
    const state = new StateFile(path, log);
    if (!path) return state;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`state file ${path}: cannot read (${errorText(err)}); starting empty`);
      return state;
    }
    try {
      state.doc = v.parse(StateSchema, JSON.parse(text));
    } catch {
      log.warn(`state file ${path}: not a state file of this bridge; starting empty (it is replaced at the next write)`);
    }
    return state;
  }

  /** What is kept for device `id` (empty when nothing). */
  device(id: string): Readonly<DeviceState> {
    return this.doc.devices[id] ?? {};
  }

  /** Change what is kept for device `id`, then write the file; resolves once it is on disk (or could not be). */
  update(id: string, change: (s: DeviceState) => DeviceState): Promise<void> {
    const next = change({ ...this.device(id) });
    if (Object.values(next).every((x) => x === undefined)) delete this.doc.devices[id];
    else this.doc.devices[id] = next;
    const text = `${JSON.stringify(this.doc, null, 2)}\n`;
    this.writes = this.writes.then(() => this.write(text));
    return this.writes;
  }

  private async write(text: string): Promise<void> {
    const path = this.path;
    if (!path) return;
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      await mkdir(dirname(path), { recursive: true });
      const fh = await open(tmp, 'w', 0o600);
      try {
        await fh.writeFile(text, 'utf8');
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, path);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      if (!this.writeWarned) this.log.warn(`state file ${path}: cannot write (${errorText(err)}); set state_file to a writable place`);
      this.writeWarned = true;
    }
  }
}
