import { benchCheckouts } from './checkouts.ts';
import { benchCosts } from './costs.ts';
import { benchMetrics } from './metrics.ts';
import { benchProducts } from './products.ts';
import { benchRenewals } from './renewals.ts';
import { benchWebhooks } from './webhooks.ts';

/**
 * `npm run bench [-- products|checkouts|renewals|metrics|webhooks|costs]`: benchmarks that print figures (never timed
 * tests). They use their own database (BENCH_DATABASE_URL) and servers on ports of their own. Without a
 * name, products and checkouts run (the renewal storm takes many minutes and the metrics seed writes
 * 100,000 sales: they run when named).
 */
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/billing_bench';
const only = process.argv[2];
if (!only || only === 'products') await benchProducts(DATABASE_URL);
if (!only || only === 'checkouts') await benchCheckouts(DATABASE_URL);
if (only === 'renewals') await benchRenewals(DATABASE_URL);
if (only === 'metrics') await benchMetrics(DATABASE_URL);
if (only === 'webhooks') await benchWebhooks(DATABASE_URL);
if (only === 'costs') await benchCosts(DATABASE_URL);
process.exit(0);
