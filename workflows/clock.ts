import { condition } from '@temporalio/workflow';

/** What a subscription's run carries of its sandbox test clock (contracts/subscription.ts, SubscriptionRunState). */
export interface TestClockState {
  clockOffsetMs?: number;
  clockTarget?: string | null;
}

/**
 * A subscription's time, the only place a workflow asks for it: the workflow's own clock, or ahead of
 * it by the subscription's sandbox test clock (docs/decisions/0038-test-clocks.md). The
 * clock's offset and target live in the run's carried state, so a run that continues as new keeps them.
 */
export class SubscriptionClock {
  /** The test clock was moved: a wait under way is worked out again. */
  moved = false;
  private readonly state: () => TestClockState | undefined;

  /** `state` is read on every call: the run reads its state after it starts listening. */
  constructor(state: () => TestClockState | undefined) {
    this.state = state;
  }

  now(): number {
    return Date.now() + (this.state()?.clockOffsetMs ?? 0);
  }

  nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  /** The subscription runs on a test clock (moved, or being moved, at least once). */
  onTestClock(): boolean {
    const state = this.state()!;
    return state.clockOffsetMs !== undefined || Boolean(state.clockTarget);
  }

  /** Whether the test clock may move to `to`: only forward, past where it stands or is going. */
  canMoveTo(to: string): boolean {
    const target = this.state()?.clockTarget;
    return Date.parse(to) > Math.max(this.now(), target ? Date.parse(target) : 0);
  }

  /** Moves the test clock to `to` (checked by canMoveTo): the run gets there step by step. */
  moveTo(to: string): string {
    const state = this.state()!;
    state.clockTarget = new Date(to).toISOString();
    this.moved = true;
    return state.clockTarget;
  }

  /**
   * Waits until `when` (or forever) or `stop`. A test clock moved past `when` jumps to it instead,
   * so what falls due happens at its own time, one step after the other, until the clock's time.
   */
  async sleepUntil(when: number | null, stop: () => boolean): Promise<void> {
    const state = this.state()!;
    const target = state.clockTarget ? Date.parse(state.clockTarget) : null;
    if (target !== null) {
      if (when !== null && when <= target) return this.jump(when);
      this.jump(target);
      state.clockTarget = null;
    }
    if (when === null) await condition(stop);
    else await condition(stop, Math.max(when - this.now(), 1));
  }

  /** The test clock jumps forward to `to` (never back). */
  private jump(to: number): void {
    const state = this.state()!;
    state.clockOffsetMs = (state.clockOffsetMs ?? 0) + Math.max(to - this.now(), 0);
  }
}
