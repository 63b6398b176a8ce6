// The CLI's lines are the core's (src/workload/toolkit/event-lines.ts), shared with the Manager adapter.
export { describeEvent, errorRecord, formatErrorLine, formatEventLine } from '../workload/toolkit/event-lines.js';
