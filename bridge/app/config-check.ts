/**
 * `nvr2mqtt --config file.yaml --check`: validates the config (done by the caller), tries the broker and
 * every device (login, system info, Range of the table's pages, channel list) and prints a report.
 * Returns false when something is wrong (the CLI exits non-zero).
 */
import { DeviceError, NvrClient } from '../../core';
import type { BridgeConfig } from '../base/config';
import { deviceClientOptions } from '../device/device';
import { createLogger, errorText } from '../base/log';
import { MqttLink } from '../mqtt/link';
import { POLLED_PAGES } from '../device/table';
import { Topics } from '../mqtt/topics';

export async function runCheck(
  config: BridgeConfig,
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Promise<boolean> {
  const say = out;
  let ok = true;
  say('config: valid');
  say(
    `  base topic ${config.mqtt.base_topic}; Home Assistant discovery ${config.homeassistant.enabled ? `on (prefix ${config.homeassistant.discovery_prefix})` : 'off'}; ${config.devices.length} device(s)`,
  );

  if (!config.mqtt.url) {
    say('mqtt: no url: the bridge will start an embedded broker on 127.0.0.1:1883 (or the next free port)');
  } else {
    const quiet = createLogger({ level: 'error', sink: () => undefined });
    const link = new MqttLink({
      url: config.mqtt.url,
      username: config.mqtt.username,
      password: config.mqtt.password,
      tls: config.mqtt.tls,
      log: quiet,
      reconnectPeriodMs: 1000,
    });
    try {
      await link.waitConnected(10_000);
      say(
        `mqtt: OK, connected to ${link.safeUrl}${link.protocol === 5 ? ' (MQTT 5)' : ' (MQTT 3.1.1: no reason codes, ACL refusals go unseen)'}`,
      );
      // What the bridge subscribes to and publishes: an ACL that refuses it answers with a reason code (MQTT 5).
      const topics = new Topics(config.mqtt.base_topic, config.homeassistant.discovery_prefix);
      await link.subscribe(
        topics.commandSubscriptions(
          config.devices.map((d) => d.id),
          config.request_api.enabled,
        ),
      );
      await link.publishAndWait(topics.bridgeEvent, JSON.stringify({ type: 'check', data: {} }), { qos: 1 });
      for (const refusal of link.refusals.values()) {
        ok = false;
        say(`mqtt: FAILED: the broker refused ${refusal}`);
      }
    } catch (err) {
      ok = false;
      say(`mqtt: FAILED ${link.safeUrl}: ${errorText(err)}`);
    } finally {
      await link.end();
    }
  }

  for (const d of config.devices) {
    const client = new NvrClient({ ...deviceClientOptions(d), heartbeatMs: 0 });
    try {
      await client.login();
      const info = await client.systemInfo();
      say(`device ${d.id}: OK, ${d.url}: model ${info.device_type ?? '?'}, firmware ${info.software_version ?? '?'}`);
      for (const page of POLLED_PAGES) {
        try {
          const range = await client.range(page);
          const ci = (range.channel_info as { items?: Record<string, unknown> } | undefined)?.items;
          say(`  ${page}: Range OK${ci ? ` (${Object.keys(ci).length} channels)` : ''}`);
        } catch (err) {
          if (err instanceof DeviceError && err.kind === 'unsupported')
            say(`  ${page}: not supported by this device (its entities are left out)`);
          else {
            ok = false;
            say(`  ${page}: FAILED: ${errorText(err)}`);
          }
        }
      }
      try {
        const channels = await client.channels();
        say(`  channels: ${channels.map((c) => `${c.channel}${c.online ? '' : ' (offline)'}`).join(', ') || 'none listed'}`);
        const missing = (d.channels ?? []).filter((c) => !channels.some((x) => x.channel === c));
        if (missing.length) say(`  warning: configured channels not reported by the device: ${missing.join(', ')}`);
      } catch (err) {
        say(`  channels: list unavailable (${errorText(err)}); channels are taken from the Ranges`);
      }
    } catch (err) {
      ok = false;
      say(`device ${d.id}: FAILED ${d.url}: ${errorText(err)}`);
    } finally {
      await client.close().catch(() => undefined);
    }
  }
  say(ok ? 'check: everything answered' : 'check: problems found (see above)');
  return ok;
}
