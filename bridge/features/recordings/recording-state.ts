/**
 * "Recording now" per channel (`SystemInfo/Record/Get` `record_state`, vendor-facts-next §1.1), read on the slow
 * schedule (`storage_interval`, the disks' schedule: recording state changes with schedules and disks, not by the
 * second) and published as `record_state` (true/false) in the channel's state; Home Assistant gets a binary sensor
 * "Recording now" per channel the device reports ("Recording" is the channel's record switch, table.ts, already). A device without the page (R2) is not asked again and gets no such entity.
 */
import { recordingNow } from '../../../core';
import type { Logger } from '../../base/log';
import { PeriodicReader } from '../periodic-reader';
import type { Device } from '../../device/device';
import { channelOnline, type Json } from '../../device/state';
import { onOffTemplate } from '../../homeassistant/templates';

/** The "Recording now" binary sensor of a channel. */
export function recordingComponents(stateTopic: string, node: string): Json {
  return {
    record_state: {
      p: 'binary_sensor',
      name: 'Recording now',
      unique_id: `${node}_record_state`,
      state_topic: stateTopic,
      value_template: onOffTemplate('record_state'),
      icon: 'mdi:record-rec',
      // A diagnostic, announced disabled as the others (no flood): enable it where a schedule should be watched.
      entity_category: 'diagnostic',
      enabled_by_default: false,
    },
  };
}

export class RecordingStateReader extends PeriodicReader {
  protected readonly absent = 'the device has no recording page (SystemInfo/Record): no Recording entities';
  protected readonly what = 'reading which channels record';

  constructor(
    private readonly device: Device,
    opts: { intervalMs?: number; log: Logger },
  ) {
    super(opts);
  }

  /**
   * The device's structure was read: its first reading goes with it (discovery waits for it), once; a reading under
   * way is shared, a read due at once is this one. Later structure changes leave it to the schedule.
   */
  withStructure(): Promise<void> | undefined {
    if (this.reading) return this.reading;
    if (this.reads > 0 || this.stopped || this.unsupported) return undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return this.readThenKeepSchedule();
  }

  protected async readPage(): Promise<void> {
    const now = await recordingNow(this.device.client, { priority: 'poll' });
    const mine = new Set(this.device.channels());
    const { facts } = this.device;
    // A channel gets its entity once it was online (its camera known); one that goes away keeps it, unavailable.
    const known = (ch: string) => channelOnline(facts, ch) || facts.recording?.[ch] !== undefined;
    this.device.applyRecording(Object.fromEntries(Object.entries(now).filter(([ch]) => mine.has(ch) && known(ch))));
  }
}
