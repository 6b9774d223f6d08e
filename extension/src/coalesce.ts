/** Runs a job once soon after the first of a burst of calls (file or meeting events): one request for the burst. */
export interface Coalesced {
  (): void;
  /** Drops a pending run. */
  dispose(): void;
}

export function coalesced(job: () => void, ms = 250): Coalesced {
  let pending: NodeJS.Timeout | undefined;
  const run = (): void => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      job();
    }, ms);
  };
  return Object.assign(run, {
    dispose: () => {
      if (pending) clearTimeout(pending);
      pending = undefined;
    },
  });
}
