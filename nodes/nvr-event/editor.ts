/*
 * nvr-event's dialog: the channels and alarm types the device offers (POST nvr-device/alarms), to tick; the live parts
 * as the runtime lists them (GET nvr-device/rules). Where the device cannot be asked, every alarm type is offered.
 */
namespace NVR2MQTT.event {
  interface EventNode extends EditorNode {
    channels?: string;
    types?: string[];
    live?: string[];
  }
  interface Alarms {
    channels: Array<{ id: string; name?: string; online?: boolean; state?: string; types: string[] }>;
    types: Array<{ key: string; label: string }>;
  }

  export function label(this: EventNode): string {
    if (this.name) return this.name;
    const types = (this.types ?? []).join(', ');
    return 'nvr event' + (this.channels ? ' ' + this.channels : '') + (types ? ' ' + types : '');
  }

  const channelList = (text: string) =>
    text
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((c) => c.toUpperCase());

  export function oneditprepare(this: EventNode): void {
    const node = this;
    const $types = $('.nvr-event-types');
    const $channels = $('.nvr-event-channel-list');
    const $input = $('#node-input-channels');
    const $note = $('#nvr-event-note');
    const notListed = node._('nvr-event.note.notListed');
    /** The alarm types as checkboxes, keeping what is ticked now (or saved); a ticked type not offered stays, marked. */
    const showTypes = (offered: Array<{ value: string; text: string }>) => {
      const chosen = $types.find('input').length ? NVR2MQTT.ticked('.nvr-event-types') : (node.types ?? []);
      const extra = chosen.filter((t) => !offered.some((o) => o.value === t)).map((t) => ({ value: t, text: `${t} (${notListed})` }));
      $types.empty();
      NVR2MQTT.checkboxes($types, [...offered, ...extra], chosen, '48%');
    };
    /** The device's channels as checkboxes that write the Channels field (the field stays the saved value). */
    const showChannels = (list: Alarms['channels']) => {
      const chosen = channelList($input.val());
      $channels.empty();
      NVR2MQTT.checkboxes(
        $channels,
        list.map((c) => ({ value: c.id, text: NVR2MQTT.channelText(c.id, c) })),
        chosen,
        '48%',
      );
      $channels.find('input').on('change', () => {
        const ticked = NVR2MQTT.ticked('.nvr-event-channel-list');
        // Channels typed that the device does not list stay in the field.
        const typed = channelList($input.val()).filter((c) => !list.some((l) => l.id === c));
        $input.val([...ticked, ...typed].join(', '));
      });
    };
    const ask = NVR2MQTT.latestAnswer();
    const ruleRequest = NVR2MQTT.loadRules();
    const everyType = () =>
      ruleRequest.done((rules) => {
        if (!$types.find('input').length) showTypes(rules.alarmTypes.map((t) => ({ value: t, text: t })));
      });
    const refresh = () => {
      $channels.empty();
      const values = NVR2MQTT.deviceValues($('#node-input-device').val());
      if (!values?.url) {
        $note.text(node._('nvr-event.note.chooseDevice'));
        return void everyType();
      }
      $note.text(node._('nvr-event.note.asking'));
      ask(
        NVR2MQTT.post<Alarms>('alarms', values),
        (res) => {
          showChannels(res.channels);
          showTypes(res.types.map((t) => ({ value: t.key, text: t.label })));
          $note.text(node._('nvr-event.note.offered'));
        },
        (xhr) => {
          $note.text(node._('nvr-event.note.failed') + ' ' + NVR2MQTT.errorText(xhr));
          ruleRequest.done((rules) => showTypes(rules.alarmTypes.map((t) => ({ value: t, text: t }))));
        },
      );
    };
    $('#node-input-device').on('change', refresh);
    refresh();
    void ruleRequest.done((rules) => {
      // A part without a translation (new to the runtime's table) shows its name.
      const parts = rules.liveParts.map((p) => ({ value: p, text: NVR2MQTT.translated(node, 'nvr-event.live.' + p, p) }));
      NVR2MQTT.checkboxes($('.nvr-event-live'), parts, node.live ?? [], '32%');
    });
  }

  export function oneditsave(this: EventNode): void {
    // No lists (neither the device nor the rules answered): the saved choices stay as they were.
    if ($('.nvr-event-types input').length) this.types = NVR2MQTT.ticked('.nvr-event-types');
    if ($('.nvr-event-live input').length) this.live = NVR2MQTT.ticked('.nvr-event-live');
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
          names: { value: '' },
          plates: { value: '' },
          lists: { value: '' },
          policies: { value: '' },
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
