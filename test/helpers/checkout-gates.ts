import { pgArray } from '../../db/sql.ts';
import { heldAtGatesColumns as heldColumns, installGates, type Gates } from './gates.ts';

/**
 * Gates (test/helpers/gates.ts) that hold an organization's card checkouts at the moments a crash
 * hurts most, so a test can kill a process exactly there.
 *
 * - `tokenizations`: the API's tokenization of the buyer's card waits right after the gateway stored
 *   the token, before the route sends the Update (at the simulator's trace of the attempt,
 *   gateway_sim.attempts, which it writes after the call's own transaction).
 * - `confirmations`: preparing a confirmation waits in its transaction as it marks the checkout
 *   confirmed (the Update not yet accepted, nothing charged).
 * - `charges`: a card charge waits right after the gateway committed its capture, before the
 *   chargeCard activity returns (at the attempt's trace, as for tokenizations).
 * - `recordings`: a recording waits in its transaction just before the sale row is written (its
 *   customer and transaction rows written, the checkout row locked); once let through, each waits a
 *   random moment up to `recordingDelaySeconds`, so they commit one by one rather than all at once.
 */
export type GateName = 'tokenizations' | 'confirmations' | 'charges' | 'recordings';
export const GATE_NAMES: readonly GateName[] = ['tokenizations', 'confirmations', 'charges', 'recordings'];

export type CheckoutGates = Gates<GateName>;

export function checkoutGates(
  databaseUrl: string,
  organizationId: string,
  options: {
    recordingDelaySeconds: number;
    /** The checkouts a gate holds, when not all of the organization's. */
    only?: Partial<Record<GateName, string[]>>;
  },
): Promise<CheckoutGates> {
  return installGates<GateName>(databaseUrl, 'checkout', organizationId, (waitAt) => {
    const org = `'${organizationId}'::uuid`;
    /** Waits at the gate, when the checkout (an id expression) is one the gate holds. */
    const wait = (gate: GateName, checkoutId: string) => {
      const only = options.only?.[gate];
      const lock = waitAt(gate);
      return only ? `if ${checkoutId} = any('${pgArray(only)}'::uuid[]) then ${lock} end if;` : lock;
    };
    /** A gateway call of one of the organization's checkouts, keyed `checkout:<id>:<step>:…`, that has run. */
    const gatewayCall = (gate: GateName, step: string) => ({
      on: 'before insert on gateway_sim.attempts',
      when: `new.outcome = 'ran' and new.key like 'checkout:%:${step}:%'`,
      body: `if exists (select 1 from checkouts where id::text = split_part(new.key, ':', 2) and organization_id = ${org})
             then ${wait(gate, "split_part(new.key, ':', 2)::uuid")} end if;`,
    });
    return {
      tokenizations: gatewayCall('tokenizations', 'card'),
      confirmations: {
        on: 'before update on checkouts',
        when: `old.status = 'open' and new.status = 'confirmed' and new.organization_id = ${org}`,
        body: wait('confirmations', 'new.id'),
      },
      charges: gatewayCall('charges', 'charge'),
      recordings: {
        on: 'before insert on sales',
        when: `new.organization_id = ${org}`,
        body: `${wait('recordings', 'new.checkout_id')}
               perform pg_sleep(random() * ${Number(options.recordingDelaySeconds)});`,
      },
    };
  });
}

/** SQL columns counting, per gate, the statements waiting at it now (each named after its gate). */
export const heldAtGatesColumns = (organizationId: string) => heldColumns('checkout', organizationId, GATE_NAMES);
