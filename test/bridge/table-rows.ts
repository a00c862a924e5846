/**
 * Expected state keys read from the bridge's table (bridge/table.ts), so that the suites listing a channel's or the
 * recorder's keys follow a new row instead of restating the table. Not a test file.
 */
import { TABLE, type Level } from '../../bridge/device/table';

/** Keys of the rows at `level` that read a field of configuration page `page`, in the table's order. */
export function keysOn(page: string, level: Level = 'channel'): string[] {
  return TABLE.filter((r) => r.level === level && r.source.kind === 'page' && r.source.page === page).map((r) => r.key);
}
