/**
 * Which pages `<base>/bridge/request/set` may write. Any MQTT client that can publish there could otherwise turn
 * on SSH, switch recording off or send the camera's logs to a server of its choice: values a Range check passes.
 *
 * By default `set` writes only the pages the bridge itself publishes (the table's pages and the live page). Other
 * pages need the owner's permission in the config (`request_api.allow_pages`, or `request_api.allow_any_page`);
 * maintenance, network, user and developer-mode pages only by name in `allow_pages`. `get` and `range` stay open.
 * Names are compared case-insensitively: a device that ignores case must not open a way around the list.
 */
import { livePage } from '../../core';
import type { BridgeConfig } from '../base/config';
import { POLLED_PAGES } from '../device/table';

/** Pages that change who may reach the device, or how: never written unless named in `allow_pages`. */
const SENSITIVE = /^(Maintenance|Network\w*|User\w*|Security\w*)\/|DeveloperMode/i;

const OWN_PAGES: readonly string[] = [...POLLED_PAGES, livePage.name];

export type RequestApiConfig = BridgeConfig['request_api'];

/** Undefined when `set` may write `page`; otherwise the refusal, naming the setting that would allow it. */
export function writeRefusal(page: string, cfg: RequestApiConfig): string | undefined {
  const named = (list: readonly string[]) => list.some((p) => p.toLowerCase() === page.toLowerCase());
  if (named(OWN_PAGES) || named(cfg.allow_pages)) return undefined;
  if (SENSITIVE.test(page)) {
    return `writing ${page} through the request API is not allowed: it is a maintenance, network, user or developer-mode page; the owner may allow it by naming it in request_api.allow_pages`;
  }
  if (cfg.allow_any_page) return undefined;
  return `writing ${page} through the request API is not allowed: only the pages the bridge publishes are writable by default; the owner may allow it in request_api.allow_pages (or request_api.allow_any_page: true)`;
}
