import { describe, expect, it } from '@jest/globals';
import { temporalUiPort } from '../../scripts/dev-env.ts';

/** `npm start`'s Temporal UI listens where TEMPORAL_UI_URL (and so every workflow_url) points. */
describe('the Temporal UI port of npm start', () => {
  const base = { TEMPORAL_UI_URL: 'http://127.0.0.1:8233', TEMPORAL_ADDRESS: '127.0.0.1:7233', PORT: 8443 };

  it('is the port of TEMPORAL_UI_URL, whatever port Temporal itself takes', () => {
    expect(temporalUiPort(base)).toBe(8233);
    // Temporal moved to 7443: the UI stays where workflow_url points, never the API's 8443.
    expect(temporalUiPort({ ...base, TEMPORAL_ADDRESS: '127.0.0.1:7443' })).toBe(8233);
    expect(temporalUiPort({ ...base, TEMPORAL_UI_URL: 'http://localhost:9000' })).toBe(9000);
  });

  it("refuses a UI URL on the API's port or on Temporal's", () => {
    expect(() => temporalUiPort({ ...base, TEMPORAL_UI_URL: 'http://127.0.0.1:8443' })).toThrow("the API's PORT");
    expect(() => temporalUiPort({ ...base, TEMPORAL_UI_URL: 'http://127.0.0.1:7233' })).toThrow('TEMPORAL_ADDRESS');
  });
});
