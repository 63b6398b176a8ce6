// One clock for stamps that are compared across the processes of one machine.
//
// performance.timeOrigin is read from the wall clock once, when a process starts, so
// `timeOrigin + now()` in two processes differs by however much the wall clock was slewed
// or stepped between their starts (a virtual machine's clock is). process.hrtime reads
// CLOCK_MONOTONIC, which every process of the machine shares and nothing adjusts.

/** Milliseconds on the machine's monotonic clock (fractional, sub-microsecond resolution). */
export function monotonicNow(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
