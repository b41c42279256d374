import { afterAll, beforeAll } from '@jest/globals';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import path from 'node:path';
import { openOrm, type Orm } from '../../db/orm.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { temporalTestServerPath } from '../../scripts/tool-paths.ts';
import { TEST_TIME_SKIPPING_DATABASE_URL } from './env.ts';
import { testWorkers } from './test-workers.ts';

export interface TimeSkippingStack {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundleWithSourceMap;
  orm: Orm;
  sim: SimulatedGateway;
}

/**
 * A test file's time-skipping Temporal server, the bundle of one workflow module (workflows/<file>),
 * the time-skipping database and a simulator on it; handed over by `started` before the file's tests,
 * and torn down after them, its workers first. Returns the file's workers.
 */
export function useTimeSkipping(workflowFile: string, started: (stack: TimeSkippingStack) => void) {
  const workers = testWorkers();
  let stack: Partial<TimeSkippingStack> = {};
  beforeAll(async () => {
    const env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: temporalTestServerPath()! } },
    });
    stack.env = env;
    const bundle = await bundleWorkflowCode({
      workflowsPath: path.resolve(import.meta.dirname, '../../workflows', workflowFile),
    });
    const orm = await openOrm(TEST_TIME_SKIPPING_DATABASE_URL, 4);
    stack = { env, bundle, orm, sim: new SimulatedGateway(orm) };
    started(stack as TimeSkippingStack);
  }, 120_000);
  afterAll(async () => {
    await workers.stopAll();
    await stack.orm?.close();
    await stack.env?.teardown();
  });
  return workers;
}
