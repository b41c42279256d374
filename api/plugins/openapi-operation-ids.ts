/** Each operation's `operationId`: the stable names generated clients call it by. */

/**
 * Names that read better than the derived ones (the derivation is in `deriveOperationId`). Keys are
 * `METHOD /path` as the route declares it. Changing a name here breaks generated clients: add, do not rename.
 */
export const OPERATION_IDS: Record<string, string> = {
  'GET /healthz': 'getLiveness',
  'GET /readyz': 'getReadiness',
  'POST /api/v1/organizations/:id/members': 'addOrganizationMember',
  'DELETE /api/v1/organizations/:id/members/:email': 'removeOrganizationMember',
  'POST /api/v1/dashboard/organizations/:organization_id/api-keys': 'createApiKey',
  'GET /api/v1/dashboard/organizations/:organization_id/api-keys': 'listApiKeys',
  'POST /api/v1/dashboard/organizations/:organization_id/api-keys/:id/revoke': 'revokeApiKey',
  'DELETE /api/v1/dashboard/organizations/:organization_id/api-keys/:id': 'deleteApiKey',
  'POST /api/v1/dashboard/organizations/:organization_id/access-tokens': 'createAccessToken',
  'GET /api/v1/dashboard/organizations/:organization_id/access-tokens': 'listAccessTokens',
  'DELETE /api/v1/dashboard/organizations/:organization_id/access-tokens/:id': 'revokeAccessToken',
  'DELETE /api/v1/products/:id': 'archiveProduct',
  'GET /api/v1/customers/external/:external_id': 'getCustomerByExternalId',
  'PATCH /api/v1/customers/external/:external_id': 'updateCustomerByExternalId',
  'DELETE /api/v1/customers/external/:external_id': 'deleteCustomerByExternalId',
  'DELETE /api/v1/checkout-links/:id': 'archiveCheckoutLink',
  'POST /api/v1/customer-portal/sessions': 'createCustomerSession',
  'GET /api/v1/customer-portal/customer': 'getPortalCustomer',
  'POST /api/v1/checkouts/:id/manual-renewal-checkout': 'createManualRenewalCheckout',
  'GET /api/v1/checkouts/client/:client_secret': 'getCheckoutByClientSecret',
  'GET /api/v1/checkouts/client/:client_secret/seller-config': 'getCheckoutSellerConfig',
  'POST /api/v1/checkouts/client/:client_secret/confirm-sdk': 'confirmCheckout',
  'POST /api/v1/gateway/callbacks': 'receiveGatewayCallback',
  'POST /api/v1/gateway/mercadopago/notifications': 'receiveMercadoPagoNotification',
  'POST /api/v1/gateway/efi/notifications': 'receiveEfiNotification',
  'GET /checkout/:checkout_link_id': 'openCheckoutLink',
  'GET /api/v1/sandbox/test-cards': 'listSandboxTestCards',
  'POST /api/v1/sandbox/transactions/:transaction_id/pay': 'paySandboxTransaction',
  'POST /api/v1/sandbox/transactions/:transaction_id/expire': 'expireSandboxTransaction',
  'POST /api/v1/sandbox/transactions/:transaction_id/end-review': 'endSandboxTransactionReview',
  'POST /api/v1/sandbox/invoices/:invoice_id/pay': 'paySandboxInvoice',
  'POST /api/v1/sandbox/invoices/:invoice_id/fail': 'failSandboxInvoice',
  'POST /api/v1/sandbox/mandates/:id/authorize': 'authorizeSandboxMandate',
  'POST /api/v1/sandbox/mandates/:id/revoke': 'revokeSandboxMandate',
  'POST /api/v1/sandbox/mandates/:id/payer-maximum': 'setSandboxMandatePayerMaximum',
  'POST /api/v1/sandbox/mandate-charges/settle': 'settleSandboxMandateCharges',
  'POST /sandbox-gateway/v1/card_tokens': 'createSandboxCardToken',
  'GET /sandbox-gateway/v1/payment_methods/search': 'searchSandboxPaymentMethods',
  'GET /sandbox-gateway/v1/payment_methods/installments': 'listSandboxInstallments',
  'POST /api/v1/transactions/direct': 'createDirectTransaction',
  'POST /functions/v1/create-price': 'createPrice',
};

const VERBS: Record<string, string> = { POST: 'create', PATCH: 'update', PUT: 'replace', DELETE: 'delete' };

export const pascal = (word: string) =>
  word
    .split(/[-_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
const singular = (word: string) => word.replace(/ies$/, 'y').replace(/(?<!s)s$/, '');

/**
 * `GET /api/v1/products` → listProducts, `GET /api/v1/products/:id` → getProduct, `POST` → create…,
 * `PATCH` → update…, `DELETE` → delete…; a static segment after a parameter names a sub-resource
 * (`GET /organizations/:id/members` → listOrganizationMembers).
 */
export function deriveOperationId(method: string, url: string): string {
  const segments = url
    .replace(/^\/(api|functions)\/v\d+/, '')
    .split('/')
    .filter(Boolean);
  const nouns = segments.filter((s) => !s.startsWith(':'));
  const collection = !segments.at(-1)?.startsWith(':');
  const plural = method === 'GET' && collection;
  const words = nouns.map((noun, i) => (i === nouns.length - 1 && plural ? noun : singular(noun)));
  const verb = method === 'GET' ? (collection ? 'list' : 'get') : (VERBS[method] ?? method.toLowerCase());
  return verb + words.map(pascal).join('');
}
