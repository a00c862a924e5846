/**
 * The last answer of each repeated read. A poller asks every device the same few Gets every second and the
 * answers rarely change; an answer whose text equals the previous one's is then neither parsed nor validated
 * again, and its reader gets the previous (frozen) object, so "did anything change?" is an identity check.
 * Only a digest of the text and the validated object are kept (the object is what the poller keeps anyway).
 * Across devices too: recorders of one model give the same answers to the same reads (Ranges above all, a few
 * hundred KB of descriptors each), so an answer another device already gave is neither parsed, validated nor
 * frozen again (a thousand recorders starting: deepFreeze alone was a quarter of the bridge's start-up CPU).
 */
import { deepFreeze } from './json';
import { textDigest } from './text-digest';

/** Validated answers of every device, by read and digest, held as long as some reader holds them. */
const everyDevice = new Map<string, WeakRef<object>>();
const forget = new FinalizationRegistry<string>((k) => {
  if (!everyDevice.get(k)?.deref()) everyDevice.delete(k);
});

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
    // 20 bytes stand for an answer of a few KB (a recorder's answers held as text cost about 21 KB a device).
    const digest = textDigest(text);
    if (hit?.digest === digest) return hit.value;
    const known = everyDevice.get(`${key}\n${digest}`)?.deref();
    if (known) {
      this.last.set(key, { digest, value: known, validated: true });
      return known;
    }
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
      const k = `${key}\n${hit.digest}`;
      if (typeof hit.value === 'object' && hit.value !== null && !everyDevice.get(k)?.deref()) {
        everyDevice.set(k, new WeakRef(hit.value));
        forget.register(hit.value, k);
      }
    }
    return hit.value as T;
  }
}
