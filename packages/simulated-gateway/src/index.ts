/**
 * The simulated gateway (dev and test only: docs/decisions/0061-simulator-package.md): the sandbox's
 * gateway, embedded in the API and the worker (GATEWAY=simulator) or served over HTTP by server-main.ts.
 */
export { SimulatedGateway, type SimulatorCallbacks, type SimulatorFaults } from './simulator.ts';
export { ENGINE_PIX_WINDOW, MERCADO_PAGO_PIX_WINDOW, type PixExpiryWindow } from './simulator-fidelity.ts';
export { migrateSimulator, MIGRATIONS_TABLE } from './migrate.ts';
export { openSimulatorPool, type SimulatorConnection } from './database.ts';
