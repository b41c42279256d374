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
): WakeableLoop {
  let stopped = false;
  let dirty = true;
  let wake: (() => void) | null = null;
  const poke = () => {
    dirty = true;
    wake?.();
  };

  async function loop(): Promise<void> {
    while (!stopped) {
      if (dirty) {
        if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
        dirty = false;
        if ((await round()).more) dirty = true;
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
