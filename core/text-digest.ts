import * as crypto from 'node:crypto';

/**
 * SHA-1 of a text, in base64 (28 characters): whether an answer, a state or a discovery config changed, told
 * without keeping the text. Read for every answer and every payload: node's one-shot `hash` where it has it (from
 * 20.12), which builds no Hash object per call.
 */
export const textDigest: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha1', text, 'base64')
    : (text) => crypto.createHash('sha1').update(text).digest('base64');
