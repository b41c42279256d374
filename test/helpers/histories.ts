import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

/**
 * With RECORD_HISTORIES=1, saves a workflow's history as test/workflow/histories/<name>.json for the
 * replay test (test/workflow/replay.test.ts); otherwise does nothing. `runId` picks one run of a
 * workflow that continued as new (default: the latest).
 */
export async function recordHistory(client: Client, name: string, workflowId: string, runId?: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  // protobufjs's own JSON form (enum names, base64 bytes, string longs); replay.test.ts reads it back with fromObject.
  const json = proto.temporal.api.history.v1.History.toObject(history as proto.temporal.api.history.v1.History, {
    longs: String,
    enums: String,
    bytes: String,
  });
  await writeFile(
    path.join(import.meta.dirname, '..', 'workflow', 'histories', `${name}.json`),
    `${JSON.stringify(json, null, 1)}\n`,
  );
}
