import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { BCB_ERROR_NAMES, bcbGeneralName, bcbProblemaOf, type BcbViolacao } from '../../../gateway/bcb-pix-problems.ts';
import { ROUTES } from '../../../gateway/http-protocol.ts';
import { GatewayError } from '../../../gateway/port.ts';
import { isDatabaseDown } from './database.ts';

/*
 * The simulated server's BCB routes answer errors as the BCB's Problema (decision 0103): the refusals
 * their handlers throw, and the handler that turns them (and the gateway's own errors) into bodies.
 */

/** A request the route refuses: its tag's `…OperacaoInvalida`, or the general `RequisicaoInvalida`. */
export class BcbInvalid extends Error {
  readonly general: boolean;
  readonly violacoes: BcbViolacao[];
  constructor(message: string, violacoes: BcbViolacao[] = [], general = false) {
    super(message);
    this.violacoes = violacoes;
    this.general = general;
  }
}

/** Not found: its tag's `…NaoEncontrad[ao]`. */
export class BcbNotFound extends Error {}

export function bodyOf<S extends z.ZodType>(schema: S, request: FastifyRequest): z.infer<S> {
  const parsed = schema.safeParse(request.body ?? {});
  if (!parsed.success) {
    const violacoes = parsed.error.issues.map((i) => ({
      razao: i.message,
      propriedade: i.path.join('.') || 'body',
    }));
    throw new BcbInvalid('A requisição não respeita o schema.', violacoes);
  }
  return parsed.data;
}

/** The BCB's route names of a request (its METHOD and route path). */
const BCB_ROUTES = new Map(
  (Object.keys(BCB_ERROR_NAMES) as (keyof typeof BCB_ERROR_NAMES)[]).map((name) => [
    `${ROUTES[name].method} ${ROUTES[name].path}`,
    BCB_ERROR_NAMES[name],
  ]),
);
const namesOf = (request: FastifyRequest) =>
  BCB_ROUTES.get(`${request.method} ${request.routeOptions.url ?? ''}`) ?? {
    invalid: 'RequisicaoInvalida',
    notFound: 'NaoEncontrado',
  };

/**
 * Errors answered as the BCB's Problema (gateway/bcb-pix-problems.ts): a refusal of the simulator's (a
 * GatewayError not worth repeating) is the route's `…OperacaoInvalida`, a retryable one or its database
 * down `ServicoIndisponivel`.
 */
export function answerProblems(app: FastifyInstance): void {
  app.setErrorHandler((err: unknown, request, reply) => {
    const names = namesOf(request);
    const send = (status: number, name: string, detail: string, violacoes?: BcbViolacao[]) =>
      reply.status(status).send(bcbProblemaOf(status, name, detail, violacoes));
    if (err instanceof BcbInvalid) {
      return send(400, err.general ? 'RequisicaoInvalida' : names.invalid, err.message, err.violacoes);
    }
    if (err instanceof BcbNotFound) return send(404, names.notFound, err.message);
    if (err instanceof GatewayError && !err.retryable) return send(400, names.invalid, err.message);
    if (err instanceof GatewayError || isDatabaseDown(err)) {
      request.log.warn({ err }, 'simulated gateway: unavailable');
      return send(503, 'ServicoIndisponivel', 'Serviço indisponível; tente novamente.');
    }
    const status = (err as { statusCode?: number }).statusCode;
    // Fastify's own refusals (a body that is not JSON…): the general RequisicaoInvalida.
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return send(status, bcbGeneralName(status), (err as Error).message);
    }
    request.log.error({ err }, 'simulated gateway failed');
    return send(500, 'ErroInternoDoServidor', 'Erro interno do servidor.');
  });
}
