/** What arrives on MQTT, to the part that answers it: Home Assistant's status, the features' topics, requests, commands. */
import type { Announcer } from './api/announcer';
import type { CommandWork } from './api/command-work';
import type { Commands } from './api/commands';
import type { StatePublisher } from './api/publisher';
import type { Requests } from './api/requests';
import type { BridgeConfig } from './base/config';
import type { DeviceFeature } from './features/feature';
import type { InstanceGuard } from './mqtt/instance-probe';
import type { MqttLink } from './mqtt/link';
import type { Topics } from './mqtt/topics';
import type { Part } from './base/part';

export function messageRouter(
  config: BridgeConfig,
  link: MqttLink,
  topics: Topics,
  to: {
    publisher: StatePublisher;
    announcer: Announcer;
    requests: Requests;
    commands: Commands;
    work: CommandWork;
    guard: InstanceGuard;
    features: readonly DeviceFeature[];
  },
): Part {
  return {
    start: () =>
      link.onMessage((topic, payload, packet) => {
        if (topic === topics.bridgeInstance) return to.guard.message(payload);
        if (to.publisher.isClosed) return;
        if (config.homeassistant.enabled && topic === config.homeassistant.status_topic) {
          if (!to.work.stopping) to.announcer.homeAssistantStatus(payload);
          return;
        }
        if (to.features.some((f) => f.handle?.(topic, !!packet.retain))) return;
        const parsed = topics.parse(topic);
        if (!parsed) return;
        if (parsed.kind === 'request') {
          if (config.request_api.enabled) to.requests.handle(topic, parsed.op, payload, !!packet.retain);
        } else to.commands.handle(topic, parsed, payload, !!packet.retain);
      }),
  };
}
