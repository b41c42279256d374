import type { Linter } from 'eslint';

/** Types of eslint.config.js, for scripts that lint with part of it. */
export declare const APPLICATION: string[];
declare const config: Linter.Config[];
export default config;
