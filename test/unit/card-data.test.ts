import { describe, expect, it } from '@jest/globals';
import { cardDataAccepted, cardSourceRefusal } from '../../domain/card-data.ts';
import { loadConfig } from '../../config/env.ts';

describe('where card data may travel (domain/card-data.ts)', () => {
  it('the sandbox always takes card data; a live deployment only when it accepts full PCI DSS scope', () => {
    expect(cardDataAccepted('test', false)).toBe(true);
    expect(cardDataAccepted('live', false)).toBe(false);
    expect(cardDataAccepted('live', true)).toBe(true);
  });

  it('one card per request: its data or its browser token', () => {
    expect(cardSourceRefusal({ cardData: true, browserToken: true }, true)?.code).toBe('ambiguous_card');
    expect(cardSourceRefusal({ cardData: true, browserToken: false }, false)?.code).toBe('card_data_refused');
    expect(cardSourceRefusal({ cardData: true, browserToken: false }, true)).toBeNull();
    expect(cardSourceRefusal({ cardData: false, browserToken: true }, false)).toBeNull();
    expect(cardSourceRefusal({ cardData: false, browserToken: false }, false)).toBeNull();
  });

  it('a gateway without card payments (Efí) refuses any card, data or token, before a call', () => {
    for (const sent of [
      { cardData: true, browserToken: false },
      { cardData: false, browserToken: true },
    ]) {
      expect(cardSourceRefusal(sent, true, false)?.code).toBe('payment_method_not_allowed');
    }
    expect(cardSourceRefusal({ cardData: false, browserToken: false }, true, false)).toBeNull();
  });

  it('ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE is read as true or false, nothing else', () => {
    const live = {
      DEPLOYMENT_ENV: 'live',
      GATEWAY: 'simulator',
      JWT_SECRET: 'a-live-jwt-secret-that-is-long-enough-0123456789',
      GATEWAY_CALLBACK_SECRET: 'live-callback-secret-0123456789',
    };
    expect(loadConfig(live, 'worker').acceptsCardData).toBe(false);
    expect(loadConfig({ ...live, ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE: 'true' }, 'worker').acceptsCardData).toBe(
      true,
    );
    expect(() => loadConfig({ ...live, ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE: 'yes' }, 'worker')).toThrow(
      /ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE: must be true or false/,
    );
    expect(loadConfig({ GATEWAY: 'simulator' }, 'worker').acceptsCardData).toBe(true);
  });
});
