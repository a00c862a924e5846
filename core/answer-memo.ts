/**
 * The last answer of each repeated read. A poller asks every device the same few Gets every second and the
 * answers rarely change; an answer whose text equals the previous one's is then neither parsed nor validated
 * again, and its reader gets the previous (frozen) object, so "did anything change?" is an identity check.
 * Only a digest of the text and the validated object are kept (the object is what the poller keeps anyway).
 */
import { createHash } from 'node:crypto';
import { deepFreeze } from './json';

/** 20 bytes stand for an answer of a few KB (a recorder's answers held as text cost about 21 KB a device). */
const digestOf = (text: string) => createHash('sha1').update(text).digest('base64');

interface Remembered {
  digest: string;
  /** Parsed `data` until validated, then the validated answer, frozen: every reader of the answer shares it. */
  value: unknown;
  validated: boolean;
}

export class AnswerMemo {
  private readonly last = new Map<string, Remembered>();

  /** `data` of the answer `text` to the read `key`, or the remembered answer when the text is unchanged. */
  parse(key: string, text: string, parse: () => unknown): unknown {
    const hit = this.last.get(key);
    const digest = digestOf(text);
    if (hit?.digest === digest) return hit.value;
    const value = parse(); // a failure answer throws: only successful answers are remembered
    this.last.set(key, { digest, value, validated: false });
    return value;
  }

  /** The validated answer for `value` (what `parse` returned): validated once per distinct answer. */
  validated<T>(key: string, value: unknown, validate: () => T): T {
    const hit = this.last.get(key);
    if (!hit || hit.value !== value) return validate(); // not remembered (the session did not parse it here)
    if (!hit.validated) {
      try {
        hit.value = deepFreeze(validate());
      } catch (err) {
        this.last.delete(key); // an invalid answer is refused every time, never remembered
        throw err;
      }
      hit.validated = true;
    }
    return hit.value as T;
  }
}
