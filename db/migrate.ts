import { loadConfigOrExit } from '../config/env.ts';
import { migrate } from './orm.ts';

const config = loadConfigOrExit('migrate');
await migrate(config.DATABASE_URL);
console.log('database migrated');
