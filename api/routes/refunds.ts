import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordEvent } from '../../db/events.ts';
import { transactionCurrencies } from '../../db/checkout/refund-reads.ts';
import { lockTransaction } from '../../db/checkout/transactions.ts';
import { listRefunds, type RefundFilter } from '../../db/sale/lists.ts';
import { ownRefund, ownSale, pendingRefundsBefore, refundOrFail } from '../../db/sale/reads.ts';
import { hasOpenDispute } from '../../db/sale/disputes.ts';
import { insertPendingRefund, pendingRefundSum } from '../../db/sale/refunds.ts';
import { refundAmount, type RefundRefusal } from '../../domain/refunds.ts';
import { notFound, unprocessable } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { errorResponses, isUuid, orderBy, pageOf, pageOffset } from '../../use-cases/schemas/common.ts';
import {
  createRefundBody,
  listRefundsQuery,
  presentRefund,
  refundPage,
  refundSchema,
  saleParams,
} from '../schemas/sales.ts';
import { ORGANIZATION_ID } from '../../domain/search-attributes.ts';
import { refundWorkflowId } from '../../contracts/refund.ts';
import type { RefundWorkflow } from '../../contracts/refund.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

const READ = { oat: ['refunds:read'], apiKey: 'refunds' } as const;
const WRITE = { oat: ['refunds:write'], apiKey: 'refunds' } as const;
const tags = ['refunds'];
/** How long a request waits for the gateway before answering with the refund still pending. */
const SETTLE_WAIT_MS = 5000;
/** How often each API process looks for pending refunds whose workflow may never have started. */
const SWEEP_EVERY_MS = 60_000;
/** A refund younger than this is still in its request's hands. */
const STRANDED_AFTER_MS = 60_000;
const SWEEP_BATCH = 100;

export const refundsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  let cursor: SweepCursor = null;
  const sweeper = setInterval(() => {
    restartStrandedRefunds(deps, cursor)
      .then(({ next }) => (cursor = next))
      .catch((err: unknown) => app.log.warn({ err }, 'refund sweep failed'));
  }, SWEEP_EVERY_MS);
  sweeper.unref();
  app.addHook('onClose', async () => clearInterval(sweeper));

  creationRoutes(app, deps);
  readRoutes(app, deps);
};

/** POST /: a refund of a sale, answered once the gateway settles it or SETTLE_WAIT_MS have passed. */
function creationRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Refund a sale, fully or partly',
        description:
          'Never more than was captured, less what is already refunded, pending, or taken back by a lost ' +
          'dispute; refused (422 `sale_disputed`) while a dispute of the payment is open. The gateway call runs in a ' +
          'refund workflow keyed by the refund, so it is retried until the gateway answers and never refunds twice. ' +
          'The response waits a few seconds for the gateway; a refund still pending then settles in the background ' +
          '(its workflow is started again by a sweep if the request could not start it). A refund the gateway never ' +
          'answers for within three days is settled from what the gateway says it refunded.',
        body: createRefundBody,
        response: { 201: refundSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const body = request.body;
      if (!isUuid(body.sale_id)) throw notFound('Sale');
      const em = deps.orm.em.fork();
      const { refund, currency } = await em.transactional(async (tx) => {
        const sale = await ownSale(tx, organizationId, body.sale_id);
        if (!sale) throw notFound('Sale');
        // A sale whose total was zero took no money: it has no payment to refund.
        if (!sale.transactionId) refuse(refundAmount(body.amount, null));
        // The transaction row lock serializes refunds of one payment, so two requests cannot both take the last cents.
        const payment = await lockTransaction(tx, sale.transactionId!);
        const { amount } = refuse(
          refundAmount(body.amount, {
            captured: payment.capturedAmount,
            refunded: payment.refundedAmount,
            pending: await pendingRefundSum(tx, payment.id),
            chargedBack: sale.chargedBackAmount,
            disputeOpen: await hasOpenDispute(tx, sale.id),
          }),
        );
        const created = await insertPendingRefund(tx, {
          organizationId,
          saleId: sale.id,
          transactionId: payment.id,
          amount,
          reason: body.reason ?? null,
        });
        recordEvent(tx, organizationId, 'refund.created', presentRefund(created, payment.currency));
        return { refund: created, currency: payment.currency };
      });

      try {
        const handle = await startRefundWorkflow(deps, refund);
        await Promise.race([handle.result(), new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS).unref())]);
      } catch (err) {
        // Neither a failed start nor a lost answer says what the gateway did, so the refund is never
        // settled here: it stays pending, and its workflow (started now, or by the sweep below) settles it.
        request.log.warn({ err, refundId: refund.id }, 'refund workflow not started or not answering; left pending');
      }
      const settled = await refundOrFail(deps.orm.em.fork(), refund.id);
      return reply.status(201).send(presentRefund(settled, currency));
    },
  );
}

/** GET / and GET /:id. */
function readRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'List refunds',
        description: 'Filter: sale_id. Sorting: created_at or amount (default -created_at).',
        querystring: listRefundsQuery,
        response: { 200: refundPage, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      // Checked before any filter can answer early: a bad sorting is a 400 whatever else was sent.
      const order = orderBy(q.sorting, { created_at: 'createdAt', amount: 'amount' }, '-created_at');
      const where: RefundFilter = { organizationId };
      if (q.sale_id !== undefined) {
        if (!isUuid(q.sale_id)) return pageOf([], 0, q.limit);
        where.saleId = q.sale_id;
      }
      const em = deps.orm.em.fork();
      const { refunds, total } = await listRefunds(em, where, {
        orderBy: order,
        limit: q.limit,
        offset: pageOffset(q),
      });
      const currencies = await transactionCurrencies(
        em,
        refunds.map((r) => r.transactionId),
      );
      return pageOf(
        refunds.map((r) => presentRefund(r, currencies.get(r.transactionId)!)),
        total,
        q.limit,
      );
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(READ),
      schema: { tags, summary: 'Get a refund', params: saleParams, response: { 200: refundSchema, ...errorResponses } },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const em = deps.orm.em.fork();
      const refund = isUuid(request.params.id) ? await ownRefund(em, organizationId, request.params.id) : null;
      if (!refund) throw notFound('Refund');
      const currencies = await transactionCurrencies(em, [refund.transactionId]);
      return presentRefund(refund, currencies.get(refund.transactionId)!);
    },
  );
}

/**
 * Starts the refund's workflow, or joins the run already under way: starting twice is harmless, so
 * the request and the sweep may both do it.
 */
export async function startRefundWorkflow(
  deps: Pick<RouteDeps, 'temporal' | 'config'>,
  refund: { id: string; organizationId: string },
) {
  return deps.temporal.workflow.start<RefundWorkflow>('refundWorkflow', {
    workflowId: refundWorkflowId(refund.id),
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [refund.id],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [{ key: ORGANIZATION_ID, value: refund.organizationId }],
  });
}

/** Where a sweep pass stopped: the next one resumes after it. */
export type SweepCursor = { createdAt: Date; id: string } | null;

/**
 * The sweep: (re)starts the workflow of refunds still pending after STRANDED_AFTER_MS, a batch at a
 * time, oldest first, from `after` on. A refund whose request could not start its workflow (Temporal
 * unreachable, the process gone) is settled this way; for one whose workflow runs, the start is a
 * no-op. Returns the refunds it started or joined, and where the next pass resumes (null: from the
 * oldest again).
 */
export async function restartStrandedRefunds(
  deps: Pick<RouteDeps, 'temporal' | 'config' | 'orm'>,
  after: SweepCursor = null,
  options: { strandedAfterMs?: number; batch?: number } = {},
): Promise<{ started: string[]; next: SweepCursor }> {
  const batch = options.batch ?? SWEEP_BATCH;
  const createdBefore = new Date(Date.now() - (options.strandedAfterMs ?? STRANDED_AFTER_MS));
  const stranded = await pendingRefundsBefore(deps.orm.em.fork(), createdBefore, after, batch);
  for (const refund of stranded) await startRefundWorkflow(deps, refund);
  const last = stranded.at(-1);
  return {
    started: stranded.map((r) => r.id),
    next: last && stranded.length === batch ? { createdAt: last.createdAt, id: last.id } : null,
  };
}

/** domain/refunds.ts's refusal as the API's 422, or the amount it allows. */
function refuse(verdict: { amount: number } | RefundRefusal): { amount: number } {
  if ('code' in verdict) throw unprocessable(verdict.code, verdict.message, verdict.detail);
  return verdict;
}
