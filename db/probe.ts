import type { Orm } from './orm.ts';
import { kyselyOf } from './kysely.ts';

/** The readiness probe's statement (`select 1`): resolves once PostgreSQL answers on the ORM's pool. */
export async function pingDatabase(orm: Orm): Promise<void> {
  await kyselyOf(orm.em.fork())
    .selectNoFrom((eb) => eb.lit(1).as('one'))
    .execute();
}
