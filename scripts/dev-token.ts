import { parseArgs } from 'node:util';
import { loadConfig } from '../config/env.ts';
import { openOrm } from '../db/orm.ts';
import { addAdminUser } from '../db/organization/users.ts';
import { devEnv } from './dev-env.ts';
import { mintUserJwt } from './seed.ts';

/** Mints a user JWT signed with the local secret: `npm run dev:token -- --email a@b.c [--admin]`. */
const { values } = parseArgs({
  options: {
    email: { type: 'string' },
    admin: { type: 'boolean', default: false },
    ttl: { type: 'string', default: '12h' },
  },
});
if (!values.email) {
  console.error('usage: npm run dev:token -- --email <email> [--admin] [--ttl 12h]');
  process.exit(2);
}
const config = loadConfig(devEnv());
if (!config.JWT_SECRET) {
  console.error('dev:token signs with JWT_SECRET; this deployment verifies JWTs against JWT_JWKS_URL instead');
  process.exit(2);
}
const email = values.email.toLowerCase();
if (values.admin) {
  const orm = await openOrm(config.DATABASE_URL, 1);
  await addAdminUser(orm.em.fork(), email);
  await orm.close();
}
const token = await mintUserJwt(email, config.JWT_SECRET, values.ttl);
console.log(token);
