export interface WakeableLoop {
  /** Something is waiting: run a round now rather than at the next poll. */
  poke(): void;
  /** Ends the loop once its current round is over. */
  stop(): Promise<void>;
}

/**
 * The worker's background loops (the outbox relay, the notification sender): a round when poked,
 * again at once while a round says more is waiting, and every `pollMs` in any case (a poke can be
 * lost, or work comes due by time alone). `round` handles its own failures.
 */
export function startWakeableLoop(
  pollMs: number,
  round: () => Promise<{ more: boolean }>,
  /** How long a round waits once woken, so that the pokes of a burst make one round. */
  settleMs = 0,
  /**
   * How long after the last round's start the next one may start: a steady stream of pokes (a busy
   * outbox) is taken in rounds this far apart, while a poke after a quiet spell waits only `settleMs`.
   */
  spacingMs = 0,
): WakeableLoop {
  let stopped = false;
  let lastStart = -Infinity;
  let more = false;
  let dirty = true;
  let wake: (() => void) | null = null;
  const poke = () => {
    dirty = true;
    wake?.();
  };

  async function loop(): Promise<void> {
    while (!stopped) {
      if (dirty) {
        // A round that left more waiting (a backlog) is followed at once, not spaced.
        const wait = more ? settleMs : Math.max(settleMs, lastStart + spacingMs - performance.now());
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        lastStart = performance.now();
        dirty = false;
        more = (await round()).more;
        if (more) dirty = true;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
      dirty = true;
    }
  }

  const running = loop();
  return {
    poke,
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
