import { defaultRoute } from '../kernel/families.js';
import type { TracerPlugin } from '../kernel/kernel.js';

/** The traces family (spec §2.2, wire contract 'Content ids'). */
const tracesFamily: TracerPlugin = {
  name: 'traces',
  apply(kernel) {
    kernel.registerFamily({ name: 'traces', route: defaultRoute('traces'), idMember: 'id', required: ['id', 'ts'], members: { id: 'sha256', ts: 'timestamp' }, file: 'traces.jsonl', storage: ['traces.jsonl'] });
  },
};

export default tracesFamily;
