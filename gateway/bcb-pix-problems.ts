import { z } from 'zod';
import type { RouteName } from './http-protocol.ts';

/**
 * The BCB's error bodies (bacen/pix-api openapi.yaml 2.9, `Problema`, RFC 7807): `type`
 * `https://pix.bcb.gov.br/api/v2/error/<Name>`, `title`, `status`, `detail` and the `violacoes` of a
 * request that breaks the schema or a rule. The names are the specification's, by route: a request the
 * route refuses is its tag's `<Tag>OperacaoInvalida` (400), an id it does not know its tag's
 * `<Tag>NaoEncontrad[a|o]` (404); the general ones (RequisicaoInvalida 400, NaoEncontrado 404,
 * ServicoIndisponivel 503, ErroInternoDoServidor 500) elsewhere. Like any other answer, a 5xx is worth
 * repeating under the same key, a 4xx is final (http-adapter.ts).
 */
export const BCB_ERROR_TYPE_BASE = 'https://pix.bcb.gov.br/api/v2/error/';

export const bcbViolacao = z.strictObject({
  razao: z.string().optional(),
  propriedade: z.string().optional(),
  valor: z.string().optional(),
});

export const bcbProblema = z.strictObject({
  type: z.string().startsWith(BCB_ERROR_TYPE_BASE),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  correlationId: z.string().optional(),
  violacoes: z.array(bcbViolacao).optional(),
});
export type BcbProblema = z.infer<typeof bcbProblema>;
export type BcbViolacao = z.infer<typeof bcbViolacao>;

/** Each Pix Automático route's refusal and unknown-id names (the specification's tags). */
type BcbRoute = Extract<
  RouteName,
  | 'createMandateLocation'
  | 'createFirstCharge'
  | 'createMandate'
  | 'getMandate'
  | 'cancelMandate'
  | 'sendMandateRequest'
  | 'createMandateCharge'
  | 'getMandateCharge'
  | 'retryMandateCharge'
  | 'cancelMandateCharge'
  | 'setMandateWebhook'
  | 'setMandateChargeWebhook'
  | 'refundPix'
  | 'getPixRefund'
>;
const REC = { invalid: 'RecOperacaoInvalida', notFound: 'RecNaoEncontrada' } as const;
const COBR = { invalid: 'CobROperacaoInvalida', notFound: 'CobRNaoEncontrado' } as const;
export const BCB_ERROR_NAMES: Record<BcbRoute, { invalid: string; notFound: string }> = {
  createMandateLocation: { invalid: 'RequisicaoInvalida', notFound: 'NaoEncontrado' },
  createFirstCharge: { invalid: 'CobOperacaoInvalida', notFound: 'CobNaoEncontrado' },
  createMandate: REC,
  getMandate: REC,
  cancelMandate: REC,
  sendMandateRequest: { invalid: 'SolicRecOperacaoInvalida', notFound: 'SolicRecNaoEncontrada' },
  createMandateCharge: COBR,
  getMandateCharge: COBR,
  retryMandateCharge: COBR,
  cancelMandateCharge: COBR,
  setMandateWebhook: { invalid: 'WebhookRecOperacaoInvalida', notFound: 'NaoEncontrado' },
  setMandateChargeWebhook: { invalid: 'WebhookCobROperacaoInvalida', notFound: 'NaoEncontrado' },
  // The Pix tag's: a refund the rules refuse, and a refund id unknown for that pix.
  refundPix: { invalid: 'PixDevolucaoInvalida', notFound: 'PixDevolucaoNaoEncontrada' },
  getPixRefund: { invalid: 'PixDevolucaoInvalida', notFound: 'PixDevolucaoNaoEncontrada' },
};

const TITLES: Record<number, string> = {
  400: 'Operação inválida.',
  404: 'Não encontrado.',
  500: 'Erro interno do servidor.',
  503: 'Serviço indisponível.',
};

export function bcbProblemaOf(status: number, name: string, detail: string, violacoes?: BcbViolacao[]): BcbProblema {
  return {
    type: `${BCB_ERROR_TYPE_BASE}${name}`,
    title: TITLES[status] ?? 'Requisição inválida.',
    status,
    detail,
    ...(violacoes && violacoes.length > 0 ? { violacoes } : {}),
  };
}

/** The general error for a status the routes have no name of their own for. */
export function bcbGeneralName(status: number): string {
  if (status === 404) return 'NaoEncontrado';
  if (status === 403 || status === 401) return 'AcessoNegado';
  if (status === 503 || status === 429) return 'ServicoIndisponivel';
  if (status === 504) return 'IndisponibilidadePorTempoEsgotado';
  if (status >= 500) return 'ErroInternoDoServidor';
  return 'RequisicaoInvalida';
}

/** A Problema's name and its text for a message (detail and violations); null when `body` is none. */
export function readBcbProblema(body: unknown): { name: string; message: string } | null {
  const parsed = bcbProblema.safeParse(body);
  if (!parsed.success) return null;
  const { type, title, detail, violacoes } = parsed.data;
  const broken = (violacoes ?? []).map((v) => [v.propriedade, v.razao].filter(Boolean).join(': ')).join('; ');
  return {
    name: type.slice(BCB_ERROR_TYPE_BASE.length),
    message: [detail ?? title, broken].filter(Boolean).join(' — '),
  };
}
