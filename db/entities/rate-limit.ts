import { defineEntity, p } from '@mikro-orm/core';

/** A fixed-window request counter shared by every API process (unlogged: losing it in a crash is harmless). */
export const RateLimitCounter = defineEntity({
  name: 'RateLimitCounter',
  tableName: 'rate_limit_counters',
  properties: {
    key: p.text().primary(),
    count: p.integer(),
    windowEndsAt: p.datetime(),
  },
});
