import { loadConfigOrExit } from '../config/env.ts';
import { migrateGatewayBooks } from '../gateway/index.ts';
import { migrate } from './orm.ts';

const config = loadConfigOrExit('migrate');
await migrate(config.DATABASE_URL);
// The simulated gateway's books have migrations of their own (GATEWAY=simulator only).
await migrateGatewayBooks(config);
console.log('database migrated');
