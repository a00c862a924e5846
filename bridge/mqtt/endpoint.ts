/**
 * Where the bridge's MQTT connection goes, and the connection itself: the configured broker, after the instance probe
 * found no other bridge on the base topic (a fresh embedded broker holds nothing; a shared one may hold another
 * instance's state), or an embedded broker when none is configured.
 */
import type { BridgeConfig } from '../base/config';
import type { Logger } from '../base/log';
import { embeddedBrokerOptions, startEmbeddedBroker, type EmbeddedBroker } from './broker';
import { InstanceConflict, probeInstance } from './instance-probe';
import { clientIdFor, MqttLink } from './link';
import type { Topics } from './topics';

export interface Endpoint {
  url: string;
  /** Retained topics of removed devices the probe found (cleared once connected). */
  stale: string[];
  embedded: boolean;
  /** Stops the embedded broker. */
  stop?(): Promise<void>;
}

export async function mqttEndpoint(
  config: BridgeConfig,
  topics: Topics,
  log: Logger,
  opts: { broker?: { host?: string; port?: number; started?: EmbeddedBroker }; instanceProbeWindowMs?: number; connectTimeoutMs?: number },
): Promise<Endpoint> {
  const started = opts.broker?.started;
  if (!config.mqtt.url && started) return { url: started.url, stale: [], embedded: true };
  if (!config.mqtt.url) {
    const broker: EmbeddedBroker = await startEmbeddedBroker(embeddedBrokerOptions(opts.broker));
    log.info(`no mqtt.url configured: embedded MQTT broker on ${broker.url}`);
    return { url: broker.url, stale: [], embedded: true, stop: () => broker.stop() };
  }
  const probe = await probeInstance(config, config.mqtt.url, topics, log, {
    windowMs: opts.instanceProbeWindowMs ?? 1000,
    connectTimeoutMs: opts.connectTimeoutMs ?? 30_000,
  });
  if (probe.running) {
    const v = probe.running.info?.version;
    throw new InstanceConflict(topics.base, `its bridge/state is online${typeof v === 'string' ? `, version ${v}` : ''}`);
  }
  return { url: config.mqtt.url, stale: probe.stale, embedded: false };
}

/** The bridge's own connection: stable client id, `bridge/state` offline as its last will. */
export function bridgeLink(config: BridgeConfig, topics: Topics, endpoint: Endpoint, log: Logger, reconnectPeriodMs?: number): MqttLink {
  return new MqttLink({
    url: endpoint.url,
    username: config.mqtt.username,
    password: config.mqtt.password,
    clientId: config.mqtt.client_id ?? clientIdFor(config.mqtt.base_topic),
    tls: config.mqtt.tls,
    will: { topic: topics.bridgeState, payload: JSON.stringify({ state: 'offline' }) },
    log,
    reconnectPeriodMs,
    // The embedded broker (aedes) speaks 3.1.1 only; any other is asked for MQTT 5 first.
    protocolVersion: endpoint.embedded ? 4 : 5,
  });
}
