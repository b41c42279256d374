import { pgArray } from '../../db/sql.ts';
import { heldAtGatesColumns, installGates, type Gates } from './gates.ts';

/**
 * Gates (test/helpers/gates.ts) that hold an organization's subscription renewals at the moments a
 * crash hurts most, as checkoutGates does for checkouts.
 *
 * - `charges`: a renewal charge waits right after the gateway committed its capture, before the
 *   chargeRenewal activity returns (at the simulator's trace of the attempt, gateway_sim.attempts,
 *   which it writes after the call's own transaction). The activity holds no transaction and no lock
 *   meanwhile (the subscription's workflow is its only writer).
 * - `recordings`: recordRenewal waits in its transaction just before the renewal's sale row is written
 *   (its transaction and charge rows written, the subscription row locked), for the subscriptions in
 *   `holdRecordings` (default: all); let through, or not held, each waits a random moment up to
 *   `recordingDelaySeconds`, so they commit one by one.
 */
export type RenewalGateName = 'charges' | 'recordings';
export const RENEWAL_GATE_NAMES: readonly RenewalGateName[] = ['charges', 'recordings'];

export type RenewalGates = Gates<RenewalGateName>;

export function renewalGates(
  databaseUrl: string,
  organizationId: string,
  options: { recordingDelaySeconds: number; holdRecordings?: string[] },
): Promise<RenewalGates> {
  const org = `'${organizationId}'::uuid`;
  return installGates<RenewalGateName>(databaseUrl, 'renewal', organizationId, (wait) => ({
    charges: {
      // renewalChargeKey: subscription:<id>:period:<n>:try:<n>
      on: 'before insert on gateway_sim.attempts',
      when: `new.outcome = 'ran' and new.operation = 'charge_card' and new.key like 'subscription:%:period:%'`,
      body: `if exists (select 1 from subscriptions where id::text = split_part(new.key, ':', 2) and organization_id = ${org})
             then ${wait('charges')} end if;`,
    },
    recordings: {
      // A renewal's sale: the subscription's, with no checkout.
      on: 'before insert on sales',
      when: `new.organization_id = ${org} and new.subscription_id is not null and new.checkout_id is null`,
      body: `${
        options.holdRecordings
          ? `if new.subscription_id = any('${pgArray(options.holdRecordings)}'::uuid[]) then ${wait('recordings')} end if;`
          : wait('recordings')
      } perform pg_sleep(random() * ${Number(options.recordingDelaySeconds)});`,
    },
  }));
}

/** SQL columns counting, per gate, the statements waiting at it now (each named after its gate). */
export const heldAtRenewalGatesColumns = (organizationId: string) =>
  heldAtGatesColumns('renewal', organizationId, RENEWAL_GATE_NAMES);
