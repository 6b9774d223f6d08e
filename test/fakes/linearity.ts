/**
 * Linear-time checks (issue 32): the work a reader does on LARGE characters of a hostile shape
 * against the work on SMALL, as a ratio of CPU time (best of three), scaled so that a linear reader
 * reads about 1 and a quadratic one about 8. A ratio, not a time: the machine's speed cancels out.
 */
export const SMALL = 128 * 1024;
export const LARGE = 1024 * 1024;
/**
 * Linear work reads about 1, quadratic about 8 (LARGE / SMALL); the bound sits between, with room
 * for what a megabyte costs beyond the work itself (garbage collection of larger strings on a busy machine).
 */
export const BOUND = 4;

/** `unit` repeated to `size` characters, then `tail`. */
export function shape(unit: string, size: number, tail = ''): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size) + tail;
}

/** CPU microseconds of `run`. */
function cpu(run: () => void): number {
  const t = process.cpuUsage();
  run();
  const d = process.cpuUsage(t);
  return Math.max(d.user + d.system, 1);
}

/**
 * The work at LARGE over eight runs at SMALL (as long in total for a linear reader, so both
 * measures are long enough for the clock): about 1 for linear work, about 8 for quadratic. Each
 * the least of two to six measures, taken in turn so that a busy machine slows both alike; more
 * are taken only while the ratio is above BOUND (a pause for garbage collection inflates one
 * measure, never every one; quadratic work stays near 8 however often it is measured).
 */
export function workRatio(work: (size: number) => void): number {
  const times = LARGE / SMALL;
  let small = Infinity;
  let large = Infinity;
  for (let k = 0; k < 6; k++) {
    small = Math.min(
      small,
      cpu(() => {
        for (let j = 0; j < times; j++) work(SMALL);
      }),
    );
    large = Math.min(
      large,
      cpu(() => work(LARGE)),
    );
    if (k >= 1 && large / small < BOUND) break;
  }
  return large / small;
}
