import { Worker, type WorkerOptions } from '@temporalio/worker';
import { until } from './processes.ts';

/**
 * The workers a test file runs on its time-skipping server, stopped before the server is torn down:
 * a test that times out leaves its `runUntil` pending and its worker polling, which would retry the
 * stopped server for minutes and keep jest from exiting.
 */
export function testWorkers() {
  const started = new Set<Worker>();
  return {
    async create(options: WorkerOptions): Promise<Worker> {
      // An activity that ignores its cancellation does not hold the shutdown up past this.
      const worker = await Worker.create({ shutdownForceTime: '5 seconds', ...options });
      started.add(worker);
      return worker;
    },
    /** Shuts down every worker still running and waits (10 s at most each) until it has stopped. */
    async stopAll(): Promise<void> {
      for (const worker of started) {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await until(
          () => ['STOPPED', 'FAILED', 'INITIALIZED'].includes(worker.getState()),
          10_000,
          'a test worker to stop',
        );
      }
      started.clear();
    },
  };
}
