import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { uuidv7 } from 'uuidv7';
import { REPO_ROOT } from '../scripts/tool-paths.ts';
import { confirmBaselineUpdate } from './baseline-workflow.ts';
import { checkoutBuyer, drive, type Run } from './checkout-load.ts';
import { cpuSince, cpuSnapshot, ownCpuMs, percentile, threadCpuMs } from './harness.ts';
import { startStack } from './stack.ts';

/**
 * Checkout create + confirm-sdk with an approving card, end to end over HTTPS, at a fixed concurrency,
 * against a bare Temporal baseline in the same run: a workflow started by a client that takes one
 * Update and runs the same number of no-op activities (three). Target: at least 60% of the baseline (goal 70%).
 */
const CONCURRENCY = Number(process.env.BENCH_CHECKOUT_CONCURRENCY ?? 8);
const DURATION_MS = Number(process.env.BENCH_DURATION_SEC ?? 10) * 1000;
const TEMPORAL_PORT = 7255;
const API_PORT = 18445;

export async function benchCheckouts(databaseUrl: string): Promise<void> {
  const stack = await startStack(databaseUrl, {
    temporalPort: TEMPORAL_PORT,
    apiPort: API_PORT,
    taskQueue: 'bench-checkouts',
  });
  const buyer = await checkoutBuyer(stack, CONCURRENCY * 2);

  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await Connection.connect({ address: stack.temporal.address });
  const client = new Client({ connection });
  const nativeConnection = await NativeConnection.connect({ address: stack.temporal.address });
  const baselineWorker = await Worker.create({
    connection: nativeConnection,
    taskQueue: 'bench-baseline',
    workflowsPath: path.join(REPO_ROOT, 'bench/baseline-workflow.ts'),
    activities: { noop: async () => undefined },
  });
  const baselineRunning = baselineWorker.run();

  try {
    const baseline = async () => {
      const handle = await client.workflow.start('baselineCheckoutWorkflow', {
        taskQueue: 'bench-baseline',
        workflowId: `baseline:${uuidv7()}`,
      });
      return (await handle.executeUpdate(confirmBaselineUpdate)) === 'succeeded';
    };

    /** CPU time used by each process of the stack while `run` goes on. */
    const processes = { ...stack.cpu, 'bench (load, baseline worker)': ownCpuMs };
    async function measured(run: () => Promise<Run>): Promise<Run & { cpu: Record<string, number> }> {
      const before = cpuSnapshot(processes);
      const result = await run();
      return { ...result, cpu: cpuSince(processes, before) };
    }

    // Warm both paths (bundles, JIT, pools) before measuring.
    for (let i = 0; i < 3; i++) await Promise.all([buyer.checkout(), baseline()]);
    const base = await measured(() => drive(baseline, CONCURRENCY, DURATION_MS));
    buyer.halves.create.length = 0;
    buyer.halves.confirm.length = 0;
    const workerPid = stack.workers[0]!.pid!;
    const threadsBefore = threadCpuMs(workerPid);
    const real = await measured(() => drive(buyer.checkout, CONCURRENCY, DURATION_MS));
    const threadsAfter = threadCpuMs(workerPid);
    const rate = (r: Run) => r.completed / r.seconds;
    console.table([
      {
        target: 'bare Temporal (start + Update + 3 no-op activities)',
        'per s': rate(base).toFixed(1),
        'p50 ms': percentile(base.latencies, 50),
        'p99 ms': percentile(base.latencies, 99),
        failed: base.failed,
      },
      {
        target: 'checkout create + confirm-sdk (card)',
        'per s': rate(real).toFixed(1),
        'p50 ms': percentile(real.latencies, 50),
        'p99 ms': percentile(real.latencies, 99),
        failed: real.failed,
      },
    ]);
    const { create, confirm } = buyer.halves;
    console.log(
      `  of which POST /checkouts/ p50 ${percentile(create, 50)} ms, p99 ${percentile(create, 99)} ms; ` +
        `confirm-sdk p50 ${percentile(confirm, 50)} ms, p99 ${percentile(confirm, 99)} ms`,
    );
    const perOperation = (r: typeof base) =>
      Object.fromEntries(Object.entries(r.cpu).map(([k, ms]) => [k, Math.round(ms / Math.max(r.completed, 1))]));
    console.log('  CPU ms per operation, by process:');
    console.table({ baseline: perOperation(base), checkout: perOperation(real) });
    console.log("  the worker's CPU ms per checkout, by thread:");
    console.table(
      Object.fromEntries(
        Object.entries(threadsAfter).map(([name, ms]) => [
          name,
          Math.round(((ms - (threadsBefore[name] ?? 0)) / Math.max(real.completed, 1)) * 10) / 10,
        ]),
      ),
    );
    console.log(
      `checkout rate ${((rate(real) / rate(base)) * 100).toFixed(1)}% of the baseline (target ≥ 60%, goal 70%) at concurrency ${CONCURRENCY}`,
    );
  } finally {
    baselineWorker.shutdown();
    await baselineRunning;
    await nativeConnection.close();
    await connection.close();
    await buyer.close();
    await stack.stop();
  }
}
