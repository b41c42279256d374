import { condition, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';

/** The bare Temporal baseline of the checkout benchmark: no database, no gateway, no HTTP. */
export interface BaselineActivities {
  noop(): Promise<void>;
}

export const confirmBaselineUpdate = defineUpdate<string>('confirm');

const { noop } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '10 seconds' });

/** The same shape as a card checkout: one activity at start, an Update that runs two more, then done. */
export async function baselineCheckoutWorkflow(): Promise<void> {
  let confirmed = false;
  setHandler(confirmBaselineUpdate, async () => {
    await noop();
    await noop();
    confirmed = true;
    return 'succeeded';
  });
  await noop();
  await condition(() => confirmed);
}
