import {
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type WorkflowUpdateHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { findInvoice, findOwnInvoice, listInvoices, type InvoiceRow } from '../../db/invoice/records.ts';
import { findOwnSubscription } from '../../db/subscription/rows.ts';
import { GATEWAY_REFUSAL } from '../../domain/failures.ts';
import {
  brazilToday,
  INVOICE_CREATION_ABANDONED,
  INVOICE_CREATION_WINDOW_MS,
  invoiceDatesError,
  invoiceExpirationDate,
  invoiceWorkflowId,
  invoiceBillingOf,
  notInvoiceable,
  type InvoiceBilling,
} from '../../domain/invoices.ts';
import { invoiceWorkflowStart } from '../../temporal/workflow-starts.ts';
import { ApiError, notFound, serviceUnavailable, unprocessable } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import {
  errorResponses,
  isUuid,
  orderBy,
  pageOf,
  pageOffset,
  validationErrors,
} from '../../use-cases/schemas/common.ts';
import {
  createInvoiceBody,
  invoicePage,
  invoiceParams,
  invoiceSchema,
  listInvoicesQuery,
  presentInvoice,
} from '../schemas/invoices.ts';
import { subscriptionParams, workflowUrl } from '../schemas/subscriptions.ts';
import { type InvoiceRecord, type InvoiceRequest, invoiceCreationUpdate } from '../../contracts/invoice.ts';
import type { InvoiceWorkflow } from '../../contracts/invoice.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

// The spec's scopes: web:write or subscriptions:write; API keys with write (read for the GETs).
const READ = { oat: ['subscriptions:read'], apiKey: 'subscriptions' } as const;
const WRITE = { oat: ['subscriptions:write'], apiKey: 'subscriptions' } as const;
const tags = ['subscriptions'];

/** The 409 of a subscription the spec does not let take an extra charge. */
export const SUBSCRIPTION_NOT_INVOICEABLE = 'subscription_not_invoiceable';
/** How much longer than the creation window the request waits for the workflow to store what it created. */
const RECORDING_MARGIN_MS = 5_000;

/**
 * Extra charges on a subscription (the spec's POST /subscriptions/<id>/invoices), each run by its own
 * `invoice:<id>` workflow. The POST answers once the invoice is stored: a gateway-billed one after the
 * gateway created it, a manual one at once (the workflow charges its kept card on the due date).
 */
export const subscriptionInvoicesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const ownSubscription = subscriptionLookup(deps);
  creationRoutes(app, deps, ownSubscription);
  readRoutes(app, deps, ownSubscription);
};

/** The subscription `id` of the organization, with what its invoices need of it; any other is a 404. */
function subscriptionLookup(deps: RouteDeps) {
  return async (organizationId: string, id: string) => {
    const subscription = isUuid(id) ? await findOwnSubscription(deps.orm.em.fork(), { organizationId }, id) : null;
    if (!subscription) throw notFound('Subscription');
    return subscription;
  };
}

type SubscriptionLookup = ReturnType<typeof subscriptionLookup>;

/** POST /:id/invoices: an extra charge, answered once the invoice is stored (a gateway's once created there). */
function creationRoutes(app: RouteApp, deps: RouteDeps, ownSubscription: SubscriptionLookup): void {
  app.post(
    '/:id/invoices',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Charge a subscription once, outside its recurrence',
        description:
          'Answers once the invoice exists, numbered `<customer_invoice_prefix>-<n>`, status pending. Who charges ' +
          "it follows the subscription's `recurrence_billing`. **gateway**: the gateway creates the invoice " +
          "(`gateway_invoice_id`) and charges it to its own subscription's card on its calendar. **manual** " +
          '(Mercado Pago, whose recurrence this engine does not use): `gateway_invoice_id` is null and this engine ' +
          "charges the subscription's kept card once, with a new payment, at the start of `due_date` in Brazil " +
          '(at once when that is today). Either way it becomes paid (with a transaction and a sale) or failed ' +
          'with the decline reason, and is voided uncharged when its subscription ends first or it is still ' +
          'unpaid past its last payable day. Only a subscription that is active, trialing, unpaid or past_due ' +
          'can be charged, a manual one only with a saved card, and never a Pix Automático one, whose mandate takes ' +
          "only its periods' charges (else 409). A 503 means nothing was created.",
        params: subscriptionParams,
        body: createInvoiceBody,
        response: {
          201: invoiceSchema,
          ...errorResponses,
          422: validationErrors({
            invalid_due_date: 'due_date is before today',
            invalid_expiration_date: 'expiration_date is before due_date',
            gateway_refused: 'the gateway refused to create the invoice; nothing was created',
          }),
        },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const body = request.body;
      const subscription = await ownSubscription(organizationId, request.params.id);
      const requestedAt = new Date();
      const wrongDates = invoiceDatesError(
        { dueDate: body.due_date, expirationDate: body.expiration_date },
        brazilToday(requestedAt),
      );
      if (wrongDates) throw unprocessable(wrongDates.code, 'Invalid invoice dates', wrongDates.detail);
      // Stored and answered, so the invoice says the day it lapses rather than null.
      const expirationDate = invoiceExpirationDate(body.due_date, body.expiration_date);
      const billing = invoiceBillingOf(subscription.recurrenceBilling);
      const why = notInvoiceable({
        status: subscription.status,
        recurrenceBilling: subscription.recurrenceBilling,
        gatewaySubscriptionId: subscription.gatewaySubscriptionId ?? null,
        cardTokenId: subscription.cardTokenId ?? null,
      });
      if (why || !billing) {
        throw new ApiError(409, SUBSCRIPTION_NOT_INVOICEABLE, 'The subscription cannot be invoiced', why ?? undefined);
      }
      const record = await createInvoice(
        deps,
        billing,
        {
          invoiceId: uuidv7(),
          organizationId,
          subscriptionId: request.params.id,
          customerId: subscription.customerId,
          gatewaySubscriptionId: billing === 'gateway' ? subscription.gatewaySubscriptionId! : null,
          amount: body.amount,
          currency: subscription.currency.toUpperCase(),
          description: body.description ?? null,
          dueDate: body.due_date,
          expirationDate,
          noFeesInstallments: body.no_fees_installments,
        },
        requestedAt.getTime() + INVOICE_CREATION_WINDOW_MS,
      );
      return reply.status(201).send({ ...record, workflow_url: workflowUrl(deps.config, record.workflow_id) });
    },
  );
}

/** GET /:id/invoices and GET /:id/invoices/:invoice_id. */
function readRoutes(app: RouteApp, deps: RouteDeps, ownSubscription: SubscriptionLookup): void {
  const present = (i: InvoiceRow) => presentInvoice(i, workflowUrl(deps.config, i.workflowId));

  app.get(
    '/:id/invoices',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: "List a subscription's extra-charge invoices",
        description: 'Filter: status. Sorting: created_at, due_date or amount (default -created_at).',
        params: subscriptionParams,
        querystring: listInvoicesQuery,
        response: { 200: invoicePage, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      const order = orderBy(
        q.sorting,
        { created_at: 'createdAt', due_date: 'dueDate', amount: 'amount' },
        '-created_at',
      );
      await ownSubscription(organizationId, request.params.id);
      const { invoices, total } = await listInvoices(
        deps.orm.em.fork(),
        { organizationId, subscriptionId: request.params.id, ...(q.status ? { status: q.status } : {}) },
        { orderBy: order, limit: q.limit, offset: pageOffset(q) },
      );
      return pageOf(invoices.map(present), total, q.limit);
    },
  );

  app.get(
    '/:id/invoices/:invoice_id',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'Get an extra-charge invoice of a subscription',
        params: invoiceParams,
        response: { 200: invoiceSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const { id, invoice_id: invoiceId } = request.params;
      const invoice =
        isUuid(id) && isUuid(invoiceId)
          ? await findOwnInvoice(deps.orm.em.fork(), { organizationId, subscriptionId: id }, invoiceId)
          : null;
      if (!invoice) throw notFound('Invoice');
      return present(invoice);
    },
  );
}

/**
 * Starts the invoice's workflow with its creation Update, and answers with what the Update answers.
 * The workflow keeps nothing the gateway has not created by `answerBy`, so after waiting that long
 * (and the time to store it) "not answered" means "not created".
 */
async function createInvoice(
  deps: RouteDeps,
  billing: InvoiceBilling,
  request: InvoiceRequest,
  answerBy: number,
): Promise<InvoiceRecord> {
  const workflowId = invoiceWorkflowId(request.invoiceId);
  // The invoice's id names its creation Update, so that it can be asked for again after a lost answer.
  const updateId = request.invoiceId;
  const startWorkflowOperation = new WithStartWorkflowOperation<InvoiceWorkflow>('invoiceWorkflow', {
    ...invoiceWorkflowStart(deps.config.TEMPORAL_TASK_QUEUE, {
      ...request,
      answerBy: new Date(answerBy).toISOString(),
      // Only a manual invoice says so: a gateway invoice's input stays what it always was.
      ...(billing === 'manual' ? { billing } : {}),
    }),
    workflowIdConflictPolicy: 'FAIL',
  });
  let handle: WorkflowUpdateHandle<InvoiceRecord>;
  let startError: unknown = null;
  try {
    handle = await deps.temporal.workflow.startUpdateWithStart(invoiceCreationUpdate, {
      updateId,
      waitForStage: WorkflowUpdateStage.ACCEPTED,
      startWorkflowOperation,
    });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw creationError(err);
    // The start may have happened all the same (its answer lost, or the worker slow to take it).
    startError = err;
    handle = deps.temporal.workflow.getHandle(workflowId).getUpdateHandle<InvoiceRecord>(updateId);
  }
  const result = handle.result();
  const waited = new Promise<null>((resolve) =>
    setTimeout(resolve, Math.max(answerBy + RECORDING_MARGIN_MS - Date.now(), 0), null).unref(),
  );
  try {
    const record = await Promise.race([result, waited]);
    if (record) return record;
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw creationError(err);
    throw startError ?? err;
  } finally {
    result.catch(() => undefined);
  }
  // Stored meanwhile (a slow store), or never created: the workflow will not create it now.
  const stored = await findInvoice(deps.orm.em.fork(), request.invoiceId);
  if (stored) return presentInvoice(stored, '');
  throw serviceUnavailable(
    'invoice_not_created',
    'The invoice was not created',
    'Its workflow did not answer in time; nothing was created or will be charged. Retry.',
  );
}

/** The workflow's refusals as the API's errors: either way nothing was created. */
function creationError(err: WorkflowUpdateFailedError): unknown {
  if (!(err.cause instanceof ApplicationFailure)) return err;
  if (err.cause.type === GATEWAY_REFUSAL) {
    return unprocessable('gateway_refused', 'The gateway refused to create the invoice', err.cause.message);
  }
  if (err.cause.type === INVOICE_CREATION_ABANDONED) {
    return serviceUnavailable('gateway_unavailable', 'The payment gateway is unavailable', err.cause.message);
  }
  return err;
}
