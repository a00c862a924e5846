/**
 * The device passwords of the `nvr-device` nodes now deployed, and the quoter built from them: a node's refusal or
 * error never repeats any of them (someone may send a password as `msg.payload` or `msg.channel` by mistake).
 */
import { quoter } from '../../core/quote';

/** Password -> how many device nodes hold it. */
const passwords = new Map<string, number>();

/** Quotes and redacts with every deployed device's password. */
export const nodeQuoter = quoter(() => passwords.keys());

/** A device node's password, known until the returned function is called (the node closes). */
export function holdSecret(password: string | undefined): () => void {
  if (!password) return () => undefined;
  passwords.set(password, (passwords.get(password) ?? 0) + 1);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    const n = (passwords.get(password) ?? 1) - 1;
    if (n > 0) passwords.set(password, n);
    else passwords.delete(password);
  };
}
