import { pgArray } from '../../db/sql.ts';
import { heldAtGatesColumns, installGates, type Gates } from './gates.ts';

/**
 * Gates (test/helpers/gates.ts) that hold an organization's Pix Automático cycle charges (decision 0096)
 * at the moments a crash hurts most, as renewalGates does for card renewals. Each holds only the
 * subscriptions listed for it.
 *
 * - `sends`: sendMandateCharge waits right after the gateway committed the cycle's charge (the cobr),
 *   before the activity writes anything of ours (at the simulator's trace of the call,
 *   gateway_sim.attempts, which it writes after the call's own transaction).
 * - `charges`: sendMandateCharge waits in its transaction as it inserts the charge into
 *   mandate_charges (the gateway's charge made, ours not yet committed).
 * - `settlements`: readMandateCharge waits in its transaction as it marks the charge completed (the
 *   payer's bank settled it at the gateway; the period not recorded yet).
 * - `recordings`: the paid period's recording (recordRenewal, a local activity) waits in its
 *   transaction just before the renewal's sale row is written (its transaction and charge rows written,
 *   the subscription row locked).
 */
export type MandateGateName = 'sends' | 'charges' | 'settlements' | 'recordings';
export const MANDATE_GATE_NAMES: readonly MandateGateName[] = ['sends', 'charges', 'settlements', 'recordings'];

export type MandateGates = Gates<MandateGateName>;

export function mandateGates(
  databaseUrl: string,
  organizationId: string,
  only: Record<MandateGateName, string[]>,
): Promise<MandateGates> {
  const org = `'${organizationId}'::uuid`;
  return installGates<MandateGateName>(databaseUrl, 'mandate', organizationId, (waitAt) => {
    /** Waits at the gate when the subscription (an id expression) is one the gate holds. */
    const wait = (gate: MandateGateName, subscriptionId: string) =>
      `if ${subscriptionId} = any('${pgArray(only[gate])}'::uuid[]) then ${waitAt(gate)} end if;`;
    return {
      sends: {
        // mandateChargeKey: subscription:<id>:period:<n>:mandate-charge (whatever follows it)
        on: 'before insert on gateway_sim.attempts',
        when: `new.outcome = 'ran' and new.operation = 'create_mandate_charge' and new.key like 'subscription:%'`,
        body: `if exists (select 1 from subscriptions where id::text = split_part(new.key, ':', 2) and organization_id = ${org})
               then ${wait('sends', "split_part(new.key, ':', 2)::uuid")} end if;`,
      },
      charges: {
        on: 'before insert on mandate_charges',
        when: `new.organization_id = ${org}`,
        body: wait('charges', 'new.subscription_id'),
      },
      settlements: {
        on: 'before update on mandate_charges',
        when: `new.organization_id = ${org} and old.status <> 'completed' and new.status = 'completed'`,
        body: wait('settlements', 'new.subscription_id'),
      },
      recordings: {
        // A renewal's sale: the subscription's, with no checkout.
        on: 'before insert on sales',
        when: `new.organization_id = ${org} and new.subscription_id is not null and new.checkout_id is null`,
        body: wait('recordings', 'new.subscription_id'),
      },
    };
  });
}

/** SQL columns counting, per gate, the statements waiting at it now (each named after its gate). */
export const heldAtMandateGatesColumns = (organizationId: string) =>
  heldAtGatesColumns('mandate', organizationId, MANDATE_GATE_NAMES);
