import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { loadConfigOrExit } from '../config/env.ts';
import { openOrm } from '../db/orm.ts';
import { createGateway } from '../gateway/index.ts';
import { createWorker } from './worker.ts';

const config = loadConfigOrExit();
const level = (
  {
    fatal: 'ERROR',
    error: 'ERROR',
    warn: 'WARN',
    info: 'INFO',
    debug: 'DEBUG',
    trace: 'TRACE',
    silent: 'ERROR',
  } as const
)[config.LOG_LEVEL] satisfies LogLevel;
Runtime.install({ logger: new DefaultLogger(level) });
const orm = await openOrm(config.DATABASE_URL, config.DATABASE_POOL_MAX);
const { worker, connection } = await createWorker(config, { orm, gateway: createGateway(config, orm) });

// Worker.run() handles SIGINT/SIGTERM itself: it drains in-flight tasks, then resolves.
const running = worker.run();
// The line scripts and tests wait on: the worker polls its task queue from here on.
process.stdout.write(`worker ready: task queue ${config.TEMPORAL_TASK_QUEUE}, pid ${process.pid}\n`);
await running;
await connection.close();
await orm.close();
