import type { FastifyBaseLogger } from 'fastify';
import { keptCardWorkflowId, type KeptCardWorkflow } from '../contracts/kept-card.ts';
import { ApiError } from '../use-cases/errors.ts';
import type { RouteDeps } from './route-deps.ts';

/**
 * A gateway's card updater replaced a kept card (decision 0071): the kept-card workflow asks the
 * gateway whether the replacement is real and moves the subscriptions that charge the old card to it.
 * One run per replacement, so a repeated notice joins it; the route writes nothing itself. A start
 * that fails is a 503, so the gateway sends the notice again.
 */
export async function replaceKeptCardOf(
  deps: Pick<RouteDeps, 'temporal' | 'config'>,
  replacement: { replaced: string; by: string },
  log: FastifyBaseLogger,
): Promise<void> {
  try {
    await deps.temporal.workflow.start<KeptCardWorkflow>('keptCardWorkflow', {
      workflowId: keptCardWorkflowId(replacement.replaced, replacement.by),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [replacement.replaced, replacement.by],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  } catch (err) {
    log.warn({ err }, 'could not start the kept-card workflow');
    throw new ApiError(503, 'temporarily_unavailable', 'Callback not processed; retry later');
  }
}
