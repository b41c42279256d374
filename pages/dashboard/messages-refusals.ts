import type { Locale } from '../locale.ts';

/**
 * The API's refusals as the merchant reads them on the dashboard. A page in Portuguese words them by the
 * error body's stable `code` (a code not listed here by its status), never with the API's own `error`
 * text, which is English; an English page shows the API's words.
 */

const ptBR = {
  byCode: {
    invalid_request: 'Confira os campos do formulário.',
    validation_error: 'Os dados não foram aceitos. Confira os campos do formulário.',
    not_found: 'Não encontrado. Ele pode ter sido removido.',
    forbidden: 'Você não tem permissão para esta ação.',
    unauthorized: 'Sua sessão expirou. Entre de novo.',
    conflict: 'Esta alteração conflita com uma feita agora há pouco. Recarregue a página e tente de novo.',
    rate_limited: 'Muitas ações em pouco tempo. Aguarde um instante e tente de novo.',
    https_required: 'O endereço precisa começar com https://.',
    invalid_url: 'O endereço não é válido.',
    already_member: 'Esta pessoa já é membro da organização.',
    last_owner: 'O último proprietário não pode ser removido. Torne outro membro proprietário antes.',
    invalid_expires_at: 'A data de expiração precisa ser no futuro.',
    slug_taken: 'Já existe uma organização com este identificador.',
    invalid_price: 'O preço não é válido.',
    invalid_default_price: 'O preço padrão precisa ser um dos preços do produto.',
    default_price_archived: 'O preço padrão está arquivado.',
    product_archived: 'O produto está arquivado.',
    price_inactive: 'O preço não está mais ativo.',
    discount_not_found: 'Cupom não encontrado.',
    max_redemptions_below_redemptions: 'O limite de usos é menor que os usos já feitos.',
    nothing_to_refund: 'Não há mais nada a reembolsar nesta venda.',
    refund_exceeds_captured: 'O valor é maior que o reembolsável.',
    sale_disputed: 'Esta venda está em contestação e não pode ser reembolsada agora.',
    plan_change_refused: 'Esta troca de plano não é permitida.',
    upgrade_refused: 'Esta troca de plano não é permitida.',
    subscription_ended: 'A assinatura já terminou.',
    invalid_due_date: 'A data de vencimento não é válida.',
    invalid_date_range: 'O período não é válido.',
    day_in_future: 'Escolha um dia que já terminou.',
    amount_required: 'Informe o valor.',
    gateway_unavailable: 'O gateway de pagamento não respondeu. Tente de novo em instantes.',
    temporarily_unavailable: 'O serviço está indisponível no momento. Tente de novo em instantes.',
    code_taken: 'Este código já é usado por outro cupom desta organização.',
    invalid_ends_at: 'A data de término precisa ser depois da data de início.',
    invalid_product: 'Produto não encontrado.',
    unknown_price: 'Este preço não é deste produto.',
    subscription_not_invoiceable: 'Esta assinatura não aceita cobranças avulsas.',
    invoice_not_created: 'A cobrança avulsa não foi criada, e nada será cobrado. Tente de novo.',
    payment_declined: 'A cobrança foi recusada.',
  } as Record<string, string>,
  byStatus: {
    400: 'Confira os campos do formulário.',
    401: 'Sua sessão expirou. Entre de novo.',
    403: 'Você não tem permissão para esta ação.',
    404: 'Não encontrado.',
    409: 'Esta alteração conflita com o estado atual. Recarregue a página.',
    413: 'O arquivo é grande demais.',
    422: 'Os dados não foram aceitos.',
    429: 'Muitas ações em pouco tempo. Aguarde um instante e tente de novo.',
    500: 'Algo deu errado do nosso lado. Tente de novo em instantes.',
  } as Record<number, string>,
  /** The code beside the words: what the merchant quotes to support or finds in the API's documentation. */
  code: (code: string) => `Código: ${code}`,
  fields: (names: string) => `Campos: ${names}`,
};

type RefusalMessages = typeof ptBR;

const en: RefusalMessages = {
  // The API's own words are English already: an English page shows them (refusalWords).
  byCode: {},
  byStatus: {
    400: 'Check the form fields.',
    401: 'Your session has expired. Sign in again.',
    403: 'You do not have permission to do this.',
    404: 'Not found.',
    409: 'This change conflicts with the current state. Reload the page.',
    413: 'The file is too large.',
    422: 'That was not accepted.',
    429: 'Too many actions in a short time. Wait a moment and try again.',
    500: 'Something went wrong on our side. Try again in a moment.',
  },
  code: (code: string) => `Code: ${code}`,
  fields: (names: string) => `Fields: ${names}`,
};

const catalogues: Record<Locale, RefusalMessages> = { 'pt-BR': ptBR, en };

/**
 * The words of a refusal. In Portuguese: by its code when the catalogue has it, else by its status (any
 * 5xx as 500); the detail names the fields a 400 found wrong (its detail lists them as
 * `body.<field>: <why>`, the why in English) and the code. In English: the API's own error and detail.
 */
export function refusalWords(
  locale: Locale,
  status: number,
  body: { code?: unknown; error?: unknown; detail?: unknown },
): { title: string; detail: string | null } {
  const t = catalogues[locale];
  const code = typeof body.code === 'string' ? body.code : null;
  const apiError = typeof body.error === 'string' ? body.error : undefined;
  const apiDetail = typeof body.detail === 'string' ? body.detail : '';
  const byStatus = t.byStatus[status >= 500 ? 500 : status] ?? t.byStatus[status < 500 ? 422 : 500]!;
  const title = (code ? t.byCode[code] : undefined) ?? (locale === 'en' ? apiError : undefined) ?? byStatus;
  const fields = [...apiDetail.matchAll(/\b(?:body|querystring|params)\.([\w.]+):/g)].map((m) => m[1]!);
  const explained = locale === 'en' ? apiDetail : fields.length ? t.fields([...new Set(fields)].join(', ')) : '';
  const detail = [explained, code ? t.code(code) : ''].filter(Boolean).join(' · ');
  return { title, detail: detail || null };
}
