import { setFlagsFromString } from 'node:v8';

/**
 * The daemon holds little (a few hundred KB per device) but allocates steadily (every poll reads a few answers), and
 * V8's default heap sizing then keeps a lot of garbage resident (bench, 1,000 recorders: 468 MB peak). Given when node
 * starts (the Dockerfiles' entries and `npm start` pass them; V8 sizes the young generation only then):
 * - young generation: semi-spaces of at most 4 MB (V8's default grows them to 16 MB: 30 MB more RSS at 1,000 devices).
 *   8 MB gave 1,000 recorders checked once a second about the same CPU (39-49 % of a core against 46-49 %, with
 *   discovery paced by the broker) but raised the peak of 100 recorders from 112 MB to 116-130 MB, above the bare
 *   poller's 106-113 MB by up to 20 % (bench `floor`). At 1,000 recorders the small young generation costs CPU:
 *   scavenges took about 15 % of a core (16 MB: about 5 %), the bridge 60-67 % (16 MB: 41-43 %, 290 MB peak) on
 *   one later day; the README tells large sites to start node with 16 MB;
 * - old generation: grows by 20 % over what survived a full collection (V8's default: up to 4x).
 * With "optimize for size" set at run time (below) the start of 1,000 recorders took 85-90 s instead of 50.
 */
export const LAUNCH_HEAP_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=20'] as const;

/** The flags node was given (its arguments and NODE_OPTIONS). */
const nodeFlags = () => [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];

/**
 * Started without heap flags (the npm-installed `nvr2mqtt` command: a shebang cannot portably pass them), the heap is
 * kept tight at run time by V8's "optimize for size" mode, for more CPU; not when node was started with heap flags.
 */
export function tuneHeapForDaemon(): 'launch' | 'runtime' | false {
  const flags = nodeFlags();
  if (LAUNCH_HEAP_FLAGS.every((f) => flags.includes(f))) return 'launch';
  if (flags.some((f) => /^--(no-)?optimize-for-size$|^--max-(semi|old)-space-size|^--heap-growing-percent/.test(f))) return false;
  setFlagsFromString('--optimize-for-size');
  return 'runtime';
}
