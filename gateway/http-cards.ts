import type { z } from 'zod';
import { cardInput, cardToken } from './card.ts';
import { snakeCaseTwin } from './http-fields.ts';

/** The card's wire shapes: the port's card (card.ts) with snake_case keys, the same checks. */
const cardInputTwin = snakeCaseTwin(cardInput);
export const wireCardInput = cardInputTwin.wire;
export type WireCardInput = z.infer<typeof wireCardInput>;
export const cardInputToWire = cardInputTwin.toWire;
export const cardInputFromWire = cardInputTwin.fromWire;

const cardTokenTwin = snakeCaseTwin(cardToken);
export const wireCardToken = cardTokenTwin.wire;
export type WireCardToken = z.infer<typeof wireCardToken>;
export const cardTokenToWire = cardTokenTwin.toWire;
export const cardTokenFromWire = cardTokenTwin.fromWire;
