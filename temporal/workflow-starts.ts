import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { invoiceWorkflowId } from '../domain/invoices.ts';
import { CHECKOUT_ID, CUSTOMER_ID, ORGANIZATION_ID, SUBSCRIPTION_ID } from '../domain/search-attributes.ts';
import type { InvoiceWorkflowInput } from '../contracts/invoice.ts';
import type { CheckoutWorkflow } from '../contracts/checkout.ts';
import type { InvoiceWorkflow } from '../contracts/invoice.ts';
import type { MandateWorkflow, MandateWorkflowInput } from '../contracts/mandate.ts';
import { mandateWorkflowId } from '../domain/mandate-requests.ts';

/**
 * How the workflows of checkouts and extra-charge invoices are started, in one place for the API
 * (which starts them) and the periodic sweep (which starts again the ones that went missing): their
 * id, input, task queue, search attributes and id policies. The Temporal client is an argument;
 * the workflows are named by type (no workflow code is imported here).
 *
 * Starting again is idempotent: `USE_EXISTING` keeps a running run, and `ALLOW_DUPLICATE_FAILED_ONLY`
 * starts a new run only where the last one was terminated, failed, canceled or timed out; a run that
 * completed has settled its record, so it is never run twice.
 */

/** What an operator finds a subscription's invoice or mandate workflow by in the Temporal UI. */
function subscriptionSearchAttributes(of: { organizationId: string; subscriptionId: string; customerId: string }) {
  return [
    { key: ORGANIZATION_ID, value: of.organizationId },
    { key: SUBSCRIPTION_ID, value: of.subscriptionId },
    { key: CUSTOMER_ID, value: of.customerId },
  ];
}

/** The start of an invoice's workflow, without its conflict policy (the API's creation adds its Update and FAIL). */
export function invoiceWorkflowStart(
  taskQueue: string,
  input: InvoiceWorkflowInput,
): Pick<WorkflowStartOptions<InvoiceWorkflow>, 'workflowId' | 'taskQueue' | 'args' | 'typedSearchAttributes'> {
  return {
    workflowId: invoiceWorkflowId(input.invoiceId),
    taskQueue,
    args: [input],
    typedSearchAttributes: subscriptionSearchAttributes(input),
  };
}

/** The start of a mandate's workflow (decision 0098; the API adds its creation Update and FAIL): the operator finds it by organization, subscription and customer, its memo saying the journey and the deadline. */
export function mandateWorkflowStart(
  taskQueue: string,
  input: MandateWorkflowInput,
): Pick<WorkflowStartOptions<MandateWorkflow>, 'workflowId' | 'taskQueue' | 'args' | 'typedSearchAttributes' | 'memo'> {
  return {
    workflowId: mandateWorkflowId(input.mandateId),
    taskQueue,
    args: [input],
    typedSearchAttributes: subscriptionSearchAttributes(input),
    memo: { journey: input.journey, answerBy: input.answerBy },
  };
}

/** Starts the workflow of a pending invoice that has none running (see the module's comment). */
export async function ensureInvoiceWorkflow(
  temporal: Client,
  taskQueue: string,
  input: InvoiceWorkflowInput,
): Promise<void> {
  await ignoreClosed(
    temporal.workflow.start<InvoiceWorkflow>('invoiceWorkflow', {
      ...invoiceWorkflowStart(taskQueue, input),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    }),
  );
}

/** What starting a checkout's workflow needs of the checkout. */
export interface CheckoutToRun {
  id: string;
  organizationId: string;
  workflowId: string;
  status: string;
  expiresAt: Date;
}

/**
 * Starts the checkout's workflow, or does nothing when one runs, or ran to its end. An open checkout
 * tells the workflow until when it is open; any other makes it read the checkout first (a pix or
 * boleto issued is picked up there and asked about at the gateway).
 */
export async function ensureCheckoutWorkflow(
  temporal: Client,
  taskQueue: string,
  checkout: CheckoutToRun,
): Promise<void> {
  await ignoreClosed(
    temporal.workflow.start<CheckoutWorkflow>('checkoutWorkflow', {
      workflowId: checkout.workflowId,
      taskQueue,
      args: [
        {
          checkoutId: checkout.id,
          organizationId: checkout.organizationId,
          ...(checkout.status === 'open' ? { openUntil: checkout.expiresAt.toISOString() } : {}),
        },
      ],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      typedSearchAttributes: [
        { key: ORGANIZATION_ID, value: checkout.organizationId },
        { key: CHECKOUT_ID, value: checkout.id },
      ],
    }),
  );
}

/** A workflow whose last run completed is not started again. */
async function ignoreClosed(start: Promise<unknown>): Promise<void> {
  try {
    await start;
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
