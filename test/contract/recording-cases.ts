/**
 * Contract cases of the recordings pages (core/pages/recordings.ts), one per registry operation, run by
 * pages.test.ts against every device variant; the device's clock is UTC there (test/contract/recordings.test.ts runs
 * them in another zone, with alarms).
 */
import * as assert from 'uvu/assert';
import { recordInfoGet, recordTagGet, recordTagSet, recordedPictureGet, searchMonthGet, searchRecordSearch } from '../../core/pages';
import {
  recordTags,
  recordedPictures,
  recordingDays,
  recordingNow,
  searchRecordings,
  writeRecordTag,
  type RecordingContext,
} from '../../core/recordings';
import { lastOk, type Case, type Ctx } from './harness';

const ctxOf = ({ nvr }: Ctx): RecordingContext => ({ zone: 'UTC', table: nvr ? 'nvr' : 'ipc' });
const today = () => new Date().toISOString().slice(0, 10);
const lastHour = () => ({ from: Date.now() - 3600_000, to: Date.now() });

export const RECORDING_CASES: Case[] = [
  {
    op: searchMonthGet,
    async run(c) {
      const days = await recordingDays(c.client, { month: today().slice(0, 7) }, ctxOf(c));
      assert.ok(
        days.some((d) => d.date === today() && d.types.includes('normal')),
        `today in ${JSON.stringify(days)}`,
      );
      const [y, m] = today().split('-');
      assert.equal(lastOk(c.sim, '/API/Playback/SearchMonth/Get'), {
        channel: [],
        search_type: 'Record',
        start_date: `${m}/01/${y}`,
        stream_type: 'Mainstream',
      });
    },
  },
  {
    op: searchRecordSearch,
    async run(c) {
      const found = await searchRecordings(c.client, { channels: ['CH1'], ...lastHour() }, ctxOf(c));
      assert.ok(found.length >= 1 && found.every((r) => r.channel === 'CH1'));
      assert.equal(found.at(-1)!.types, ['normal']);
      const sent = lastOk(c.sim, '/API/Playback/SearchRecord/Search');
      assert.equal([sent.channel, sent.record_type, sent.stream_mode], [['CH1'], 4294967295, 'Mainstream']);
    },
  },
  {
    op: recordedPictureGet,
    async run(c) {
      const list = await recordedPictures(c.client, { channels: ['CH1'], ...lastHour() }, ctxOf(c));
      assert.equal(list.overload, false);
      assert.ok(Array.isArray(list.tokens));
      assert.equal(lastOk(c.sim, '/API/Playback/Picture/Get').pic_sort, 0);
    },
  },
  {
    op: recordTagGet,
    async run(c) {
      assert.equal(await recordTags(c.client, { channels: ['CH1'], ...lastHour() }, ctxOf(c)), []);
    },
  },
  {
    op: recordTagSet,
    async run(c) {
      const time = new Date(Date.now() - 60_000).toISOString().slice(0, 19) + 'Z';
      await writeRecordTag(c.client, 'add', { channel: 'CH1', time, name: 'contract' }, ctxOf(c));
      const [tag] = await recordTags(c.client, { channels: ['CH1'], ...lastHour() }, ctxOf(c));
      assert.equal([tag.name, Date.parse(tag.time)], ['contract', Date.parse(time)]);
      await writeRecordTag(c.client, 'remove', tag, ctxOf(c));
      assert.equal(await recordTags(c.client, { channels: ['CH1'], ...lastHour() }, ctxOf(c)), []);
    },
  },
  {
    op: recordInfoGet,
    async run(c) {
      const now = await recordingNow(c.client);
      assert.is(now.CH1, true);
    },
  },
];
