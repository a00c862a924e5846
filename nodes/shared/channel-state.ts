import type { ChannelSlot } from '../../core/channel-slots';

/** ChannelInfo `connect_status` in the user's words, for a channel that is not online (one table for dialogs and refusals). */
const STATUS_WORDS: Readonly<Record<string, string>> = {
  Offline: 'offline',
  Sleep: 'asleep',
  NotConfigured: 'no camera',
  NotPaired: 'not paired',
  FailConnectNetwork: 'no network',
};

/** "offline", "asleep", "no camera"...; undefined for an online channel. */
export const statusWords = (m: Pick<ChannelSlot, 'online' | 'status'>): string | undefined =>
  m.online ? undefined : (STATUS_WORDS[m.status] ?? m.status);
