/* nvr-event's dialog: the alarm types and live parts to tick, as the runtime lists them (GET nvr-device/rules). */
namespace NVR2MQTT.event {
  interface EventNode extends EditorNode {
    channels?: string;
    types?: string[];
    live?: string[];
  }

  export function label(this: EventNode): string {
    if (this.name) return this.name;
    const types = (this.types ?? []).join(', ');
    return 'nvr event' + (this.channels ? ' ' + this.channels : '') + (types ? ' ' + types : '');
  }

  export function oneditprepare(this: EventNode): void {
    const node = this;
    void NVR2MQTT.loadRules().done((rules) => {
      const types = rules.alarmTypes.map((t) => ({ value: t, text: t }));
      NVR2MQTT.checkboxes($('.nvr-event-types'), types, node.types ?? [], '48%');
      // A part without a translation (new to the runtime's table) shows its name.
      const parts = rules.liveParts.map((p) => ({ value: p, text: NVR2MQTT.translated(node, 'nvr-event.live.' + p, p) }));
      NVR2MQTT.checkboxes($('.nvr-event-live'), parts, node.live ?? [], '32%');
    });
  }

  export function oneditsave(this: EventNode): void {
    // No lists (the rules never arrived): the saved choices stay as they were.
    if (!$('.nvr-event-types input').length) return;
    this.types = NVR2MQTT.ticked('.nvr-event-types');
    this.live = NVR2MQTT.ticked('.nvr-event-live');
  }

  /** nvr-event's node type (nvr-event.html registers it): no input, events come from the device. */
  export function definitions(): Record<string, Definition> {
    return {
      'nvr-event': NVR2MQTT.flowNode({
        defaults: {
          channels: { value: '', validate: NVR2MQTT.validChannelList },
          types: { value: [] },
          startOnly: { value: false },
          live: { value: [] },
          picture: { value: false },
        },
        inputs: 0,
        icon: 'nvr2mqtt-alarm.svg',
        paletteLabel: 'nvr event',
        label,
        oneditprepare,
        oneditsave,
      }),
    };
  }
}
