import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import type { Config } from '../config/env.ts';
import { actorClientInterceptor } from './actor-headers.ts';

type Interceptor = NonNullable<ConnectionOptions['interceptors']>[number];

/** gRPC status codes (@grpc/grpc-js `status`), which the Temporal client reports on its errors. */
export const GRPC_STATUS = { DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14 } as const;

/**
 * Calls the server may hold open until something happens (an update's outcome, a workflow's next
 * event): a fixed deadline would cut them short, so only a deadline the caller sets applies to them.
 */
const LONG_POLLS = new Set(['UpdateWorkflowExecution', 'PollWorkflowExecutionUpdate', 'GetWorkflowExecutionHistory']);

/**
 * An unreachable server answers UNAVAILABLE at once; the SDK's default retries it ten times over
 * about 20 seconds, which a request waiting on it cannot afford. Three quick retries (under a second
 * in all) ride out a dropped connection; past that the caller gets the error and answers 503.
 */
const UNAVAILABLE_ATTEMPTS = 4;

/**
 * The API's one Temporal client. Connecting lazily lets the API start (and answer /readyz 503) while
 * Temporal is down; the channel reconnects by itself when the server is back.
 *
 * Every call is bounded: a call without a deadline of its own gets `TEMPORAL_CALL_TIMEOUT_MS`
 * (retries included), except long polls, and an unreachable server fails a call within a second.
 */
export function createTemporalClient(config: Config): Client {
  const connection = Connection.lazy({
    address: config.TEMPORAL_ADDRESS,
    interceptors: [boundedCalls(config.TEMPORAL_CALL_TIMEOUT_MS)],
    channelArgs: {
      // gRPC backs off between reconnection attempts up to two minutes by default: a server that
      // comes back would stay unused that long. Two seconds at most.
      'grpc.initial_reconnect_backoff_ms': 250,
      'grpc.max_reconnect_backoff_ms': 2000,
    },
  });
  // Every start, signal and Update carries the actor this process runs as (temporal/actor-headers.ts).
  return new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    interceptors: { workflow: [actorClientInterceptor] },
  });
}

/** The SDK's retry interceptor, with a default deadline and a short patience for UNAVAILABLE. */
export function boundedCalls(callTimeoutMs: number): Interceptor {
  const defaults = defaultGrpcRetryOptions();
  const retry = makeGrpcRetryInterceptor({
    delayFunction: defaults.delayFunction,
    retryableDecider: (attempt, status) =>
      status.code === GRPC_STATUS.UNAVAILABLE
        ? attempt < UNAVAILABLE_ATTEMPTS
        : defaults.retryableDecider(attempt, status),
  });
  return (options, nextCall) => {
    const method = options.method_definition.path.slice(options.method_definition.path.lastIndexOf('/') + 1);
    const bounded =
      (options.deadline === undefined || options.deadline === Infinity) && !LONG_POLLS.has(method)
        ? { ...options, deadline: Date.now() + callTimeoutMs }
        : options;
    // The retries run inside this one deadline: nextCall passes the same options to every attempt.
    return retry(bounded, nextCall);
  };
}
