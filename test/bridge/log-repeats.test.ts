/** limitRepeats on fake time: a flood of one warning is one line at once and one line with the count an interval. */
import * as assert from 'node:assert/strict';
import { suite } from 'uvu';
import { createLogger, limitRepeats } from '../../bridge/base/log';
import { withFakeTime } from '../helpers/fake-time';

const test = suite('log: repeated warnings');

test('5,000 repeats of one kind: the first at once, then one line a minute with the count and the last', () =>
  withFakeTime((clock) => {
    const lines: string[] = [];
    const limited = limitRepeats(createLogger({ sink: (level, line) => lines.push(`${level} ${line}`) }), 60_000);
    for (let i = 1; i <= 5_000; i++) limited.warn('no such path', `refused from 10.0.0.${i % 250}: no such path`);
    limited.warn('other', 'another kind is said at once');
    assert.deepEqual(lines, ['warn refused from 10.0.0.1: no such path', 'warn another kind is said at once']);
    clock.tick(60_000);
    assert.equal(lines.length, 3, 'one line for the rest; nothing for the kind said once');
    assert.equal(lines[2], 'warn refused from 10.0.0.0: no such path (4,999 times in the last 60 s)');
    limited.warn('no such path', 'refused from 10.0.0.7: no such path');
    clock.tick(59_000);
    limited.warn('no such path', 'refused from 10.0.0.8: no such path');
    limited.flush();
    assert.deepEqual(lines.slice(3), ['warn refused from 10.0.0.8: no such path (2 times in the last 60 s)'], 'the flood goes on: counted');
    clock.tick(120_000);
    assert.equal(lines.length, 4, 'flushed: nothing said twice');
    limited.warn('no such path', 'refused from 10.0.0.9: no such path');
    assert.equal(lines.length, 5, 'a quiet kind starts over: said at once');
  }));

test.run();
