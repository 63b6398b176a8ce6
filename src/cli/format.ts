// The CLI's lines are the core's (src/rollout/event-lines.ts), shared with the Manager adapter.
export { describeEvent, errorRecord, formatErrorLine, formatEventLine } from '../rollout/event-lines.js';
