/**
 * Two task queues per deployment: the interactive one (TEMPORAL_TASK_QUEUE: checkouts,
 * confirmations, API-driven changes) and its batch queue (renewals, dunning, sweeps), which workers
 * poll with a rate limit of their own, so a storm of renewals never queues ahead of a buyer. The batch
 * queue's name is derived, so a workflow can name it from its own task queue, deterministically.
 */
export const batchTaskQueue = (interactive: string) => `${interactive}-batch`;

/**
 * The webhook queue: delivery workflows and their HTTP calls, polled with many concurrent slots (the
 * calls wait on merchants' servers, not on our CPU), so a slow endpoint never takes a buyer's slot.
 */
export const webhookTaskQueue = (interactive: string) => `${interactive}-webhooks`;

/**
 * A periodic job's Schedule id for one deployment: its job's name and the deployment's interactive
 * queue (`billing-sweep:billing`). Schedule ids are unique per namespace, so a second deployment on
 * another task queue of the same namespace gets Schedules of its own, starting its own queue's work.
 */
export const scheduleIdFor = (job: string, interactive: string) => `${job}:${interactive}`;
