import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { GatewayMandate, GatewayMandateAttempt, GatewayMandateCharge } from '../../contracts/pix-automatico.ts';
import {
  bcbCobRCompleta,
  bcbCobRNotification,
  bcbEndToEndId,
  bcbRecCompleta,
  bcbRecId,
  bcbSolicRecId,
  bcbTxid,
  bcbRecNotification,
  bcbSolicRecCompleta,
  bcbWebhookCobRBody,
  bcbWebhookRecBody,
} from '../../gateway/bcb-pix-automatico-schemas.ts';
import {
  bcbAmountOf,
  bcbEndToEndIdOf,
  bcbRecIdOf,
  bcbSolicRecIdOf,
  bcbTxidOf,
  centsOf,
  chargeFromCobr,
  chargeNoticeOf,
  cobrFromCharge,
  cobrNotificationOf,
  mandateFromRec,
  mandateNoticeOf,
  recFromMandate,
  recNotificationOf,
  type BcbReceiver,
} from '../../gateway/bcb-pix-automatico.ts';

type Json = any;

const fixture = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../fixtures/bcb-pix/${name}.json`, import.meta.url), 'utf8'));

const first = <T>(items: readonly T[]): T => {
  if (items.length === 0) throw new Error('expected at least one item');
  return items[0] as T;
};

const issuePaths = (schema: { safeParse(json: unknown): any }, json: unknown): string[] => {
  const result = schema.safeParse(json);
  return result.success ? [] : result.error.issues.map((issue: any) => issue.path.join('.')).sort();
};

// ── The corrections README.md lists, one per deviation of the BCB's examples from its schemas ──

const statusNotNome = (rec: Json) => {
  rec.atualizacao = rec.atualizacao.map(({ nome, data }: Json) => ({ status: nome, data }));
  return rec;
};
const cepWithoutHyphen = (cobr: Json) => {
  cobr.devedor.cep = cobr.devedor.cep.replace('-', '');
  return cobr;
};
/** A tentativa without history: one entry, its status at the cobr's latest change. */
const tentativasWithHistory = (cobr: Json) => {
  const at = cobr.atualizacao.at(-1).data;
  for (const tentativa of cobr.tentativas) tentativa.atualizacao ??= [{ status: tentativa.status, data: at }];
  return cobr;
};
/** RecId: R, R|N (retries or none), the ISPB (8), … — what the examples' recPayload leaves out. */
const recPayloadFromIdRec = (solicRec: Json) => {
  const payload = solicRec.recPayload;
  payload.recebedor.ispbParticipante = payload.idRec.slice(2, 10);
  payload.politicaRetentativa = payload.idRec[1] === 'R' ? 'PERMITE_3R_7D' : 'NAO_PERMITE';
  return solicRec;
};

interface Example {
  deviations: string[];
  correct: (json: Json) => Json;
}

const REC_EXAMPLES = {
  recResponse1: {
    deviations: ['ativacao.tipoJornada', 'atualizacao.0.status'],
    correct: (rec) => {
      const { tipoJornada, ...dadosJornada } = rec.ativacao.dadosJornada;
      rec.ativacao = { tipoJornada, dadosJornada };
      return statusNotNome(rec);
    },
  },
  recResponse2: { deviations: ['atualizacao.0.status'], correct: statusNotNome },
  recResponse3: { deviations: ['atualizacao.0.status', 'atualizacao.1.status'], correct: statusNotNome },
  recResponse4: { deviations: ['atualizacao.0.status'], correct: statusNotNome },
  recResponse5: {
    deviations: ['atualizacao.0.status', 'atualizacao.1.status', 'atualizacao.2.status'],
    correct: statusNotNome,
  },
  recResponse6: { deviations: ['atualizacao.0.status'], correct: statusNotNome },
  recResponse7: {
    deviations: ['atualizacao.0.status', 'vinculo.objeto'],
    correct: (rec) => {
      rec.vinculo.objeto = rec.vinculo.objeto.slice(0, 35);
      return statusNotNome(rec);
    },
  },
  recResponse8: { deviations: ['atualizacao.0.status'], correct: statusNotNome },
} satisfies Record<string, Example>;

const COBR_EXAMPLES = {
  cobRResponse1: { deviations: ['devedor.cep'], correct: cepWithoutHyphen },
  cobRResponse2: { deviations: ['devedor.cep'], correct: cepWithoutHyphen },
  cobRResponse3: {
    deviations: ['devedor.cep', 'tentativas.0.atualizacao', 'tentativas.1.atualizacao'],
    correct: (cobr) => tentativasWithHistory(cepWithoutHyphen(cobr)),
  },
  cobRResponse4: {
    deviations: ['devedor.cep', 'recebedor.tipoConta', 'tentativas.0.atualizacao'],
    correct: (cobr) => {
      cobr.recebedor.tipoConta = 'POUPANCA';
      return tentativasWithHistory(cepWithoutHyphen(cobr));
    },
  },
} satisfies Record<string, Example>;

describe("the BCB's own examples (bacen/pix-api openapi.yaml 2.9)", () => {
  it.each(Object.entries(REC_EXAMPLES))(
    '%s is refused only where it breaks RecCompleta, and parses once corrected',
    (name, { deviations, correct }) => {
      expect(issuePaths(bcbRecCompleta, fixture(name))).toEqual(deviations);
      expect(issuePaths(bcbRecCompleta, correct(fixture(name)))).toEqual([]);
    },
  );

  it.each(Object.entries(COBR_EXAMPLES))(
    '%s is refused only where it breaks CobRCompleta, and parses once corrected',
    (name, { deviations, correct }) => {
      expect(issuePaths(bcbCobRCompleta, fixture(name))).toEqual(deviations);
      expect(issuePaths(bcbCobRCompleta, correct(fixture(name)))).toEqual([]);
    },
  );

  it.each(['solicRecResponse1', 'solicRecResponse2', 'solicRecResponse3'])(
    '%s parses as SolicRecCompleta once its recPayload has the ISPB and policy its idRec names',
    (name) => {
      expect(issuePaths(bcbSolicRecCompleta, fixture(name))).toEqual([
        'recPayload.politicaRetentativa',
        'recPayload.recebedor.ispbParticipante',
      ]);
      expect(issuePaths(bcbSolicRecCompleta, recPayloadFromIdRec(fixture(name)))).toEqual([]);
    },
  );

  const rec = (name: keyof typeof REC_EXAMPLES) =>
    mandateFromRec(bcbRecCompleta.parse(REC_EXAMPLES[name].correct(fixture(name))));

  it('recResponse5: a journey-1 mandate with a floor, cancelled by the receiver', () => {
    expect(rec('recResponse5')).toEqual({
      id: 'RR1026652320240821lab77511abf',
      reference: '298620560',
      status: 'cancelled',
      journey: 'journey_1',
      objectLabel: 'Faculdade de Engenharia',
      debtor: { name: 'Sebastião Silva', taxId: '12600511100' },
      startDate: '2024-10-01',
      endDate: '2027-09-01',
      periodicity: 'monthly',
      fixedAmount: null,
      minimumAmount: 80000,
      payerMaximum: null,
      retryPolicy: 'three_in_seven_days',
      rejection: null,
      cancellation: { by: 'receiver', code: 'SLCR', description: 'Cancelamento solicitado pelo usuário recebedor' },
      history: [
        { status: 'created', at: '2024-08-03T08:30:02.050Z' },
        { status: 'approved', at: '2024-09-06T09:11:42.205Z' },
        { status: 'cancelled', at: '2024-10-06T15:05:33.305Z' },
      ],
      qrCode: null,
      firstPaymentId: null,
      request: null,
    });
  });

  it('recResponse1: journey 3 names its immediate charge; a fixed amount of R$ 35,00', () => {
    expect(rec('recResponse1')).toMatchObject({
      id: 'RN1234567820240115abcdefghijk',
      reference: '63100862',
      status: 'created',
      journey: 'journey_3',
      firstPaymentId: '33beb661beda44a8928fef47dbeb2dc5',
      fixedAmount: 3500,
      minimumAmount: null,
      retryPolicy: 'none',
      endDate: '2025-04-01',
      debtor: { name: 'Fulano de Tal', taxId: '45164632481' },
      history: [{ status: 'created', at: '2023-12-19T12:28:05.230Z' }],
    });
  });

  it('recResponse2: yearly, no end, a floor of R$ 5.000,00, pending its journey', () => {
    expect(rec('recResponse2')).toMatchObject({
      periodicity: 'yearly',
      endDate: null,
      fixedAmount: null,
      minimumAmount: 500000,
      journey: 'pending',
      retryPolicy: 'three_in_seven_days',
      objectLabel: 'Serviço de Plano de Saúde.',
    });
  });

  it('recResponse3, 6 and 7: the QR code to show while the payer has not answered', () => {
    expect(rec('recResponse3')).toMatchObject({
      status: 'approved',
      fixedAmount: 30000,
      qrCode: fixture('recResponse3').dadosQR.pixCopiaECola,
    });
    expect(rec('recResponse3').qrCode).toMatch(/^00020126180014br\.gov\.bcb\.pix/);
    expect(rec('recResponse6')).toMatchObject({
      fixedAmount: 15000,
      startDate: '2025-02-01',
      qrCode: expect.stringMatching(/63047741$/),
    });
    expect(rec('recResponse7').qrCode).toContain('pix.example.com/qr/v2/cobv/1e6c54d3ec9449b7a7fc53b6b0f998e7');
  });

  it('getRec1: the listed rec maps as GET /rec/{idRec} does', () => {
    const listed = statusNotNome(fixture('getRec1').recs[0]);
    expect(mandateFromRec(bcbRecCompleta.parse(listed))).toEqual({ ...rec('recResponse3'), qrCode: null });
  });

  it('recWebhookNotification1 parses as it is: approved through journey 3', () => {
    const body = bcbWebhookRecBody.parse(fixture('recWebhookNotification1'));
    expect(mandateNoticeOf(first(body.recs))).toEqual({
      id: 'RR1026652320240821lab77511abf',
      status: 'approved',
      journey: 'journey_3',
      firstPaymentId: 'r9eFIFmwcZ55Nm4RsKZAAtIvvCrlcNN6',
      rejection: null,
      cancellation: null,
      history: [
        { status: 'created', at: '2024-08-20T10:12:07.567Z' },
        { status: 'approved', at: '2024-08-22T12:43:53.337Z' },
      ],
    });
  });

  const cobr = (name: keyof typeof COBR_EXAMPLES) =>
    chargeFromCobr(bcbCobRCompleta.parse(COBR_EXAMPLES[name].correct(fixture(name))));

  it('cobRResponse1: a created charge of R$ 106,07 due 2024-04-15, its reference from infoAdicional', () => {
    expect(cobr('cobRResponse1')).toEqual({
      id: '3136957d93134f2184b369e8f1c0729d',
      mandateId: 'RR1234567820240115abcdefghijk',
      reference: 'Serviços de Streamming de Música e Filmes.',
      dueDate: '2024-04-15',
      amount: 10607,
      status: 'created',
      retryPolicy: 'three_in_seven_days',
      attempts: [],
      rejection: null,
      cancellation: null,
      history: [{ status: 'created', at: '2024-04-01T14:47:29.470Z' }],
      paidAt: null,
    });
  });

  it('cobRResponse3: an expired scheduled attempt and an unscheduled one; no infoAdicional, so the txid is its reference', () => {
    expect(cobr('cobRResponse3')).toMatchObject({
      reference: '7f733863543b4a16b516d839bd4bc34e',
      amount: 5033,
      status: 'active',
      attempts: [
        {
          settlementDate: '2024-06-22',
          kind: 'scheduled',
          status: 'expired',
          endToEndId: 'E12345678202406201221abcdef12345',
          rejection: null,
        },
        { settlementDate: '2024-06-24', kind: 'unscheduled', status: 'scheduled', rejection: null },
      ],
    });
  });

  it('cobRResponse4: cancelled by the receiver (SLCR), no retries, R$ 210,00', () => {
    expect(cobr('cobRResponse4')).toMatchObject({
      amount: 21000,
      status: 'cancelled',
      retryPolicy: 'none',
      cancellation: {
        by: 'receiver',
        code: 'SLCR',
        description: 'Cancelamento de agendamento solicitado pelo usuário recebedor',
      },
      attempts: [{ kind: 'scheduled', status: 'cancelled', settlementDate: '2024-06-20' }],
      history: [
        { status: 'created', at: '2024-05-20T14:47:29.470Z' },
        { status: 'active', at: '2024-05-21T10:18:20.120Z' },
        { status: 'cancelled', at: '2024-05-26T10:18:20.120Z' },
      ],
    });
  });

  it("getCobR1: the listed cobr's attempt and its history, requested then scheduled", () => {
    const listed = cepWithoutHyphen(fixture('getCobR1').cobsr[0]);
    expect(chargeFromCobr(bcbCobRCompleta.parse(listed)).attempts).toEqual([
      {
        settlementDate: '2024-06-20',
        kind: 'scheduled',
        status: 'scheduled',
        endToEndId: 'E12345678202406201221abcdef12345',
        rejection: null,
        history: [
          { status: 'requested', at: '2024-05-21T10:40:16.730Z' },
          { status: 'scheduled', at: '2024-05-21T17:08:00.520Z' },
        ],
      },
    ]);
  });

  it('cobRWebhookNotification1: refused for its month 20 and missing attempt history; maps once corrected', () => {
    const body = fixture('cobRWebhookNotification1');
    expect(issuePaths(bcbWebhookCobRBody, body)).toEqual([
      'cobsr.0.tentativas.0.atualizacao',
      'cobsr.0.tentativas.0.dataLiquidacao',
    ]);
    body.cobsr[0].tentativas[0].dataLiquidacao = '2024-08-20';
    tentativasWithHistory(body.cobsr[0]);
    expect(chargeNoticeOf(first(bcbWebhookCobRBody.parse(body).cobsr))).toMatchObject({
      id: '3136957d93134f2184b369e8f1c0729d',
      mandateId: 'RR1234567820240115abcdefghijk',
      status: 'active',
      attempts: [{ settlementDate: '2024-08-20', kind: 'scheduled', status: 'requested' }],
      paidAt: null,
    });
  });
});

// ── Amounts ──────────────────────────────────────────────────────────────────────────────────────

describe('amounts: cents ↔ "12.34"', () => {
  it.each([
    [0, '0.00'],
    [1, '0.01'],
    [10, '0.10'],
    [10607, '106.07'],
    [199, '1.99'],
    [999_999_999_999, '9999999999.99'],
  ])('%p cents is "%s" and back', (cents, amount) => {
    expect(bcbAmountOf(cents)).toBe(amount);
    expect(centsOf(amount)).toBe(cents);
  });

  it('agrees with a decimal written by hand for any amount the pattern carries', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_999_999_999 }), fc.integer({ min: 0, max: 99 }), (reais, centavos) => {
        const written = `${reais}.${String(centavos).padStart(2, '0')}`;
        expect(centsOf(written)).toBe(reais * 100 + centavos);
        expect(bcbAmountOf(reais * 100 + centavos)).toBe(written);
      }),
    );
  });

  it.each(['12.3', '12', '12.345', '-1.00', '1,00', '12345678901.00', ' 1.00'])('refuses "%s"', (amount) => {
    expect(() => centsOf(amount)).toThrow(/two decimals/);
  });

  it.each([-1, 0.5, 1_000_000_000_000, Number.NaN])('refuses to write %p cents', (cents) => {
    expect(() => bcbAmountOf(cents)).toThrow(/whole cents/);
  });
});

// ── Round trips: record → payload → schema-valid → record ────────────────────────────────────────

const RECEIVER: BcbReceiver = {
  cnpj: '12345678000195',
  name: 'Loja de Testes Ltda',
  agreement: 'Master',
  account: { number: '012682', type: 'CORRENTE', branch: '9708' },
};

const alnum = (min: number, max: number) => fc.stringMatching(new RegExp(`^[a-zA-Z0-9]{${min},${max}}$`));
const isoDay = fc
  .date({ min: new Date('2024-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const instant = fc
  .date({ min: new Date('2024-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const cents = fc.integer({ min: 0, max: 999_999_999_999 });
const history = <S extends string>(statuses: readonly S[]) =>
  fc.array(fc.record({ status: fc.constantFrom(...statuses), at: instant }), { minLength: 1, maxLength: 4 });
const text = (max: number) => fc.string({ minLength: 1, maxLength: max });

const mandates: fc.Arbitrary<GatewayMandate> = fc
  .record({
    id: alnum(29, 29),
    reference: fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9 -]{1,31}$/)),
    status: fc.constantFrom('created', 'approved', 'rejected', 'expired', 'cancelled' as const),
    journey: fc.constantFrom('journey_1', 'journey_2', 'journey_3', 'journey_4', 'pending' as const),
    objectLabel: fc.oneof(fc.constant(''), text(35)),
    debtor: fc.record({
      name: text(140),
      taxId: fc.oneof(fc.stringMatching(/^\d{11}$/), fc.stringMatching(/^[0-9A-Z]{12}\d{2}$/)),
    }),
    startDate: isoDay,
    endDate: fc.option(isoDay),
    periodicity: fc.constantFrom('weekly', 'monthly', 'quarterly', 'semiannual', 'yearly' as const),
    amounts: fc.oneof(
      cents.map((fixedAmount) => ({ fixedAmount, minimumAmount: null })),
      fc.option(cents).map((minimumAmount) => ({ fixedAmount: null, minimumAmount })),
    ),
    retryPolicy: fc.constantFrom('none', 'three_in_seven_days' as const),
    closing: fc.oneof(
      fc.constant({ rejection: null, cancellation: null }),
      fc
        .record({ code: fc.constantFrom('AP13', 'AP14'), description: text(400) })
        .map((rejection) => ({ rejection, cancellation: null })),
      fc
        .record({
          code: fc.constantFrom('ACCL', 'CPCL', 'DCSD', 'ERSL', 'FRUD', 'PCFD', 'SLCR', 'SLDB'),
          description: text(400),
          by: fc.constantFrom('payer_psp', 'payer', 'receiver_psp', 'receiver' as const),
        })
        .map((cancellation) => ({ rejection: null, cancellation })),
    ),
    history: history(['created', 'approved', 'rejected', 'expired', 'cancelled'] as const),
    qrCode: fc.option(text(512)),
    firstPaymentId: fc.option(alnum(26, 35)),
    request: fc.option(
      fc.record({
        id: alnum(29, 29),
        status: fc.constantFrom('created', 'sent', 'received', 'rejected', 'accepted', 'expired', 'cancelled' as const),
        expiresAt: instant,
      }),
    ),
  })
  // A rec names a charge (dadosJornada.txid) for journey 3 only (the BCB removes it for 1, 2 and 4).
  .map(({ amounts, closing, ...mandate }) => ({
    ...mandate,
    ...amounts,
    ...closing,
    firstPaymentId: mandate.journey === 'journey_3' ? mandate.firstPaymentId : null,
    payerMaximum: null,
  }));

const attempts: fc.Arbitrary<GatewayMandateAttempt> = fc.record({
  settlementDate: isoDay,
  kind: fc.constantFrom('scheduled', 'unscheduled', 'retry' as const),
  status: fc.constantFrom('requested', 'scheduled', 'paid', 'cancelled', 'rejected', 'expired' as const),
  endToEndId: alnum(32, 32),
  rejection: fc.option(
    fc.record({
      code: fc.constantFrom('AB10', 'AC05', 'AC06', 'AM02', 'AM09', 'DENC', 'DS27'),
      description: text(400),
    }),
  ),
  history: fc.array(
    fc.record({
      status: fc.constantFrom('requested', 'scheduled', 'paid', 'cancelled', 'rejected', 'expired' as const),
      at: instant,
    }),
    { maxLength: 3 },
  ),
});

const charges: fc.Arbitrary<GatewayMandateCharge> = fc
  .record({
    id: alnum(26, 35),
    mandateId: alnum(29, 29),
    reference: text(140),
    dueDate: isoDay,
    amount: cents,
    status: fc.constantFrom('created', 'active', 'completed', 'expired', 'rejected', 'cancelled' as const),
    retryPolicy: fc.constantFrom('none', 'three_in_seven_days' as const),
    attempts: fc.array(attempts, { maxLength: 4 }),
    closing: fc.oneof(
      fc.constant({ rejection: null, cancellation: null }),
      fc
        .record({ code: fc.constantFrom('AC05', 'AM09', 'DENC', 'UDEI'), description: text(400) })
        .map((rejection) => ({ rejection, cancellation: null })),
      fc
        .record({
          code: fc.constantFrom('ACCT', 'BLCK', 'CCLD', 'FAIL', 'OTHR', 'SLBD', 'SLCR'),
          description: text(400),
          by: fc.constantFrom('payer_psp', 'payer', 'receiver_psp', 'receiver' as const),
        })
        .map((cancellation) => ({ rejection: null, cancellation })),
    ),
    history: history(['created', 'active', 'completed', 'expired', 'rejected', 'cancelled'] as const),
    paidAt: instant,
  })
  // Paid when, and only when, an attempt is: the pix of the paid attempt carries the time.
  .map(({ closing, paidAt, ...charge }) => ({
    ...charge,
    ...closing,
    paidAt: charge.attempts.some((attempt) => attempt.status === 'paid') ? paidAt : null,
  }));

describe('round trips', () => {
  it('a mandate → rec (valid RecCompleta) → the same mandate', () => {
    fc.assert(
      fc.property(mandates, (mandate) => {
        const rec = recFromMandate(mandate, RECEIVER);
        expect(issuePaths(bcbRecCompleta, rec)).toEqual([]);
        expect(mandateFromRec(bcbRecCompleta.parse(rec))).toEqual(mandate);
      }),
    );
  });

  it('a mandate → rec notification (valid) → its status, history and closing', () => {
    fc.assert(
      fc.property(mandates, (mandate) => {
        const notice = bcbRecNotification.parse(recNotificationOf(mandate));
        const { id, status, journey, history, rejection, cancellation, firstPaymentId } = mandate;
        expect(mandateNoticeOf(notice)).toEqual({
          id,
          status,
          journey,
          history,
          rejection,
          cancellation,
          firstPaymentId,
        });
      }),
    );
  });

  it('a charge → cobr (valid CobRCompleta) → the same charge', () => {
    fc.assert(
      fc.property(charges, (charge) => {
        const cobr = cobrFromCharge(charge, RECEIVER);
        expect(issuePaths(bcbCobRCompleta, cobr)).toEqual([]);
        expect(cobr.calendario.criacao).toBe(first(charge.history).at.slice(0, 10));
        expect(chargeFromCobr(bcbCobRCompleta.parse(cobr))).toEqual(charge);
      }),
    );
  });

  it('a charge → cobr notification (valid) → the same progress', () => {
    fc.assert(
      fc.property(charges, (charge) => {
        const notice = bcbCobRNotification.parse(cobrNotificationOf(charge));
        const { id, mandateId, status, attempts, rejection, cancellation, history, paidAt } = charge;
        expect(chargeNoticeOf(notice)).toEqual({
          id,
          mandateId,
          status,
          attempts,
          rejection,
          cancellation,
          history,
          paidAt,
        });
      }),
    );
  });

  it('a UUID reference travels as 32 characters in vinculo.contrato and comes back with its hyphens', () => {
    const mandate = first(fc.sample(mandates, { numRuns: 1, seed: 7 }));
    const reference = '0191f3a2-7c4e-7d1a-9b2f-3c4d5e6f7a8b';
    const rec = recFromMandate({ ...mandate, reference }, RECEIVER);
    expect(rec.vinculo.contrato).toBe('0191f3a27c4e7d1a9b2f3c4d5e6f7a8b');
    expect(mandateFromRec(rec).reference).toBe(reference);
  });
});

// ── Refusals ─────────────────────────────────────────────────────────────────────────────────────

describe('payloads the BCB would not send are refused', () => {
  const validRec = () => REC_EXAMPLES.recResponse5.correct(fixture('recResponse5'));
  const validCobr = () => COBR_EXAMPLES.cobRResponse4.correct(fixture('cobRResponse4'));

  it.each<[string, (rec: Json) => void, string]>([
    ['a status in English', (rec) => (rec.status = 'APPROVED'), 'status'],
    ['an idRec of 28 characters', (rec) => (rec.idRec = rec.idRec.slice(1)), 'idRec'],
    ['an idRec with a hyphen', (rec) => (rec.idRec = `R-${rec.idRec.slice(2)}`), 'idRec'],
    ['an amount with one decimal', (rec) => (rec.valor = { valorRec: '12.3' }), 'valor.valorRec'],
    ['an amount with a comma', (rec) => (rec.valor = { valorMinimoRecebedor: '12,30' }), 'valor.valorMinimoRecebedor'],
    [
      'both a fixed amount and a floor',
      (rec) => (rec.valor = { valorRec: '1.00', valorMinimoRecebedor: '1.00' }),
      'valor',
    ],
    ['a periodicity not listed', (rec) => (rec.calendario.periodicidade = 'QUINZENAL'), 'calendario.periodicidade'],
    ['a retry policy not listed', (rec) => (rec.politicaRetentativa = 'PERMITE_5R'), 'politicaRetentativa'],
    ['a cancellation code of a cobr (SLBD)', (rec) => (rec.encerramento.cancelamento.codigo = 'SLBD'), 'encerramento'],
    ['a contrato of 36 characters', (rec) => (rec.vinculo.contrato = 'x'.repeat(36)), 'vinculo.contrato'],
    ['a CPF of 10 digits', (rec) => (rec.vinculo.devedor.cpf = '1260051110'), 'vinculo.devedor.cpf'],
    ['a journey not listed', (rec) => (rec.ativacao.tipoJornada = 'JORNADA_5'), 'ativacao.tipoJornada'],
  ])('rec: %s', (_, spoil, path) => {
    const rec = validRec();
    spoil(rec);
    expect(issuePaths(bcbRecCompleta, rec)).toEqual([path]);
  });

  it.each<[string, (cobr: Json) => void, string]>([
    ['a txid of 25 characters', (cobr) => (cobr.txid = 'a'.repeat(25)), 'txid'],
    ['a txid of 36 characters', (cobr) => (cobr.txid = 'a'.repeat(36)), 'txid'],
    ['an amount of 11 digits', (cobr) => (cobr.valor.original = '12345678901.00'), 'valor.original'],
    ['a status not listed', (cobr) => (cobr.status = 'PAGA'), 'status'],
    ['an attempt kind not listed', (cobr) => (cobr.tentativas[0].tipo = 'RETR'), 'tentativas.0.tipo'],
    ['an attempt status of the cobr (ATIVA)', (cobr) => (cobr.tentativas[0].status = 'ATIVA'), 'tentativas.0.status'],
    [
      'an attempt rejection code not listed',
      (cobr) => (cobr.tentativas[0].rejeicao = { codigo: 'AP13', descricao: 'x' }),
      'tentativas.0.rejeicao.codigo',
    ],
    [
      'an endToEndId of 31 characters',
      (cobr) => (cobr.tentativas[0].endToEndId = 'E'.repeat(31)),
      'tentativas.0.endToEndId',
    ],
    [
      'a due date that is not a date',
      (cobr) => (cobr.calendario.dataDeVencimento = '2024-02-30'),
      'calendario.dataDeVencimento',
    ],
    ['no ajusteDiaUtil', (cobr) => delete cobr.ajusteDiaUtil, 'ajusteDiaUtil'],
  ])('cobr: %s', (_, spoil, path) => {
    const cobr = validCobr();
    spoil(cobr);
    expect(issuePaths(bcbCobRCompleta, cobr)).toEqual([path]);
  });

  it("a record the BCB's words cannot carry makes an invalid payload, which the schema catches", () => {
    const mandate = mandateFromRec(bcbRecCompleta.parse(validRec()));
    const rejected = { ...mandate, cancellation: null, rejection: { code: 'AB10', description: 'not a rec code' } };
    expect(issuePaths(bcbRecCompleta, recFromMandate(rejected, RECEIVER))).toEqual(['encerramento']);
    expect(() => recFromMandate({ ...mandate, reference: 'x'.repeat(36) }, RECEIVER)).toThrow(/vinculo.contrato/);
  });
});

// ── Ids ──────────────────────────────────────────────────────────────────────────────────────────

describe('ids formed as the BCB forms them, from our keys', () => {
  it("an idRec: R, R or N for the policy, the ISPB and the creation date, as the spec's RR1234567820240115abcdefghijk", () => {
    const id = bcbRecIdOf('three_in_seven_days', '12345678', '2024-01-15', 'subscription:1:mandate');
    expect(id).toMatch(/^RR1234567820240115[a-zA-Z0-9]{11}$/);
    expect(bcbRecIdOf('none', '12345678', '2024-01-15', 'subscription:1:mandate')).toMatch(/^RN1234567820240115/);
    expect(bcbRecIdOf('three_in_seven_days', '12345678', '2024-01-15', 'subscription:1:mandate')).toBe(id);
    expect(bcbRecIdOf('three_in_seven_days', '12345678', '2024-01-15', 'subscription:2:mandate')).not.toBe(id);
  });

  it('an endToEndId: E, the ISPB, the minute in UTC, 32 characters', () => {
    const id = bcbEndToEndIdOf('12345678', '2024-06-20T09:21:00-03:00', 'attempt-1');
    expect(id).toMatch(/^E12345678202406201221[a-zA-Z0-9]{11}$/);
  });

  it('every id fits its pattern, whatever the key', () => {
    fc.assert(
      fc.property(fc.string(), isoDay, instant, (key, day, at) => {
        expect(bcbRecId.safeParse(bcbRecIdOf('none', '99999999', day, key)).success).toBe(true);
        expect(bcbSolicRecId.safeParse(bcbSolicRecIdOf('99999999', day, key)).success).toBe(true);
        expect(bcbEndToEndId.safeParse(bcbEndToEndIdOf('99999999', at, key)).success).toBe(true);
        expect(bcbTxid.safeParse(bcbTxidOf(key)).success).toBe(true);
      }),
    );
  });
});
