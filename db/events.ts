/** Moved to the event object's repository (db/event/events.ts); kept for the callers not yet switched. */
export * from './event/events.ts';
