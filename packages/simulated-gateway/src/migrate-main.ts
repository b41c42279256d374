import { migrateSimulator } from './migrate.ts';

/** `npm run migrate -w @billing/simulated-gateway`: the simulator's own migrations on DATABASE_URL. */
const applied = await migrateSimulator(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/billing');
console.log(`simulated gateway migrated${applied.length ? `: ${applied.join(', ')}` : ''}`);
